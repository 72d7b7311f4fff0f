/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The network destinations' option tables and constructors.
 *
 * Names and defaults are syslog-ng 3.38's: port 514 (601 for syslog() over
 * TCP), transport tcp, time-reopen/flush-lines/log-fifo-size/ts-format/
 * frac-digits/send-time-zone from options {} unless the call names them,
 * failback(tcp-probe-interval(60) successful-probes-required(3)),
 * keep-alive(yes).  The default line is RFC 3164 ("<PRI>DATE HOST
 * MSGHDRMSG\n"), syslog() sends RFC 5424, octet-counted over TCP.  A
 * template() replaces the RFC 3164 line (no newline is added) and the
 * [BOM]MSG part of the RFC 5424 one (the newline is kept);
 * proto-template(NAME) of options {} is the default template of the RFC
 * 3164 drivers, as in syslog-ng 3.38.
 *
 * Options Sluice does not implement are not in the tables, or are
 * CFG_OPT_REMOVED with the reason, so a configuration using them is
 * refused by name.
 */
#include "network-dest.h"

#include "sluice/internal-log.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

#define OFF(field) offsetof(NetDestOptions, field)
#define FOFF(field) offsetof(__typeof__(((NetDestOptions *) 0)->failover), field)
#define BOFF(field) offsetof(__typeof__(((NetDestOptions *) 0)->failover.failback), field)

static const char *const transport_names[] = { "tcp", "udp", "framed", "tls", NULL };
static const char *const ts_formats[] = { "rfc3164", "bsd", "rfc3339", "iso", "unix", "full", NULL };

static const char *
_check_ip_protocol(const CfgOption *opt, const void *field)
{
  int64_t v = *(const int64_t *) field;
  return v == 4 || v == 6 ? NULL : "expects 4 or 6";
}

static const CfgOption failback_options[] = {
  { .name = "tcp-probe-interval", .type = CFG_OPT_INT, .offset = BOFF(tcp_probe_interval), .def_int = 60,
    .min = 1, .max = INT32_MAX },
  { .name = "successful-probes-required", .type = CFG_OPT_INT, .offset = BOFF(successful_probes_required),
    .def_int = 3, .min = 1, .max = INT32_MAX },
  { 0 },
};

static const CfgOption failover_options[] = {
  { .name = "servers", .type = CFG_OPT_STRING_LIST, .offset = FOFF(servers) },
  { .name = "failback", .type = CFG_OPT_BLOCK, .offset = FOFF(failback), .sub = failback_options },
  { 0 },
};

/* in NET_DEST_FLAG_* bit order; syslog-ng's other writer flags
 * (ignore-errors, threaded, seqnum ...) are refused by name */
static const char *const writer_flags[] = { "no-multi-line", "syslog-protocol", NULL };

/* What every network destination takes: the writer and socket options. */
#define NET_DEST_COMMON                                                                                             \
  { .name = "template", .type = CFG_OPT_TEMPLATE, .offset = OFF(template_text) },                                   \
  { .name = "template-escape", .type = CFG_OPT_BOOL, .offset = OFF(template_escape) },                              \
  { .name = "flags", .type = CFG_OPT_FLAGS, .offset = OFF(flags), .names = writer_flags },                          \
  { .name = "flush-lines", .type = CFG_OPT_INT, .offset = OFF(flush_lines), .min = 0, .max = INT32_MAX },           \
  { .name = "log-fifo-size", .type = CFG_OPT_SIZE, .offset = OFF(log_fifo_size), .min = 1, .max = INT32_MAX },      \
  { .name = "time-reopen", .type = CFG_OPT_INT, .offset = OFF(time_reopen), .min = 1, .max = INT32_MAX },           \
  { .name = "throttle", .type = CFG_OPT_INT, .offset = OFF(throttle), .min = 0, .max = INT32_MAX },                 \
  { .name = "suppress", .type = CFG_OPT_INT, .offset = OFF(suppress), .min = 0, .max = INT32_MAX },                 \
  { .name = "ts-format", .type = CFG_OPT_ENUM, .offset = OFF(ts_format), .names = ts_formats,                       \
    .inherit = "ts-format" },                                                                                       \
  { .name = "frac-digits", .type = CFG_OPT_INT, .offset = OFF(frac_digits), .min = 0, .max = 6,                     \
    .inherit = "frac-digits" },                                                                                     \
  CFG_DEST_ON_ERROR_OPTION(OFF(on_error)),                                                                          \
  { .name = "send-time-zone", .type = CFG_OPT_STRING, .offset = OFF(send_time_zone) },                              \
  { .name = "time-zone", .type = CFG_OPT_STRING, .offset = OFF(send_time_zone) },                                   \
  { .name = "so-sndbuf", .type = CFG_OPT_SIZE, .offset = OFF(so_sndbuf), .min = 0, .max = INT32_MAX },              \
  { .name = "so-rcvbuf", .type = CFG_OPT_SIZE, .offset = OFF(so_rcvbuf), .min = 0, .max = INT32_MAX },              \
  { .name = "so-keepalive", .type = CFG_OPT_BOOL, .offset = OFF(so_keepalive) },                                    \
  { .name = "close-on-input", .type = CFG_OPT_BOOL, .offset = OFF(close_on_input), .def_int = 1 },                  \
  { .name = "keep-alive", .type = CFG_OPT_BOOL, .offset = OFF(keep_alive), .def_int = 1 },                          \
  { .name = "spoof-source", .type = CFG_OPT_REMOVED,                                                                \
    .def_str = "sending with another host's address needs raw sockets (libnet), which Sluice does not have" },      \
  { .name = "spoof-source-max-msglen", .type = CFG_OPT_REMOVED, .def_str = "spoof-source() is not supported" },     \
  { .name = "tls", .type = CFG_OPT_BLOCK, .offset = OFF(tls), .sub = net_tls_options },                               \
  LOG_DEST_QUEUE_OPTIONS

static const CfgOption net_dest_inet_options[] = {
  NET_DEST_COMMON,
  { .name = "port", .type = CFG_OPT_STRING, .offset = OFF(port), .check = cfg_check_port },
  { .name = "transport", .type = CFG_OPT_ENUM, .offset = OFF(transport), .def_int = NET_DEST_TRANSPORT_UNSET,
    .names = transport_names },
  { .name = "ip-protocol", .type = CFG_OPT_INT, .offset = OFF(ip_protocol), .check = _check_ip_protocol },
  { .name = "localip", .type = CFG_OPT_STRING, .offset = OFF(localip) },
  { .name = "localport", .type = CFG_OPT_STRING, .offset = OFF(localport), .check = cfg_check_port },
  { .name = "so-broadcast", .type = CFG_OPT_BOOL, .offset = OFF(so_broadcast) },
  { .name = "ip-ttl", .type = CFG_OPT_INT, .offset = OFF(ip_ttl), .min = 0, .max = 255 },
  { .name = "ip-tos", .type = CFG_OPT_INT, .offset = OFF(ip_tos), .min = 0, .max = 255 },
  { .name = "tcp-keepalive-time", .type = CFG_OPT_INT, .offset = OFF(tcp_keepalive_time), .min = 0,
    .max = INT32_MAX },
  { .name = "tcp-keepalive-intvl", .type = CFG_OPT_INT, .offset = OFF(tcp_keepalive_intvl), .min = 0,
    .max = INT32_MAX },
  { .name = "tcp-keepalive-probes", .type = CFG_OPT_INT, .offset = OFF(tcp_keepalive_probes), .min = 0,
    .max = INT32_MAX },
  { .name = "failover", .type = CFG_OPT_BLOCK, .offset = OFF(failover), .sub = failover_options },
  { 0 },
};

static const CfgOption net_dest_unix_options[] = {
  NET_DEST_COMMON,
  { 0 },
};

static const char *const driver_names[] = { "network", "syslog", "tcp", "udp", "tcp6", "udp6", "unix-stream",
                                            "unix-dgram" };

/* template("x"): the template {} block named x when there is one (with its
 * template-escape()), else x itself, as syslog-ng reads it. */
static bool
_compile_template(NetDest *d, const char *text, const LogDriverContext *ctx, const CfgLocation *loc, CfgError *err)
{
  const CfgNode *block = ctx->tree ? cfg_tree_lookup(ctx->tree, CFG_OBJ_TEMPLATE, text) : NULL;
  const char *source = block ? NULL : text;
  for (size_t i = 0; block && i < block->n_children; i++)
    {
      const CfgNode *c = block->children[i];
      if (cfg_name_equal(c->name, "template") && c->n_args == 1 && c->args[0].type != CFG_VAL_OP)
        {
          source = c->args[0].str;
          loc = &c->args[0].loc;
        }
      else if (cfg_name_equal(c->name, "template-escape") && c->n_args == 1)
        d->o.template_escape |= cfg_name_equal(c->args[0].str, "yes") || cfg_name_equal(c->args[0].str, "on");
      else
        {
          cfg_error_set(err, &c->loc, "%s in template %s {} is not supported; it takes template(\"...\") and "
                        "template-escape(yes|no)", c->name, block->name);
          return false;
        }
    }
  if (!source)
    {
      cfg_error_set(err, &block->loc, "template %s {} has no template(\"...\")", block->name);
      return false;
    }
  char *error = NULL;
  d->tmpl = log_template_compile(source, &error);
  if (!d->tmpl)
    {
      cfg_error_set(err, loc, "bad template in %s(): %s", d->super.driver, error);
      g_free(error);
      return false;
    }
  return true;
}

static bool
_setup_templates(NetDest *d, const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  const CfgGlobalOptions *g = ctx->global;
  if (g && !d->o.send_time_zone && (g->send_time_zone || g->time_zone))
    d->o.send_time_zone = g_strdup(g->send_time_zone ? g->send_time_zone : g->time_zone);
  log_template_options_defaults(&d->topts);
  d->topts.on_error = cfg_on_error_mode(d->o.on_error);
  const char *e = log_template_options_set_ts_format(&d->topts, ts_formats[d->o.ts_format]);
  if (!e)
    e = log_template_options_set_frac_digits(&d->topts, (int) d->o.frac_digits);
  if (e)
    {
      cfg_error_set(err, &call->loc, "%s(): %s", d->super.driver, e);
      return false;
    }
  if (d->o.send_time_zone)
    {
      const char *zerr = NULL;
      d->topts.send_tz = tz_get(d->o.send_time_zone, &zerr);
      if (!d->topts.send_tz)
        {
          const CfgNode *o = cfg_option_given(call, "send-time-zone");
          if (!o)
            o = cfg_option_given(call, "time-zone");
          cfg_error_set(err, o ? &o->loc : &call->loc, "%s(): unknown time zone '%s': %s", d->super.driver,
                        d->o.send_time_zone, zerr ? zerr : "not a zone");
          return false;
        }
    }
  bool ok = true;
  if (d->o.template_text)
    {
      const CfgNode *o = cfg_option_given(call, "template");
      ok = _compile_template(d, d->o.template_text, ctx, o ? &o->loc : &call->loc, err);
    }
  else if (g && g->proto_template && d->format == NET_FMT_RFC3164)
    {
      /* syslog-ng 3.38 takes only the name of a template {} here (and
       * ignores anything else with an error line); Sluice refuses it */
      if (!ctx->tree || !cfg_tree_lookup(ctx->tree, CFG_OBJ_TEMPLATE, g->proto_template))
        {
          cfg_error_set(err, &call->loc, "%s(): proto-template(%s) of options {} names no template {} block",
                        d->super.driver, g->proto_template);
          return false;
        }
      ok = _compile_template(d, g->proto_template, ctx, &call->loc, err);
    }
  d->topts.escape = d->o.template_escape;
  return ok;
}

/* The host or path argument, checked. */
static bool
_setup_target(NetDest *d, const CfgNode *call, CfgError *err)
{
  const CfgValue *arg = &call->args[0];
  if (arg->type == CFG_VAL_OP || !arg->str[0])
    {
      cfg_error_set(err, &arg->loc, "%s() needs a %s, got an empty one", d->super.driver,
                    d->is_unix ? "socket path" : "host name or address");
      return false;
    }
  if (d->is_unix && strlen(arg->str) >= sizeof(((struct sockaddr_un *) 0)->sun_path))
    {
      cfg_error_set(err, &arg->loc, "%s(): the path '%s' is longer than a unix socket address takes",
                    d->super.driver, arg->str);
      return false;
    }
  GPtrArray *all = g_ptr_array_new();
  g_ptr_array_add(all, g_strdup(arg->str));
  for (char **s = d->o.failover.servers; s && *s; s++)
    {
      if (!**s)
        {
          const CfgNode *f = cfg_option_given(call, "failover");
          cfg_error_set(err, f ? &f->loc : &call->loc, "%s(): failover(servers()) has an empty server name",
                        d->super.driver);
          g_ptr_array_add(all, NULL);
          g_strfreev((char **) g_ptr_array_free(all, FALSE));
          return false;
        }
      g_ptr_array_add(all, g_strdup(*s));
    }
  d->n_servers = (int) all->len;
  g_ptr_array_add(all, NULL);
  d->servers = (char **) g_ptr_array_free(all, FALSE);
  const CfgNode *fo = cfg_option_given(call, "failover");
  d->failback = fo && cfg_option_given(fo, "failback");
  d->probe_interval = d->o.failover.failback.tcp_probe_interval;
  d->probes_required = d->o.failover.failback.successful_probes_required;
  if (fo && d->n_servers < 2)
    {
      cfg_error_set(err, &fo->loc, "%s(): failover() needs servers(\"host\" ...)", d->super.driver);
      return false;
    }
  return true;
}

/* Transport, family, framing and the default port of an inet driver. */
static bool
_setup_transport(NetDest *d, const CfgNode *call, CfgError *err)
{
  int t = d->o.transport;
  switch (d->kind)
    {
    case NET_DEST_TCP:
    case NET_DEST_TCP6:
    case NET_DEST_UDP:
    case NET_DEST_UDP6:
      if (t != NET_DEST_TRANSPORT_UNSET)
        {
          cfg_error_set(err, &cfg_option_given(call, "transport")->loc,
                        "%s() takes no transport(); use network()",
                        d->super.driver);
          return false;
        }
      t = d->kind == NET_DEST_UDP || d->kind == NET_DEST_UDP6 ? NET_DEST_TRANSPORT_UDP : NET_DEST_TRANSPORT_TCP;
      break;
    case NET_DEST_SYSLOG:
      if (t == NET_DEST_TRANSPORT_FRAMED)
        {
          cfg_error_set(err, &cfg_option_given(call, "transport")->loc,
                        "syslog() takes transport(tcp), transport(udp) or transport(tls)");
          return false;
        }
      /* fall through */
    default:
      if (t == NET_DEST_TRANSPORT_UNSET)
        t = NET_DEST_TRANSPORT_TCP;
      break;
    }
  d->o.transport = t;
  d->stream = t != NET_DEST_TRANSPORT_UDP;
  d->framed = t == NET_DEST_TRANSPORT_FRAMED || (d->kind == NET_DEST_SYSLOG && d->stream);
  int proto = (int) d->o.ip_protocol;
  if (d->kind == NET_DEST_TCP6 || d->kind == NET_DEST_UDP6)
    {
      if (proto == 4)
        {
          cfg_error_set(err, &cfg_option_given(call, "ip-protocol")->loc, "%s() is IPv6 only",
                        d->super.driver);
          return false;
        }
      proto = 6;
    }
  d->family = proto == 6 ? AF_INET6 : AF_INET;
  if (!d->o.port)
    d->o.port = g_strdup(d->kind != NET_DEST_SYSLOG || !d->stream ? "514"
                         : t == NET_DEST_TRANSPORT_TLS           ? "6514"
                                                                 : "601");
  if (d->failback && !d->stream)
    {
      cfg_error_set(err, &cfg_option_given(call, "failover")->loc,
                    "%s(): failback() probes servers with TCP connections; it needs transport(tcp)",
                    d->super.driver);
      return false;
    }
  return true;
}

/* transport(tls), or tls() on a TCP transport (tcp(tls(...)) is TLS in
 * syslog-ng 3.38): the client context, made now so that a file that
 * cannot be loaded is a configuration error. */
static bool
_setup_tls(NetDest *d, const CfgNode *call, CfgError *err)
{
  const CfgNode *tls = cfg_option_given(call, "tls");
  if (tls && (d->is_unix || !d->stream))
    {
      cfg_error_set(err, &tls->loc, "%s(): tls() options specified for a transport that doesn't allow TLS encryption",
                    d->super.driver);
      return false;
    }
  if (!tls && d->o.transport != NET_DEST_TRANSPORT_TLS)
    return true;
  char *location = g_strdup_printf("%s:%d:%d", call->loc.file, call->loc.line, call->loc.col);
  char *error = NULL;
  d->tls_ctx = net_tls_context_new(&d->o.tls, false, location, &error);
  g_free(location);
  if (!d->tls_ctx)
    {
      cfg_error_set(err, tls ? &tls->loc : &call->loc, "%s(): %s", d->super.driver, error);
      g_free(error);
      return false;
    }
  return true;
}

static void
_net_dest_free(LogDestDriver *s)
{
  NetDest *d = (NetDest *) s;
  net_dest_writer_free(d);
  net_tls_context_unref(d->tls_ctx);
  log_template_unref(d->tmpl);
  cfg_options_free(d->is_unix ? net_dest_unix_options : net_dest_inet_options, &d->o);
  g_strfreev(d->servers);
  g_free(d->name);
  g_free(d->keep_name);
  free(d);
}

static bool
_net_dest_start(LogDestDriver *s, char **error)
{
  net_dest_take_connection((NetDest *) s);
  return true;
}

static const LogDestOps net_dest_ops = { _net_dest_start, _net_dest_free };

static LogDestDriver *
_net_dest_new(NetDestKind kind, const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  NetDest *d = calloc(1, sizeof(*d));
  if (!d)
    abort();
  d->kind = kind;
  d->fd = -1;
  d->super.ops = &net_dest_ops;
  d->super.writer_ops = &net_dest_writer_ops;
  d->super.driver = driver_names[kind];
  d->super.loc = call->loc;
  d->name = g_strdup(ctx->stmt_name ? ctx->stmt_name : d->super.driver);
  /* a destination renamed with the same persist-name() keeps its queue
   * (the pipeline's) and its connection across a reload */
  d->keep_name = g_strdup(ctx->persist_name ? ctx->persist_name : d->name);
  d->is_unix = kind == NET_DEST_UNIX_STREAM || kind == NET_DEST_UNIX_DGRAM;
  d->format = kind == NET_DEST_SYSLOG ? NET_FMT_RFC5424 : NET_FMT_RFC3164;
  const CfgOption *table = d->is_unix ? net_dest_unix_options : net_dest_inet_options;
  cfg_options_defaults(table, &d->o);
  char what[24];
  snprintf(what, sizeof(what), "%s()", d->super.driver);
  bool ok = cfg_options_apply_inherit(table, call, &d->o, what, ctx->global, err)
            && _setup_target(d, call, err);
  if (d->o.flags & NET_DEST_FLAG_SYSLOG_PROTOCOL)
    d->format = NET_FMT_RFC5424;
  if (ok && d->is_unix)
    {
      d->family = AF_UNIX;
      d->stream = kind == NET_DEST_UNIX_STREAM;
    }
  else if (ok)
    ok = _setup_transport(d, call, err);
  ok = ok && _setup_tls(d, call, err) && _setup_templates(d, call, ctx, err);
  if (!ok)
    {
      _net_dest_free(&d->super);
      return NULL;
    }
  d->super.log_fifo_size = d->o.log_fifo_size;
  d->super.flush_lines = d->o.flush_lines;
  d->super.time_reopen = d->o.time_reopen;
  d->super.throttle = d->o.throttle;
  d->super.suppress = d->o.suppress;
  /* the stats rows' instance, as syslog-ng names it: "tcp,host:port", or
   * the socket's path */
  if (d->is_unix)
    g_strlcpy(d->super.stats_instance, d->servers[0], sizeof(d->super.stats_instance));
  else
    g_snprintf(d->super.stats_instance, sizeof(d->super.stats_instance), "%s,%s:%s",
               d->tls_ctx ? "tls" : d->stream ? "tcp" : "udp", d->servers[0], d->o.port);
  return &d->super;
}

#define NET_DEST_FACTORY(var, fn, dkind, dname, table)                                                              \
  static LogDestDriver *fn(const CfgNode *call, const LogDriverContext *ctx, CfgError *err)                         \
  {                                                                                                                 \
    return _net_dest_new(dkind, call, ctx, err);                                                                    \
  }                                                                                                                 \
  const LogDriverFactory var = {                                                                                    \
    .def = { .kind = CFG_OBJ_DESTINATION, .name = dname, .options = table,                                          \
             .struct_size = sizeof(NetDestOptions), .min_args = 1, .max_args = 1 },                                 \
    .new_dest = fn,                                                                                                 \
  };

NET_DEST_FACTORY(net_network_dest_factory, _network_new, NET_DEST_NETWORK, "network", net_dest_inet_options)
NET_DEST_FACTORY(net_syslog_dest_factory, _syslog_new, NET_DEST_SYSLOG, "syslog", net_dest_inet_options)
NET_DEST_FACTORY(net_tcp_dest_factory, _tcp_new, NET_DEST_TCP, "tcp", net_dest_inet_options)
NET_DEST_FACTORY(net_udp_dest_factory, _udp_new, NET_DEST_UDP, "udp", net_dest_inet_options)
NET_DEST_FACTORY(net_tcp6_dest_factory, _tcp6_new, NET_DEST_TCP6, "tcp6", net_dest_inet_options)
NET_DEST_FACTORY(net_udp6_dest_factory, _udp6_new, NET_DEST_UDP6, "udp6", net_dest_inet_options)
NET_DEST_FACTORY(net_unix_stream_dest_factory, _unix_stream_new, NET_DEST_UNIX_STREAM, "unix-stream",
                 net_dest_unix_options)
NET_DEST_FACTORY(net_unix_dgram_dest_factory, _unix_dgram_new, NET_DEST_UNIX_DGRAM, "unix-dgram",
                 net_dest_unix_options)
