/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_NETWORK_H
#define SLUICE_NETWORK_H

/*
 * The network module's internals: network(), syslog(), tcp(), udp(),
 * tcp6(), udp6(), unix-stream() and unix-dgram() sources.
 *
 * Threads.  A source is started and stopped on the main thread.  Its
 * listening socket (stream sources) is bound there, so a taken address is
 * a start error, and is then polled on one I/O worker's loop; each
 * accepted connection is handed to the least busy worker
 * (worker_pool_pick) and read there for its whole life by a LogReader.  A
 * datagram source is one LogReader on one worker.  No connection ever gets
 * a thread of its own.
 *
 * Stopping (main thread) is the core's rounds of jobs (LogSourceConns,
 * sluice/logsource.h): the first closes the listener on its worker, so
 * no accept can post new work; a stop that does not hand connections over
 * half-closes them and waits for their ends; the last frees every
 * connection on the worker that runs it.
 *
 * Host logic (the core's, src/io/logsource-host.c) follows syslog-ng's: HOST_FROM is the peer's
 * name (use-dns, use-fqdn, normalize-hostnames, a DNS cache), HOST is the
 * parsed hostname with keep-hostname(yes) and otherwise the peer's name
 * (chain-hostnames prepends the parsed one), then host-override(),
 * program-override(), keep-timestamp() and tags() apply.
 */

#include "tls/net-tls.h"

#include "sluice/driver.h"
#include "sluice/logreader.h"
#include "sluice/logsource.h"

#include <glib.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

typedef enum NetKind
{
  NET_NETWORK,
  NET_SYSLOG,
  NET_TCP,
  NET_UDP,
  NET_TCP6,
  NET_UDP6,
  NET_UNIX_STREAM,
  NET_UNIX_DGRAM,
  NET_UDP_BALANCER,   /* udp-balancer(): listeners() sockets in one so-reuseport() group */
} NetKind;

/* transport(): indexes into net_transport_names */
enum
{
  NET_TRANSPORT_UNSET = -1,
  NET_TRANSPORT_TCP = 0,
  NET_TRANSPORT_UDP,
  NET_TRANSPORT_TLS,
  NET_TRANSPORT_FRAMED,
  NET_TRANSPORT_TEXT_WITH_NULS, /* LF framing, NUL bytes kept in the message */
  NET_TRANSPORT_PROXIED_TCP,    /* a PROXY v1 header, then lines (network-proxy.h) */
  NET_TRANSPORT_PROXIED_TLS,    /* TLS, the header inside it */
  NET_TRANSPORT_PROXIED_TLS_PASSTHROUGH, /* the header in plain text, then TLS */
};

/* Everything a source's option table can set.  Options that inherit a
 * global default are resolved in net_source_resolve(), after the table. */
typedef struct NetSourceOptions
{
  LogSourceOptions src;     /* what every source takes (sluice/logsource.h) */
  char *ip;
  char *port;
  int transport;
  int64_t ip_protocol;
  int64_t max_connections;  /* -1: the driver's default */
  int64_t listen_backlog;
  int64_t so_rcvbuf;
  bool so_reuseport;
  int64_t ebpf_sockets;     /* ebpf(reuseport(sockets(N))); 0: not given */
  int64_t listeners;        /* udp-balancer(): 0: one per I/O worker */
  int balance;              /* udp-balancer(): SLUICE_BALANCE_* (contrib/bpf/sluice-reuseport.h) */
  bool so_keepalive;
  int64_t so_sndbuf;
  bool so_broadcast;
  int64_t ip_ttl;           /* 0: the kernel's */
  int64_t ip_tos;
  bool ip_freebind;
  char *interface;
  bool trim_large_messages;
  bool create_dirs;
  bool optional;
  bool pass_unix_credentials; /* unix sources: read the senders' credentials (when given) */
  bool so_passcred;           /* the same, where neither pass-unix-credentials() is given */
  bool keep_alive;
  int64_t tcp_keepalive_time;
  int64_t tcp_keepalive_intvl;
  int64_t tcp_keepalive_probes;
  char *owner;
  char *group;
  int64_t perm;

  char *persist_name;       /* the source's socket across reloads (handover.h) */
  NetTlsOptions tls;        /* tls() (tls/net-tls.h) */
} NetSourceOptions;

extern const CfgOption net_inet_options[];
extern const CfgOption net_unix_stream_options[];
extern const CfgOption net_unix_dgram_options[];
extern const CfgOption net_udp_balancer_options[];

/* default-network-drivers() (network-drivers.c) */
extern const LogDriverFactory net_default_network_drivers_factory;

/* A configured source driver. */
typedef struct NetSource NetSource;
typedef struct NetConn NetConn;
typedef struct NetEbpf NetEbpf;

/* One socket of a datagram source and its reader: udp() and the other
 * datagram sources have one, udp-balancer() listeners() of them, each on
 * the worker it was given for its life.  stat is its row in the driver's
 * listener_stats (udp-balancer() only; NULL otherwise). */
typedef struct NetDgramListener
{
  NetSource *s;
  int index;
  int fd;
  LogReader *reader;
  bool warned;              /* a truncation was logged */
  LogSourcePeer peer;       /* worker's */
  Worker *worker;
  LogSourceListenerStat *stat;
} NetDgramListener;

struct NetSource
{
  LogSource base;           /* the driver, env, reading options, host logic */
  NetKind kind;
  NetSourceOptions o;

  /* resolved at construction */
  bool stream;              /* tcp/unix-stream: listen and accept */
  int proxied;              /* NET_TRANSPORT_PROXIED_*, or 0: no PROXY header */
  bool is_unix;
  int family;               /* AF_INET, AF_INET6 or AF_UNIX */
  char *unix_path;
  const char *transport_name;
  int max_connections;
  NetTlsContext *tls;       /* TLS connections; NULL: plain */
  bool create_dirs;         /* unix: create the socket's directory */
  int dir_perm;             /* ... with these permissions */

  /* running */
  char local_name[160];     /* "AF_INET(127.0.0.1:514)" */
  char handover_key[176];   /* "stream:" or "dgram:" + the configured address */
  NetDgramListener *listeners; /* datagram sources: n_listeners of them */
  int n_listeners;
  NetEbpf *ebpf;            /* udp-balancer(): its program and socket array, while it runs */
  bool rcvbuf_warned;       /* a capped so-rcvbuf() was logged since the start */
  LogSourceConns conns;     /* the listener and its NetConns (stream sources) */
  bool started;
};

/* network-options.c */
/* Fill the resolved fields of s from its options, the call and ctx.
 * false with *err on a combination the table cannot reject. */
bool net_source_resolve(NetSource *s, const CfgNode *call, const LogDriverContext *ctx, CfgError *err);
void net_source_options_free(NetSource *s);

/* network-options.c */
/* The TLS context of s when transport (NET_TRANSPORT_*) or a tls() block
 * asks for one; false with *err when tls() cannot apply or its files or
 * options are refused.  Needs s->is_unix and s->location. */
bool net_tls_resolve(NetSource *s, const CfgNode *call, int transport, CfgError *err);

/* network-socket.c */
/* "AF_INET(1.2.3.4:514)", "AF_INET6([::1]:514)", "AF_UNIX(/path)" */
void net_format_sockaddr(const struct sockaddr *sa, socklen_t len, char *out, size_t out_len);
/* Open, bind (and listen) the socket of s, or take the one the running
 * configuration had on the same address during a reload (handover.h);
 * fills s->local_name and s->handover_key.  Returns the fd, or -1 with
 * *error (g_free) saying what and where. */
int net_open_socket(NetSource *s, char **error);
/* Done with the socket of s: handed over during a reload, else closed. */
void net_release_socket(NetSource *s, int fd);

/* network-ebpf.c: the programs of contrib/bpf/sluice-reuseport.bpf.c */
typedef enum NetEbpfKind
{
  NET_EBPF_SELECT, /* SK_REUSEPORT over a socket array: udp-balancer() */
  NET_EBPF_INDEX,  /* SOCKET_FILTER returning an index (random): ebpf(reuseport(sockets(N))) */
} NetEbpfKind;
/* Load one program for a group of n_sockets in mode (SLUICE_BALANCE_*);
 * NULL with *error (g_free) naming addr.  Without eBPF support: NULL. */
NetEbpf *net_ebpf_load(NetEbpfKind kind, int mode, int n_sockets, const char *addr, char **error);
/* NET_EBPF_SELECT: fd is the socket at slot. */
bool net_ebpf_set_socket(NetEbpf *e, int slot, int fd, const char *addr, char **error);
/* Attach the program to the so-reuseport() group of fd. */
bool net_ebpf_attach(NetEbpf *e, int fd, const char *addr, char **error);
/* Take the first n_sockets slots out of the socket array. */
void net_ebpf_clear(NetEbpf *e, int n_sockets);
/* The group keeps an attached program: this frees only our handles. */
void net_ebpf_free(NetEbpf *e);
/* Take the program off the group of fd (quiet when there is none). */
void net_ebpf_detach(int fd, const char *addr);

/* network-stream.c */
bool net_stream_start(NetSource *s, char **error);
void net_stream_stop(NetSource *s);

/* network-dgram.c */
bool net_dgram_start(NetSource *s, char **error);
void net_dgram_stop(NetSource *s);


/* The reader callbacks' shared deliver step: host logic, then the pipeline. */
void net_source_deliver(NetSource *s, LogMsg *msg, LogSourcePeer *peer);

/* pass-unix-credentials(): the sender's credentials (cred, NULL: none came)
 * as syslog-ng 3.38 sets them on msg: .unix.cmdline, .unix.exe,
 * .audit.auid and .audit.ses (unless unset) from /proc, then .unix.pid,
 * .unix.uid and .unix.gid (network-unixcred.c). */
void net_unix_cred_values(const struct ucred *cred, LogMsg *msg);

#endif
