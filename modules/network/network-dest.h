/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_NETWORK_DEST_H
#define SLUICE_NETWORK_DEST_H

/*
 * The network module's destinations: network(), syslog(), tcp(), udp(),
 * tcp6(), udp6(), unix-stream() and unix-dgram().
 *
 *   network-dest-options.c  option tables (syslog-ng 3.38's names and
 *                           defaults), templates, the constructors;
 *   network-dest.c          the LogWriterOps run on the destination's own
 *                           thread: connect, format, writev/send, reconnect
 *                           after time-reopen, failover and failback.
 *
 * Everything after construction belongs to the writer thread (start() runs
 * before that thread exists), so nothing here locks.
 *
 * Delivery.  A message is acked (flow control) and released when its last
 * byte went into the socket.  A batch cut by a broken connection keeps its
 * unwritten messages; they go out on the next connection after
 * time-reopen, in order.  A message half written when the connection broke
 * is sent again whole on the new one (its first bytes reached the old peer
 * only as an unterminated fragment), as syslog-ng does.  What the kernel
 * had accepted but the peer never read when it went away is lost, as with
 * syslog-ng's plain TCP: nothing at this layer tells the sender.
 */

#include "tls/net-tls.h"

#include "sluice/driver.h"
#include "sluice/template.h"

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

typedef enum NetDestKind
{
  NET_DEST_NETWORK,
  NET_DEST_SYSLOG,
  NET_DEST_TCP,
  NET_DEST_UDP,
  NET_DEST_TCP6,
  NET_DEST_UDP6,
  NET_DEST_UNIX_STREAM,
  NET_DEST_UNIX_DGRAM,
} NetDestKind;

/* transport(): the index into the table's names */
enum
{
  NET_DEST_TRANSPORT_UNSET = -1,
  NET_DEST_TRANSPORT_TCP = 0,
  NET_DEST_TRANSPORT_UDP,
  NET_DEST_TRANSPORT_FRAMED,
  NET_DEST_TRANSPORT_TLS,
};

/* What the option tables write. */
/* flags(): syslog-ng's writer flags that a network destination acts on */
enum
{
  NET_DEST_FLAG_NO_MULTI_LINE = 1 << 0,   /* CR and LF inside a message become spaces */
  NET_DEST_FLAG_SYSLOG_PROTOCOL = 1 << 1, /* RFC 5424 instead of RFC 3164 (network() and friends) */
};

typedef struct NetDestOptions
{
  char *port;
  int transport;
  int64_t ip_protocol;       /* 0: the driver's */
  char *localip;
  char *localport;
  char *template_text;
  uint32_t flags;            /* NET_DEST_FLAG_* */
  bool template_escape;
  int64_t flush_lines;       /* 0: the global one */
  int64_t log_fifo_size;     /* 0: the global one */
  int64_t time_reopen;       /* 0: the global one */
  int64_t throttle;          /* throttle(): messages a second, 0: no limit */
  int64_t suppress;          /* suppress(): seconds to hold repeats back, 0: off */
  int ts_format;             /* CfgTsFormat */
  int64_t frac_digits;
  int on_error;              /* CfgOnError */
  char *send_time_zone;
  int64_t so_sndbuf;
  int64_t so_rcvbuf;
  bool so_keepalive;
  bool close_on_input; /* close-on-input(): data from the server closes the connection (yes, the default) */
  bool so_broadcast;
  int64_t ip_ttl;
  int64_t ip_tos;
  int64_t tcp_keepalive_time;
  int64_t tcp_keepalive_intvl;
  int64_t tcp_keepalive_probes;
  bool keep_alive;
  NetTlsOptions tls;         /* tls() (tls/net-tls.h) */
  struct
  {
    char **servers;
    struct
    {
      int64_t tcp_probe_interval;
      int64_t successful_probes_required;
    } failback;
  } failover;
} NetDestOptions;

/* How a message becomes bytes on the wire. */
typedef enum NetDestFormat
{
  NET_FMT_RFC3164,           /* "<PRI>DATE HOST MSGHDRMSG\n" or the template */
  NET_FMT_RFC5424,           /* "<PRI>1 ISODATE HOST ..." or the template */
} NetDestFormat;

/* One line of the batch being written. */
typedef struct NetLine
{
  size_t offset, len;        /* in NetDest.body */
} NetLine;

typedef struct NetDest
{
  LogDestDriver super;
  NetDestKind kind;
  NetDestOptions o;
  char *name;                /* the statement's name, for log lines */
  char *keep_name;           /* keep-alive(): the connection's hand-over key: persist-name(), else name */

  /* resolved at construction */
  bool stream;               /* tcp, unix-stream */
  bool is_unix;
  int family;                /* AF_INET, AF_INET6 or AF_UNIX */
  NetDestFormat format;
  bool framed;               /* octet counting (RFC 6587) */
  char **servers;            /* [0] the host() (or path), then failover servers(); NULL-terminated */
  int n_servers;
  bool failback;
  int64_t probe_interval;
  int64_t probes_required;
  LogTemplate *tmpl;         /* NULL: the format's default line */
  LogTemplateOptions topts;
  NetTlsContext *tls_ctx;    /* transport(tls) or tcp(tls()); NULL: plain */

  /* writer thread state */
  int fd;                    /* -1: not connected */
  NetTlsClient *tls;         /* the session on fd, with tls_ctx */
  int server;                /* index into servers of the connection */
  uint64_t conn_gen;         /* bumped on every new connection */
  char peer_name[160];       /* "AF_INET(127.0.0.1:514)" */
  GString *body;
  GArray *lines;             /* NetLine */
  GArray *iov;               /* struct iovec */
  const LogMsg *partial;     /* the first message of the last batch, part written */
  size_t partial_done;       /* ... this many bytes of it, */
  uint64_t partial_gen;      /* ... on this connection; */
  GString *partial_rest;     /* the bytes of it still to send, as formatted
                              * then (a template may read the clock) */
  int64_t next_probe;        /* failback: CLOCK_MONOTONIC seconds of the next probe */
  int64_t probes_ok;         /* failback: successful probes in a row */
  uint64_t dropped;          /* datagrams too large ever to send */
  uint64_t seq;              /* local messages sent (RFC 5424 sequenceId) */
  bool stall_logged;         /* "takes no data" was said for this stall */
} NetDest;

/* network-dest-options.c: the factories network-module.c registers. */
extern const LogDriverFactory net_network_dest_factory;
extern const LogDriverFactory net_syslog_dest_factory;
extern const LogDriverFactory net_tcp_dest_factory;
extern const LogDriverFactory net_udp_dest_factory;
extern const LogDriverFactory net_tcp6_dest_factory;
extern const LogDriverFactory net_udp6_dest_factory;
extern const LogDriverFactory net_unix_stream_dest_factory;
extern const LogDriverFactory net_unix_dgram_dest_factory;

/* network-dest.c */
extern const LogWriterOps net_dest_writer_ops;

/* Append msg as d sends it (template or default line, framing) to out. */
void net_dest_format(NetDest *d, const LogMsg *msg, GString *out);

/* keep-alive(yes) during a reload: take the connection the previous
 * configuration's destination of the same name and target left in the
 * handover registry, if any (start(), main thread). */
void net_dest_take_connection(NetDest *d);

/* Release the writer state (finish closed the socket). */
void net_dest_writer_free(NetDest *d);

#endif
