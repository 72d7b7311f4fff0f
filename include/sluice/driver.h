/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_DRIVER_H
#define SLUICE_DRIVER_H

/*
 * Drivers: the sources and destinations the configuration names, as
 * modules provide them (docs/architecture.md, "Layout").
 *
 * A module registers LogDriverFactory entries: the configuration check
 * (CfgDriverDef: name, positional arguments, option table) and a
 * constructor that turns a checked driver call into a driver object.  The
 * daemon builds every driver of a configuration before starting any, so
 * a configuration is either accepted whole or refused with a located
 * error.
 *
 * Sources deliver into the pipeline (sluice/pipeline.h) from the thread
 * that read the message; destinations receive batches through their
 * LogQueue and write them on their own LogWriter thread.  Parsers and
 * rewrites are LogProcessors: the pipeline runs them inline on the thread
 * that read the message, in the order the log path names them.
 */

#include "sluice/cfg-drivers.h"
#include "sluice/cfg-options.h"
#include "sluice/logmsg.h"
#include "sluice/logqueue.h"
#include "sluice/logqueue-disk.h"
#include "sluice/logwriter.h"
#include "sluice/persist.h"
#include "sluice/worker.h"

#include <stdatomic.h>
#include <stdbool.h>

typedef struct LogPipeline LogPipeline;

/* What a source needs from the running daemon. */
typedef struct LogSourceEnv
{
  WorkerPool *pool;        /* the I/O workers streams are given to */
  LogPipeline *pipeline;   /* where messages go */
  int source_id;           /* this driver's id in the pipeline: pass it to log_pipeline_deliver */
  bool flow_control;       /* a flags(flow-control) path reads this source */
  const char *name;        /* the source statement's name, e.g. "s_net" */
  const CfgGlobalOptions *global;
  /* The daemon's persist file (-R), for what a source must remember across
   * restarts (a file's acknowledged position); NULL: none, so remember
   * nothing.  The same store for the life of the process, reloads included;
   * the main loop commits it. */
  PersistStore *persist;
} LogSourceEnv;

typedef struct LogSourceDriver LogSourceDriver;

typedef struct LogSourceOps
{
  /* Open listening sockets / files and start delivering (main thread).
   * Returns false with *error (g_free) when it cannot. */
  bool (*start)(LogSourceDriver *s, const LogSourceEnv *env, char **error);
  /* Stop reading and close everything; returns when no worker touches the
   * driver any more (main thread). */
  void (*stop)(LogSourceDriver *s);
  void (*free)(LogSourceDriver *s);
} LogSourceOps;

struct LogSourceDriver
{
  const LogSourceOps *ops;
  const char *driver;    /* "tcp", "network", ... */
  CfgLocation loc;
  /* Statistics, set by the driver at start (may stay empty/NULL): the
   * instance of its stats-level 1 rows ("tcp,127.0.0.1", a path), and for a
   * listener its live connections with the instance of that row
   * ("afsocket_sd.(stream,AF_INET(127.0.0.1:514))"), as syslog-ng names
   * them. */
  char stats_instance[128];
  char conn_instance[200];
  atomic_int *connections;
  /* A listener's max-connections() (set at start; 0: it accepts none):
   * each may hold a descriptor, and the daemon warns when they add up to
   * more than its descriptor limit allows. */
  int max_connections;
  /* A driver that reads one address through several sockets
   * (udp-balancer()): "processed" and "dropped" rows per socket, at every stats
   * level, with its own instance ("AF_INET(127.0.0.1:514)#2").  Set at
   * start, kept until the driver is freed; NULL: none. */
  struct LogSourceListenerStat *listener_stats;
  int n_listener_stats;
  /* What the driver itself dropped before the pipeline saw it (internal():
   * its queue was full), a "dropped" row of its stats instance at every
   * stats level; set at construction, NULL: none. */
  atomic_uint_least64_t *dropped;
};

/* A row of LogSourceDriver.listener_stats: processed is counted by the
 * one worker that reads the socket (rows are far enough apart that two
 * counters never share a cache line); dropped is what the kernel dropped
 * on that socket (a full receive buffer), as that worker last read it. */
typedef struct LogSourceListenerStat
{
  char instance[200];
  atomic_uint_least64_t processed;
  atomic_uint_least64_t dropped;
} LogSourceListenerStat;

typedef struct LogDestDriver LogDestDriver;

typedef struct LogDestOps
{
  /* Open what can be opened now; failures are logged and retried by the
   * writer, not fatal, except for a configuration that cannot work at all
   * (then false with *error). */
  bool (*start)(LogDestDriver *d, char **error);
  void (*free)(LogDestDriver *d);
} LogDestOps;

struct LogDestDriver
{
  const LogDestOps *ops;
  const LogWriterOps *writer_ops; /* run on the writer thread with dest = this */
  const char *driver;             /* "file", "stdout", ... */
  CfgLocation loc;
  int64_t log_fifo_size;          /* this destination's queue size */
  char stats_instance[256];       /* its stats rows' instance: a path, "tcp,host:port"; may stay empty */
  int64_t flush_lines;
  /* how many files one batch may go to (a file() with macros in its path):
   * the writer then takes up to flush-lines for each of them at once, so
   * that each file gets as many lines per write as one file would; 0 or 1:
   * one */
  uint32_t batch_files;
  int64_t time_reopen;
  int64_t throttle;               /* throttle(): messages a second; 0: no limit */
  int64_t suppress;               /* suppress(): seconds to hold repeats back; 0: off */
  /* disk-buffer(), filled by the pipeline from the driver call when the
   * driver's table has LOG_DEST_DISK_BUFFER_OPTION; the driver ignores it */
  DiskBufferOptions disk_buffer;
};

typedef struct LogProcessor LogProcessor;

typedef struct LogProcessorOps
{
  /* Run on an I/O worker, possibly on several workers at once: a processor
   * is immutable after construction (per-thread state goes in thread-local
   * storage).  *pmsg may be shared and write-protected: call
   * log_msg_make_writable(pmsg) before changing it, and only when there is
   * something to change.  Returns false when the message leaves this log
   * path (a parser that did not match), true to go on. */
  bool (*process)(LogProcessor *p, LogMsg **pmsg);
  void (*free)(LogProcessor *p);
  /* Optional, for a processor that makes messages of its own on another
   * thread (db-parser()'s correlation).  start runs on the main thread
   * once the destinations run and before any source starts; from then on
   * the processor may pass what it makes to log_pipeline_inject().  stop
   * runs after the sources stopped and the workers pushed what they held,
   * before the destinations stop or hand their queues over; once it
   * returns the processor injects nothing more.  start returns false with
   * *error (g_free) when it cannot run. */
  bool (*start)(LogProcessor *p, char **error);
  void (*stop)(LogProcessor *p);
  /* Optional: the processor's own counters, one call of row each
   * (instance and type as in syslog-ng's stats rows). */
  /* Optional: called on an I/O worker at the end of each read (with the
   * pipeline's own batches, log_pipeline_flush), to pass on what the
   * processor holds for another thread. */
  void (*flush)(LogProcessor *p);
  void (*stats)(LogProcessor *p,
                void (*row)(void *ud, const char *instance, const char *type, uint64_t value), void *ud);
} LogProcessorOps;

/* A parser (kv-parser(), json-parser(), ...) or rewrite rule (set(),
 * subst(), ...), built from one call in a parser {} or rewrite {} block. */
struct LogProcessor
{
  const LogProcessorOps *ops;
  const char *driver; /* "kv-parser", "set", ... */
  CfgLocation loc;
  /* Where the processor stands, set by the pipeline that built it (NULL
   * outside one): log_pipeline_inject() goes on from there. */
  struct LogPipeline *pipeline;
  const void *path;
  uint32_t elem, index;
  /* A parser's: the count of messages it dropped, shared by every parser
   * of its statement (syslog-ng's "parser;NAME;;a;discarded" row); set by
   * the pipeline, NULL for a rewrite. */
  atomic_uint_fast64_t *discarded;
};

/* What a factory may look at besides the driver call itself. */
typedef struct LogDriverContext
{
  const CfgGlobalOptions *global;
  const CfgTree *tree;      /* for named template {} and other references */
  const char *stmt_name;    /* the enclosing source/destination's name, or an
                             * "#anon-..." name for an inline one */
  const char *persist_name; /* a destination driver: its persist-name(), else
                             * stmt_name; what it keeps across a reload goes
                             * by it, as its queue does; NULL elsewhere */
} LogDriverContext;

typedef struct LogDriverFactory
{
  CfgDriverDef def;
  /* Build from a checked driver call.  NULL with *err on a value the
   * option table could not reject (e.g. a bad address). */
  LogSourceDriver *(*new_source)(const CfgNode *call, const LogDriverContext *ctx, CfgError *err);
  LogDestDriver *(*new_dest)(const CfgNode *call, const LogDriverContext *ctx, CfgError *err);
  /* PARSER and REWRITE kinds. */
  LogProcessor *(*new_processor)(const CfgNode *call, const LogDriverContext *ctx, CfgError *err);
} LogDriverFactory;

/* Every factory compiled into the daemon (NULL-terminated, static); defined
 * in src/drivers.c, which lists each module's factories.  Called on the main
 * thread before any other. */
const LogDriverFactory *const *log_driver_factories(void);

/* The name of the i-th module compiled in (syslog-ng's names: "file",
 * "network", ...), NULL past the last; for --version and --module-registry. */
const char *log_module_name(size_t i);

#endif
