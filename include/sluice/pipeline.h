/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_PIPELINE_H
#define SLUICE_PIPELINE_H

/*
 * The running configuration: the sources, destinations and log paths of
 * one CfgTree, built completely (every driver constructed, every filter
 * compiled) before anything starts, so a bad configuration never half-runs.
 *
 * Routing runs inline on the thread that read the message (docs/architecture.md): the
 * message walks the log paths with syslog-ng's semantics (filters stop a
 * path; nested log {} paths, junctions and if/elif/else fork; final,
 * fallback, catchall, flow-control and drop-unmatched flags) and every
 * destination it reaches gets a reference in this thread's batch for that
 * destination.  log_pipeline_flush() at the end of a read pushes each
 * batch to its queue with one lock.
 */

#include "sluice/cfg-options.h"
#include "sluice/cfg-tree.h"
#include "sluice/driver.h"
#include "sluice/logmsg.h"
#include "sluice/worker.h"

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct LogPipeline LogPipeline;

/* Counters summed over the pipeline's destinations. */
typedef struct LogPipelineStats
{
  uint64_t received;  /* messages delivered by sources */
  uint64_t queued;    /* destination queue entries made */
  uint64_t dropped;   /* entries refused by full queues */
  uint64_t written;   /* entries written by destinations */
} LogPipelineStats;

/* Build the pipeline of tree with the drivers in factories (NULL-terminated;
 * the daemon passes log_driver_factories()).  Returns NULL with *err at the first
 * problem (an unsupported element, a driver that cannot be built). */
LogPipeline *log_pipeline_new(const CfgTree *tree, const CfgGlobalOptions *global,
                              const LogDriverFactory *const *factories, CfgError *err);

/* Start destination writers, then sources (main thread; the workers of
 * pool must be running).  On failure everything started is stopped again
 * and *error (g_free) says why. */
bool log_pipeline_start(LogPipeline *pl, WorkerPool *pool, char **error);

/* The persist store the sources get in LogSourceEnv.persist (NULL: none;
 * set before log_pipeline_start). */
void log_pipeline_set_persist(LogPipeline *pl, PersistStore *store);

/* Stop the sources, push what workers hold, and let each destination
 * write out its queue within drain_ms.  Returns the number of messages
 * that could not be written in time. */
size_t log_pipeline_stop(LogPipeline *pl, int drain_ms);

/* A reload (inside handover_begin/end, sluice/handover.h): stop the
 * sources, which hand their sockets and connections over, push what
 * workers hold, and give the queue of every destination driver that next
 * (built, not started) has under the same name to next, unwritten messages
 * in order; the writers of those stop after the write in hand.  Drivers
 * next does not have write out their queues within drain_ms, as at a stop.
 * Anonymous destinations are matched by name too ("#anon-destinationN"),
 * so only when the new file keeps their order and their drivers.  pl may
 * also be a pipeline whose log_pipeline_start failed during the reload
 * (its queues are kept whole then): that is how a reload goes back to the
 * configuration it replaced. */
size_t log_pipeline_stop_handover(LogPipeline *pl, LogPipeline *next, int drain_ms);

/* Free a pipeline that is not running (never started, or stopped). */
void log_pipeline_free(LogPipeline *pl);

/* A message read by source source_id.  Takes the caller's reference and
 * its ack hold.  On an I/O worker the destinations' entries wait in the
 * worker's batch until log_pipeline_flush(); on any other thread they are
 * pushed at once. */
void log_pipeline_deliver(LogPipeline *pl, int source_id, LogMsg *msg);

/* A message processor p made itself (a correlation's synthetic message):
 * it goes through the rest of p's log path, from the processor after p,
 * as syslog-ng forwards a parser's emitted messages, and reaches that
 * path's destinations at once (one lock per message: these are few).
 * Takes the caller's reference.  Any thread, between p's start and stop
 * (LogProcessorOps); elsewhere (p outside a running pipeline) the message
 * is dropped. */
void log_pipeline_inject(LogProcessor *p, LogMsg *msg);

/* A synthetic message for the running internal() source instead
 * (syslog-ng's inject-mode(internal)): it enters the log paths of that
 * source with the source's name and tag, as the daemon's own events do.
 * Takes the caller's reference; false (the message dropped) when no
 * internal() source runs.  Any thread, holding any lock: the message is
 * queued and the source's worker delivers it later. */
bool internal_source_post(LogMsg *msg);

/* Messages delivered so far under slot (the source_id a driver passes to
 * log_pipeline_deliver), over all threads, from any thread; stamp (may be
 * NULL) gets the wall-clock second of the last one. */
uint64_t log_pipeline_slot_received(LogPipeline *pl, int slot, int64_t *stamp);

/* Push this worker's batches (call at the end of each read). */
void log_pipeline_flush(LogPipeline *pl);

/* Ask every destination to reopen its files (SIGUSR1). */
void log_pipeline_reopen(LogPipeline *pl);

void log_pipeline_get_stats(LogPipeline *pl, LogPipelineStats *out);

/* Append the counters as syslog-ng's "Log statistics" line lists them
 * (stats-level 0): processed='source(s_net)=12', dropped='dst.file(d_f#0)=0',
 * ..., processed='center(received)=12', separated by ", " (after any
 * text already in out that ends in a space). */
void log_pipeline_format_stats(LogPipeline *pl, GString *out);

/* The started source drivers' max-connections() added up, and in *live
 * (may be NULL) the connections they hold now. */
int64_t log_pipeline_max_connections(const LogPipeline *pl, int64_t *live);

/* The id of the source statement named name, or -1 (for tests). */
int log_pipeline_source_id(const LogPipeline *pl, const char *name);

#endif
