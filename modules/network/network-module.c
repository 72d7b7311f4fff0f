/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The network module's registration table and the driver object all its
 * sources share: network(), syslog(), tcp(), udp(), tcp6(), udp6(),
 * unix-stream(), unix-dgram() and udp-balancer().  The stream and datagram
 * halves live in network-stream.c and network-dgram.c; options in
 * network-options.c.
 */
#include "modules.h"
#include "network-dest.h"
#include "network.h"

#include "sluice/internal-log.h"
#include "sluice/pipeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

void
net_source_deliver(NetSource *s, LogMsg *msg, LogSourcePeer *peer)
{
  log_source_post(&s->base, msg, peer);
}

static bool
_net_start(LogSourceDriver *d, const LogSourceEnv *env, char **error)
{
  NetSource *s = (NetSource *) d;
  log_source_begin(&s->base, env);
  atomic_store(&s->conns.n, 0);
  s->rcvbuf_warned = false;
  bool ok = s->stream ? net_stream_start(s, error) : net_dgram_start(s, error);
  s->started = ok;
  if (ok && s->stream)
    {
      g_snprintf(s->base.super.conn_instance, sizeof(s->base.super.conn_instance), "afsocket_sd.(stream,%s)", s->local_name);
    }
  if (!ok && s->o.optional)
    {
      /* optional(yes): a socket that cannot be had is skipped, loudly */
      sluice_log(SLUICE_LOG_WARNING, "Error opening an optional source, going on without it", "error", *error,
                 "location", s->base.location, NULL);
      g_free(*error);
      *error = NULL;
      return true;
    }
  return ok;
}

static void
_net_stop(LogSourceDriver *d)
{
  NetSource *s = (NetSource *) d;
  if (!s->started)
    return;
  if (s->stream)
    net_stream_stop(s);
  else
    net_dgram_stop(s);
  s->started = false;
}

static void
_net_free(LogSourceDriver *d)
{
  NetSource *s = (NetSource *) d;
  net_source_options_free(s);
  net_tls_context_unref(s->tls);
  g_free(s->unix_path);
  g_free(s->base.super.listener_stats);
  log_source_deinit(&s->base);
  log_source_conns_deinit(&s->conns);
  free(s);
}

static const LogSourceOps net_ops = { _net_start, _net_stop, _net_free };

static LogSourceDriver *
_net_new(NetKind kind, const CfgOption *table, const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  NetSource *s = calloc(1, sizeof(*s));
  if (!s)
    abort();
  log_source_init(&s->base, &net_ops, call);
  s->kind = kind;
  log_source_conns_init(&s->conns, &s->base);
  char *what = g_strdup_printf("%s()", call->name);
  /* fields the unix tables lack keep values that mean "not given" */
  s->o.transport = NET_TRANSPORT_UNSET;
  s->o.ip_protocol = 4;
  s->o.max_connections = -1;
  s->o.listen_backlog = 255;
  cfg_options_defaults(table, &s->o);
  bool ok = cfg_options_apply_inherit(table, call, &s->o, what, ctx->global, err)
            && net_source_resolve(s, call, ctx, err);
  g_free(what);
  if (!ok)
    {
      _net_free(&s->base.super);
      return NULL;
    }
  return &s->base.super;
}

#define NET_FACTORY(fn, kind, table)                                                                                \
  static LogSourceDriver *fn(const CfgNode *call, const LogDriverContext *ctx, CfgError *err)                      \
  {                                                                                                                 \
    return _net_new(kind, table, call, ctx, err);                                                                   \
  }

NET_FACTORY(_network_new, NET_NETWORK, net_inet_options)
NET_FACTORY(_syslog_new, NET_SYSLOG, net_inet_options)
NET_FACTORY(_tcp_new, NET_TCP, net_inet_options)
NET_FACTORY(_udp_new, NET_UDP, net_inet_options)
NET_FACTORY(_tcp6_new, NET_TCP6, net_inet_options)
NET_FACTORY(_udp6_new, NET_UDP6, net_inet_options)
NET_FACTORY(_unix_stream_new, NET_UNIX_STREAM, net_unix_stream_options)
NET_FACTORY(_unix_dgram_new, NET_UNIX_DGRAM, net_unix_dgram_options)
NET_FACTORY(_udp_balancer_new, NET_UDP_BALANCER, net_udp_balancer_options)

#define NET_DEF(driver_name, table, nargs)                                                                          \
  { .kind = CFG_OBJ_SOURCE, .name = driver_name, .options = table, .struct_size = sizeof(NetSourceOptions),         \
    .min_args = nargs, .max_args = nargs }

static const LogDriverFactory network_factory = { NET_DEF("network", net_inet_options, 0), _network_new, NULL };
static const LogDriverFactory syslog_factory = { NET_DEF("syslog", net_inet_options, 0), _syslog_new, NULL };
static const LogDriverFactory tcp_factory = { NET_DEF("tcp", net_inet_options, 0), _tcp_new, NULL };
static const LogDriverFactory udp_factory = { NET_DEF("udp", net_inet_options, 0), _udp_new, NULL };
static const LogDriverFactory tcp6_factory = { NET_DEF("tcp6", net_inet_options, 0), _tcp6_new, NULL };
static const LogDriverFactory udp6_factory = { NET_DEF("udp6", net_inet_options, 0), _udp6_new, NULL };
static const LogDriverFactory unix_stream_factory = { NET_DEF("unix-stream", net_unix_stream_options, 1),
                                                      _unix_stream_new, NULL };
static const LogDriverFactory unix_dgram_factory = { NET_DEF("unix-dgram", net_unix_dgram_options, 1),
                                                     _unix_dgram_new, NULL };
static const LogDriverFactory udp_balancer_factory = { NET_DEF("udp-balancer", net_udp_balancer_options, 0),
                                                       _udp_balancer_new, NULL };

const LogDriverFactory *const network_driver_factories[] = {
  &network_factory, &syslog_factory,      &tcp_factory,        &udp_factory,
  &tcp6_factory,    &udp6_factory,        &unix_stream_factory, &unix_dgram_factory, &udp_balancer_factory,
  &net_default_network_drivers_factory,
  /* destinations: network-dest-options.c */
  &net_network_dest_factory, &net_syslog_dest_factory, &net_tcp_dest_factory, &net_udp_dest_factory,
  &net_tcp6_dest_factory, &net_udp6_dest_factory, &net_unix_stream_dest_factory, &net_unix_dgram_dest_factory,
  NULL,
};
