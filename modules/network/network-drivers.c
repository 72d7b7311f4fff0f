/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * default-network-drivers(): syslog-ng 3.38's SCL block of that name
 * (scl/default-network-drivers/plugin.conf there), built of the network
 * module's own drivers as a LogSourceGroup (sluice/source-group.h):
 *
 *   network(transport(tcp) port(tcp-port) max-connections() log-msg-size()
 *           flags(no-parse, flags));
 *   network(transport(udp) port(udp-port) log-msg-size() flags(no-parse, flags));
 *     each message then through syslog-parser(flags(syslog-protocol))
 *   syslog(transport(tcp) port(rfc5424-tcp-port) max-connections() flags() log-msg-size());
 *   syslog(transport(tls) tls(tls) port(rfc5424-tls-port) max-connections() flags() log-msg-size());
 *
 * The first two are written here as network(... flags(syslog-protocol)
 * keep-hostname(yes)): the source parses as the parser would (RFC 5424
 * when the message is one, else RFC 3164), and the host name the
 * message names wins over the sender's, as it does when the parser runs
 * after syslog-ng's source (the functional test compares the two).
 *
 * Where Sluice departs from syslog-ng 3.38:
 *  - without tls() the TLS port is not opened: syslog-ng opens it and says
 *    its handshakes will fail for want of a key; Sluice says it is not
 *    opened and why;
 *  - syslog-ng then tries its application adapters (app-parser(topic(syslog)),
 *    ewmm-parser()), which set .app.* for the applications its SCL knows;
 *    Sluice has none yet, so options for them (syslog-ng passes any other
 *    option on to app-parser()) and hook-commands() are refused by name.
 */
#include "network.h"

#include "modules.h"
#include "sluice/internal-log.h"
#include "sluice/source-group.h"

#include <glib.h>
#include <stddef.h>
#include <stdio.h>

typedef struct DndOptions
{
  int64_t udp_port, tcp_port, tls_port, rfc5424_tcp_port;
  int64_t max_connections;
  int64_t log_msg_size;
  char **flags;
} DndOptions;

#define OFF(field) offsetof(DndOptions, field)

static const CfgOption dnd_options[] = {
  { .name = "udp-port", .type = CFG_OPT_INT, .offset = OFF(udp_port), .def_int = 514, .min = 1, .max = 65535 },
  { .name = "tcp-port", .type = CFG_OPT_INT, .offset = OFF(tcp_port), .def_int = 514, .min = 1, .max = 65535 },
  { .name = "rfc5424-tls-port", .type = CFG_OPT_INT, .offset = OFF(tls_port), .def_int = 6514, .min = 1,
    .max = 65535 },
  { .name = "rfc5424-tcp-port", .type = CFG_OPT_INT, .offset = OFF(rfc5424_tcp_port), .def_int = 601, .min = 1,
    .max = 65535 },
  { .name = "max-connections", .type = CFG_OPT_INT, .offset = OFF(max_connections), .def_int = 10, .min = 1,
    .max = INT32_MAX },
  { .name = "log-msg-size", .type = CFG_OPT_SIZE, .offset = OFF(log_msg_size), .def_int = 65536, .min = 1,
    .max = INT32_MAX },
  { .name = "flags", .type = CFG_OPT_STRING_LIST, .offset = OFF(flags), .empty_ok = true },
  /* tls(key-file() cert-file() ...): the TLS member's own tls(), copied
   * to it whole (the network module's tls() table checks it there) */
  { .name = "tls", .type = CFG_OPT_RAW },
  { .name = "hook-commands", .type = CFG_OPT_REMOVED,
    .def_str = "hook-commands() is not supported by Sluice yet in default-network-drivers()" },
  { .name = NULL },
};

/* The common options of every member. */
static CfgNode *
_member(const char *driver, const char *transport, int64_t port, const DndOptions *o, bool conns,
        const char *extra_flag, const CfgNode *call)
{
  char num[24];
  CfgNode *m = cfg_call_new(driver, NULL, &call->loc);
  cfg_call_add_option(m, "transport", CFG_VAL_IDENT, transport, 0);
  snprintf(num, sizeof(num), "%" G_GINT64_FORMAT, port);
  cfg_call_add_option(m, "port", CFG_VAL_NUMBER, num, port);
  if (conns)
    {
      snprintf(num, sizeof(num), "%" G_GINT64_FORMAT, o->max_connections);
      cfg_call_add_option(m, "max-connections", CFG_VAL_NUMBER, num, o->max_connections);
    }
  snprintf(num, sizeof(num), "%" G_GINT64_FORMAT, o->log_msg_size);
  cfg_call_add_option(m, "log-msg-size", CFG_VAL_NUMBER, num, o->log_msg_size);
  CfgNode *flags = cfg_node_new(CFG_NODE_CALL, &call->loc);
  flags->name = g_strdup("flags");
  if (extra_flag)
    cfg_node_add_arg(flags, CFG_VAL_IDENT, extra_flag, 0, &call->loc);
  for (char **f = o->flags; f && *f; f++)
    if (**f)
      cfg_node_add_arg(flags, CFG_VAL_IDENT, *f, 0, &call->loc);
  if (flags->n_args)
    cfg_node_add_child(m, flags);
  else
    cfg_node_free(flags);
  return m;
}

static LogSourceDriver *
_dnd_new(const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  DndOptions o;
  cfg_options_defaults(dnd_options, &o);
  if (!cfg_options_apply(dnd_options, call, &o, "default-network-drivers()", err))
    {
      cfg_options_free(dnd_options, &o);
      return NULL;
    }
  LogSourceGroup *g = log_source_group_new(call);
  CfgNode *tcp = _member("network", "tcp", o.tcp_port, &o, true, "syslog-protocol", call);
  cfg_call_add_option(tcp, "keep-hostname", CFG_VAL_IDENT, "yes", 0);
  CfgNode *udp = _member("network", "udp", o.udp_port, &o, false, "syslog-protocol", call);
  cfg_call_add_option(udp, "keep-hostname", CFG_VAL_IDENT, "yes", 0);
  bool ok = log_source_group_build(g, network_driver_factories, tcp, ctx, err)
            && log_source_group_build(g, network_driver_factories, udp, ctx, err)
            && log_source_group_build(g, network_driver_factories,
                                      _member("syslog", "tcp", o.rfc5424_tcp_port, &o, true, NULL, call), ctx, err);
  const CfgNode *tls_given = cfg_option_given(call, "tls");
  if (ok && tls_given && tls_given->n_children > 0)
    {
      CfgNode *tls = _member("syslog", "tls", o.tls_port, &o, true, NULL, call);
      cfg_node_add_child(tls, cfg_node_copy(tls_given));
      ok = log_source_group_build(g, network_driver_factories, tls, ctx, err);
    }
  else if (ok)
    {
      char port[24];
      snprintf(port, sizeof(port), "%" G_GINT64_FORMAT, o.tls_port);
      sluice_log(SLUICE_LOG_NOTICE,
                 "default-network-drivers(): no tls(key-file() cert-file()) given, so its TLS port is not opened "
                 "(syslog-ng 3.38 opens it, and its handshakes fail without a key)",
                 "port", port, NULL);
    }
  cfg_options_free(dnd_options, &o);
  if (!ok)
    {
      log_source_group_driver(g)->ops->free(log_source_group_driver(g));
      return NULL;
    }
  return log_source_group_driver(g);
}

const LogDriverFactory net_default_network_drivers_factory = {
  .def = { .kind = CFG_OBJ_SOURCE, .name = "default-network-drivers", .options = dnd_options,
           .struct_size = sizeof(DndOptions), .min_args = 0, .max_args = 0 },
  .new_source = _dnd_new,
};
