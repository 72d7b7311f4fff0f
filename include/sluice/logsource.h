/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_LOGSOURCE_H
#define SLUICE_LOGSOURCE_H

/*
 * LogSource: the part every source driver shares, in the core (syslog-ng
 * calls it LogSource too).  A driver embeds a LogSource as its first
 * member and gets from it:
 *
 *  - the options every source takes (LogSourceOptions, its table rows
 *    LOG_SOURCE_OPTION_ROWS) and their resolution against the global
 *    options {} (log_source_resolve): reading (log-msg-size,
 *    log-fetch-limit, log-iw-size, encoding), parsing (flags(),
 *    default-facility, time-zone, ...) and the host logic;
 *  - the host logic of syslog-ng 3.38 (HOST, HOST_FROM, use-dns and its
 *    cache, chain-hostnames, bad-hostname, keep-timestamp, the overrides
 *    and tags), applied by log_source_post() to each message before the
 *    pipeline gets it (src/io/logsource-host.c describes the order);
 *  - the end of a batch (log_source_flush: each destination's batch goes
 *    to its queue with one lock);
 *  - a flow-control window whose wake-up comes back to the source's own
 *    worker (LogSourceWindow: every LogReader's, and the journal's);
 *  - for a listener, its set of live connections (LogSourceConns,
 *    src/io/logsource-conns.c): the listening socket polled on one worker,
 *    max-connections() and syslog-ng's refusal, each connection on the
 *    least busy worker for its whole life, and the rounds of jobs that
 *    stop them.
 *
 * Threads: log_source_resolve() at construction, log_source_begin() in
 * the driver's start (main thread), log_source_post() and
 * log_source_flush() on the worker that read the message; a
 * LogSourceWindow lives on one worker.
 */

#include "sluice/acceptor.h"
#include "sluice/driver.h"
#include "sluice/logreader.h"
#include "sluice/pipeline.h"

#include <glib.h>
#include <iv_event.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- options ----------------------------------------------------------- */

typedef struct LogSourceOptions
{
  uint32_t flags;          /* flags(): bit i for log_source_flag_names[i] */
  int64_t log_iw_size;
  int64_t log_fetch_limit;
  int64_t log_msg_size;    /* -1: the global log-msg-size() */
  char *host_override;
  char *program_override;
  int default_facility;    /* -1: unset */
  int default_priority;    /* -1: unset */
  bool keep_hostname;      /* these default to the global option (.inherit) */
  bool chain_hostnames;
  int use_dns; /* CfgUseDns */
  bool use_fqdn;
  bool normalize_hostnames;
  bool dns_cache;
  bool keep_timestamp;
  char *time_zone;
  char **tags;
  char *encoding;          /* encoding(): the input's character set (sluice/charset.h); NULL: UTF-8 */
} LogSourceOptions;

/* The defaults of LOG_SOURCE_OPTION_ROWS (log-iw-size() 100), those
 * that inherit taken from g (options {}), for a source that takes none of
 * these options itself. */
void log_source_options_defaults(LogSourceOptions *o, const CfgGlobalOptions *g);

/* flags() every source takes, in the order of their bits. */
extern const char *const log_source_flag_names[];

/* True when flags() named flag. */
bool log_source_has_flag(const LogSourceOptions *o, const char *flag);

/* The option table rows of LogSourceOptions for a driver whose options
 * struct STYPE holds them as SMEMBER; IW is its log-iw-size() default. */
#define LOG_SOURCE_OFF(stype, smember, field) (offsetof(stype, smember) + offsetof(LogSourceOptions, field))
#define LOG_SOURCE_OPTION_ROWS(stype, smember, iw)                                                                  \
  { .name = "flags", .type = CFG_OPT_FLAGS, .offset = LOG_SOURCE_OFF(stype, smember, flags),                        \
    .names = log_source_flag_names },                                                                               \
  { .name = "log-iw-size", .type = CFG_OPT_SIZE, .offset = LOG_SOURCE_OFF(stype, smember, log_iw_size),             \
    .def_int = (iw), .min = 1, .max = INT32_MAX },                                                                  \
  { .name = "log-fetch-limit", .type = CFG_OPT_INT, .offset = LOG_SOURCE_OFF(stype, smember, log_fetch_limit),      \
    .def_int = 10, .min = 1, .max = INT32_MAX },                                                                    \
  { .name = "log-msg-size", .type = CFG_OPT_SIZE, .offset = LOG_SOURCE_OFF(stype, smember, log_msg_size),           \
    .def_int = LOG_FRAMER_DEFAULT_MSG_SIZE, .min = 1, .max = INT32_MAX, .inherit = "log-msg-size" },               \
  { .name = "host-override", .type = CFG_OPT_STRING, .offset = LOG_SOURCE_OFF(stype, smember, host_override) },     \
  { .name = "program-override", .type = CFG_OPT_STRING,                                                             \
    .offset = LOG_SOURCE_OFF(stype, smember, program_override) },                                                   \
  { .name = "log-prefix", .type = CFG_OPT_STRING, .offset = LOG_SOURCE_OFF(stype, smember, program_override) },     \
  { .name = "default-facility", .type = CFG_OPT_ENUM, .offset = LOG_SOURCE_OFF(stype, smember, default_facility),   \
    .def_int = -1, .names = cfg_facility_names },                                                                   \
  { .name = "default-priority", .type = CFG_OPT_ENUM, .offset = LOG_SOURCE_OFF(stype, smember, default_priority),   \
    .def_int = -1, .names = cfg_level_names },                                                                      \
  { .name = "default-level", .type = CFG_OPT_ENUM, .offset = LOG_SOURCE_OFF(stype, smember, default_priority),      \
    .def_int = -1, .names = cfg_level_names },                                                                      \
  { .name = "keep-hostname", .type = CFG_OPT_BOOL, .offset = LOG_SOURCE_OFF(stype, smember, keep_hostname),         \
    .inherit = "keep-hostname" },                                                                                   \
  { .name = "chain-hostnames", .type = CFG_OPT_BOOL, .offset = LOG_SOURCE_OFF(stype, smember, chain_hostnames),     \
    .inherit = "chain-hostnames" },                                                                                 \
  { .name = "use-dns", .type = CFG_OPT_ENUM, .offset = LOG_SOURCE_OFF(stype, smember, use_dns),                     \
    .names = cfg_use_dns_names, .inherit = "use-dns" },                                                                                         \
  { .name = "use-fqdn", .type = CFG_OPT_BOOL, .offset = LOG_SOURCE_OFF(stype, smember, use_fqdn),                   \
    .inherit = "use-fqdn" },                                                                                        \
  { .name = "normalize-hostnames", .type = CFG_OPT_BOOL,                                                            \
    .offset = LOG_SOURCE_OFF(stype, smember, normalize_hostnames), .inherit = "normalize-hostnames" },              \
  { .name = "dns-cache", .type = CFG_OPT_BOOL, .offset = LOG_SOURCE_OFF(stype, smember, dns_cache) },               \
  { .name = "keep-timestamp", .type = CFG_OPT_BOOL, .offset = LOG_SOURCE_OFF(stype, smember, keep_timestamp),       \
    .inherit = "keep-timestamp" },                                                                                  \
  { .name = "time-zone", .type = CFG_OPT_STRING, .offset = LOG_SOURCE_OFF(stype, smember, time_zone),               \
    .check = cfg_check_time_zone },                                                                                 \
  { .name = "tags", .type = CFG_OPT_STRING_LIST, .offset = LOG_SOURCE_OFF(stype, smember, tags) },                  \
  { .name = "encoding", .type = CFG_OPT_STRING, .offset = LOG_SOURCE_OFF(stype, smember, encoding) }

/* ---- host logic (src/io/logsource-host.c) ---------------------------------- */

/* What the host logic needs per message; filled by log_source_resolve(). */
typedef struct LogSourceHost
{
  bool keep_hostname;
  bool chain_hostnames;
  bool use_dns;
  bool use_fqdn;
  bool normalize_hostnames;
  bool dns_cache;
  bool keep_timestamp;
  bool local;               /* a local source: the peer is this host */
  bool dns_persist_only;    /* use-dns(persist_only): dns-cache-hosts() names only, no DNS query */
  int64_t dns_cache_size;
  int64_t dns_cache_expire;
  int64_t dns_cache_expire_failed;
  const char *group_name;   /* the source statement's name */
  void *bad_hostname;       /* pcre2_code of the global bad-hostname(), or NULL */
  GHashTable *hosts;        /* dns-cache-hosts(): address text -> name, or NULL */
  void **match_data;        /* pcre2_match_data per worker (by worker_index) */
  int n_match_data;
  bool keep_raw;            /* flags(store-raw-message) was asked for */
  const MsgFormatOptions *parse; /* the source's parse options (for a reparse) */
  const char *host_override;
  const char *program_override;
  NVHandle sender_pid;      /* system(): .unix.pid, which becomes PID when set; 0: no */
  LogTagId *tags;
  size_t n_tags;
  LogTagId source_tag;      /* ".source.<group_name>" */
} LogSourceHost;

/* The last peer one reader resolved, so a connection (or a run of
 * datagrams from one sender) resolves once, not per message: no DNS cache
 * lock per message.  Owned by the reader's worker. */
typedef struct LogSourcePeer
{
  LogAddr addr;
  int64_t expires;          /* CLOCK_MONOTONIC seconds; 0: never valid */
  char name[256];
} LogSourcePeer;

/* Apply the host logic and overrides to a freshly parsed message; peer
 * remembers the sender's name between messages of one reader. */
void log_source_host_apply(const LogSourceHost *h, LogMsg *msg, LogSourcePeer *peer);

/* The name of addr as HOST_FROM shows it. */
void log_source_resolve_addr(const LogSourceHost *h, const LogAddr *addr, char *out, size_t out_len);

/* Compile the global bad-hostname() pattern into h; false with *error
 * (g_free) when it is not a valid regular expression. */
bool log_source_bad_hostname_compile(LogSourceHost *h, const char *pattern, char **error);

/* Match data for each of n workers (at start, when there is a pattern). */
void log_source_bad_hostname_prepare(LogSourceHost *h, int n);

/* Load the global dns-cache-hosts() file (/etc/hosts format) into h;
 * false with *error (g_free) when it cannot be read. */
bool log_source_hosts_file_load(LogSourceHost *h, const char *path, char **error);

void log_source_host_free(LogSourceHost *h);

/* ---- the shared driver part ------------------------------------------- */


typedef struct LogSource
{
  LogSourceDriver super;
  LogSourceEnv env;         /* set by log_source_begin() */
  LogReaderOptions ro;      /* reading and parsing, resolved */
  LogSourceHost host;
  char *location;           /* "file:line:col" of the driver call, for log lines */
} LogSource;

/* syslog-ng's system() follows its /dev/log reader with
 *   rewrite { set("${.unix.pid}" value("PID") condition("${.unix.pid}" ne "")); };
 * this asks the same of d, which must be a LogSource (a driver of the
 * network module's unix sources): PID becomes the pid the kernel gave
 * with the datagram, and the header as received no longer stands. */
void log_source_pid_from_sender(LogSourceDriver *d);

/* Set up s for a driver call (before its options are applied). */
void log_source_init(LogSource *s, const LogSourceOps *ops, const CfgNode *call);

/* Resolve o (applied from the call) against ctx's globals into s->ro and
 * s->host.  local: the sender is this host (a unix socket, a file, stdin).
 * transport: the TRANSPORT value of its messages (static).  encoding()
 * becomes s->ro.encoding when there is something to convert (not for
 * UTF-8).  false with *err when encoding() names a character set Sluice
 * cannot read (sluice/charset.h), the global dns-cache-hosts() cannot be
 * read or bad-hostname() does not compile. */
bool log_source_resolve(LogSource *s, const LogSourceOptions *o, const CfgNode *call, const LogDriverContext *ctx,
                        bool local, const char *transport, CfgError *err);

/* At start (main thread): remember env, name the messages' SOURCE and
 * ".source.<name>" tag. */
void log_source_begin(LogSource *s, const LogSourceEnv *env);

/* The host logic, then the pipeline; peer as log_source_host_apply(). */
static inline void
log_source_post(LogSource *s, LogMsg *msg, LogSourcePeer *peer)
{
  log_source_host_apply(&s->host, msg, peer);
  log_pipeline_deliver(s->env.pipeline, s->env.source_id, msg);
}

/* The end of a read: every batch this worker collected goes to its queue. */
static inline void
log_source_flush(LogSource *s)
{
  log_pipeline_flush(s->env.pipeline);
}

/* Logs, once per reader (*warned remembers it), that r cut a message at
 * log-msg-size(): a sender of long lines must not flood the internal log.
 * key1/val1 and key2/val2 name the sender (a NULL key: no pair). */
void log_source_warn_truncated(const LogSource *s, const LogReader *r, bool *warned, const char *key1,
                               const char *val1, const char *key2, const char *val2);

/* Frees what resolve and begin made (not s itself). */
void log_source_deinit(LogSource *s);

/* ---- a window whose wake-up comes back to the worker --------------------- */

/* A flow-control window (sluice/logqueue.h) owned by a source on one
 * worker: when a writer acks the slot that makes room again, resume runs
 * on that worker (an iv_event), not on the writer's thread. */
typedef struct LogSourceWindow
{
  LogWindow *window;
  struct iv_event wake;
  void (*resume)(void *cookie);
  void *cookie;
} LogSourceWindow;

/* On the owning worker: a window of size slots; resume(cookie) runs there
 * when slots come back to an empty window. */
void log_source_window_init(LogSourceWindow *w, int size, void (*resume)(void *cookie), void *cookie);

/* On the owning worker: no more wake-ups; the window lives on until the
 * last message holding a slot is acked. */
void log_source_window_deinit(LogSourceWindow *w);

/* ---- a listener's connections (src/io/logsource-conns.c) -------------------- */

/* What the set knows of one connection: the driver's own connection
 * struct embeds it as its first member. */
typedef struct LogSourceConn
{
  Worker *worker;           /* the worker that owns it, for its whole life */
  guint index;              /* in LogSourceConns.conns, under its lock */
  bool counted;             /* holds a max-connections() slot */
} LogSourceConn;

typedef void (*LogSourceConnFunc)(LogSourceConn *c, void *arg);

/* The listening socket and the live connections of one source.
 *
 * Threads: init, listen and the stop functions on the main thread; the
 * listener's accepts on its worker; log_source_conns_add() on any thread
 * (the accepting worker, or the main thread for a connection carried
 * across a reload); log_source_conns_remove() on the connection's own
 * worker.  The set takes a connection out in O(1) (the last one fills
 * its place), so thousands closing cost no list walks.
 *
 * Counting: n counts max-connections() slots.  A slot is taken before
 * the connection exists (log_source_conns_admit) and given back by
 * log_source_conns_release() or at the latest by the removal: a driver
 * gives it back before it logs the close, so whoever reads that line can
 * connect again.
 *
 * Stopping is rounds of jobs, each returning when the workers it ran on
 * have run it: log_source_conns_stop_listener() on the listener's worker
 * (no accept can post new work after it), optionally
 * log_source_conns_drain(), then log_source_conns_close_all() on every
 * worker, which runs after any job an accept posted before the first
 * round ended (jobs are posted after it, and run in order).  When it returns no
 * worker touches the set any more. */
typedef struct LogSourceConns
{
  LogSource *src;           /* env, name and location for log lines */
  const char *local;        /* the listener's address, for log lines */
  int max;                  /* max-connections() */
  atomic_int n;             /* slots taken: the "connections" stats row */
  GMutex lock;              /* conns */
  GPtrArray *conns;         /* LogSourceConn*, any worker */
  Acceptor *acceptor;       /* owned by listen_worker; NULL: not listening */
  Worker *listen_worker;
  int listen_fd;
} LogSourceConns;

/* At construction: an empty set for src. */
void log_source_conns_init(LogSourceConns *cs, LogSource *src);
void log_source_conns_deinit(LogSourceConns *cs);

/* At start (main thread, after log_source_begin): poll the listening
 * socket fd on the least busy worker, accepted(cookie, ...) taking each
 * connection there; local names it in log lines (cs keeps the pointer).
 * Sets the driver's connections and max_connections for the stats and
 * the descriptor check. */
void log_source_conns_listen(LogSourceConns *cs, int fd, const char *local, int max, AcceptorFunc accepted,
                             void *cookie);

/* From the accept callback: take a max-connections() slot for fd; at the
 * limit log syslog-ng's "Number of allowed concurrent connections
 * reached" line, close fd and return false. */
bool log_source_conns_admit(LogSourceConns *cs, int fd, const char *client);

/* Take a slot whatever max-connections() says (a connection carried
 * across a reload: closing it would lose what its sender has in flight). */
void log_source_conns_admit_any(LogSourceConns *cs);

/* Give back a slot no connection took (the connection could not be made). */
void log_source_conns_refund(LogSourceConns *cs);

/* Put c, which takes the slot admitted for it, on the least busy worker
 * (c->worker) and into the set.  The caller then posts c's start there. */
void log_source_conns_add(LogSourceConns *cs, LogSourceConn *c);

/* On c's worker: give c's slot back now (no-op the second time). */
void log_source_conns_release(LogSourceConns *cs, LogSourceConn *c);

/* On c's worker: c leaves the set (its slot and its worker's stream count
 * with it); the caller frees it. */
void log_source_conns_remove(LogSourceConns *cs, LogSourceConn *c);

/* Stop round one: the listener stops on its worker and release(fd, arg)
 * gets its socket (close it or hand it over). */
void log_source_conns_stop_listener(LogSourceConns *cs, void (*release)(int fd, void *arg), void *arg);

/* On every worker at once: fn(c, arg) for each connection it owns, under
 * the set's lock (fn neither adds nor removes). */
void log_source_conns_foreach(LogSourceConns *cs, LogSourceConnFunc fn, void *arg);

/* A stop that closes connections whose clients may have bytes on the way:
 * half_close(c, arg) each (shutdown(SHUT_WR): the client reads the end
 * and closes its side), then wait until none holds a slot, until the
 * source delivered nothing for LOG_SOURCE_STOP_QUIET_MS, or for
 * LOG_SOURCE_STOP_DRAIN_MS at most. */
#define LOG_SOURCE_STOP_QUIET_MS 100
#define LOG_SOURCE_STOP_DRAIN_MS 2000
void log_source_conns_drain(LogSourceConns *cs, LogSourceConnFunc half_close, void *arg);

/* The last round: each worker takes its connections out of the set,
 * pushes its partial batches, and calls close_fn(c, arg) for each (slot and
 * stream count given back already), which disposes of c. */
void log_source_conns_close_all(LogSourceConns *cs, LogSourceConnFunc close_fn, void *arg);

#endif
