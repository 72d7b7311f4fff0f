/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_NETWORK_TLS_H
#define SLUICE_NETWORK_TLS_H

/*
 * TLS for the network sources and destinations, on OpenSSL, with
 * syslog-ng 3.38's tls() options:
 *
 *   net-tls-options.c  the tls() option table and the SSL_CTX it
 *                          configures (one per driver, made when the
 *                          configuration is read, so a missing key file is
 *                          a configuration error with its location);
 *   net-tls.c              peer verification (peer-verify(), trusted-keys(),
 *                          trusted-dn(), the destination's host name), the
 *                          source's LogTransport and the destination's
 *                          client session.
 *
 * Threads.  A NetTlsContext is immutable once made and reference counted:
 * every session holds a reference, so a connection carried across a reload
 * (its LogTransport travels with it, sluice/handover.h) keeps the context
 * of the configuration that accepted it.  A source's session runs on the
 * connection's I/O worker and never blocks: the handshake is driven by the
 * reader's reads (SSL_read does it), WANT_WRITE makes the reader poll for
 * output.  A destination's session runs on its writer thread, which waits
 * in poll() as it does for plain TCP.
 */

#include "sluice/cfg-options.h"
#include "sluice/transport.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* peer-verify(): the index into the option's names */
typedef enum NetTlsVerify
{
  NET_TLS_REQUIRED_TRUSTED,
  NET_TLS_REQUIRED_UNTRUSTED,
  NET_TLS_OPTIONAL_TRUSTED,
  NET_TLS_OPTIONAL_UNTRUSTED,
  /* the old yes and no, which syslog-ng 3.38 still takes, as it takes
   * them for a yes/no option: yes, no, on, off, 1, 0 */
  NET_TLS_VERIFY_YES,
} NetTlsVerify;

/* The mode peer-verify()'s value means: yes is required-trusted and no
 * optional-untrusted, as in syslog-ng 3.38 (a client without a
 * certificate, or with a self-signed one, is served with no). */
static inline NetTlsVerify
net_tls_verify_mode(int peer_verify)
{
  if (peer_verify < NET_TLS_VERIFY_YES)
    return (NetTlsVerify) peer_verify;
  return (peer_verify - NET_TLS_VERIFY_YES) % 2 == 0 ? NET_TLS_REQUIRED_TRUSTED : NET_TLS_OPTIONAL_UNTRUSTED;
}

/* What tls() sets (a CFG_OPT_BLOCK of the drivers' tables). */
typedef struct NetTlsOptions
{
  char *key_file;
  char *cert_file;
  char *ca_dir;
  char *ca_file;
  char *crl_dir;
  char *cipher_suite;
  int peer_verify;           /* NetTlsVerify */
  uint32_t ssl_options;      /* bit i: the i-th ssl-options() name */
  char **trusted_keys;       /* "SHA1:01:23:..." fingerprints of accepted peers */
  char **trusted_dn;         /* glob patterns of accepted peers' subjects */
  bool sni;                  /* destinations: send the host name (SNI) */
  int64_t handshake_timeout; /* sources: seconds; 0: none; -1: not given */
} NetTlsOptions;

/* A source's handshake-timeout() when not given, in seconds. */
#define NET_TLS_HANDSHAKE_TIMEOUT_DEFAULT 10

extern const CfgOption net_tls_options[];

typedef struct NetTlsContext NetTlsContext;

/* An SSL_CTX set up from o: server side for a source, client side for a
 * destination.  location ("file:line:col") goes into log lines.  NULL with
 * *error (g_free) when a file cannot be loaded or an option is refused by
 * OpenSSL. */
NetTlsContext *net_tls_context_new(const NetTlsOptions *o, bool server, const char *location, char **error);
/* The last tls() block of a driver's call, or NULL. */
const CfgNode *net_tls_node(const CfgNode *call);
/* For a driver whose only TLS switch is a tls() block in its call
 * (relp()): *ctx is the context o sets up (as net_tls_context_new(), its
 * location the call's), or NULL when call has no tls().  False with *err
 * at tls() when the context cannot be made. */
bool net_tls_context_for_call(const NetTlsOptions *o, const CfgNode *call, bool server, NetTlsContext **ctx,
                              CfgError *err);
NetTlsContext *net_tls_context_ref(NetTlsContext *c);
void net_tls_context_unref(NetTlsContext *c);
/* Seconds a source's client has from its accept to complete the handshake
 * (tls(handshake-timeout())); 0: no limit (and always 0 for a
 * destination's context). */
int net_tls_context_handshake_timeout(const NetTlsContext *c);

/* ---- sources ----------------------------------------------------------- */

/* A server session on the accepted, non-blocking fd, as the reader's
 * transport (the reader frees it).  NULL when OpenSSL cannot make one
 * (logged). */
LogTransport *net_tls_transport_new(NetTlsContext *c, int fd);

/* True while t is a TLS session whose handshake has not completed; false
 * for one that has and for any other transport (NULL included).  On the
 * connection's worker.  A source closes a connection still handshaking
 * after net_tls_context_handshake_timeout() seconds: a client that
 * connects and never says a word must not hold a max-connections() slot. */
bool net_tls_transport_handshaking(LogTransport *t);

/* ---- destinations ------------------------------------------------------ */

typedef struct NetTlsClient NetTlsClient;

/* Handshake as a client on the connected, non-blocking fd, verifying the
 * server's certificate (and its name against hostname, in the trusted
 * modes); waits at most timeout_ms for each step.  NULL with a negative
 * errno in *err when it fails (logged as syslog-ng logs it). */
NetTlsClient *net_tls_client_connect(NetTlsContext *c, int fd, const char *hostname, int timeout_ms,
                                     int *err);

/* As send(2) with MSG_DONTWAIT: bytes taken, or -1 with errno (EAGAIN:
 * wait for net_tls_client_wait_events() on the fd and call again with at
 * least the same bytes).  A TLS error is logged and reads as EPIPE. */
ssize_t net_tls_client_send(NetTlsClient *t, const char *buf, size_t len);

/* poll() events the last EAGAIN waits for (POLLOUT or POLLIN). */
short net_tls_client_wait_events(const NetTlsClient *t);

/* As recv(2) with MSG_DONTWAIT, for a client that reads answers (relp()):
 * bytes read, 0 at the end of the session or the stream, or -1 with errno
 * (EAGAIN: wait for *wait, POLLIN or POLLOUT, on the fd; ECONNRESET after
 * a TLS error, which is logged).  A caller that sends from another thread
 * holds one lock around this and net_tls_client_send(): an SSL object
 * takes one call at a time. */
ssize_t net_tls_client_recv(NetTlsClient *t, char *buf, size_t len, short *wait);

/* True when the server closed the session or the connection (*err: 0 or
 * an errno), or, with close_on_input, sent anything (*err: -1); what it
 * sent is read and dropped. */
bool net_tls_client_peer_closed(NetTlsClient *t, int *err, bool close_on_input);

/* End the session (a close_notify when clean is true and the connection
 * takes it without waiting) and free it; the fd stays the caller's. */
void net_tls_client_free(NetTlsClient *t, bool clean);

#endif
