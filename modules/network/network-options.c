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

#include "contrib/bpf/sluice-reuseport.h"

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

#define NET_NO_EBPF                                                                                                 \
  "this Sluice was built without libbpf or without clang's BPF target, which compiles contrib/bpf (meson "          \
  "-Debpf=enabled says which is missing)"

/* balance()'s names are the programs' modes by index */
_Static_assert(SLUICE_BALANCE_RANDOM == 0 && SLUICE_BALANCE_ROUND_ROBIN == 1 && SLUICE_BALANCE_SENDER == 2,
               "balance_names");

static const char *const transport_names[] = { "tcp", "udp", "tls", "framed", "text-with-nuls", "proxied-tcp",
                                               "proxied-tls", "proxied-tls-passthrough", NULL };

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
  LOG_SOURCE_OPTION_ROWS(NetSourceOptions, src, 100),                                                              \
  { .name = "so-rcvbuf", .type = CFG_OPT_SIZE, .offset = OFF(so_rcvbuf), .def_int = 0, .min = 0,                   \
    .max = INT32_MAX },                                                                                             \
  { .name = "so-sndbuf", .type = CFG_OPT_SIZE, .offset = OFF(so_sndbuf), .def_int = 0, .min = 0,                   \
    .max = INT32_MAX },                                                                                             \
  { .name = "so-broadcast", .type = CFG_OPT_BOOL, .offset = OFF(so_broadcast) },                                   \
  { .name = "trim-large-messages", .type = CFG_OPT_BOOL, .offset = OFF(trim_large_messages), .def_int = 1,         \
    .check = cfg_check_trim_large_messages, .inherit = "trim-large-messages" },                                                                                         \
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
  { .name = "create-dirs", .type = CFG_OPT_BOOL, .offset = OFF(create_dirs), .inherit = "create-dirs" },            \
  { .name = "optional", .type = CFG_OPT_BOOL, .offset = OFF(optional) },                                          \
  { .name = "pass-unix-credentials", .type = CFG_OPT_BOOL, .offset = OFF(pass_unix_credentials) },                \
  { .name = "so-passcred", .type = CFG_OPT_BOOL, .offset = OFF(so_passcred), .def_int = 1 }

#define NET_INET_OPTIONS                                                                                            \
  { .name = "ip", .type = CFG_OPT_STRING, .offset = OFF(ip) },                                                     \
  { .name = "localip", .type = CFG_OPT_STRING, .offset = OFF(ip) },                                                \
  { .name = "port", .type = CFG_OPT_STRING, .offset = OFF(port), .check = cfg_check_port },                        \
  { .name = "localport", .type = CFG_OPT_STRING, .offset = OFF(port), .check = cfg_check_port },                   \
  { .name = "transport", .type = CFG_OPT_ENUM, .offset = OFF(transport), .def_int = NET_TRANSPORT_UNSET,           \
    .names = transport_names },                                                                                     \
  { .name = "ip-protocol", .type = CFG_OPT_INT, .offset = OFF(ip_protocol), .def_int = 4,                          \
    .check = _check_ip_protocol },                                                                                  \
  { .name = "so-reuseport", .type = CFG_OPT_BOOL, .offset = OFF(so_reuseport) },                                   \
  { .name = "ebpf", .type = CFG_OPT_BLOCK, .offset = OFF(ebpf_sockets), .sub = ebpf_options },                     \
  { .name = "so-keepalive", .type = CFG_OPT_BOOL, .offset = OFF(so_keepalive) },                                   \
  { .name = "tcp-keepalive-time", .type = CFG_OPT_INT, .offset = OFF(tcp_keepalive_time), .min = 0,                \
    .max = INT32_MAX },                                                                                             \
  { .name = "tcp-keepalive-intvl", .type = CFG_OPT_INT, .offset = OFF(tcp_keepalive_intvl), .min = 0,              \
    .max = INT32_MAX },                                                                                             \
  { .name = "tcp-keepalive-probes", .type = CFG_OPT_INT, .offset = OFF(tcp_keepalive_probes), .min = 0,            \
    .max = INT32_MAX },                                                                                             \
  { .name = "ip-ttl", .type = CFG_OPT_INT, .offset = OFF(ip_ttl), .min = 0, .max = 255 },                          \
  { .name = "ip-tos", .type = CFG_OPT_INT, .offset = OFF(ip_tos), .min = 0, .max = 255 },                          \
  { .name = "ip-freebind", .type = CFG_OPT_BOOL, .offset = OFF(ip_freebind) },                                     \
  { .name = "interface", .type = CFG_OPT_STRING, .offset = OFF(interface) }

const CfgOption net_inet_options[] = {
  NET_READER_OPTIONS,
  NET_STREAM_OPTIONS,
  NET_INET_OPTIONS,
  { 0 },
};

/* udp-balancer() takes what udp() takes (the same rows), and
 * listeners() (syslog-ng PE's name) and balance() (Sluice's: PE documents
 * no choice of mode) */
static const char *const balance_names[] = { "random", "round-robin", "sender", NULL };

const CfgOption net_udp_balancer_options[] = {
  NET_READER_OPTIONS,
  NET_STREAM_OPTIONS,
  NET_INET_OPTIONS,
  { .name = "listeners", .type = CFG_OPT_INT, .offset = OFF(listeners), .def_int = 0, .min = 1, .max = 1024 },
  { .name = "balance", .type = CFG_OPT_ENUM, .offset = OFF(balance), .def_int = 0, .names = balance_names },
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

static const CfgOption *
_table_of(NetKind kind)
{
  switch (kind)
    {
    case NET_UNIX_STREAM: return net_unix_stream_options;
    case NET_UNIX_DGRAM: return net_unix_dgram_options;
    case NET_UDP_BALANCER: return net_udp_balancer_options;
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
    case NET_UDP6:
    case NET_UDP_BALANCER: return NET_TRANSPORT_UDP;
    case NET_TCP:
    case NET_TCP6: return NET_TRANSPORT_TCP;
    default: return s->o.transport == NET_TRANSPORT_UNSET ? NET_TRANSPORT_TCP : s->o.transport;
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
      return transport == NET_TRANSPORT_FRAMED          ? "rfc3164+framed"
             : transport == NET_TRANSPORT_TEXT_WITH_NULS ? "rfc3164+text-with-nuls"
             : transport == NET_TRANSPORT_PROXIED_TCP    ? "rfc3164+proxied-tcp"
             : transport == NET_TRANSPORT_PROXIED_TLS    ? "rfc3164+proxied-tls"
             : transport == NET_TRANSPORT_PROXIED_TLS_PASSTHROUGH ? "rfc3164+proxied-tls-passthrough"
                                                         : "rfc3164+tcp";
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
    why = NET_NO_EBPF;
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

/* udp-balancer(): one so-reuseport() group of listeners() sockets on
 * ip() and port(), balanced by its own program */
static bool
_resolve_balancer(NetSource *s, const CfgNode *call, CfgError *err)
{
  const char *why = NULL;
  if (!SLUICE_HAVE_EBPF)
    why = NET_NO_EBPF;
  else if (cfg_option_given(call, "ebpf"))
    why = "takes no ebpf(): it balances its own listeners; balance(random|round-robin|sender) chooses how";
  else if (cfg_option_given(call, "so-reuseport") && !s->o.so_reuseport)
    why = "so-reuseport(no) cannot apply: the listeners are one so-reuseport() group";
  if (why)
    {
      cfg_error_set(err, &call->loc, "%s(): %s", call->name, why);
      return false;
    }
  s->o.so_reuseport = true;
  return true;
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
  /* syslog-ng 3.38's udp() grammar refuses the stream options (its
   * network(transport(udp)) and unix-dgram() take them, and so does
   * Sluice: they have nothing to act on there) */
  static const char *const stream_only[] = { "max-connections", "listen-backlog", "keep-alive" };
  bool udp_driver = s->kind == NET_UDP || s->kind == NET_UDP6 || s->kind == NET_UDP_BALANCER;
  for (size_t i = 0; udp_driver && i < G_N_ELEMENTS(stream_only); i++)
    {
      const CfgNode *given = cfg_option_given(call, stream_only[i]);
      if (given)
        {
          cfg_error_set(err, &given->loc,
                        "%s(): %s() is an option of stream sources; a UDP source has no connections to act on",
                        call->name, stream_only[i]);
          return false;
        }
    }
  bool proxied = transport == NET_TRANSPORT_PROXIED_TCP || transport == NET_TRANSPORT_PROXIED_TLS
                 || transport == NET_TRANSPORT_PROXIED_TLS_PASSTHROUGH;
  if (s->kind == NET_SYSLOG && (transport == NET_TRANSPORT_TEXT_WITH_NULS || proxied))
    {
      cfg_error_set(err, &call->loc, "syslog() frames its messages by length: transport(%s) is for network()",
                    transport_names[transport]);
      return false;
    }
  s->proxied = proxied ? transport : 0;
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
  if (s->kind == NET_UDP_BALANCER ? !_resolve_balancer(s, call, err) : !_resolve_ebpf(s, call, err))
    return false;
  if (!net_tls_resolve(s, call, transport, err))
    return false;
  s->transport_name = _transport_name(s, transport);
  /* stats-level 1 names the driver as syslog-ng does: network() and
   * syslog() by transport and address, the others by address or path */
  if (s->is_unix)
    g_strlcpy(s->base.super.stats_instance, s->unix_path, sizeof(s->base.super.stats_instance));
  else if (s->kind == NET_NETWORK || s->kind == NET_SYSLOG)
    g_snprintf(s->base.super.stats_instance, sizeof(s->base.super.stats_instance), "%s,%s", transport_names[transport],
               s->o.ip);
  else
    g_strlcpy(s->base.super.stats_instance, s->o.ip, sizeof(s->base.super.stats_instance));
  if (s->o.max_connections > 0)
    s->max_connections = (int) s->o.max_connections;
  else
    s->max_connections = s->kind == NET_UNIX_STREAM ? 256 : 10;
  /* listen-backlog() not given: room for every allowed client to connect
   * at once (a reconnect storm after a restart), not syslog-ng's 256 alone,
   * past which the kernel drops SYNs and each client waits a second or
   * more before it tries again (the kernel caps it at somaxconn) */
  if (!cfg_option_given(call, "listen-backlog") && s->o.listen_backlog < s->max_connections)
    s->o.listen_backlog = s->max_connections;

  LogReaderOptions *ro = &s->base.ro;
  if (s->stream)
    ro->framing = (s->kind == NET_SYSLOG || transport == NET_TRANSPORT_FRAMED) ? LOG_FRAMING_OCTET_COUNTED
                  : transport == NET_TRANSPORT_TEXT_WITH_NULS                 ? LOG_FRAMING_TEXT_WITH_NULS
                                                                               : LOG_FRAMING_LF;
  else
    ro->framing = LOG_FRAMING_DGRAM;
  if (s->kind == NET_SYSLOG)
    ro->parse.flags |= MF_SYSLOG_PROTOCOL;
  /* local senders (syslog(3)) write no hostname: syslog-ng does not look
   * for one on a unix socket unless flags(expect-hostname) asks */
  if (s->is_unix && !log_source_has_flag(&s->o.src, "expect-hostname"))
    ro->parse.flags &= ~(uint32_t) MF_EXPECT_HOSTNAME;
  /* SO_PASSCRED and the .unix.* values, as syslog-ng 3.38 decides: the
   * source's pass-unix-credentials() when given, else the one of options
   * {} when given (a source's so-passcred() does not override it), else
   * so-passcred(), yes by default */
  bool cred = s->o.so_passcred;
  if (cfg_option_given(call, "pass-unix-credentials"))
    cred = s->o.pass_unix_credentials;
  else if (ctx->global->pass_unix_credentials >= 0)
    cred = ctx->global->pass_unix_credentials == 1;
  ro->passcred = s->is_unix && cred;
  s->create_dirs = s->o.create_dirs;
  s->dir_perm = ctx->global->dir_perm >= 0 ? (int) ctx->global->dir_perm : 0700;
  if (!log_source_resolve(&s->base, &s->o.src, call, ctx, s->is_unix, s->transport_name, err))
    return false;
  return true;
}

/* ---- tls() ---------------------------------------------------------------- */

bool
net_tls_resolve(NetSource *s, const CfgNode *call, int transport, CfgError *err)
{
  const CfgNode *tls = net_tls_node(call);
  /* tcp(tls(...)) is TLS in syslog-ng 3.38, as is network(transport(tls)) */
  bool want = transport == NET_TRANSPORT_TLS || transport == NET_TRANSPORT_PROXIED_TLS
              || transport == NET_TRANSPORT_PROXIED_TLS_PASSTHROUGH || (tls && transport != NET_TRANSPORT_UDP);
  if (tls && (s->is_unix || transport == NET_TRANSPORT_UDP))
    {
      cfg_error_set(err, &tls->loc,
                    "%s(): tls() options specified for a transport that doesn't allow TLS encryption",
                    call->name);
      return false;
    }
  if (!want)
    return true;
  char *error = NULL;
  s->tls = net_tls_context_new(&s->o.tls, true, s->base.location, &error);
  if (!s->tls)
    {
      cfg_error_set(err, tls ? &tls->loc : &call->loc, "%s(): %s", call->name, error);
      g_free(error);
      return false;
    }
  return true;
}
