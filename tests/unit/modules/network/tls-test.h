/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Certificates for the TLS tests, made at test time with OpenSSL (no key
 * is committed): a CA, a server certificate it signs for "localhost" and
 * 127.0.0.1, a client certificate it signs (CN=client, O=Sluice Test), a
 * server certificate it signs for another name only (CN=wronghost), and a
 * self-signed "rogue" certificate nobody trusts.  EC P-256 keys: quick to
 * make.  PEM files in a mktemp directory, removed by tls_certs_free().
 *
 * And a blocking TLS client for the tests to talk to a source with.
 */
#ifndef TLS_TEST_H
#define TLS_TEST_H

#include <criterion/criterion.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct TlsCerts
{
  char *dir;
  char *ca, *server_cert, *server_key, *client_cert, *client_key, *wrong_cert, *wrong_key, *rogue_cert,
    *rogue_key;
  char client_sha1[128]; /* "SHA1:AB:..." of the client certificate */
  char *ca_dir;          /* the CA under its hashed name, for ca-dir() */
  char *crl_dir;         /* a CRL of the CA revoking the client certificate, for crl-dir() */
  char *ca_hashed, *crl_hashed;
} TlsCerts;

static void
_tls_write_pem(const char *path, X509 *cert, EVP_PKEY *key)
{
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f, "%s", path);
  if (cert)
    PEM_write_X509(f, cert);
  if (key)
    PEM_write_PrivateKey(f, key, NULL, NULL, 0, NULL, NULL);
  fclose(f);
}

static void
_tls_add_ext(X509 *cert, X509 *issuer, int nid, const char *value)
{
  X509V3_CTX v3;
  X509V3_set_ctx(&v3, issuer, cert, NULL, NULL, 0);
  X509_EXTENSION *ext = X509V3_EXT_conf_nid(NULL, &v3, nid, value);
  cr_assert_not_null(ext);
  X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
}

/* A certificate for key with subject cn (and o), signed by issuer/ikey
 * (NULL: self-signed); san: a subjectAltName value or NULL. */
static X509 *
_tls_cert(EVP_PKEY *key, const char *cn, const char *o, X509 *issuer, EVP_PKEY *ikey, const char *san, bool ca,
          long serial)
{
  X509 *c = X509_new();
  X509_set_version(c, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(c), serial);
  X509_gmtime_adj(X509_getm_notBefore(c), -3600);
  X509_gmtime_adj(X509_getm_notAfter(c), 3600L * 24 * 365);
  X509_set_pubkey(c, key);
  X509_NAME *name = X509_get_subject_name(c);
  if (o)
    X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC, (const unsigned char *) o, -1, -1, 0);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *) cn, -1, -1, 0);
  X509_set_issuer_name(c, issuer ? X509_get_subject_name(issuer) : name);
  _tls_add_ext(c, issuer ? issuer : c, NID_basic_constraints, ca ? "critical,CA:TRUE" : "CA:FALSE");
  if (san)
    _tls_add_ext(c, issuer ? issuer : c, NID_subject_alt_name, san);
  cr_assert(X509_sign(c, ikey ? ikey : key, EVP_sha256()) > 0);
  return c;
}

static char *
_tls_path(TlsCerts *t, const char *name)
{
  return g_build_filename(t->dir, name, NULL);
}

static void
_tls_pair(TlsCerts *t, const char *name, X509 *cert, EVP_PKEY *key, char **cert_path, char **key_path)
{
  char *c = g_strdup_printf("%s.pem", name), *k = g_strdup_printf("%s.key", name);
  *cert_path = _tls_path(t, c);
  *key_path = _tls_path(t, k);
  _tls_write_pem(*cert_path, cert, NULL);
  _tls_write_pem(*key_path, NULL, key);
  g_free(c);
  g_free(k);
}

/* crl-dir(): the CA's CRL, revoking serial, under its hashed name. */
static void
_tls_crl(TlsCerts *t, X509 *ca, EVP_PKEY *cak, long serial)
{
  X509_CRL *crl = X509_CRL_new();
  X509_CRL_set_version(crl, 1);
  X509_CRL_set_issuer_name(crl, X509_get_subject_name(ca));
  ASN1_TIME *last = ASN1_TIME_adj(NULL, time(NULL), -1, 0), *next = ASN1_TIME_adj(NULL, time(NULL), 30, 0);
  X509_CRL_set1_lastUpdate(crl, last);
  X509_CRL_set1_nextUpdate(crl, next);
  X509_REVOKED *rev = X509_REVOKED_new();
  ASN1_INTEGER *sn = ASN1_INTEGER_new();
  ASN1_INTEGER_set(sn, serial);
  X509_REVOKED_set_serialNumber(rev, sn);
  X509_REVOKED_set_revocationDate(rev, last);
  X509_CRL_add0_revoked(crl, rev);
  X509_CRL_sort(crl);
  cr_assert(X509_CRL_sign(crl, cak, EVP_sha256()) > 0);
  char name[32];
  unsigned long h = X509_NAME_hash_ex(X509_get_subject_name(ca), NULL, NULL, NULL);
  snprintf(name, sizeof(name), "%08lx.r0", h);
  t->crl_dir = _tls_path(t, "crl");
  g_mkdir(t->crl_dir, 0700);
  t->crl_hashed = g_build_filename(t->crl_dir, name, NULL);
  FILE *f = fopen(t->crl_hashed, "w");
  PEM_write_X509_CRL(f, crl);
  fclose(f);
  snprintf(name, sizeof(name), "%08lx.0", h);
  t->ca_dir = _tls_path(t, "cadir");
  g_mkdir(t->ca_dir, 0700);
  t->ca_hashed = g_build_filename(t->ca_dir, name, NULL);
  _tls_write_pem(t->ca_hashed, ca, NULL);
  ASN1_INTEGER_free(sn);
  ASN1_TIME_free(last);
  ASN1_TIME_free(next);
  X509_CRL_free(crl);
}

static G_GNUC_UNUSED void
tls_certs_make(TlsCerts *t)
{
  memset(t, 0, sizeof(*t));
  t->dir = g_dir_make_tmp("sluice-tls-XXXXXX", NULL);
  cr_assert_not_null(t->dir);
  EVP_PKEY *cak = EVP_EC_gen("P-256"), *sk = EVP_EC_gen("P-256"), *ck = EVP_EC_gen("P-256"),
           *wk = EVP_EC_gen("P-256"), *rk = EVP_EC_gen("P-256");
  X509 *ca = _tls_cert(cak, "Sluice Test CA", NULL, NULL, NULL, NULL, true, 1);
  X509 *srv = _tls_cert(sk, "localhost", NULL, ca, cak, "DNS:localhost,IP:127.0.0.1", false, 2);
  X509 *cli = _tls_cert(ck, "client", "Sluice Test", ca, cak, NULL, false, 3);
  X509 *wrong = _tls_cert(wk, "wronghost", NULL, ca, cak, "DNS:wronghost", false, 4);
  X509 *rogue = _tls_cert(rk, "rogue", NULL, NULL, NULL, NULL, false, 5);
  t->ca = _tls_path(t, "ca.pem");
  _tls_write_pem(t->ca, ca, NULL);
  _tls_pair(t, "server", srv, sk, &t->server_cert, &t->server_key);
  _tls_pair(t, "client", cli, ck, &t->client_cert, &t->client_key);
  _tls_pair(t, "wrong", wrong, wk, &t->wrong_cert, &t->wrong_key);
  _tls_pair(t, "rogue", rogue, rk, &t->rogue_cert, &t->rogue_key);
  _tls_crl(t, ca, cak, 3); /* the client's serial */
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  X509_digest(cli, EVP_sha1(), md, &n);
  size_t off = (size_t) snprintf(t->client_sha1, sizeof(t->client_sha1), "SHA1:");
  for (unsigned int i = 0; i < n; i++)
    off += (size_t) snprintf(t->client_sha1 + off, sizeof(t->client_sha1) - off, i ? ":%02X" : "%02X", md[i]);
  X509 *all[] = { ca, srv, cli, wrong, rogue };
  EVP_PKEY *keys[] = { cak, sk, ck, wk, rk };
  for (size_t i = 0; i < G_N_ELEMENTS(all); i++)
    {
      X509_free(all[i]);
      EVP_PKEY_free(keys[i]);
    }
}

static G_GNUC_UNUSED void
tls_certs_free(TlsCerts *t)
{
  char *files[] = { t->ca,         t->server_cert, t->server_key, t->client_cert, t->client_key,
                    t->wrong_cert, t->wrong_key,   t->rogue_cert, t->rogue_key };
  for (size_t i = 0; i < G_N_ELEMENTS(files); i++)
    {
      g_unlink(files[i]);
      g_free(files[i]);
    }
  g_unlink(t->crl_hashed);
  g_unlink(t->ca_hashed);
  g_rmdir(t->crl_dir);
  g_rmdir(t->ca_dir);
  g_free(t->crl_hashed);
  g_free(t->ca_hashed);
  g_free(t->crl_dir);
  g_free(t->ca_dir);
  g_rmdir(t->dir);
  g_free(t->dir);
}

/* ---- a blocking client --------------------------------------------------------- */

typedef struct TlsClient
{
  int fd;
  SSL_CTX *ctx;
  SSL *ssl;
} TlsClient;

/* Connects to 127.0.0.1:port and handshakes, presenting cert/key when
 * given; returns whether the handshake succeeded (the server may still
 * refuse the client right after it, TLS 1.3 verifies the client late). */
static G_GNUC_UNUSED bool
tls_client_open(TlsClient *c, int port, const char *cert, const char *key)
{
  memset(c, 0, sizeof(*c));
  c->ctx = SSL_CTX_new(TLS_client_method());
  SSL_CTX_set_verify(c->ctx, SSL_VERIFY_NONE, NULL);
  if (cert)
    {
      cr_assert_eq(SSL_CTX_use_certificate_chain_file(c->ctx, cert), 1);
      cr_assert_eq(SSL_CTX_use_PrivateKey_file(c->ctx, key, SSL_FILETYPE_PEM), 1);
    }
  c->fd = tcp_connect(port);
  c->ssl = SSL_new(c->ctx);
  SSL_set_fd(c->ssl, c->fd);
  return SSL_connect(c->ssl) == 1;
}

/* Writes all of s; false when the connection failed. */
static G_GNUC_UNUSED bool
tls_client_send(TlsClient *c, const char *data, size_t len)
{
  while (len > 0)
    {
      int n = SSL_write(c->ssl, data, (int) len);
      if (n <= 0)
        return false;
      data += n;
      len -= (size_t) n;
    }
  return true;
}

/* True when the server ends the session (alert, close or reset) within
 * WAIT_MS. */
static G_GNUC_UNUSED bool
tls_client_refused(TlsClient *c)
{
  struct timeval tv = { .tv_sec = WAIT_MS / 1000 };
  setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  char buf[64];
  int n = SSL_read(c->ssl, buf, sizeof(buf));
  if (n > 0)
    return false;
  int e = SSL_get_error(c->ssl, n);
  return e == SSL_ERROR_SSL || e == SSL_ERROR_ZERO_RETURN || (e == SSL_ERROR_SYSCALL && errno != EAGAIN);
}

static G_GNUC_UNUSED void
tls_client_close(TlsClient *c)
{
  if (c->ssl)
    {
      SSL_shutdown(c->ssl);
      SSL_free(c->ssl);
    }
  /* read to the end before closing: a close with unread bytes resets the
   * connection, and the server's kernel drops what it had not read yet */
  shutdown(c->fd, SHUT_WR);
  struct timeval tv = { .tv_sec = WAIT_MS / 1000 };
  setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  char buf[4096];
  while (recv(c->fd, buf, sizeof(buf), 0) > 0)
    ;
  SSL_CTX_free(c->ctx);
  close(c->fd);
  ERR_clear_error();
}

#endif
