/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tls(): syslog-ng 3.38's option names and defaults, and the SSL_CTX they
 * make (see net-tls.h).
 *
 * peer-verify() defaults to required-trusted, as in syslog-ng: a source
 * asks every client for a certificate and refuses one that does not chain
 * to ca-file()/ca-dir(); a destination refuses a server whose certificate
 * does not, or whose names (subjectAltName, else CN) do not match the
 * host it connects to.  The *-untrusted modes accept any certificate;
 * optional-* let a client present none.  The old yes and no, which
 * syslog-ng 3.38 still takes, are required-trusted and optional-untrusted
 * (net_tls_verify_mode()).
 *
 * Always set, as syslog-ng does or as OpenSSL 3 cannot do otherwise: no
 * SSLv2/SSLv3, no compression.  Also no renegotiation (a session carried
 * across a reload must not verify again against a context that is gone)
 * and a peer that closes without close_notify ends the stream like a TCP
 * close (loggen and most senders do; every message is framed, so nothing
 * half-read is taken for whole).
 *
 * sni(yes) (destinations; default no, as in syslog-ng) sends the host name
 * in the ClientHello unless it is an address.
 *
 * Not implemented, so refused by name: pkcs12-file(), dhparam-file(),
 * ecdh-curve-list(), sigalgs(), client-sigalgs(), keylog-file(),
 * allow-compress(), and cipher-suite(tls12-and-older() tls13()).
 */
#include "net-tls.h"

#include "sluice/cfg-tree.h"

#include <glib.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>
#include <stddef.h>

#define OFF(field) offsetof(NetTlsOptions, field)

static const char *const peer_verify_names[] = { "required-trusted", "required-untrusted", "optional-trusted",
                                                 "optional-untrusted", "yes", "no", "on", "off", "1", "0", NULL };

/* ssl-options(): the name and, at the same index, the OpenSSL option */
static const char *const ssl_option_names[] = { "no-sslv2", "no-sslv3",  "no-tlsv1", "no-tlsv11",
                                                "no-tlsv12", "no-tlsv13", NULL };
static const uint64_t ssl_option_bits[] = { SSL_OP_NO_SSLv2,   SSL_OP_NO_SSLv3,   SSL_OP_NO_TLSv1,
                                            SSL_OP_NO_TLSv1_1, SSL_OP_NO_TLSv1_2, SSL_OP_NO_TLSv1_3 };
G_STATIC_ASSERT(G_N_ELEMENTS(ssl_option_names) == G_N_ELEMENTS(ssl_option_bits) + 1);

const CfgOption net_tls_options[] = {
  { .name = "key-file", .type = CFG_OPT_STRING, .offset = OFF(key_file) },
  { .name = "cert-file", .type = CFG_OPT_STRING, .offset = OFF(cert_file) },
  { .name = "ca-dir", .type = CFG_OPT_STRING, .offset = OFF(ca_dir) },
  { .name = "ca-file", .type = CFG_OPT_STRING, .offset = OFF(ca_file) },
  { .name = "crl-dir", .type = CFG_OPT_STRING, .offset = OFF(crl_dir) },
  { .name = "cipher-suite", .type = CFG_OPT_STRING, .offset = OFF(cipher_suite) },
  { .name = "peer-verify", .type = CFG_OPT_ENUM, .offset = OFF(peer_verify),
    .def_int = NET_TLS_REQUIRED_TRUSTED, .names = peer_verify_names },
  { .name = "ssl-options", .type = CFG_OPT_FLAGS, .offset = OFF(ssl_options), .names = ssl_option_names },
  { .name = "trusted-keys", .type = CFG_OPT_STRING_LIST, .offset = OFF(trusted_keys) },
  { .name = "trusted-dn", .type = CFG_OPT_STRING_LIST, .offset = OFF(trusted_dn) },
  { .name = "sni", .type = CFG_OPT_BOOL, .offset = OFF(sni) },
  { .name = "handshake-timeout", .type = CFG_OPT_INT, .offset = OFF(handshake_timeout), .def_int = -1, .min = 0,
    .max = 86400 },
  { 0 },
};

/* net-tls.c */
NetTlsContext *net_tls_context_wrap(SSL_CTX *ctx, const NetTlsOptions *o, bool server, const char *location);
bool net_tls_context_key(NetTlsContext *c, const char *key_file, bool has_cert, char **error);
int net_tls_verify_callback(int ok, X509_STORE_CTX *store);
char *net_tls_error_text(const char *what, const char *file);

static bool
_load_files(SSL_CTX *ctx, const NetTlsOptions *o, char **error)
{
  /* OpenSSL opens them by name: a FIFO or a device would hang it or feed
   * it forever, so each must be a regular file first */
  const char *const what[] = { "cert-file", "key-file", "ca-file" };
  const char *const files[] = { o->cert_file, o->key_file, o->ca_file };
  for (size_t i = 0; i < G_N_ELEMENTS(files); i++)
    {
      char *why = NULL;
      if (files[i] && !cfg_file_check_regular(files[i], &why))
        {
          *error = g_strdup_printf("cannot load %s(\"%s\"): %s", what[i], files[i], why);
          g_free(why);
          return false;
        }
    }
  if (o->cert_file && SSL_CTX_use_certificate_chain_file(ctx, o->cert_file) != 1)
    {
      *error = net_tls_error_text("cannot load cert-file", o->cert_file);
      return false;
    }
  /* key-file: net_tls_context_key(), once the context is made */
  if ((o->ca_file || o->ca_dir) && SSL_CTX_load_verify_locations(ctx, o->ca_file, o->ca_dir) != 1)
    {
      *error = o->ca_file ? net_tls_error_text("cannot load ca-file", o->ca_file)
                          : net_tls_error_text("cannot use ca-dir", o->ca_dir);
      return false;
    }
  if (o->crl_dir)
    {
      X509_STORE *store = SSL_CTX_get_cert_store(ctx);
      X509_LOOKUP *lookup = X509_STORE_add_lookup(store, X509_LOOKUP_hash_dir());
      if (!lookup || X509_LOOKUP_add_dir(lookup, o->crl_dir, X509_FILETYPE_PEM) != 1)
        {
          *error = net_tls_error_text("cannot use crl-dir", o->crl_dir);
          return false;
        }
      X509_STORE_set_flags(store, X509_V_FLAG_CRL_CHECK);
    }
  return true;
}

static int
_verify_mode(const NetTlsOptions *o, bool server)
{
  switch (net_tls_verify_mode(o->peer_verify))
    {
    case NET_TLS_OPTIONAL_UNTRUSTED: return server ? SSL_VERIFY_NONE : SSL_VERIFY_PEER;
    case NET_TLS_OPTIONAL_TRUSTED: return SSL_VERIFY_PEER;
    default: return SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
    }
}

NetTlsContext *
net_tls_context_new(const NetTlsOptions *o, bool server, const char *location, char **error)
{
  if (server && (!o->key_file || !o->cert_file))
    {
      /* syslog-ng starts and fails every handshake; a clear refusal
       * helps more */
      *error = g_strdup("a TLS source needs tls(key-file() cert-file())");
      return NULL;
    }
  if (server && o->sni)
    {
      *error = g_strdup("tls(sni()) is a destination option: a source does not send a server name");
      return NULL;
    }
  if (!server && o->handshake_timeout >= 0)
    {
      /* a destination's handshake waits as long as its connect does */
      *error = g_strdup("tls(handshake-timeout()) is a source option: a destination's handshake is bounded by "
                        "its own timeout");
      return NULL;
    }
  if ((o->key_file != NULL) != (o->cert_file != NULL))
    {
      *error = g_strdup("tls(): key-file() and cert-file() go together");
      return NULL;
    }
  ERR_clear_error();
  SSL_CTX *ctx = SSL_CTX_new(server ? TLS_server_method() : TLS_client_method());
  if (!ctx)
    {
      *error = net_tls_error_text("cannot create an SSL context", "");
      return NULL;
    }
  uint64_t opts = SSL_OP_NO_SSLv2 | SSL_OP_NO_SSLv3 | SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION
                  | SSL_OP_IGNORE_UNEXPECTED_EOF;
  for (size_t i = 0; ssl_option_names[i]; i++)
    if (o->ssl_options & (1u << i))
      opts |= ssl_option_bits[i];
  SSL_CTX_set_options(ctx, opts);
  SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  if (!_load_files(ctx, o, error))
    {
      SSL_CTX_free(ctx);
      return NULL;
    }
  if (o->cipher_suite && SSL_CTX_set_cipher_list(ctx, o->cipher_suite) != 1)
    {
      *error = net_tls_error_text("cipher-suite", o->cipher_suite);
      SSL_CTX_free(ctx);
      return NULL;
    }
  SSL_CTX_set_verify(ctx, _verify_mode(o, server), net_tls_verify_callback);
  if (server)
    {
      /* a session id context is needed once client certificates are
       * asked for, or resumed sessions fail */
      static const unsigned char sid[] = "sluice";
      SSL_CTX_set_session_id_context(ctx, sid, sizeof(sid) - 1);
      /* no TLS 1.3 session tickets: a syslog client never reads, and a
       * client that closes with unread bytes sends a reset, which makes
       * this side's kernel drop what the client wrote last */
      SSL_CTX_set_num_tickets(ctx, 0);
      /* no read-ahead: a source's session reads through a buffering BIO
       * (net_tls_transport_new), which takes several records per read(2) */
    }
  NetTlsContext *c = net_tls_context_wrap(ctx, o, server, location);
  if (o->key_file && !net_tls_context_key(c, o->key_file, o->cert_file != NULL, error))
    {
      net_tls_context_unref(c);
      return NULL;
    }
  return c;
}

const CfgNode *
net_tls_node(const CfgNode *call)
{
  const CfgNode *found = NULL;
  for (size_t i = 0; i < call->n_children; i++)
    if (cfg_name_equal(call->children[i]->name, "tls"))
      found = call->children[i];
  return found;
}

bool
net_tls_context_for_call(const NetTlsOptions *o, const CfgNode *call, bool server, NetTlsContext **ctx,
                         CfgError *err)
{
  *ctx = NULL;
  const CfgNode *tls = net_tls_node(call);
  if (!tls)
    return true;
  char *location = g_strdup_printf("%s:%d:%d", call->loc.file, call->loc.line, call->loc.col);
  char *error = NULL;
  *ctx = net_tls_context_new(o, server, location, &error);
  g_free(location);
  if (!*ctx)
    {
      cfg_error_set(err, &tls->loc, "%s(): %s", call->name, error);
      g_free(error);
      return false;
    }
  return true;
}
