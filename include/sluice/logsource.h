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
 *    log-fetch-limit, log-iw-size), parsing (flags(), default-facility,
 *    time-zone, ...) and the host logic;
 *  - the host logic of syslog-ng 3.38 (HOST, HOST_FROM, use-dns and its
 *    cache, chain-hostnames, bad-hostname, keep-timestamp, the overrides
 *    and tags), applied by log_source_post() to each message before the
 *    pipeline gets it (src/logsource-host.c describes the order);
 *  - the end of a batch (log_source_flush: each destination's batch goes
 *    to its queue with one lock);
 *  - a flow-control window whose wake-up comes back to the source's own
 *    worker (LogSourceWindow), for sources that read without a LogReader
 *    (a LogReader has its own).
 *
 * Threads: log_source_resolve() at construction, log_source_begin() in
 * the driver's start (main thread), log_source_post() and
 * log_source_flush() on the worker that read the message; a
 * LogSourceWindow lives on one worker.
 */

#include "sluice/driver.h"
#include "sluice/logreader.h"
#include "sluice/pipeline.h"

#include <iv_event.h>
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
  bool keep_hostname;      /* these default to the global option (resolve) */
  bool chain_hostnames;
  bool use_dns;
  bool use_fqdn;
  bool normalize_hostnames;
  bool dns_cache;
  bool keep_timestamp;
  char *time_zone;
  char **tags;
} LogSourceOptions;

/* flags() every source takes, in the order of their bits. */
extern const char *const log_source_flag_names[];

/* True when flags() named flag. */
bool log_source_has_flag(const LogSourceOptions *o, const char *flag);

/* The option table rows of LogSourceOptions for a driver whose options
 * struct STYPE holds them as SMEMBER; IW is its log-iw-size() default. */
#define LOG_SOURCE_OFF(stype, smember, field) (offsetof(stype, smember) + offsetof(LogSourceOptions, field))
#define LOG_SOURCE_OPTION_ROWS(stype, smember, iw)                                                                    \
  { .name = "flags", .type = CFG_OPT_FLAGS, .offset = LOG_SOURCE_OFF(stype, smember, flags),                         \
    .names = log_source_flag_names },                                                                               \
  { .name = "log-iw-size", .type = CFG_OPT_SIZE, .offset = LOG_SOURCE_OFF(stype, smember, log_iw_size),              \
    .def_int = (iw), .min = 1, .max = INT32_MAX },                                                                  \
  { .name = "log-fetch-limit", .type = CFG_OPT_INT, .offset = LOG_SOURCE_OFF(stype, smember, log_fetch_limit),       \
    .def_int = 10, .min = 1, .max = INT32_MAX },                                                                    \
  { .name = "log-msg-size", .type = CFG_OPT_SIZE, .offset = LOG_SOURCE_OFF(stype, smember, log_msg_size),            \
    .def_int = -1, .min = 1, .max = INT32_MAX },                                                                    \
  { .name = "host-override", .type = CFG_OPT_STRING, .offset = LOG_SOURCE_OFF(stype, smember, host_override) },      \
  { .name = "program-override", .type = CFG_OPT_STRING,                                                            \
    .offset = LOG_SOURCE_OFF(stype, smember, program_override) },                                                     \
  { .name = "log-prefix", .type = CFG_OPT_STRING, .offset = LOG_SOURCE_OFF(stype, smember, program_override) },      \
  { .name = "default-facility", .type = CFG_OPT_ENUM, .offset = LOG_SOURCE_OFF(stype, smember, default_facility),    \
    .def_int = -1, .names = cfg_facility_names },                                                                   \
  { .name = "default-priority", .type = CFG_OPT_ENUM, .offset = LOG_SOURCE_OFF(stype, smember, default_priority),    \
    .def_int = -1, .names = cfg_level_names },                                                                      \
  { .name = "default-level", .type = CFG_OPT_ENUM, .offset = LOG_SOURCE_OFF(stype, smember, default_priority),       \
    .def_int = -1, .names = cfg_level_names },                                                                      \
  { .name = "keep-hostname", .type = CFG_OPT_BOOL, .offset = LOG_SOURCE_OFF(stype, smember, keep_hostname) },        \
  { .name = "chain-hostnames", .type = CFG_OPT_BOOL, .offset = LOG_SOURCE_OFF(stype, smember, chain_hostnames) },    \
  { .name = "use-dns", .type = CFG_OPT_BOOL, .offset = LOG_SOURCE_OFF(stype, smember, use_dns) },                    \
  { .name = "use-fqdn", .type = CFG_OPT_BOOL, .offset = LOG_SOURCE_OFF(stype, smember, use_fqdn) },                  \
  { .name = "normalize-hostnames", .type = CFG_OPT_BOOL,                                                           \
    .offset = LOG_SOURCE_OFF(stype, smember, normalize_hostnames) },                                                  \
  { .name = "dns-cache", .type = CFG_OPT_BOOL, .offset = LOG_SOURCE_OFF(stype, smember, dns_cache) },                \
  { .name = "keep-timestamp", .type = CFG_OPT_BOOL, .offset = LOG_SOURCE_OFF(stype, smember, keep_timestamp) },      \
  { .name = "time-zone", .type = CFG_OPT_STRING, .offset = LOG_SOURCE_OFF(stype, smember, time_zone),                \
    .check = cfg_check_time_zone },                                                                                 \
  { .name = "tags", .type = CFG_OPT_STRING_LIST, .offset = LOG_SOURCE_OFF(stype, smember, tags) }

/* ---- host logic (src/logsource-host.c) ---------------------------------- */

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

/* This host's name: short, or fully qualified with fqdn. */
const char *log_source_local_hostname(bool fqdn);

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

/* Set up s for a driver call (before its options are applied). */
void log_source_init(LogSource *s, const LogSourceOps *ops, const CfgNode *call);

/* Resolve o (applied from the call) against ctx's globals into s->ro and
 * s->host.  local: the sender is this host (a unix socket, a file, stdin).
 * transport: the TRANSPORT value of its messages (static).  false with
 * *err when the global dns-cache-hosts() cannot be read or bad-hostname()
 * does not compile. */
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

/* Frees what resolve and begin made (not s itself). */
void log_source_deinit(LogSource *s);

/* True when the driver call names option name itself (an option whose
 * default is a global one takes the global value otherwise). */
bool log_source_option_given(const CfgNode *call, const char *name);

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

#endif
