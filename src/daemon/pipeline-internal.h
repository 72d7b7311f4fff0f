/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The compiled log paths and drivers of a LogPipeline (src/daemon/). */
#ifndef SLUICE_PIPELINE_INTERNAL_H
#define SLUICE_PIPELINE_INTERNAL_H

#include "sluice/driver.h"
#include "sluice/filter.h"
#include "sluice/pipeline.h"

#include <glib.h>
#include <stdatomic.h>

typedef struct LogPathRT LogPathRT;

typedef enum PathElemKind
{
  PE_FILTER, /* stop the path unless the filter matches */
  PE_DEST,   /* hand the message to a destination statement's drivers */
  PE_GROUP,  /* nested log {} paths or junction channels */
  PE_IF,     /* if/elif/else */
  PE_PROC,   /* a parser or rewrite statement: its processors in order */
  PE_SOURCE_CHANNEL, /* a channel {} of a source statement: group.paths[0]'s
                      * elements run in this path, on the messages of the
                      * channel's own sources only */
} PathElemKind;

typedef struct PathGroup
{
  LogPathRT **paths;
  size_t n;
} PathGroup;

typedef struct PathElem
{
  PathElemKind kind;
  FilterExpr *filter; /* FILTER */
  atomic_uint_fast64_t *counts; /* FILTER: its statement's matched and not (StmtCounts.n) */
  int dest;           /* DEST: index into pl->dests */
  PathGroup group;    /* GROUP; IF: one path per branch */
  FilterExpr **conds; /* IF: one per branch, NULL for else */
  bool nested_logs;   /* GROUP made of nested log {} (not a junction) */
  LogProcessor **procs; /* PROC: NULL-terminated */
} PathElem;

struct LogPathRT
{
  uint32_t flags; /* CFG_LOG_* */
  bool flow;      /* flow-control here or in an enclosing path */
  int *sources;   /* source ids this path takes (none: any, when nested) */
  size_t n_sources;
  PathElem *elems;
  size_t n_elems;
};

typedef struct DestRT
{
  char *name;       /* statement name, or "#anon-destinationN" */
  int *drivers;     /* indices into pl->drivers */
  size_t n_drivers;
} DestRT;

typedef struct DriverRT
{
  LogDestDriver *drv;
  LogQueue *q;
  uint32_t fifo_size; /* log-fifo-size of q */
  LogWriter *writer;
  bool suppress; /* the writer filters repeats (suppress()) */
  char *name;    /* DESTINATION#N: in the statistics and the log */
  char *persist; /* its queue's name (disk buffer, reload): persist-name(), else name */
  uint64_t left; /* unwritten at stop */
} DriverRT;

typedef struct SourceRT
{
  char *name;
  char *label; /* the name its messages carry in ${SOURCE} and its tags:
                * an inline source in a channel of a source statement takes
                * the statement's name, as in syslog-ng; else NULL (name) */
  LogSourceDriver **drivers;
  size_t n_drivers;
  size_t n_started;
  bool flow_control;
  int first_slot; /* its drivers' slots are first_slot.. (one when it has none) */
} SourceRT;

/* One source driver: what it delivers is counted here (the id drivers pass
 * to log_pipeline_deliver is the slot's index). */
typedef struct SourceSlot
{
  int source;            /* the statement's index in pl->sources */
  LogSourceDriver *drv;  /* NULL for a statement without drivers */
  char *id;              /* "s_net#0", the statement's name and the driver's place */
  /* counted by the configuration this one replaced: stored in a reload's
   * hand-over while the stats code may read them on another thread */
  atomic_uint_fast64_t base;
  atomic_int_fast64_t stamp_base;
  atomic_uint_fast64_t dropped_base; /* the driver's own "dropped" (internal()) likewise */
  atomic_uint_fast64_t other;       /* delivered on threads that are not workers */
  atomic_int_fast64_t other_stamp;
} SourceSlot;

#define PIPELINE_BATCH 64

/* The most a writer for many files (LogDestDriver.batch_files) takes
 * from its queue at once, unless its flush-lines alone is more. */
#define BATCH_MAX_SPLIT 8192

typedef struct Batch
{
  LogQueueItem items[PIPELINE_BATCH];
  uint32_t n;
} Batch;

struct LogPipeline
{
  const CfgGlobalOptions *global;
  const CfgTree *tree; /* while building only */
  GPtrArray *sources;  /* SourceRT* */
  GPtrArray *dests;    /* DestRT* */
  GPtrArray *drivers;  /* DriverRT* */
  GPtrArray *slots;    /* SourceSlot* */
  GHashTable *by_node; /* CfgNode* (DEFINE or INLINE) -> id + 1 */
  GHashTable *in_channels; /* statements whose channels are being compiled (building only) */
  PathGroup top;
  WorkerPool *pool;
  Batch *batches; /* [worker][driver] while running */
  int n_workers;
  bool running;
  atomic_uint_fast64_t queued, dropped;
  /* while running: [worker][slot] messages delivered and the time of the
   * last one, each worker's part in its own cache lines (received_stride
   * counters per worker) */
  atomic_uint_fast64_t *received;
  atomic_int_fast64_t *stamps;
  size_t received_stride;
  int stats_level;
  struct StatsDyn *dyn;      /* stats-level 2 and 3, while running */
  GHashTable *dyn_carried;   /* the replaced configuration's, until start */
  GHashTable *stats_reset;   /* row name -> StatsMark: resets (pipeline-stats.c), on the main thread */
  uint64_t stats_walks;      /* walks over the rows so far */
  PersistStore *persist;     /* the daemon's, for LogSourceEnv; NULL: none */
  bool procs_started;        /* between the processors' start and stop */
  GPtrArray *flush_procs;    /* processors with a flush op (read-only while running) */
  /* StmtCounts*, each parser and filter statement's in a path, in the
   * order built; and the inline ones so far of each */
  GPtrArray *parser_discards, *filter_counts;
  unsigned anon_parsers, anon_filters;
};

/* A parser statement's count of what its parsers dropped (n[0],
 * LogProcessor.discarded), or a filter statement's of what it matched
 * and did not (n[0], n[1], PathElem.counts): syslog-ng's "parser;NAME"
 * and "filter;NAME" rows. */
typedef struct StmtCounts
{
  char *name;
  atomic_uint_fast64_t n[2];
} StmtCounts;

/* Call fn on every processor of every path (pipeline.c). */
void log_pipeline_foreach_processor(LogPipeline *pl, void (*fn)(LogProcessor *p, void *ud), void *ud);

/* Messages source statement source_id delivered, over all threads (the
 * sum of its slots: log_pipeline_slot_received in sluice/pipeline.h). */
uint64_t log_pipeline_source_received(LogPipeline *pl, int source_id);

/* What the driver of slot dropped itself (LogSourceDriver.dropped), the
 * configurations it replaced included; 0 for a driver without the row. */
uint64_t log_pipeline_slot_dropped(LogPipeline *pl, int slot);

/* pipeline-build.c */
bool log_pipeline_build(LogPipeline *pl, const CfgTree *tree, const LogDriverFactory *const *factories,
                        CfgError *err);
void log_path_free(LogPathRT *p);
void log_processors_free(LogProcessor **procs);

#endif
