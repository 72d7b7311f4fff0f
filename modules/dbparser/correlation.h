/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_DBPARSER_CORRELATION_H
#define SLUICE_DBPARSER_CORRELATION_H

/*
 * PatternDB correlation on one thread (modules/dbparser/README.md,
 * "Correlation").  Workers classify messages with the read-only trees
 * (pdb.h) and hand each message whose rule has a context or actions, with
 * its rule, to the correlation thread over a bounded queue
 * (corr_submit); only that thread touches contexts, their timers and the
 * rate limits, so none of them has a lock.  What an action makes goes to
 * the emitter of the parser that submitted the message (in the daemon:
 * log_pipeline_inject, the rest of the parser's log path).
 *
 * A CorrState is the correlation state of one db-parser() (by its
 * persist-name(), else its file): contexts, a timer wheel, rate limits.
 * A reload builds a new parser that finds the same state by name, so its
 * open contexts go on under the new rules with the same ids.
 */

#include "pdb.h"

#include "sluice/logmsg.h"
#include "sluice/pipeline.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct CorrState CorrState;

/* Messages waiting for the correlation thread, over all states; past it
 * a message is not correlated (it still goes on along its path) and is
 * counted in queue_dropped. */
#define CORR_QUEUE_MAX 65536
/* Messages one context keeps; later ones refresh its timer and trigger
 * its actions but are not kept (counted in messages_dropped). */
#define CORR_CONTEXT_MAX_MESSAGES 1000
/* Default of max-contexts(). */
#define CORR_DEFAULT_MAX_CONTEXTS 100000

/* Where an action's message goes: emit takes the reference.  Runs on the
 * correlation thread. */
typedef void (*CorrEmitFunc)(void *emitter, LogMsg *msg);

typedef struct CorrCounters
{
  uint64_t contexts;         /* open now */
  uint64_t contexts_dropped; /* not opened: max-contexts() reached */
  uint64_t queue_dropped;    /* not correlated: the queue was full */
  uint64_t messages_dropped; /* not kept: the context held CORR_CONTEXT_MAX_MESSAGES */
  uint64_t emitted;          /* messages the actions made */
  uint64_t expired;          /* contexts closed by their timeout */
} CorrCounters;

/* The state called name (made on first use, with max_contexts; a later
 * caller's max_contexts replaces it); one reference for the caller.
 * Main thread (configuration time). */
CorrState *corr_state_get(const char *name, size_t max_contexts);
/* Drop a reference; the last one closes the contexts without running their
 * actions.  Main thread, after corr_state_detach. */
void corr_state_unref(CorrState *s);

/* How timeouts find a context's rule by its id in the rules of the first
 * emitter attached (db-parser(): pdb_rule_by_id on its PatternDb). */
typedef const PdbRule *(*CorrRuleLookup)(const void *rules, const char *id);

/* Attach an emitter, with the rules timeouts look up (by id: contexts whose
 * rule id is not in them are closed).  Returns once the thread has done
 * it.  Main thread. */
void corr_state_attach(CorrState *s, CorrRuleLookup lookup, const void *rules, CorrEmitFunc emit,
                       void *emitter);
/* Handle everything submitted before, then detach emitter.  Once no
 * emitter is attached timeouts wait (a reload) until one is.  Returns
 * once done: emit is not called for emitter afterwards. */
void corr_state_detach(CorrState *s, void *emitter);

/* From any thread: correlate msg (a reference of the caller's, which is
 * taken over; write-protect it first) that matched rule (of the emitter's
 * database, alive until the emitter's detach returns).  On an I/O worker
 * it waits in the worker's batch until corr_flush (up to 256); elsewhere
 * it is queued at once and false means the queue was full (msg released,
 * counted; a batch's overflow is counted the same way). */
bool corr_submit(CorrState *s, const PdbRule *rule, LogMsg *msg, void *emitter);

/* Queue this worker's batch (the end of a read: LogProcessorOps.flush). */
void corr_flush(void);

/* Wait until the thread has handled everything submitted before and run
 * its timers at the current clock (tests, sluice-pdbtool). */
void corr_sync(void);

void corr_state_counters(CorrState *s, CorrCounters *out);

/* The clock, in milliseconds (tests set a fake one; NULL: mono_ms). */
void corr_set_clock(int64_t (*now_ms)(void));

/* Where a parser's correlation messages go (its emit function): the
 * internal() source with inject-mode(internal), else on in p's path. */
static inline void
corr_emit_from(LogProcessor *p, bool to_internal, LogMsg *msg)
{
  if (to_internal)
    internal_source_post(msg);
  else
    log_pipeline_inject(p, msg);
}

#endif
