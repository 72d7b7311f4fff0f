/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The relp() source: options, the listening socket and its accepts.
 *
 * relp(ip() port() max-connections() log-iw-size() log-msg-size()
 * listen-backlog() keep-hostname() keep-alive() tls()).  rsyslog's imrelp
 * needs a port; Sluice takes omrelp's default, 514, as the tcp() source
 * does.  tls() is network()'s block (tls/net-tls.h): with it every
 * connection is TLS, and by default (peer-verify(required-trusted)) a
 * client without a certificate that chains to ca-file()/ca-dir() is
 * refused in the handshake, with syslog-ng's log lines.
 * log-iw-size() is shared among max-connections() as syslog-ng shares a
 * tcp() source's (at least 100 per connection), and is always in force
 * (relp.h: an answer means written).
 *
 * The socket is bound on the main thread (a taken address is a start
 * error) and polled on one worker; a reload hands it to the next
 * configuration's relp() on the same address (sluice/handover.h).  Live
 * connections are not handed over: they get serverclose and their
 * clients reconnect and resend what was not answered.
 */
#include "relp-conn.h"

#include "tls/net-tls.h"
#include "sluice/acceptor.h"
#include "sluice/handover.h"
#include "sluice/internal-log.h"

#include <arpa/inet.h>
#include <errno.h>
#include <iv.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define OFF(field) offsetof(RelpSourceOptions, field)

static const CfgOption relp_source_options[] = {
  { .name = "ip", .type = CFG_OPT_STRING, .offset = OFF(ip) },
  { .name = "port", .type = CFG_OPT_STRING, .offset = OFF(port), .def_str = "514", .check = cfg_check_port },
  { .name = "max-connections", .type = CFG_OPT_INT, .offset = OFF(max_connections), .def_int = 10, .min = 1,
    .max = 1000000 },
  LOG_SOURCE_OPTION_ROWS(RelpSourceOptions, src, 1000),
  { .name = "listen-backlog", .type = CFG_OPT_INT, .offset = OFF(listen_backlog), .def_int = 255, .min = 1,
    .max = INT32_MAX },
  { .name = "keep-alive", .type = CFG_OPT_BOOL, .offset = OFF(keep_alive), .def_int = 1 },
  { .name = "so-rcvbuf", .type = CFG_OPT_SIZE, .offset = OFF(so_rcvbuf), .def_int = 0, .min = 0, .max = INT32_MAX },
  { .name = "tls", .type = CFG_OPT_BLOCK, .offset = OFF(tls), .sub = net_tls_options },
  { 0 },
};

/* ---- the listener ------------------------------------------------------------ */

static void
_peer_of(const struct sockaddr_storage *ss, LogAddr *peer, char *ip, size_t ip_len)
{
  memset(peer, 0, sizeof(*peer));
  peer->family = ss->ss_family;
  ip[0] = '\0';
  if (ss->ss_family == AF_INET)
    {
      const struct sockaddr_in *sin = (const struct sockaddr_in *) ss;
      peer->port = ntohs(sin->sin_port);
      memcpy(peer->addr, &sin->sin_addr, 4);
      inet_ntop(AF_INET, &sin->sin_addr, ip, (socklen_t) ip_len);
    }
  else if (ss->ss_family == AF_INET6)
    {
      const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *) ss;
      peer->port = ntohs(sin6->sin6_port);
      memcpy(peer->addr, &sin6->sin6_addr, 16);
      inet_ntop(AF_INET6, &sin6->sin6_addr, ip, (socklen_t) ip_len);
    }
}

/* The listener's accepts (sluice/acceptor.h: out of descriptors, it
 * rests rather than spins). */
static void
_accept_one(void *cookie, int fd, const struct sockaddr_storage *ss, socklen_t len)
{
  RelpSource *s = cookie;
  (void) len;
  LogAddr peer;
  char ip[INET6_ADDRSTRLEN], client[160];
  _peer_of(ss, &peer, ip, sizeof(ip));
  snprintf(client, sizeof(client), "%s(%s%s%s:%u)", ss->ss_family == AF_INET6 ? "AF_INET6" : "AF_INET",
           ss->ss_family == AF_INET6 ? "[" : "", ip, ss->ss_family == AF_INET6 ? "]" : "", peer.port);
  if (!log_source_conns_admit(&s->conns, fd, client))
    return;
  int on = 1;
  if (s->o.keep_alive)
    setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof(on));
  /* answers are a few bytes each and a sender with a full window waits
   * for them: Nagle would hold them until our last answer is acked */
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
  if (!relp_conn_add(s, fd, &peer, client, ip))
    {
      log_source_conns_refund(&s->conns);
      close(fd);
    }
}

/* Stop round one, on the listener's worker: the socket goes to the next
 * configuration's relp() on this address (a reload), or is closed. */
static void
_listen_release(int fd, void *arg)
{
  RelpSource *s = arg;
  if (handover_active() && s->o.keep_alive)
    handover_put_socket(s->handover_key, fd, NULL, NULL);
  else
    close(fd);
}

/* Bind a new listening socket; -1 with *error. */
static int
_bind(RelpSource *s, char **error)
{
  struct addrinfo hints = { .ai_flags = AI_PASSIVE, .ai_socktype = SOCK_STREAM };
  hints.ai_family = s->o.ip && strchr(s->o.ip, ':') ? AF_INET6 : AF_INET;
  struct addrinfo *ai = NULL;
  int rc = getaddrinfo(s->o.ip && *s->o.ip ? s->o.ip : NULL, s->o.port, &hints, &ai);
  if (rc != 0 || !ai)
    {
      *error = g_strdup_printf("relp(): cannot resolve ip(%s) port(%s): %s", s->o.ip ? s->o.ip : "",
                               s->o.port, gai_strerror(rc));
      return -1;
    }
  int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  int on = 1;
  if (fd >= 0)
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
  if (fd < 0 || bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, (int) s->o.listen_backlog) < 0)
    {
      *error = g_strdup_printf("relp(): error binding %s: %s", s->local_name, g_strerror(errno));
      if (fd >= 0)
        close(fd);
      fd = -1;
    }
  freeaddrinfo(ai);
  return fd;
}

static bool
_start_listener(RelpSource *s, char **error)
{
  snprintf(s->local_name, sizeof(s->local_name), "%s:%s", s->o.ip && *s->o.ip ? s->o.ip : "0.0.0.0", s->o.port);
  g_free(s->handover_key);
  s->handover_key = g_strdup_printf("relp:%s", s->local_name);
  int fd = handover_take_socket(s->handover_key, NULL);
  if (fd < 0)
    fd = _bind(s, error);
  if (fd < 0)
    return false;
  /* on the listener (a handed-over one too), so every connection has it
   * from its first byte; as the kernel allows: net.core.rmem_max caps it */
  int rcvbuf = (int) s->o.so_rcvbuf;
  if (rcvbuf > 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
  sluice_log(SLUICE_LOG_NOTICE, "Accepting RELP connections", "addr", s->local_name, NULL);
  log_source_conns_listen(&s->conns, fd, s->local_name, (int) s->o.max_connections, _accept_one, s);
  return true;
}

/* ---- the driver ------------------------------------------------------------------ */

static bool
_relp_start(LogSourceDriver *sd, const LogSourceEnv *env, char **error)
{
  RelpSource *s = (RelpSource *) sd;
  log_source_begin(&s->base, env);
  g_free(s->name);
  s->name = g_strdup(env->name ? env->name : "relp");
  int64_t per = s->o.src.log_iw_size / s->o.max_connections;
  s->window = per < 100 ? 100 : (int) per;
  int64_t msg_size = (int64_t) s->base.ro.log_msg_size;
  /* the open offers fit in 128 KiB whatever log-msg-size() says */
  s->max_data = (size_t) (msg_size > 128 * 1024 ? msg_size : 128 * 1024);
  g_snprintf(s->base.super.stats_instance, sizeof(s->base.super.stats_instance), "relp,%s",
             s->o.ip && *s->o.ip ? s->o.ip : "0.0.0.0");
  return _start_listener(s, error);
}

static void
_relp_stop(LogSourceDriver *sd)
{
  RelpSource *s = (RelpSource *) sd;
  /* live connections are never handed over: serverclose, and their
   * clients resend what was not answered */
  log_source_conns_stop_listener(&s->conns, _listen_release, s);
  log_source_conns_close_all(&s->conns, relp_conn_stop, NULL);
}

static void
_relp_free(LogSourceDriver *sd)
{
  RelpSource *s = (RelpSource *) sd;
  cfg_options_free(relp_source_options, &s->o);
  log_source_deinit(&s->base);
  net_tls_context_unref(s->tls);
  log_source_conns_deinit(&s->conns);
  g_free(s->name);
  g_free(s->handover_key);
  free(s);
}

static const LogSourceOps relp_source_ops = { _relp_start, _relp_stop, _relp_free };

static LogSourceDriver *
_relp_source_new(const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  RelpSource *s = calloc(1, sizeof(*s));
  if (!s)
    abort();
  log_source_init(&s->base, &relp_source_ops, call);
  log_source_conns_init(&s->conns, &s->base);
  cfg_options_defaults(relp_source_options, &s->o);
  if (!cfg_options_apply_inherit(relp_source_options, call, &s->o, "relp()", ctx->global, err)
      || !log_source_resolve(&s->base, &s->o.src, call, ctx, false, "relp", err)
      || !net_tls_context_for_call(&s->o.tls, call, true, &s->tls, err))
    {
      _relp_free(&s->base.super);
      return NULL;
    }
  return &s->base.super;
}

const LogDriverFactory relp_source_factory = {
  .def = { .kind = CFG_OBJ_SOURCE, .name = "relp", .options = relp_source_options,
           .struct_size = sizeof(RelpSourceOptions), .min_args = 0, .max_args = 0 },
  .new_source = _relp_source_new,
};
