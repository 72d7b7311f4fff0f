/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Stream sources (tcp, framed, unix-stream): the listener and its
 * connections.  See network.h for who runs what on which thread.
 *
 * max-connections() counts live connections of the source over all
 * workers; one more is accepted and closed at once with syslog-ng's log
 * line, so a client sees its connection refused rather than hanging in
 * the backlog.  With flow control each connection gets
 * log-iw-size / max-connections slots (at least 100, as syslog-ng clamps
 * it), so a full source window stops reading every connection in turn.
 *
 * A TLS connection takes its slot at the accept, before its handshake:
 * one that has not completed the handshake after tls(handshake-timeout())
 * seconds is closed (a timer on its worker, beside its reader), so
 * clients that connect and say nothing cannot keep the trusted ones out.
 */
#include "network.h"
#include "network-proxy.h"

#include "sluice/acceptor.h"
#include "sluice/handover.h"
#include "sluice/internal-log.h"
#include "sluice/pipeline.h"

#include <errno.h>
#include <iv.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct NetConn
{
  LogSourceConn base;       /* its worker and its place in src->conns */
  NetSource *src;
  LogReader *reader;
  int fd;
  LogAddr peer;
  LogSourcePeer peer_name;
  bool warned;              /* a truncated message was logged */
  char client[160];
  HandoverStream *adopted;  /* from the previous configuration, until started */
  LogTransport *tls;        /* the reader's TLS transport, NULL: plain */
  LogTransport *proxy;      /* the reader's PROXY header transport (network-proxy.h), or NULL */
  struct iv_timer handshake; /* registered while the TLS handshake may run */
};


/* Accepts and closes on a unix socket are everyday local traffic (every
 * syslog(3) caller): syslog-ng logs them only verbosely, at info. */
static void
_log_conn(SluiceLogLevel level, const char *text, NetConn *c)
{
  if (c->src->is_unix && level == SLUICE_LOG_NOTICE)
    level = SLUICE_LOG_INFO;
  char fd[16];
  snprintf(fd, sizeof(fd), "%d", c->fd);
  sluice_log(level, text, "fd", fd, "client", c->client, "local", c->src->local_name, NULL);
}

/* ---- connections (on their worker) --------------------------------------- */

static void
_conn_forget(NetConn *c)
{
  log_source_conns_remove(&c->src->conns, &c->base);
  free(c);
}

/* Gives the connection's max-connections slot back; before the close is
 * logged, so whoever sees that line can connect again. */
static void
_conn_release_slot(NetConn *c)
{
  log_source_conns_release(&c->src->conns, &c->base);
}

static void
_conn_deliver(LogMsg *msg, void *user_data)
{
  NetConn *c = user_data;
  if (c->proxy)
    net_proxy_set_values(net_proxy_transport_info(c->proxy), msg);
  if (c->src->base.ro.passcred)
    net_unix_cred_values(log_reader_sender_cred(c->reader), msg);
  net_source_deliver(c->src, msg, &c->peer_name);
}

static void
_conn_batch_done(void *user_data)
{
  NetConn *c = user_data;
  log_pipeline_flush(c->src->base.env.pipeline);
  log_source_warn_truncated(&c->src->base, c->reader, &c->warned, "client", c->client, "local", c->src->local_name);
}

static void
_conn_stop_timer(NetConn *c)
{
  if (iv_timer_registered(&c->handshake))
    iv_timer_unregister(&c->handshake);
}

static void
_conn_closed(LogReader *r, int error, const char *reason, void *user_data)
{
  NetConn *c = user_data;
  _conn_stop_timer(c);
  log_pipeline_flush(c->src->base.env.pipeline);
  log_source_warn_truncated(&c->src->base, r, &c->warned, "client", c->client, "local", c->src->local_name);
  _conn_release_slot(c);
  if (error < 0)
    {
      char fd[16];
      snprintf(fd, sizeof(fd), "%d", c->fd);
      sluice_log(SLUICE_LOG_ERROR, "Error framing incoming data, closing connection", "fd", fd, "client",
                 c->client, "local", c->src->local_name, "error", reason, NULL);
    }
  else if (error > 0)
    {
      char fd[16];
      snprintf(fd, sizeof(fd), "%d", c->fd);
      sluice_log(SLUICE_LOG_ERROR, "I/O error occurred while reading", "fd", fd, "client", c->client, "local",
                 c->src->local_name, "error", reason, NULL);
    }
  _log_conn(SLUICE_LOG_NOTICE, "Syslog connection closed", c);
  log_reader_free(r);
  c->reader = NULL;
  _conn_forget(c);
}

static const LogReaderCallbacks conn_callbacks = { _conn_deliver, _conn_batch_done, _conn_closed };

/* The handshake's time is up (on c's worker): close c unless it is done. */
static void
_conn_handshake_expired(void *cookie)
{
  NetConn *c = cookie;
  if (!net_tls_transport_handshaking(c->tls))
    return;
  _conn_release_slot(c);
  char fd[16], secs[16];
  snprintf(fd, sizeof(fd), "%d", c->fd);
  snprintf(secs, sizeof(secs), "%d", net_tls_context_handshake_timeout(c->src->tls));
  sluice_log(SLUICE_LOG_ERROR, "TLS handshake timed out, closing connection", "fd", fd, "client", c->client,
             "local", c->src->local_name, "timeout", secs, NULL);
  _log_conn(SLUICE_LOG_NOTICE, "Syslog connection closed", c);
  log_reader_free(c->reader); /* closes the fd, frees the session */
  c->reader = NULL;
  c->tls = NULL;
  _conn_forget(c);
}

/* On c's worker, once its reader has its transport. */
static void
_conn_start_timer(NetConn *c)
{
  int secs = net_tls_context_handshake_timeout(c->src->tls);
  if (secs <= 0 || !net_tls_transport_handshaking(c->tls))
    return;
  iv_validate_now();
  c->handshake.expires = iv_now;
  timespec_add_ns(&c->handshake.expires, (int64_t) secs * 1000000000);
  iv_timer_register(&c->handshake);
}

static int
_conn_window(NetSource *s)
{
  if (!s->base.env.flow_control)
    return 0;
  int per = (int) (s->o.src.log_iw_size / s->max_connections);
  return per < 100 ? 100 : per;
}

static void
_conn_start_job(void *arg)
{
  NetConn *c = arg;
  NetSource *s = c->src;
  LogReaderOptions ro = s->base.ro;
  ro.iw_size = _conn_window(s);
  c->reader = log_reader_new(c->fd, false, &ro, &conn_callbacks, c, &c->peer);
  if (!c->reader)
    {
      sluice_log(SLUICE_LOG_ERROR, "Out of memory for a connection's buffer, closing it", "client", c->client,
                 "local", s->local_name, NULL);
      close(c->fd);
      handover_stream_free(c->adopted);
      _conn_release_slot(c);
      _conn_forget(c);
      return;
    }
  if (c->adopted)
    {
      /* a connection keeps the transport it started with, TLS or not */
      log_reader_set_transport(c->reader, c->adopted->transport);
      c->tls = c->adopted->transport;
      c->proxy = net_proxy_transport_info(c->tls) ? c->tls : NULL;
      log_reader_adopt_framer(c->reader, &c->adopted->framer);
      free(c->adopted); /* its fd is c->fd, its framer and transport the reader's now */
      c->adopted = NULL;
    }
  else if (s->tls)
    {
      LogTransport *t = net_tls_transport_new(s->tls, c->fd);
      if (!t)
        {
          /* logged; the reader closes the fd */
          log_reader_free(c->reader);
          c->reader = NULL;
          _conn_release_slot(c);
          _conn_forget(c);
          return;
        }
      c->tls = t;
      if (s->proxied)
        t = c->proxy = net_proxy_transport_new(c->fd, t, s->proxied == NET_TRANSPORT_PROXIED_TLS_PASSTHROUGH,
                                               c->client);
      log_reader_set_transport(c->reader, t);
    }
  else if (s->proxied)
    {
      c->proxy = net_proxy_transport_new(c->fd, NULL, true, c->client);
      log_reader_set_transport(c->reader, c->proxy);
    }
  _conn_start_timer(c);
  log_reader_start(c->reader);
}

/* ---- the listener (on its worker) ---------------------------------------- */

static void
_addr_to_logaddr(const struct sockaddr_storage *ss, LogAddr *out)
{
  memset(out, 0, sizeof(*out));
  out->family = ss->ss_family;
  if (ss->ss_family == AF_INET)
    {
      const struct sockaddr_in *sin = (const struct sockaddr_in *) ss;
      out->port = ntohs(sin->sin_port);
      memcpy(out->addr, &sin->sin_addr, 4);
    }
  else if (ss->ss_family == AF_INET6)
    {
      const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *) ss;
      out->port = ntohs(sin6->sin6_port);
      memcpy(out->addr, &sin6->sin6_addr, 16);
    }
}

static void
_keepalive(NetSource *s, int fd)
{
  if (s->is_unix)
    return;
  int on = 1;
  if (s->o.so_keepalive)
    setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof(on));
  int v;
  if ((v = (int) s->o.tcp_keepalive_time) > 0)
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &v, sizeof(v));
  if ((v = (int) s->o.tcp_keepalive_intvl) > 0)
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &v, sizeof(v));
  if ((v = (int) s->o.tcp_keepalive_probes) > 0)
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &v, sizeof(v));
}

/* A connection to read, its slot taken: fresh from accept(), or adopted
 * from the previous configuration (st, which c takes).  Runs where the
 * listener runs, or on the main thread for adopted ones. */
static void
_conn_add(NetSource *s, int fd, const LogAddr *peer, const char *client, HandoverStream *st)
{
  NetConn *c = calloc(1, sizeof(*c));
  if (!c)
    abort();
  c->src = s;
  c->fd = fd;
  c->peer = *peer;
  if (s->base.ro.passcred)
    {
      /* each read brings its sender's credentials (an accepted socket
       * does not inherit the listener's SO_PASSCRED on every kernel) */
      int on = 1;
      setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof(on));
    }
  c->adopted = st;
  IV_TIMER_INIT(&c->handshake);
  c->handshake.cookie = c;
  c->handshake.handler = _conn_handshake_expired;
  g_strlcpy(c->client, client, sizeof(c->client));
  log_source_conns_add(&s->conns, &c->base);
  _log_conn(SLUICE_LOG_NOTICE, st ? "Syslog connection kept across reload" : "Syslog connection accepted", c);
  worker_post(c->base.worker, _conn_start_job, c);
}

/* The listener's accepts (sluice/acceptor.h: out of descriptors, it
 * rests rather than spins). */
static void
_accept_one(void *cookie, int fd, const struct sockaddr_storage *ss, socklen_t len)
{
  NetSource *s = cookie;
  char client[160];
  net_format_sockaddr((const struct sockaddr *) ss, len, client, sizeof(client));
  if (!log_source_conns_admit(&s->conns, fd, client))
    return;
  _keepalive(s, fd);
  LogAddr peer;
  _addr_to_logaddr(ss, &peer);
  if (s->is_unix)
    peer.family = AF_UNIX;
  _conn_add(s, fd, &peer, client, NULL);
}

/* The connections the previous configuration's source on this address had
 * (a reload): read on, whatever max-connections() says now, as closing one
 * would lose what its sender has in flight. */
static void
_adopt_conns(NetSource *s)
{
  HandoverStream *st;
  while ((st = handover_take_stream(s->handover_key)))
    {
      _keepalive(s, st->fd);
      log_source_conns_admit_any(&s->conns);
      _conn_add(s, st->fd, &st->peer, st->client, st);
    }
}

/* Stop round one, on the listener's worker: its socket goes to the next
 * configuration (a reload) or is closed. */
static void
_listen_release(int fd, void *arg)
{
  net_release_socket(arg, fd);
}

/* The last stop round, on c's worker (c is out of the set, its slot back). */
static void
_conn_stop(LogSourceConn *base, void *arg)
{
  NetConn *c = (NetConn *) base;
  bool handover = *(const bool *) arg;
  _conn_stop_timer(c);
  if (c->reader && handover)
    {
      /* a reload: the next configuration's source on this address
       * reads on from the byte this one stopped at */
      HandoverStream *st = calloc(1, sizeof(*st));
      if (!st)
        abort();
      st->transport = log_reader_take_transport(c->reader);
      st->fd = log_reader_detach(c->reader, &st->framer);
      st->peer = c->peer;
      g_strlcpy(st->client, c->client, sizeof(st->client));
      handover_put_stream(c->src->handover_key, st);
    }
  else if (c->reader)
    log_reader_free(c->reader); /* closes the fd */
  else
    close(c->fd);
  free(c);
}

bool
net_stream_start(NetSource *s, char **error)
{
  if (s->base.env.flow_control && s->o.src.log_iw_size / s->max_connections < 100)
    {
      /* syslog-ng's warning, word for word: operators grep for it */
      char iw[32], fifo[32];
      snprintf(iw, sizeof(iw), "%lld", (long long) s->o.src.log_iw_size);
      snprintf(fifo, sizeof(fifo), "%lld", (long long) s->max_connections * 100);
      sluice_log(SLUICE_LOG_WARNING,
                 "WARNING: window sizing for tcp sources were changed in syslog-ng 3.3, the configuration value was "
                 "divided by the value of max-connections(). The result was too small, clamping to value of "
                 "min_iw_size_per_reader. Ensure you have a proper log-fifo-size setting to avoid message loss.",
                 "orig_log_iw_size", iw, "new_log_iw_size", "100", "min_iw_size_per_reader", "100",
                 "min_log_fifo_size", fifo, NULL);
    }
  int fd = net_open_socket(s, error);
  if (fd < 0)
    return false;
  sluice_log(SLUICE_LOG_NOTICE, "Accepting connections", "addr", s->local_name, NULL);
  log_source_conns_listen(&s->conns, fd, s->local_name, s->max_connections, _accept_one, s);
  _adopt_conns(s);
  return true;
}

/* A stop that does not hand its connections over (the daemon stops, or a
 * reload with keep-alive(no)) closes connections whose clients may have
 * bytes on the way: closed with unread bytes, a socket sends a reset and
 * the kernel throws away what it held, on both ends, without telling the
 * client (a relay's last lines before its server restarts).  So each
 * connection is half-closed first: the client reads the end of the
 * stream, and a relay that looks before it writes (as Sluice's TCP
 * destination does before each batch) closes its side and sends what it
 * still has to the next server; this side reads on to that end.  The wait
 * ends when every connection has ended, when the source delivered no
 * message for LOG_SOURCE_STOP_QUIET_MS (nothing is on the way), or after
 * LOG_SOURCE_STOP_DRAIN_MS (a client that writes on and never reads):
 * log_source_conns_drain(). */
static void
_conn_half_close(LogSourceConn *base, void *arg)
{
  NetConn *c = (NetConn *) base;
  if (c->reader)
    shutdown(c->fd, SHUT_WR);
}

void
net_stream_stop(NetSource *s)
{
  /* round one: no more accepts; the last round: every connection, after
   * any start job an accept posted before round one ended.  keep-alive(no):
   * a reload closes the connections (the listener is carried all the same) */
  log_source_conns_stop_listener(&s->conns, _listen_release, s);
  bool handover = handover_active() && s->o.keep_alive;
  if (!handover)
    log_source_conns_drain(&s->conns, _conn_half_close, NULL);
  log_source_conns_close_all(&s->conns, _conn_stop, &handover);
}
