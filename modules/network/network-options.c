/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The network sources' option tables (syslog-ng 3.38's names and
 * defaults) and their resolution against the global options.
 *
 * Options whose default is a global option (keep-hostname, use-dns,
 * log-msg-size, ...) take the global value unless the driver call names
 * them; defaults that depend on the driver or the transport (port 601 for
 * syslog() over TCP, "::" for tcp6(), 256 connections for unix-stream())
 * are left unset by the table and filled in here.  Options Sluice does not
 * implement are not in the tables, so a configuration using them is
 * refused by name.
 */
#include "network.h"

#include "sluice-config.h"
#include "sluice/internal-log.h"
#include "sluice/msg-format.h"
#include "sluice/timeutil.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#define OFF(field) offsetof(NetSourceOptions, field)

static const char *const transport_names[] = { "tcp", "udp", "tls", "framed", NULL };

/* flags(): names (for the option table) and, at the same index, the MF_*
 * bit each sets */
static const char *const flag_names[] = {
  "no-parse",
  "check-hostname",
  "syslog-protocol",
  "assume-utf8",
  "validate-utf8",
  "no-multi-line",
  "expect-hostname",
  "no-hostname",
  "store-raw-message",
  "dont-store-legacy-msghdr",
  "no-header",
  "no-rfc3164-fallback",
  "store-legacy-msghdr",
  NULL,
};
static const uint32_t flag_bits[] = {
  MF_NO_PARSE,
  MF_CHECK_HOSTNAME,
  MF_SYSLOG_PROTOCOL,
  MF_ASSUME_UTF8,
  MF_VALIDATE_UTF8,
  MF_NO_MULTI_LINE,
  MF_EXPECT_HOSTNAME,
  MF_NO_HOSTNAME,
  MF_STORE_RAW_MESSAGE,
  MF_DONT_STORE_LEGACY_MSGHDR,
  MF_NO_HEADER,
  MF_NO_RFC3164_FALLBACK,
  0, /* store-legacy-msghdr: what the parser does unless told otherwise */
};
G_STATIC_ASSERT(G_N_ELEMENTS(flag_names) == G_N_ELEMENTS(flag_bits) + 1);

static const char *
_check_trim(const CfgOption *opt, const void *field)
{
  if (!*(const bool *) field)
    return "trim-large-messages(no) is not supported: Sluice always cuts a message at log-msg-size() (and logs "
           "the first one per sender)";
  return NULL;
}

static const char *
_check_ip_protocol(const CfgOption *opt, const void *field)
{
  int64_t v = *(const int64_t *) field;
  return v == 4 || v == 6 ? NULL : "expects 4 or 6";
}

/* ebpf(reuseport(sockets(N))): both blocks lead to the one number */
static const CfgOption ebpf_reuseport_options[] = {
  { .name = "sockets", .type = CFG_OPT_INT, .offset = 0, .min = 1, .max = UINT16_MAX },
  { 0 },
};
static const CfgOption ebpf_options[] = {
  { .name = "reuseport", .type = CFG_OPT_BLOCK, .offset = 0, .sub = ebpf_reuseport_options },
  { 0 },
};

/* The options every network source takes: reading, parsing and host logic. */
#define NET_READER_OPTIONS                                                                                          \
  { .name = "flags", .type = CFG_OPT_FLAGS, .offset = OFF(flags), .names = flag_names },                           \
  { .name = "log-iw-size", .type = CFG_OPT_INT, .offset = OFF(log_iw_size), .def_int = 100, .min = 1,              \
    .max = INT32_MAX },                                                                                             \
  { .name = "log-fetch-limit", .type = CFG_OPT_INT, .offset = OFF(log_fetch_limit), .def_int = 10, .min = 1,       \
    .max = INT32_MAX },                                                                                             \
  { .name = "log-msg-size", .type = CFG_OPT_SIZE, .offset = OFF(log_msg_size), .def_int = -1, .min = 1,            \
    .max = INT32_MAX },                                                                                             \
  { .name = "host-override", .type = CFG_OPT_STRING, .offset = OFF(host_override) },                               \
  { .name = "program-override", .type = CFG_OPT_STRING, .offset = OFF(program_override) },                         \
  { .name = "log-prefix", .type = CFG_OPT_STRING, .offset = OFF(program_override) },                               \
  { .name = "default-facility", .type = CFG_OPT_ENUM, .offset = OFF(default_facility), .def_int = -1,              \
    .names = cfg_facility_names },                                                                                      \
  { .name = "default-priority", .type = CFG_OPT_ENUM, .offset = OFF(default_priority), .def_int = -1,              \
    .names = cfg_level_names },                                                                                         \
  { .name = "default-level", .type = CFG_OPT_ENUM, .offset = OFF(default_priority), .def_int = -1,                 \
    .names = cfg_level_names },                                                                                         \
  { .name = "keep-hostname", .type = CFG_OPT_BOOL, .offset = OFF(keep_hostname) },                                 \
  { .name = "chain-hostnames", .type = CFG_OPT_BOOL, .offset = OFF(chain_hostnames) },                             \
  { .name = "use-dns", .type = CFG_OPT_BOOL, .offset = OFF(use_dns) },                                             \
  { .name = "use-fqdn", .type = CFG_OPT_BOOL, .offset = OFF(use_fqdn) },                                           \
  { .name = "normalize-hostnames", .type = CFG_OPT_BOOL, .offset = OFF(normalize_hostnames) },                     \
  { .name = "dns-cache", .type = CFG_OPT_BOOL, .offset = OFF(dns_cache) },                                         \
  { .name = "keep-timestamp", .type = CFG_OPT_BOOL, .offset = OFF(keep_timestamp) },                               \
  { .name = "time-zone", .type = CFG_OPT_STRING, .offset = OFF(time_zone), .check = cfg_check_time_zone },                 \
  { .name = "tags", .type = CFG_OPT_STRING_LIST, .offset = OFF(tags) },                                            \
  { .name = "so-rcvbuf", .type = CFG_OPT_SIZE, .offset = OFF(so_rcvbuf), .def_int = 0, .min = 0,                   \
    .max = INT32_MAX },                                                                                             \
  { .name = "so-sndbuf", .type = CFG_OPT_SIZE, .offset = OFF(so_sndbuf), .def_int = 0, .min = 0,                   \
    .max = INT32_MAX },                                                                                             \
  { .name = "so-broadcast", .type = CFG_OPT_BOOL, .offset = OFF(so_broadcast) },                                   \
  { .name = "trim-large-messages", .type = CFG_OPT_BOOL, .offset = OFF(trim_large_messages), .def_int = 1,         \
    .check = _check_trim },                                                                                         \
  { .name = "tls", .type = CFG_OPT_BLOCK, .offset = OFF(tls), .sub = net_tls_options },                            \
  { .name = "persist-name", .type = CFG_OPT_STRING, .offset = OFF(persist_name) }

#define NET_STREAM_OPTIONS                                                                                          \
  { .name = "max-connections", .type = CFG_OPT_INT, .offset = OFF(max_connections), .def_int = -1, .min = 1,       \
    .max = 1000000 },                                                                                               \
  { .name = "listen-backlog", .type = CFG_OPT_INT, .offset = OFF(listen_backlog), .def_int = 255, .min = 1,        \
    .max = INT32_MAX },                                                                                             \
  { .name = "keep-alive", .type = CFG_OPT_BOOL, .offset = OFF(keep_alive), .def_int = 1 }

#define NET_UNIX_OPTIONS                                                                                            \
  { .name = "owner", .type = CFG_OPT_STRING, .offset = OFF(owner), .empty_ok = true },                             \
  { .name = "group", .type = CFG_OPT_STRING, .offset = OFF(group), .empty_ok = true },                             \
  { .name = "perm", .type = CFG_OPT_INT, .offset = OFF(perm), .def_int = 0666, .min = 0, .max = 07777 },          \
  { .name = "create-dirs", .type = CFG_OPT_BOOL, .offset = OFF(create_dirs) },                                     \
  { .name = "optional", .type = CFG_OPT_BOOL, .offset = OFF(optional) }

const CfgOption net_inet_options[] = {
  NET_READER_OPTIONS,
  NET_STREAM_OPTIONS,
  { .name = "ip", .type = CFG_OPT_STRING, .offset = OFF(ip) },
  { .name = "localip", .type = CFG_OPT_STRING, .offset = OFF(ip) },
  { .name = "port", .type = CFG_OPT_STRING, .offset = OFF(port), .check = cfg_check_port },
  { .name = "localport", .type = CFG_OPT_STRING, .offset = OFF(port), .check = cfg_check_port },
  { .name = "transport", .type = CFG_OPT_ENUM, .offset = OFF(transport), .def_int = NET_TRANSPORT_UNSET,
    .names = transport_names },
  { .name = "ip-protocol", .type = CFG_OPT_INT, .offset = OFF(ip_protocol), .def_int = 4,
    .check = _check_ip_protocol },
  { .name = "so-reuseport", .type = CFG_OPT_BOOL, .offset = OFF(so_reuseport) },
  { .name = "ebpf", .type = CFG_OPT_BLOCK, .offset = OFF(ebpf_sockets), .sub = ebpf_options },
  { .name = "so-keepalive", .type = CFG_OPT_BOOL, .offset = OFF(so_keepalive) },
  { .name = "tcp-keepalive-time", .type = CFG_OPT_INT, .offset = OFF(tcp_keepalive_time), .min = 0,
    .max = INT32_MAX },
  { .name = "tcp-keepalive-intvl", .type = CFG_OPT_INT, .offset = OFF(tcp_keepalive_intvl), .min = 0,
    .max = INT32_MAX },
  { .name = "tcp-keepalive-probes", .type = CFG_OPT_INT, .offset = OFF(tcp_keepalive_probes), .min = 0,
    .max = INT32_MAX },
  { .name = "ip-ttl", .type = CFG_OPT_INT, .offset = OFF(ip_ttl), .min = 0, .max = 255 },
  { .name = "ip-tos", .type = CFG_OPT_INT, .offset = OFF(ip_tos), .min = 0, .max = 255 },
  { .name = "ip-freebind", .type = CFG_OPT_BOOL, .offset = OFF(ip_freebind) },
  { .name = "interface", .type = CFG_OPT_STRING, .offset = OFF(interface) },
  { 0 },
};

const CfgOption net_unix_stream_options[] = {
  NET_READER_OPTIONS,
  NET_STREAM_OPTIONS,
  NET_UNIX_OPTIONS,
  { 0 },
};

/* syslog-ng 3.38 takes the stream options on unix-dgram() too (they have
 * nothing to act on there, there as here); configurations use them */
const CfgOption net_unix_dgram_options[] = {
  NET_READER_OPTIONS,
  NET_STREAM_OPTIONS,
  NET_UNIX_OPTIONS,
  { 0 },
};

/* True when the driver call names option name itself. */
static bool
_given(const CfgNode *call, const char *name)
{
  for (size_t i = 0; i < call->n_children; i++)
    if (cfg_name_equal(call->children[i]->name, name))
      return true;
  return false;
}

/* A per-source boolean that defaults to the global option. */
static bool
_inherit(const CfgNode *call, const char *name, bool own, bool global)
{
  return _given(call, name) ? own : global;
}

static const CfgOption *
_table_of(NetKind kind)
{
  switch (kind)
    {
    case NET_UNIX_STREAM: return net_unix_stream_options;
    case NET_UNIX_DGRAM: return net_unix_dgram_options;
    default: return net_inet_options;
    }
}

void
net_source_options_free(NetSource *s)
{
  cfg_options_free(_table_of(s->kind), &s->o);
}

static int
_transport(NetSource *s)
{
  switch (s->kind)
    {
    case NET_UDP:
    case NET_UDP6: return NET_TRANSPORT_UDP;
    case NET_TCP:
    case NET_TCP6: return NET_TRANSPORT_TCP;
    default: return s->o.transport == NET_TRANSPORT_UNSET ? NET_TRANSPORT_TCP : s->o.transport;
    }
}

/* True when flags() named flag. */
static bool
_has_flag(const NetSourceOptions *o, const char *flag)
{
  for (size_t i = 0; flag_names[i]; i++)
    if (strcmp(flag_names[i], flag) == 0)
      return (o->flags & (1u << i)) != 0;
  return false;
}

static void
_resolve_parse(NetSource *s, const CfgNode *call, const LogDriverContext *ctx)
{
  LogReaderOptions *ro = &s->ro;
  MsgFormatOptions *p = &ro->parse;
  for (size_t i = 0; flag_names[i]; i++)
    if (s->o.flags & (1u << i))
      p->flags |= flag_bits[i];
  if (s->kind == NET_SYSLOG)
    p->flags |= MF_SYSLOG_PROTOCOL;
  if (s->is_unix)
    {
      /* local senders (syslog(3)) write no hostname: syslog-ng does not
       * look for one unless flags(expect-hostname) asks */
      p->flags |= MF_LOCAL;
      if (!_has_flag(&s->o, "expect-hostname"))
        p->flags &= ~(uint32_t) MF_EXPECT_HOSTNAME;
    }
  /* the global check-hostname() does not reach the parser in syslog-ng
   * 3.38 (checked: "bad#host" stays HOST); flags(check-hostname) does */
  /* as syslog-ng: the unset half of default_pri is user / notice */
  if (s->o.default_facility >= 0 || s->o.default_priority >= 0)
    {
      int fac = s->o.default_facility >= 0 ? s->o.default_facility : 1;
      int lev = s->o.default_priority >= 0 ? cfg_level_codes[s->o.default_priority] : 5;
      p->default_pri = (uint16_t) (fac * 8 + lev);
    }
  /* the global time-zone() is only the sending zone in syslog-ng 3.38
   * (checked): reception uses time-zone() here or recv-time-zone() */
  const char *zone = s->o.time_zone ? s->o.time_zone : ctx->global->recv_time_zone;
  if (zone)
    p->recv_tz = tz_get(zone, NULL);
  ro->log_msg_size = (size_t) (s->o.log_msg_size > 0 ? s->o.log_msg_size : ctx->global->log_msg_size);
  ro->fetch_limit = (int) s->o.log_fetch_limit;
  ro->transport = s->transport_name;
}

static void
_resolve_host(NetSource *s, const CfgNode *call, const LogDriverContext *ctx)
{
  const CfgGlobalOptions *g = ctx->global;
  NetHostOptions *h = &s->host;
  h->keep_hostname = _inherit(call, "keep-hostname", s->o.keep_hostname, g->keep_hostname);
  h->chain_hostnames = _inherit(call, "chain-hostnames", s->o.chain_hostnames, g->chain_hostnames);
  h->use_dns = _inherit(call, "use-dns", s->o.use_dns, g->use_dns);
  h->use_fqdn = _inherit(call, "use-fqdn", s->o.use_fqdn, g->use_fqdn);
  h->normalize_hostnames = _inherit(call, "normalize-hostnames", s->o.normalize_hostnames, g->normalize_hostnames);
  /* syslog-ng forces the DNS cache off (and with it dns-cache-hosts())
   * when the global use-dns() is no, whatever the source says about use-dns */
  h->dns_cache = _inherit(call, "dns-cache", s->o.dns_cache, g->dns_cache && g->use_dns);
  h->keep_timestamp = _inherit(call, "keep-timestamp", s->o.keep_timestamp, g->keep_timestamp);
  s->create_dirs = _inherit(call, "create-dirs", s->o.create_dirs, g->create_dirs);
  s->dir_perm = g->dir_perm >= 0 ? (int) g->dir_perm : 0700;
  h->local = s->is_unix;
  h->dns_cache_size = g->dns_cache_size;
  h->dns_cache_expire = g->dns_cache_expire;
  h->dns_cache_expire_failed = g->dns_cache_expire_failed;
  h->host_override = s->o.host_override;
  h->parse = &s->ro.parse;
  h->program_override = s->o.program_override;
  if (s->o.tags)
    {
      h->n_tags = g_strv_length(s->o.tags);
      h->tags = calloc(h->n_tags + 1, sizeof(LogTagId));
      for (size_t i = 0; i < h->n_tags; i++)
        h->tags[i] = log_tags_get_by_name(s->o.tags[i]);
    }
}

static const char *
_transport_name(NetSource *s, int transport)
{
  /* syslog-ng 3.38 leaves ${TRANSPORT} empty; these are syslog-ng 4's
   * names, which the issue asks for */
  switch (s->kind)
    {
    case NET_UNIX_STREAM: return "local+unix-stream";
    case NET_UNIX_DGRAM: return "local+unix-dgram";
    case NET_SYSLOG:
      return transport == NET_TRANSPORT_UDP ? "rfc5426" : s->tls ? "rfc5425" : "rfc6587";
    default:
      if (transport == NET_TRANSPORT_UDP)
        return "rfc3164+udp";
      if (s->tls)
        return "rfc3164+tls";
      return transport == NET_TRANSPORT_FRAMED ? "rfc3164+framed" : "rfc3164+tcp";
    }
}

/* ebpf(reuseport(sockets(N))) balances the datagrams of an so-reuseport()
 * group (network-socket.c) */
static bool
_resolve_ebpf(NetSource *s, const CfgNode *call, CfgError *err)
{
  const CfgNode *ebpf = NULL;
  for (size_t i = 0; i < call->n_children; i++)
    if (cfg_name_equal(call->children[i]->name, "ebpf"))
      ebpf = call->children[i];
  if (!ebpf)
    return true;
  const char *why = NULL;
  if (!SLUICE_HAVE_EBPF)
    why = "this Sluice was built without libbpf (meson -Debpf=enabled)";
  else if (s->o.ebpf_sockets == 0)
    why = "reuseport(sockets(N)) is needed: N is the number of sockets in the so-reuseport() group";
  else if (s->stream)
    why = "only a UDP source's so-reuseport() group is balanced (a stream source spreads its connections "
          "over the workers itself)";
  else if (!s->o.so_reuseport)
    why = "so-reuseport(yes) is needed: the program balances the so-reuseport() group on this address";
  if (why)
    cfg_error_set(err, &ebpf->loc, "%s(): ebpf(): %s", call->name, why);
  return why == NULL;
}

bool
net_source_resolve(NetSource *s, const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  int transport = _transport(s);
  if (s->o.transport != NET_TRANSPORT_UNSET && s->kind != NET_NETWORK && s->kind != NET_SYSLOG)
    {
      cfg_error_set(err, &call->loc, "%s() takes no transport(); use network() or syslog() to choose one",
                    call->name);
      return false;
    }
  s->is_unix = s->kind == NET_UNIX_STREAM || s->kind == NET_UNIX_DGRAM;
  s->stream = s->kind == NET_UNIX_STREAM || (!s->is_unix && transport != NET_TRANSPORT_UDP);
  if (s->is_unix)
    {
      s->family = AF_UNIX;
      s->unix_path = g_strdup(call->args[0].str);
      if (strlen(s->unix_path) >= sizeof(((struct sockaddr_un *) 0)->sun_path))
        {
          cfg_error_set(err, &call->args[0].loc, "%s(): socket path is too long (at most %zu bytes)", call->name,
                        sizeof(((struct sockaddr_un *) 0)->sun_path) - 1);
          return false;
        }
    }
  else
    {
      bool six = s->kind == NET_TCP6 || s->kind == NET_UDP6 || s->o.ip_protocol == 6;
      s->family = six ? AF_INET6 : AF_INET;
      if (!s->o.ip)
        s->o.ip = g_strdup(six ? "::" : "0.0.0.0");
      if (!s->o.port)
        s->o.port = g_strdup(s->kind != NET_SYSLOG || transport == NET_TRANSPORT_UDP ? "514"
                             : transport == NET_TRANSPORT_TLS                        ? "6514"
                                                                                     : "601");
    }
  if (!_resolve_ebpf(s, call, err))
    return false;
  s->location = g_strdup_printf("%s:%d:%d", call->loc.file, call->loc.line, call->loc.col);
  if (!net_tls_resolve(s, call, transport, err))
    return false;
  s->transport_name = _transport_name(s, transport);
  /* stats-level 1 names the driver as syslog-ng does: network() and
   * syslog() by transport and address, the others by address or path */
  if (s->is_unix)
    g_strlcpy(s->super.stats_instance, s->unix_path, sizeof(s->super.stats_instance));
  else if (s->kind == NET_NETWORK || s->kind == NET_SYSLOG)
    g_snprintf(s->super.stats_instance, sizeof(s->super.stats_instance), "%s,%s", transport_names[transport],
               s->o.ip);
  else
    g_strlcpy(s->super.stats_instance, s->o.ip, sizeof(s->super.stats_instance));
  if (s->o.max_connections > 0)
    s->max_connections = (int) s->o.max_connections;
  else
    s->max_connections = s->kind == NET_UNIX_STREAM ? 256 : 10;

  log_reader_options_defaults(&s->ro);
  if (s->stream)
    s->ro.framing = (s->kind == NET_SYSLOG || transport == NET_TRANSPORT_FRAMED) ? LOG_FRAMING_OCTET_COUNTED
                                                                                 : LOG_FRAMING_LF;
  else
    s->ro.framing = LOG_FRAMING_DGRAM;
  _resolve_parse(s, call, ctx);
  _resolve_host(s, call, ctx);
  if (s->host.use_dns && s->host.dns_cache && !s->host.local && ctx->global->dns_cache_hosts
      && ctx->global->dns_cache_hosts[0])
    {
      char *error = NULL;
      if (!net_hosts_file_load(&s->host, ctx->global->dns_cache_hosts, &error))
        {
          cfg_error_set(err, &call->loc, "%s(): cannot read the global dns-cache-hosts() file '%s': %s", call->name,
                        ctx->global->dns_cache_hosts, error);
          g_free(error);
          return false;
        }
    }
  if (ctx->global->bad_hostname && ctx->global->bad_hostname[0])
    {
      char *error = NULL;
      if (!net_bad_hostname_compile(&s->host, ctx->global->bad_hostname, &error))
        {
          cfg_error_set(err, &call->loc, "%s(): the global bad-hostname() is not a valid regular expression: %s",
                        call->name, error);
          g_free(error);
          return false;
        }
      /* the reparse of a line whose hostname is bad needs the line */
      s->host.keep_raw = (s->ro.parse.flags & MF_STORE_RAW_MESSAGE) != 0;
      s->ro.parse.flags |= MF_STORE_RAW_MESSAGE;
    }
  return true;
}
