/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * TLS sessions and peer verification (see net-tls.h).
 *
 * Verification follows syslog-ng 3.38 and logs with its words, so an
 * operator's searches find the same lines:
 *   "Certificate validation failed; subject='CN=x', issuer='CN=y',
 *    error='self-signed certificate', depth='0'"
 *   "Certificate subject does not match configured hostname;
 *    hostname='h', certificate='CN'"
 *   "Certificate valid, but fingerprint constraints were not met, rejecting"
 *   "Certificate valid, but DN constraints were not met, rejecting"
 * then "SSL error while reading stream" (sources) or "... writing stream"
 * (destinations) with OpenSSL's error and the driver's location.
 *
 * The *-untrusted modes accept a certificate whatever its chain says;
 * trusted-keys() and trusted-dn() still apply to it.  The destination's
 * host name is checked (OpenSSL's host or IP check of the subjectAltName,
 * else the CN) in the trusted modes only, as syslog-ng does.
 */
#include "net-tls.h"

#include "sluice/glob.h"
#include "sluice/internal-log.h"
#include "sluice/secrets.h"

#include <errno.h>
#include <glib.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct NetTlsContext
{
  atomic_int refs;
  SSL_CTX *ctx;
  bool server;
  NetTlsVerify verify;
  bool sni;
  int handshake_timeout;    /* seconds; 0: none */
  char **trusted_keys;
  char **trusted_dn;
  char location[128];
  /* a key-file that needs a passphrase (syslog-ng's secret storage):
   * until the credential store gives one that opens it, key_pending
   * holds and no session is made; the rest under key_lock */
  char *key_file;
  bool has_cert;
  atomic_bool key_pending;
  GMutex key_lock;
  unsigned key_tried;       /* the store's generation last tried */
  bool key_asked;           /* OpenSSL asked for a passphrase */
  bool key_had_secret;      /* ... and the store had one */
  bool key_warned;          /* a refused session was logged */
};

/* ---- the context --------------------------------------------------------- */

/* Called by net_tls_context_new(): takes ctx, copies what verification
 * needs out of o (the options are the driver's, which may go first). */
NetTlsContext *net_tls_context_wrap(SSL_CTX *ctx, const NetTlsOptions *o, bool server, const char *location);
/* Then its key-file, with the passphrase from the credential store when
 * it has one: false with *error when the file cannot be used; a key that
 * waits for its passphrase is not an error (it is logged, and sessions
 * wait for it). */
bool net_tls_context_key(NetTlsContext *c, const char *key_file, bool has_cert, char **error);
char *net_tls_error_text(const char *what, const char *file);
int net_tls_verify_callback(int ok, X509_STORE_CTX *store);

NetTlsContext *
net_tls_context_wrap(SSL_CTX *ctx, const NetTlsOptions *o, bool server, const char *location)
{
  NetTlsContext *c = calloc(1, sizeof(*c));
  if (!c)
    abort();
  atomic_init(&c->refs, 1);
  g_mutex_init(&c->key_lock);
  c->ctx = ctx;
  c->server = server;
  c->verify = net_tls_verify_mode(o->peer_verify);
  c->sni = o->sni;
  if (server)
    c->handshake_timeout = o->handshake_timeout < 0 ? NET_TLS_HANDSHAKE_TIMEOUT_DEFAULT
                                                    : (int) o->handshake_timeout;
  c->trusted_keys = g_strdupv(o->trusted_keys);
  c->trusted_dn = g_strdupv(o->trusted_dn);
  g_strlcpy(c->location, location ? location : "", sizeof(c->location));
  SSL_CTX_set_app_data(ctx, c);
  return c;
}

NetTlsContext *
net_tls_context_ref(NetTlsContext *c)
{
  atomic_fetch_add(&c->refs, 1);
  return c;
}

int
net_tls_context_handshake_timeout(const NetTlsContext *c)
{
  return c ? c->handshake_timeout : 0;
}

void
net_tls_context_unref(NetTlsContext *c)
{
  if (!c || atomic_fetch_sub(&c->refs, 1) != 1)
    return;
  SSL_CTX_free(c->ctx);
  g_strfreev(c->trusted_keys);
  g_strfreev(c->trusted_dn);
  g_free(c->key_file);
  g_mutex_clear(&c->key_lock);
  free(c);
}

/* ---- a key-file and its passphrase -------------------------------------------- */

typedef enum KeyLoad
{
  KEY_OK,
  KEY_NO_SECRET,  /* encrypted, and no passphrase was given */
  KEY_BAD_SECRET, /* encrypted, and the passphrase given does not open it */
  KEY_ERROR,      /* anything else: *error says what */
} KeyLoad;

/* OpenSSL's passphrase callback: the credential store's secret for the
 * key-file, never a prompt on the terminal */
static int
_passphrase(char *buf, int size, int rwflag, void *user_data)
{
  (void) rwflag;
  NetTlsContext *c = user_data;
  c->key_asked = true;
  size_t len = 0;
  bool ok = size > 0 && sluice_secret_copy(c->key_file, buf, (size_t) size, &len);
  /* one too long for OpenSSL's buffer was given too: a wrong one */
  c->key_had_secret = ok || len > 0;
  return ok ? (int) len : -1;
}

/* The last OpenSSL error as text, for a configuration error or a log
 * line (the error queue is emptied). */
char *
net_tls_error_text(const char *what, const char *file)
{
  char buf[256] = "unknown error";
  unsigned long e, last = 0;
  while ((e = ERR_get_error()) != 0)
    last = e;
  if (last)
    ERR_error_string_n(last, buf, sizeof(buf));
  return g_strdup_printf("%s(\"%s\"): %s", what, file, buf);
}

static KeyLoad
_key_load(NetTlsContext *c, char **error)
{
  c->key_asked = c->key_had_secret = false;
  ERR_clear_error();
  if (SSL_CTX_use_PrivateKey_file(c->ctx, c->key_file, SSL_FILETYPE_PEM) != 1)
    {
      if (c->key_asked)
        {
          ERR_clear_error();
          return c->key_had_secret ? KEY_BAD_SECRET : KEY_NO_SECRET;
        }
      *error = net_tls_error_text("cannot load key-file", c->key_file);
      return KEY_ERROR;
    }
  if (c->has_cert && SSL_CTX_check_private_key(c->ctx) != 1)
    {
      *error = net_tls_error_text("key-file does not match cert-file", c->key_file);
      return KEY_ERROR;
    }
  return KEY_OK;
}

/* What a load says to the store and the log; true when the key is in */
static bool
_key_outcome(NetTlsContext *c, KeyLoad r, const char *error)
{
  switch (r)
    {
    case KEY_OK:
      if (c->key_asked)
        sluice_secret_set_state(c->key_file, SLUICE_SECRET_SUCCESS);
      return true;
    case KEY_NO_SECRET:
      sluice_secret_set_state(c->key_file, SLUICE_SECRET_PENDING);
      sluice_log(SLUICE_LOG_WARNING, "TLS key-file is protected by a passphrase; no TLS session is made until it "
                 "is given with sluice-ctl credentials add --id=KEY-FILE",
                 "key-file", c->key_file, "location", c->location, NULL);
      return false;
    case KEY_BAD_SECRET:
      sluice_secret_set_state(c->key_file, SLUICE_SECRET_INVALID_PASSWORD);
      sluice_log(SLUICE_LOG_ERROR, "The passphrase given for the TLS key-file does not open it; waiting for "
                 "another", "key-file", c->key_file, "location", c->location, NULL);
      return false;
    default:
      sluice_secret_set_state(c->key_file, SLUICE_SECRET_FAILED);
      sluice_log(SLUICE_LOG_ERROR, "Cannot use the TLS key-file", "error", error, "location", c->location, NULL);
      return false;
    }
}

bool
net_tls_context_key(NetTlsContext *c, const char *key_file, bool has_cert, char **error)
{
  c->key_file = g_strdup(key_file);
  c->has_cert = has_cert;
  SSL_CTX_set_default_passwd_cb(c->ctx, _passphrase);
  SSL_CTX_set_default_passwd_cb_userdata(c->ctx, c);
  c->key_tried = sluice_secret_generation();
  KeyLoad r = _key_load(c, error);
  if (r == KEY_ERROR)
    return false;
  atomic_init(&c->key_pending, !_key_outcome(c, r, NULL));
  return true;
}

/* c's SSL_CTX once its key is in, else NULL: a key waiting for its
 * passphrase is tried again when the store has taken a secret since the
 * last try (any thread) */
static SSL_CTX *
_ssl_ctx(NetTlsContext *c)
{
  if (!atomic_load_explicit(&c->key_pending, memory_order_acquire))
    return c->ctx;
  g_mutex_lock(&c->key_lock);
  unsigned gen = sluice_secret_generation();
  bool pending = atomic_load_explicit(&c->key_pending, memory_order_relaxed);
  if (pending && gen != c->key_tried)
    {
      c->key_tried = gen;
      char *error = NULL;
      KeyLoad r = _key_load(c, &error);
      /* another key's secret leaves this one as it was, unsaid */
      if (r != KEY_NO_SECRET && _key_outcome(c, r, error))
        {
          sluice_log(SLUICE_LOG_NOTICE, "TLS key-file opened with the passphrase given", "key-file", c->key_file,
                     "location", c->location, NULL);
          pending = false;
          atomic_store_explicit(&c->key_pending, false, memory_order_release);
        }
      g_free(error);
    }
  if (pending && !c->key_warned)
    {
      c->key_warned = true;
      sluice_log(SLUICE_LOG_ERROR, "No TLS session: the key-file waits for its passphrase (sluice-ctl credentials "
                 "add)", "key-file", c->key_file, "location", c->location, NULL);
    }
  g_mutex_unlock(&c->key_lock);
  return pending ? NULL : c->ctx;
}

/* ---- verification --------------------------------------------------------- */

/* A name as syslog-ng prints it: RFC 2253 escaping, most significant
 * part last ("CN=host, O=Example, C=HU"). */
static void
_format_name(X509_NAME *name, char *out, size_t len)
{
  out[0] = '\0';
  BIO *bio = BIO_new(BIO_s_mem());
  if (!bio)
    return;
  X509_NAME_print_ex(bio, name, 0, ASN1_STRFLGS_ESC_2253 | ASN1_STRFLGS_UTF8_CONVERT | XN_FLAG_SEP_CPLUS_SPC
                                     | XN_FLAG_DN_REV);
  int n = BIO_read(bio, out, (int) len - 1);
  out[n > 0 ? n : 0] = '\0';
  BIO_free(bio);
}

static void
_common_name(X509 *cert, char *out, size_t len)
{
  out[0] = '\0';
  X509_NAME_get_text_by_NID(X509_get_subject_name(cert), NID_commonName, out, (int) len);
}

/* "SHA1:01:AB:..." as trusted-keys() lists them. */
static bool
_fingerprint_trusted(const NetTlsContext *c, X509 *cert)
{
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (!X509_digest(cert, EVP_sha1(), md, &n))
    return false;
  GString *fp = g_string_new("SHA1:");
  for (unsigned int i = 0; i < n; i++)
    g_string_append_printf(fp, i ? ":%02X" : "%02X", md[i]);
  bool found = false;
  for (char **k = c->trusted_keys; *k && !found; k++)
    found = g_ascii_strcasecmp(*k, fp->str) == 0;
  g_string_free(fp, TRUE);
  return found;
}

static bool
_dn_trusted(const NetTlsContext *c, X509 *cert)
{
  char dn[512];
  _format_name(X509_get_subject_name(cert), dn, sizeof(dn));
  for (char **p = c->trusted_dn; *p; p++)
    if (glob_match_str(*p, dn))
      return true;
  return false;
}

static bool
_untrusted_mode(NetTlsVerify v)
{
  return v == NET_TLS_REQUIRED_UNTRUSTED || v == NET_TLS_OPTIONAL_UNTRUSTED;
}

int
net_tls_verify_callback(int ok, X509_STORE_CTX *store)
{
  SSL *ssl = X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx());
  NetTlsContext *c = SSL_CTX_get_app_data(SSL_get_SSL_CTX(ssl));
  X509 *cert = X509_STORE_CTX_get_current_cert(store);
  int depth = X509_STORE_CTX_get_error_depth(store);
  if (!ok && !_untrusted_mode(c->verify))
    {
      int err = X509_STORE_CTX_get_error(store);
      if (err == X509_V_ERR_HOSTNAME_MISMATCH || err == X509_V_ERR_IP_ADDRESS_MISMATCH)
        {
          char cn[256];
          _common_name(cert, cn, sizeof(cn));
          const char *host = SSL_get_app_data(ssl);
          sluice_log(SLUICE_LOG_ERROR, "Certificate subject does not match configured hostname", "hostname",
                     host ? host : "", "certificate", cn, NULL);
        }
      else
        {
          char subject[512] = "", issuer[512] = "", d[16];
          if (cert)
            {
              _format_name(X509_get_subject_name(cert), subject, sizeof(subject));
              _format_name(X509_get_issuer_name(cert), issuer, sizeof(issuer));
            }
          snprintf(d, sizeof(d), "%d", depth);
          sluice_log(SLUICE_LOG_ERROR, "Certificate validation failed", "subject", subject, "issuer", issuer,
                     "error", X509_verify_cert_error_string(err), "depth", d, NULL);
        }
      return 0;
    }
  if (depth != 0 || !cert)
    return 1;
  if (c->trusted_keys && !_fingerprint_trusted(c, cert))
    {
      sluice_log(SLUICE_LOG_ERROR, "Certificate valid, but fingerprint constraints were not met, rejecting",
                 NULL);
      X509_STORE_CTX_set_error(store, X509_V_ERR_CERT_REJECTED);
      return 0;
    }
  if (c->trusted_dn && !_dn_trusted(c, cert))
    {
      sluice_log(SLUICE_LOG_ERROR, "Certificate valid, but DN constraints were not met, rejecting", NULL);
      X509_STORE_CTX_set_error(store, X509_V_ERR_CERT_REJECTED);
      return 0;
    }
  return 1;
}

/* Log the TLS error queue's first entry (the cause) as syslog-ng does. */
static void
_log_ssl_error(const char *text, const char *location)
{
  unsigned long e = ERR_get_error();
  char buf[256] = "unknown error";
  if (e)
    ERR_error_string_n(e, buf, sizeof(buf));
  ERR_clear_error();
  sluice_log(SLUICE_LOG_ERROR, text, "tls_error", buf, "location", location, NULL);
}

/* ---- the source's transport ------------------------------------------------ */

typedef struct NetTlsTransport
{
  LogTransport super;
  SSL *ssl;
  NetTlsContext *ctx;
  bool drained;         /* the last read wanted more from the socket */
} NetTlsTransport;

static ssize_t
_transport_read(LogTransport *t, char *buf, size_t len, bool *want_write)
{
  NetTlsTransport *self = (NetTlsTransport *) t;
  ERR_clear_error();
  int n = SSL_read(self->ssl, buf, len > INT32_MAX ? INT32_MAX : (int) len);
  self->drained = n <= 0;
  if (n > 0)
    return n;
  switch (SSL_get_error(self->ssl, n))
    {
    case SSL_ERROR_WANT_READ: return -EAGAIN;
    case SSL_ERROR_WANT_WRITE: *want_write = true; return -EAGAIN;
    case SSL_ERROR_ZERO_RETURN: return 0;
    case SSL_ERROR_SYSCALL:
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
        return -EAGAIN;
      return errno ? -errno : 0;
    default:
      _log_ssl_error("SSL error while reading stream", self->ctx->location);
      /* what syslog-ng's reader reports after it */
      return -ECONNRESET;
    }
}

static bool
_transport_pending(LogTransport *t)
{
  NetTlsTransport *self = (NetTlsTransport *) t;
  /* records not decrypted yet wait in the buffering BIO (or a record's
   * rest in OpenSSL); after a read that wanted more from the socket, the
   * BIO is empty and what OpenSSL holds is at most part of a record,
   * which only more bytes on the fd complete */
  if (SSL_pending(self->ssl) > 0)
    return true;
  return !self->drained && (SSL_has_pending(self->ssl) || BIO_ctrl_pending(SSL_get_rbio(self->ssl)) > 0);
}

static void
_transport_free(LogTransport *t)
{
  NetTlsTransport *self = (NetTlsTransport *) t;
  /* one close_notify if the socket takes it now; the fd closes next */
  if (SSL_is_init_finished(self->ssl))
    SSL_shutdown(self->ssl);
  ERR_clear_error();
  SSL_free(self->ssl);
  net_tls_context_unref(self->ctx);
  free(self);
}

/* For a source that answers its peer (relp()): a record written is taken
 * whole or retried with the same bytes (partial writes and a moving
 * buffer are allowed by the context's mode). */
static ssize_t
_transport_write(LogTransport *t, const char *buf, size_t len, bool *want_read)
{
  NetTlsTransport *self = (NetTlsTransport *) t;
  ERR_clear_error();
  int n = SSL_write(self->ssl, buf, len > INT32_MAX ? INT32_MAX : (int) len);
  if (n > 0)
    return n;
  switch (SSL_get_error(self->ssl, n))
    {
    case SSL_ERROR_WANT_WRITE: return -EAGAIN;
    case SSL_ERROR_WANT_READ: *want_read = true; return -EAGAIN;
    case SSL_ERROR_ZERO_RETURN: return -EPIPE;
    case SSL_ERROR_SYSCALL:
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
        return -EAGAIN;
      return errno ? -errno : -EPIPE;
    default:
      _log_ssl_error("SSL error while writing stream", self->ctx->location);
      return -EPIPE;
    }
}

static const LogTransportOps transport_ops = { _transport_read, _transport_pending, _transport_free,
                                               _transport_write };

bool
net_tls_transport_handshaking(LogTransport *t)
{
  if (!t || t->ops != &transport_ops)
    return false;
  return !SSL_is_init_finished(((NetTlsTransport *) t)->ssl);
}

/* What a source reads goes through OpenSSL's buffering BIO: one read(2)
 * takes up to TLS_READ_BUFFER bytes, as a plain stream's read does, and
 * OpenSSL, without read-ahead, takes each record's header and body from
 * it.  OpenSSL's own read-ahead moved what was left of its buffer to the
 * buffer's start at every record (a 64 KiB buffer copied 1.4 times the
 * bytes received, callgrind); a smaller one made a read(2) per record.
 * 64 KiB is what OpenSSL's read-ahead buffer took per connection; 128 KiB
 * would halve the reads again (to a plain stream's count) at twice the
 * memory of every idle connection. */
enum { TLS_READ_BUFFER = 64 * 1024 };

static bool
_set_bios(SSL *ssl, int fd)
{
  BIO *sock = BIO_new_socket(fd, BIO_NOCLOSE);
  BIO *buffer = BIO_new(BIO_f_buffer());
  if (!sock || !buffer || BIO_set_read_buffer_size(buffer, TLS_READ_BUFFER) != 1)
    {
      BIO_free(sock);
      BIO_free(buffer);
      return false;
    }
  BIO_up_ref(sock);
  SSL_set0_wbio(ssl, sock); /* writes go straight to the socket */
  SSL_set0_rbio(ssl, BIO_push(buffer, sock));
  return true;
}

LogTransport *
net_tls_transport_new(NetTlsContext *c, int fd)
{
  SSL_CTX *ctx = _ssl_ctx(c);
  if (!ctx)
    return NULL;
  SSL *ssl = SSL_new(ctx);
  if (!ssl || !_set_bios(ssl, fd))
    {
      _log_ssl_error("Error setting up TLS session", c->location);
      SSL_free(ssl);
      return NULL;
    }
  SSL_set_accept_state(ssl);
  NetTlsTransport *self = calloc(1, sizeof(*self));
  if (!self)
    abort();
  self->super.ops = &transport_ops;
  self->ssl = ssl;
  self->ctx = net_tls_context_ref(c);
  return &self->super;
}

/* ---- the destination's client ---------------------------------------------- */

struct NetTlsClient
{
  SSL *ssl;
  NetTlsContext *ctx;
  short wait;           /* what the last EAGAIN waits for */
  char hostname[256];   /* for the mismatch log line (SSL app data) */
};

void
net_tls_client_free(NetTlsClient *t, bool clean)
{
  if (!t)
    return;
  if (clean && SSL_is_init_finished(t->ssl))
    SSL_shutdown(t->ssl);
  ERR_clear_error();
  SSL_free(t->ssl);
  net_tls_context_unref(t->ctx);
  free(t);
}

static bool
_wait(int fd, short events, int timeout_ms)
{
  struct pollfd p = { .fd = fd, .events = events };
  for (;;)
    {
      int rc = poll(&p, 1, timeout_ms);
      if (rc > 0)
        return true;
      if (rc == 0 || errno != EINTR)
        return false;
    }
}

static bool
_is_address(const char *hostname)
{
  struct in6_addr a6;
  struct in_addr a4;
  return inet_pton(AF_INET, hostname, &a4) == 1 || inet_pton(AF_INET6, hostname, &a6) == 1;
}

static void
_expect_host(NetTlsClient *t, const char *hostname)
{
  if (!hostname)
    return;
  /* sni(yes): a name, never an address (RFC 6066) */
  if (t->ctx->sni && !_is_address(hostname))
    SSL_set_tlsext_host_name(t->ssl, hostname);
  if (_untrusted_mode(t->ctx->verify))
    return;
  X509_VERIFY_PARAM *param = SSL_get0_param(t->ssl);
  if (_is_address(hostname))
    X509_VERIFY_PARAM_set1_ip_asc(param, hostname);
  else
    {
      X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
      X509_VERIFY_PARAM_set1_host(param, hostname, 0);
    }
}

NetTlsClient *
net_tls_client_connect(NetTlsContext *c, int fd, const char *hostname, int timeout_ms, int *err)
{
  SSL_CTX *ctx = _ssl_ctx(c);
  if (!ctx)
    {
      *err = -EKEYREJECTED;
      return NULL;
    }
  NetTlsClient *t = calloc(1, sizeof(*t));
  if (!t)
    abort();
  t->ctx = net_tls_context_ref(c);
  g_strlcpy(t->hostname, hostname ? hostname : "", sizeof(t->hostname));
  ERR_clear_error();
  t->ssl = SSL_new(ctx);
  if (!t->ssl || SSL_set_fd(t->ssl, fd) != 1)
    {
      _log_ssl_error("Error setting up TLS session", c->location);
      net_tls_client_free(t, false);
      *err = -ENOMEM;
      return NULL;
    }
  SSL_set_app_data(t->ssl, t->hostname);
  _expect_host(t, hostname);
  SSL_set_connect_state(t->ssl);
  for (;;)
    {
      ERR_clear_error();
      int rc = SSL_do_handshake(t->ssl);
      if (rc == 1)
        return t;
      int e = SSL_get_error(t->ssl, rc);
      short ev = e == SSL_ERROR_WANT_READ ? POLLIN : e == SSL_ERROR_WANT_WRITE ? POLLOUT : 0;
      if (ev && _wait(fd, ev, timeout_ms))
        continue;
      if (ev)
        *err = -ETIMEDOUT;
      else if (e == SSL_ERROR_SYSCALL)
        *err = errno ? -errno : -ECONNRESET;
      else
        {
          /* syslog-ng's words: its handshake happens at the first write */
          _log_ssl_error("SSL error while writing stream", c->location);
          *err = -EPIPE;
        }
      net_tls_client_free(t, false);
      return NULL;
    }
}

ssize_t
net_tls_client_send(NetTlsClient *t, const char *buf, size_t len)
{
  ERR_clear_error();
  int n = SSL_write(t->ssl, buf, len > INT32_MAX ? INT32_MAX : (int) len);
  if (n > 0)
    return n;
  switch (SSL_get_error(t->ssl, n))
    {
    case SSL_ERROR_WANT_WRITE: t->wait = POLLOUT; errno = EAGAIN; return -1;
    case SSL_ERROR_WANT_READ: t->wait = POLLIN; errno = EAGAIN; return -1;
    case SSL_ERROR_SYSCALL:
      if (!errno)
        errno = EPIPE;
      return -1;
    case SSL_ERROR_ZERO_RETURN: errno = EPIPE; return -1;
    default:
      _log_ssl_error("SSL error while writing stream", t->ctx->location);
      errno = EPIPE;
      return -1;
    }
}

ssize_t
net_tls_client_recv(NetTlsClient *t, char *buf, size_t len, short *wait)
{
  ERR_clear_error();
  int n = SSL_read(t->ssl, buf, len > INT32_MAX ? INT32_MAX : (int) len);
  if (n > 0)
    return n;
  switch (SSL_get_error(t->ssl, n))
    {
    case SSL_ERROR_WANT_READ: *wait = POLLIN; errno = EAGAIN; return -1;
    case SSL_ERROR_WANT_WRITE: *wait = POLLOUT; errno = EAGAIN; return -1;
    case SSL_ERROR_ZERO_RETURN: return 0;
    case SSL_ERROR_SYSCALL:
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
        {
          *wait = POLLIN;
          errno = EAGAIN;
          return -1;
        }
      return errno ? -1 : 0;
    default:
      _log_ssl_error("SSL error while reading stream", t->ctx->location);
      errno = ECONNRESET;
      return -1;
    }
}

short
net_tls_client_wait_events(const NetTlsClient *t)
{
  return t->wait ? t->wait : POLLOUT;
}

bool
net_tls_client_peer_closed(NetTlsClient *t, int *err, bool close_on_input)
{
  char buf[4096];
  for (;;)
    {
      ERR_clear_error();
      int n = SSL_read(t->ssl, buf, sizeof(buf));
      if (n > 0 && close_on_input)
        {
          *err = -1;
          return true;
        }
      if (n > 0)
        continue;
      switch (SSL_get_error(t->ssl, n))
        {
        case SSL_ERROR_WANT_READ:
        case SSL_ERROR_WANT_WRITE: return false;
        case SSL_ERROR_ZERO_RETURN: *err = 0; return true;
        case SSL_ERROR_SYSCALL:
          if (errno == EAGAIN || errno == EWOULDBLOCK)
            return false;
          if (errno == EINTR)
            continue;
          *err = errno;
          return true;
        default:
          _log_ssl_error("SSL error while reading stream", t->ctx->location);
          *err = ECONNRESET;
          return true;
        }
    }
}
