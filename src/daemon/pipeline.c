/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The running configuration and message routing: see include/sluice/pipeline.h. */
#include "pipeline-internal.h"

#include "pipeline-stats.h"
#include "stats-dyn.h"

#include "sluice/handover.h"
#include "sluice/internal-log.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
_source_free(gpointer p)
{
  SourceRT *s = p;
  for (size_t i = 0; i < s->n_drivers; i++)
    s->drivers[i]->ops->free(s->drivers[i]);
  free(s->drivers);
  g_free(s->name);
  g_free(s->label);
  free(s);
}

static void
_slot_free(gpointer p)
{
  SourceSlot *sl = p;
  g_free(sl->id);
  free(sl);
}

static void
_dest_free(gpointer p)
{
  DestRT *d = p;
  free(d->drivers);
  g_free(d->name);
  free(d);
}

static void
_driver_free(gpointer p)
{
  DriverRT *rt = p;
  log_queue_free(rt->q);
  disk_buffer_options_free(&rt->drv->disk_buffer);
  rt->drv->ops->free(rt->drv);
  g_free(rt->name);
  g_free(rt->persist);
  free(rt);
}

static LogPipeline *
_alloc(const CfgGlobalOptions *global)
{
  LogPipeline *pl = calloc(1, sizeof(*pl));
  pl->global = global;
  pl->sources = g_ptr_array_new_with_free_func(_source_free);
  pl->dests = g_ptr_array_new_with_free_func(_dest_free);
  pl->drivers = g_ptr_array_new_with_free_func(_driver_free);
  pl->slots = g_ptr_array_new_with_free_func(_slot_free);
  pl->stats_level = (int) global->stats_level;
  pl->by_node = g_hash_table_new(g_direct_hash, g_direct_equal);
  return pl;
}

LogPipeline *
log_pipeline_new(const CfgTree *tree, const CfgGlobalOptions *global, const LogDriverFactory *const *factories,
                 CfgError *err)
{
  /* Check every statement, used or not, against what Sluice has. */
  size_t n = 0;
  while (factories[n])
    n++;
  const CfgDriverDef **defs = calloc(n + 1, sizeof(CfgDriverDef *));
  for (size_t i = 0; i < n; i++)
    defs[i] = &factories[i]->def;
  bool ok = cfg_check_drivers(tree, defs, err);
  free(defs);
  if (!ok || !filter_expr_check_statements(tree, err))
    return NULL;

  LogPipeline *pl = _alloc(global);
  if (!log_pipeline_build(pl, tree, factories, err))
    {
      log_pipeline_free(pl);
      return NULL;
    }
  return pl;
}

void
log_pipeline_free(LogPipeline *pl)
{
  if (!pl)
    return;
  for (size_t i = 0; i < pl->top.n; i++)
    log_path_free(pl->top.paths[i]);
  free(pl->top.paths);
  g_ptr_array_free(pl->sources, TRUE);
  g_ptr_array_free(pl->dests, TRUE);
  g_ptr_array_free(pl->drivers, TRUE);
  g_ptr_array_free(pl->slots, TRUE);
  g_hash_table_destroy(pl->by_node);
  if (pl->in_channels)
    g_hash_table_destroy(pl->in_channels);
  free(pl->batches);
  free(pl->received);
  free(pl->stamps);
  stats_dyn_free(pl->dyn);
  if (pl->flush_procs)
    g_ptr_array_free(pl->flush_procs, TRUE);
  if (pl->dyn_carried)
    g_hash_table_unref(pl->dyn_carried);
  if (pl->parser_discards)
    g_ptr_array_free(pl->parser_discards, TRUE);
  if (pl->filter_counts)
    g_ptr_array_free(pl->filter_counts, TRUE);
  log_pipeline_stats_free(pl);
  free(pl);
}

int
log_pipeline_source_id(const LogPipeline *pl, const char *name)
{
  for (guint i = 0; i < pl->sources->len; i++)
    {
      const SourceRT *s = g_ptr_array_index(pl->sources, i);
      if (strcmp(s->name, name) == 0)
        return s->first_slot;
    }
  return -1;
}

int64_t
log_pipeline_max_connections(const LogPipeline *pl, int64_t *live)
{
  int64_t max = 0, now = 0;
  for (guint i = 0; i < pl->sources->len; i++)
    {
      const SourceRT *s = g_ptr_array_index(pl->sources, i);
      for (size_t k = 0; k < s->n_started; k++)
        {
          const LogSourceDriver *d = s->drivers[k];
          max += d->max_connections;
          if (d->connections)
            now += atomic_load(d->connections);
        }
    }
  if (live)
    *live = now;
  return max;
}

/* ---- routing ------------------------------------------------------------ */

static void
_push(LogPipeline *pl, int driver, LogQueueItem *items, size_t n)
{
  DriverRT *rt = g_ptr_array_index(pl->drivers, driver);
  LogQueueItem kept[2 * PIPELINE_BATCH];
  if (rt->suppress && rt->writer)
    {
      /* repeats leave here, summaries come in */
      n = log_writer_suppress(rt->writer, items, n, kept);
      items = kept;
    }
  size_t dropped = log_queue_push_batch(rt->q, items, n);
  atomic_fetch_add_explicit(&pl->queued, n - dropped, memory_order_relaxed);
  if (dropped)
    atomic_fetch_add_explicit(&pl->dropped, dropped, memory_order_relaxed);
}

/* This thread's index in pl's worker pool, or -1 (not one of its workers) */
static int
_my_worker(LogPipeline *pl)
{
  Worker *w = worker_current();
  if (!w || !pl->batches)
    return -1;
  int i = worker_index(w);
  if (i >= pl->n_workers || worker_pool_get(pl->pool, i) != w)
    return -1;
  return i;
}

/* Worker w's batches (one per destination driver), or NULL for w < 0 */
static Batch *
_worker_batches(LogPipeline *pl, int w)
{
  return w < 0 ? NULL : &pl->batches[(size_t) w * pl->drivers->len];
}

static void
_emit(LogPipeline *pl, Batch *mine, const DestRT *dest, LogMsg *msg, bool ack)
{
  for (size_t i = 0; i < dest->n_drivers; i++)
    {
      int driver = dest->drivers[i];
      if (ack)
        log_msg_ack_add(msg);
      LogQueueItem item = { log_msg_ref(msg), ack };
      if (!mine)
        {
          _push(pl, driver, &item, 1);
          continue;
        }
      Batch *b = &mine[driver];
      b->items[b->n++] = item;
      if (b->n == PIPELINE_BATCH)
        {
          _push(pl, driver, b->items, b->n);
          b->n = 0;
        }
    }
}

static bool _run_path(LogPipeline *pl, Batch *mine, const LogPathRT *p, int source_id, LogMsg **pmsg, bool top,
                      bool sole);
static bool _takes_source(const LogPathRT *p, int source_id, bool top);

/* True when no path of g after path i can see the message: none later in
 * the same pass takes the source, and in the first pass no fallback path
 * does (fallbacks run only when nothing matched, which is not known yet). */
static bool
_last_taker(const PathGroup *g, size_t i, int fallback, int source_id, bool top)
{
  for (size_t j = 0; j < g->n; j++)
    {
      const LogPathRT *q = g->paths[j];
      bool q_fallback = (q->flags & CFG_LOG_FALLBACK) != 0;
      bool later = fallback ? q_fallback && j > i : q_fallback || j > i;
      if (later && _takes_source(q, source_id, top))
        return false;
    }
  return true;
}

/* Run *pmsg through a group of sibling paths with final and fallback; true
 * when any of them matched.  At the top, the last path that can see the
 * message takes over the caller's reference and hands back in *pmsg the
 * message it ended with (its own copy, or the message itself changed in
 * place: that needs a message no other path has shared).  Every other
 * path gets the message write-protected, and so do nested groups, whose
 * parent path goes on with it after them. */
static bool
_run_group(LogPipeline *pl, Batch *mine, const PathGroup *g, int source_id, LogMsg **pmsg, bool top)
{
  bool matched = false;
  for (int fallback = 0; fallback < 2; fallback++)
    {
      if (fallback && matched)
        break;
      for (size_t i = 0; i < g->n; i++)
        {
          const LogPathRT *p = g->paths[i];
          if (((p->flags & CFG_LOG_FALLBACK) != 0) != (fallback == 1))
            continue;
          bool sole = top && _last_taker(g, i, fallback, source_id, top);
          if (!sole)
            log_msg_write_protect(*pmsg);
          if (_run_path(pl, mine, p, source_id, pmsg, top, sole))
            {
              matched = true;
              if (p->flags & CFG_LOG_FINAL)
                return true;
            }
        }
    }
  return matched;
}

static bool
_takes_source(const LogPathRT *p, int source_id, bool top)
{
  if (p->flags & CFG_LOG_CATCHALL)
    return true;
  if (p->n_sources == 0)
    return !top;
  for (size_t i = 0; i < p->n_sources; i++)
    if (p->sources[i] == source_id)
      return true;
  return false;
}

/* Parsers and rewrites change the message of their own path only: msg is
 * write-protected whenever it leaves this path's hands (a destination, a
 * nested group, a branch), so a later processor here works on a copy and
 * sibling paths keep seeing the message as it came. */
static bool
_run_procs(LogProcessor *const *procs, LogMsg **pmsg, bool *own)
{
  if (!*own)
    {
      log_msg_ref(*pmsg);
      *own = true;
    }
  for (size_t i = 0; procs[i]; i++)
    if (!procs[i]->ops->process(procs[i], pmsg))
      {
        if (procs[i]->discarded)
          atomic_fetch_add_explicit(procs[i]->discarded, 1, memory_order_relaxed);
        return false;
      }
  return true;
}

/* A filter that stores (flags(store-matches)) changes this path's copy,
 * taken as a processor takes it, and only when a match stores. */
static bool
_filter_passes(const FilterExpr *f, LogMsg **pmsg, bool *own)
{
  if (!filter_expr_stores(f))
    return filter_expr_eval(f, *pmsg);
  return filter_expr_eval_store(f, pmsg, own);
}

static bool _run_elems_at(LogPipeline *pl, Batch *mine, const LogPathRT *p, const LogPathRT *from, size_t start,
                          int source_id, LogMsg **pmsg, bool *own);

static bool
_run_elems(LogPipeline *pl, Batch *mine, const LogPathRT *p, const LogPathRT *from, int source_id, LogMsg **pmsg,
           bool *own)
{
  return _run_elems_at(pl, mine, p, from, 0, source_id, pmsg, own);
}

/* A junction at from->elems[at] of path p, as syslog-ng runs one: each of
 * its channels gets the message as it came; what comes out of a channel
 * goes on through the rest of p, one message per channel that lets it
 * through (final: no later channel gets it; fallback: only when no other
 * took it).  The message goes no further when no channel lets it
 * through.  When the junction ends p (app-parser()'s junction ends its
 * parser), what the last channel to take it made of it is handed back in
 * *pmsg, so that a branch or path around p goes on with it.  True when
 * some continuation reached the end of p. */
static bool
_run_junction(LogPipeline *pl, Batch *mine, const LogPathRT *p, const LogPathRT *from, size_t at, int source_id,
              LogMsg **pmsg, bool *own)
{
  const PathGroup *g = &from->elems[at].group;
  bool last = at + 1 == from->n_elems;
  bool taken = false, matched = false;
  LogMsg *msg = *pmsg, *kept = NULL;
  log_msg_write_protect(msg);
  for (int fallback = 0; fallback < 2 && !(fallback && taken); fallback++)
    for (size_t i = 0; i < g->n; i++)
      {
        const LogPathRT *ch = g->paths[i];
        if (((ch->flags & CFG_LOG_FALLBACK) != 0) != (fallback == 1))
          continue;
        LogMsg *m = msg;
        bool m_own = false;
        bool took = _run_elems(pl, mine, ch, ch, source_id, &m, &m_own);
        if (took)
          {
            taken = true;
            if (m_own)
              log_msg_write_protect(m);
            if (last)
              {
                if (kept)
                  log_msg_unref(kept);
                kept = m_own ? m : log_msg_ref(m);
                m_own = false;
                matched = true;
              }
            else
              matched |= _run_elems_at(pl, mine, p, from, at + 1, source_id, &m, &m_own);
          }
        if (m_own)
          log_msg_unref(m);
        if (took && (ch->flags & CFG_LOG_FINAL))
          goto done;
      }
done:
  if (kept)
    {
      if (*own)
        log_msg_unref(msg);
      *pmsg = kept;
      *own = true;
    }
  return matched;
}

/* Whether the message of source_id comes through the source channel sub:
 * it is one of the channel's own sources. */
static bool
_from_channel(const LogPathRT *sub, int source_id)
{
  for (size_t i = 0; i < sub->n_sources; i++)
    if (sub->sources[i] == source_id)
      return true;
  return false;
}

/* True when *pmsg got to the end of p (it "matched" p).  sole: p is the
 * last path to see it and takes over the caller's reference, handing back
 * in *pmsg the message it ended with. */
static bool
_run_path(LogPipeline *pl, Batch *mine, const LogPathRT *p, int source_id, LogMsg **pmsg, bool top, bool sole)
{
  if (!_takes_source(p, source_id, top))
    return false;
  LogMsg *msg = *pmsg;
  bool own = sole; /* msg is a reference of this call's (a processor ran, or the caller's) */
  bool matched = _run_elems(pl, mine, p, p, source_id, &msg, &own);
  if (sole)
    *pmsg = msg;
  else if (own)
    log_msg_unref(msg);
  return matched;
}

/* Run *pmsg through the elements of from (p itself, or one of p's source
 * channels) as part of path p: p's flow control and flags apply.  *own says
 * whether *pmsg is a reference of the caller's path; a processor or a
 * storing filter may replace *pmsg with its own copy. */
static bool
_run_elems_at(LogPipeline *pl, Batch *mine, const LogPathRT *p, const LogPathRT *from, size_t start, int source_id,
              LogMsg **pmsg, bool *own)
{
  LogMsg *msg = *pmsg;
  bool matched = true;
  for (size_t i = start; matched && i < from->n_elems; i++)
    {
      const PathElem *e = &from->elems[i];
      if (*own && e->kind != PE_FILTER && e->kind != PE_PROC && e->kind != PE_SOURCE_CHANNEL)
        log_msg_write_protect(msg);
      switch (e->kind)
        {
        case PE_FILTER:
          matched = _filter_passes(e->filter, &msg, own);
          if (e->counts)
            atomic_fetch_add_explicit(&e->counts[matched ? 0 : 1], 1, memory_order_relaxed);
          break;
        case PE_PROC:
          matched = _run_procs(e->procs, &msg, own);
          break;
        case PE_DEST:
          /* a sender waiting for the write (relp()) is flow control on every path */
          _emit(pl, mine, g_ptr_array_index(pl->dests, e->dest), msg, p->flow || (msg->flags & LF_ACK_WRITTEN));
          break;
        case PE_GROUP:
          if (!e->nested_logs)
            {
              /* a junction runs the rest of the path itself, per channel */
              *pmsg = msg;
              return _run_junction(pl, mine, p, from, i, source_id, pmsg, own);
            }
          if (!_run_group(pl, mine, &e->group, source_id, &msg, false) && (p->flags & CFG_LOG_DROP_UNMATCHED))
            matched = false;
          break;
        case PE_IF:
          for (size_t k = 0; k < e->group.n; k++)
            {
              if (e->conds[k] && !_filter_passes(e->conds[k], &msg, own))
                continue;
              const LogPathRT *b = e->group.paths[k];
              if (!(b->flags & CFG_BRANCH_TRY))
                {
                  /* a branch with a condition, once taken, decides whether
                   * the message goes on, and what the path goes on with
                   * is what the branch made of it (its rewrites count
                   * after the if, as in syslog-ng) */
                  matched = _run_elems(pl, mine, b, b, source_id, &msg, own);
                  break;
                }
              /* `if { ... }` without a condition: its elements decide; a
               * message they drop goes to the next branch as it came
               * (and on along the path after the last), as in syslog-ng
               * 3.38: the branch works on its own reference */
              log_msg_write_protect(msg);
              LogMsg *m = msg;
              bool m_own = false;
              if (_run_elems(pl, mine, b, b, source_id, &m, &m_own))
                {
                  if (m_own)
                    {
                      if (*own)
                        log_msg_unref(msg);
                      msg = m;
                      *own = true;
                    }
                  break;
                }
              if (m_own)
                log_msg_unref(m);
            }
          break;
        case PE_SOURCE_CHANNEL:
          if (_from_channel(e->group.paths[0], source_id))
            matched = _run_elems(pl, mine, p, e->group.paths[0], source_id, &msg, own);
          break;
        }
    }
  *pmsg = msg;
  return matched;
}

void
log_pipeline_deliver(LogPipeline *pl, int slot, LogMsg *msg)
{
  /* Each worker counts in its own cache lines (one writer: a relaxed load
   * and store, no locked instruction); other threads share the slot's
   * atomic.  Readers sum both (log_pipeline_slot_received). */
  SourceSlot *sl = g_ptr_array_index(pl->slots, slot);
  int64_t stamp = msg->stamps[LM_TS_RECVD].sec;
  int w = _my_worker(pl);
  if (w >= 0)
    {
      size_t i = (size_t) w * pl->received_stride + (size_t) slot;
      atomic_store_explicit(&pl->received[i], atomic_load_explicit(&pl->received[i], memory_order_relaxed) + 1,
                            memory_order_relaxed);
      atomic_store_explicit(&pl->stamps[i], stamp, memory_order_relaxed);
    }
  else
    {
      atomic_fetch_add_explicit(&sl->other, 1, memory_order_relaxed);
      atomic_store_explicit(&sl->other_stamp, stamp, memory_order_relaxed);
    }
  if (pl->dyn)
    stats_dyn_count(pl->dyn, w, sl->id, msg);
  /* the paths write-protect it as they share it (_run_group); msg may come
   * back as the copy the last path made */
  _run_group(pl, _worker_batches(pl, w), &pl->top, sl->source, &msg, true);
  log_msg_ack(msg); /* the source's own hold (a copy acks through its original) */
  log_msg_unref(msg);
}

void
log_pipeline_inject(LogProcessor *proc, LogMsg *msg)
{
  LogPipeline *pl = proc->pipeline;
  if (!pl || !pl->procs_started)
    {
      log_msg_unref(msg);
      return;
    }
  const LogPathRT *p = proc->path;
  const PathElem *e = &p->elems[proc->elem];
  bool own = true;
  bool go_on = true;
  for (size_t i = proc->index + 1; go_on && e->procs[i]; i++)
    if (!(go_on = e->procs[i]->ops->process(e->procs[i], &msg)) && e->procs[i]->discarded)
      atomic_fetch_add_explicit(e->procs[i]->discarded, 1, memory_order_relaxed);
  if (go_on)
    {
      /* the path's later elements, under the path's own flags */
      LogPathRT rest = *p;
      rest.elems = p->elems + proc->elem + 1;
      rest.n_elems = p->n_elems - proc->elem - 1;
      _run_elems(pl, NULL, p, &rest, -1, &msg, &own);
    }
  log_msg_unref(msg);
}

/* Call fn on every processor of the paths of g, nested ones included. */
static void
_each_proc(const PathGroup *g, void (*fn)(LogProcessor *p, void *ud), void *ud)
{
  for (size_t i = 0; i < g->n; i++)
    {
      const LogPathRT *p = g->paths[i];
      for (size_t k = 0; k < p->n_elems; k++)
        {
          const PathElem *e = &p->elems[k];
          for (size_t j = 0; e->kind == PE_PROC && e->procs[j]; j++)
            fn(e->procs[j], ud);
          _each_proc(&e->group, fn, ud);
        }
    }
}

void
log_pipeline_foreach_processor(LogPipeline *pl, void (*fn)(LogProcessor *p, void *ud), void *ud)
{
  _each_proc(&pl->top, fn, ud);
}

typedef struct ProcStart
{
  char **error;
  bool ok;
} ProcStart;

static void
_proc_start(LogProcessor *p, void *ud)
{
  ProcStart *ps = ud;
  if (ps->ok && p->ops->start && !p->ops->start(p, ps->error))
    ps->ok = false;
}

static void
_proc_flush_add(LogProcessor *p, void *ud)
{
  if (p->ops->flush)
    g_ptr_array_add(ud, p);
}

static void
_proc_stop(LogProcessor *p, void *ud)
{
  (void) ud;
  if (p->ops->stop)
    p->ops->stop(p);
}

/* After the sources stopped and the workers flushed: what the processors
 * still make goes out before the destinations stop. */
static void
_stop_procs(LogPipeline *pl)
{
  if (!pl->procs_started)
    return;
  _each_proc(&pl->top, _proc_stop, NULL);
  pl->procs_started = false;
}

void
log_pipeline_flush(LogPipeline *pl)
{
  Batch *mine = _worker_batches(pl, _my_worker(pl));
  if (!mine)
    return;
  for (guint i = 0; pl->flush_procs && i < pl->flush_procs->len; i++)
    {
      LogProcessor *proc = g_ptr_array_index(pl->flush_procs, i);
      proc->ops->flush(proc);
    }
  for (guint d = 0; d < pl->drivers->len; d++)
    if (mine[d].n)
      {
        _push(pl, (int) d, mine[d].items, mine[d].n);
        mine[d].n = 0;
      }
}

/* ---- lifetime ----------------------------------------------------------- */

static void
_flush_job(void *arg)
{
  log_pipeline_flush(arg);
}

static void
_stop_sources(LogPipeline *pl)
{
  for (guint i = pl->sources->len; i-- > 0;)
    {
      SourceRT *s = g_ptr_array_index(pl->sources, i);
      while (s->n_started > 0)
        {
          LogSourceDriver *d = s->drivers[--s->n_started];
          d->ops->stop(d);
        }
    }
}

static DriverRT *
_driver_by_name(LogPipeline *pl, const char *name)
{
  for (guint i = 0; pl && i < pl->drivers->len; i++)
    {
      DriverRT *rt = g_ptr_array_index(pl->drivers, i);
      if (strcmp(rt->persist, name) == 0)
        return rt;
    }
  return NULL;
}

/* Stop every writer: those whose driver next has by name leave their
 * queue to it; the others write out within drain_ms. */
static size_t
_stop_writers_into(LogPipeline *pl, LogPipeline *next, int drain_ms)
{
  size_t left = 0;
  for (guint i = 0; i < pl->drivers->len; i++)
    {
      DriverRT *rt = g_ptr_array_index(pl->drivers, i);
      DriverRT *heir = _driver_by_name(next, rt->persist);
      if (heir && !heir->writer)
        {
          if (rt->writer)
            log_writer_detach(rt->writer);
          rt->writer = NULL;
          LogQueue *carried = rt->q;
          rt->q = heir->q;
          heir->q = carried;
          log_queue_set_fifo_size(carried, heir->fifo_size);
          continue;
        }
      if (!rt->writer)
        continue;
      rt->left = log_writer_stop(rt->writer, drain_ms);
      rt->writer = NULL;
      left += rt->left;
      if (rt->left)
        {
          char n[32];
          snprintf(n, sizeof(n), "%" G_GUINT64_FORMAT, (guint64) rt->left);
          sluice_log(SLUICE_LOG_ERROR, "Messages left unwritten at shutdown", "driver", rt->name, "count", n, NULL);
        }
    }
  return left;
}

static size_t
_stop_writers(LogPipeline *pl, int drain_ms)
{
  return _stop_writers_into(pl, NULL, drain_ms);
}

/* A start that failed: stop what started.  During a reload the queues
 * (which may hold what the previous configuration handed over) are kept
 * whole for log_pipeline_stop_handover to pass back; otherwise they are
 * written out as at a stop. */
static void
_undo_start(LogPipeline *pl)
{
  _stop_sources(pl);
  worker_pool_run_everywhere(pl->pool, _flush_job, pl);
  _stop_procs(pl);
  if (!handover_active())
    {
      _stop_writers(pl, 1000);
      return;
    }
  for (guint i = 0; i < pl->drivers->len; i++)
    {
      DriverRT *rt = g_ptr_array_index(pl->drivers, i);
      if (rt->writer)
        log_writer_detach(rt->writer);
      rt->writer = NULL;
    }
}

void
log_pipeline_set_persist(LogPipeline *pl, PersistStore *store)
{
  pl->persist = store;
}

bool
log_pipeline_start(LogPipeline *pl, WorkerPool *pool, char **error)
{
  pl->pool = pool;
  pl->n_workers = worker_pool_size(pool);
  pl->batches = calloc((size_t) pl->n_workers * (pl->drivers->len ? pl->drivers->len : 1), sizeof(Batch));
  /* whole cache lines per worker, so that workers never write one line */
  size_t per_line = 64 / sizeof(atomic_uint_fast64_t);
  pl->received_stride = (pl->slots->len + per_line - 1) / per_line * per_line;
  if (pl->received_stride == 0)
    pl->received_stride = per_line;
  size_t bytes = (size_t) pl->n_workers * pl->received_stride * sizeof(atomic_uint_fast64_t);
  pl->received = aligned_alloc(64, bytes);
  pl->stamps = aligned_alloc(64, bytes);
  for (size_t i = 0; i < (size_t) pl->n_workers * pl->received_stride; i++)
    {
      atomic_init(&pl->received[i], 0);
      atomic_init(&pl->stamps[i], 0);
    }
  if (pl->stats_level >= 2)
    {
      pl->dyn = stats_dyn_new(pl->n_workers, pl->stats_level, pl->global->stats_max_dynamics,
                              pl->global->stats_lifetime, pl->dyn_carried);
      if (pl->dyn_carried)
        g_hash_table_unref(pl->dyn_carried);
      pl->dyn_carried = NULL;
    }

  for (guint i = 0; i < pl->drivers->len; i++)
    {
      DriverRT *rt = g_ptr_array_index(pl->drivers, i);
      LogDestDriver *d = rt->drv;
      if (!log_queue_open(rt->q, error) || (d->ops->start && !d->ops->start(d, error)))
        {
          _undo_start(pl);
          return false;
        }
      LogWriterOptions wo = {
        .flush_lines = (uint32_t) (d->flush_lines > 0 ? d->flush_lines : pl->global->flush_lines > 0
                                                                            ? pl->global->flush_lines
                                                                            : 100),
        .time_reopen = (int) (d->time_reopen > 0 ? d->time_reopen : pl->global->time_reopen),
        .throttle = (uint32_t) (d->throttle > 0 ? d->throttle : 0),
        .suppress = (uint32_t) (d->suppress > 0 ? d->suppress : 0),
        .name = rt->name,
      };
      /* a batch for many files: flush-lines each, at most a batch of
       * BATCH_MAX_SPLIT (unless flush-lines alone is more) */
      if (d->batch_files > 1)
        wo.batch = (uint32_t) MIN((uint64_t) wo.flush_lines * d->batch_files,
                                  MAX((uint64_t) wo.flush_lines, BATCH_MAX_SPLIT));
      const char *werr = NULL;
      rt->writer = log_writer_start(rt->q, d->writer_ops, d, &wo, &werr);
      rt->suppress = wo.suppress > 0;
      if (!rt->writer)
        {
          *error = g_strdup(werr);
          _undo_start(pl);
          return false;
        }
    }
  /* processors that emit start between the destinations and the sources
   * (a failed one stops those before it: stop is safe on all of them) */
  ProcStart ps = { error, true };
  pl->procs_started = true;
  if (!pl->flush_procs)
    {
      pl->flush_procs = g_ptr_array_new();
      _each_proc(&pl->top, _proc_flush_add, pl->flush_procs);
    }
  _each_proc(&pl->top, _proc_start, &ps);
  if (!ps.ok)
    {
      _undo_start(pl);
      return false;
    }
  for (guint i = 0; i < pl->sources->len; i++)
    {
      SourceRT *s = g_ptr_array_index(pl->sources, i);
      LogSourceEnv env = {
        .pool = pool,
        .pipeline = pl,
        .flow_control = s->flow_control,
        .name = s->label ? s->label : s->name,
        .global = pl->global,
        .persist = pl->persist,
      };
      for (size_t k = 0; k < s->n_drivers; k++)
        {
          env.source_id = s->first_slot + (int) k;
          if (!s->drivers[k]->ops->start(s->drivers[k], &env, error))
            {
              _undo_start(pl);
              return false;
            }
          s->n_started++;
        }
    }
  pl->running = true;
  return true;
}

size_t
log_pipeline_stop(LogPipeline *pl, int drain_ms)
{
  if (!pl->running)
    return 0;
  _stop_sources(pl);
  worker_pool_run_everywhere(pl->pool, _flush_job, pl);
  _stop_procs(pl);
  size_t left = _stop_writers(pl, drain_ms);
  pl->running = false;
  return left;
}

/* the counts of to's statements that from had under the same name */
static void
_carry_stmt_counts(GPtrArray *from, GPtrArray *to)
{
  for (guint i = 0; from && to && i < to->len; i++)
    {
      StmtCounts *t = g_ptr_array_index(to, i);
      for (guint k = 0; k < from->len; k++)
        {
          StmtCounts *f = g_ptr_array_index(from, k);
          if (strcmp(f->name, t->name) != 0)
            continue;
          for (int j = 0; j < 2; j++)
            atomic_fetch_add(&t->n[j], atomic_load(&f->n[j]));
          break;
        }
    }
}

/* A reload keeps the counts of every source driver next has under the
 * same id ("s_net#0"), the center's, the parser and filter statements'
 * of the same name, and the dynamic rows; the queues' counts went with
 * the queues. */
static void
_carry_counters(LogPipeline *pl, LogPipeline *next)
{
  _carry_stmt_counts(pl->parser_discards, next->parser_discards);
  _carry_stmt_counts(pl->filter_counts, next->filter_counts);
  for (guint i = 0; i < next->slots->len; i++)
    {
      SourceSlot *sl = g_ptr_array_index(next->slots, i);
      for (guint k = 0; k < pl->slots->len; k++)
        if (strcmp(((SourceSlot *) g_ptr_array_index(pl->slots, k))->id, sl->id) == 0)
          {
            int64_t stamp = 0;
            uint64_t received = log_pipeline_slot_received(pl, (int) k, &stamp);
            uint64_t dropped = log_pipeline_slot_dropped(pl, (int) k);
            atomic_store_explicit(&sl->base, received, memory_order_relaxed);
            atomic_store_explicit(&sl->stamp_base, stamp, memory_order_relaxed);
            atomic_store_explicit(&sl->dropped_base, dropped, memory_order_relaxed);
            break;
          }
    }
  atomic_fetch_add(&next->queued, atomic_load(&pl->queued));
  atomic_fetch_add(&next->dropped, atomic_load(&pl->dropped));
  if (pl->dyn && !next->dyn_carried)
    next->dyn_carried = stats_dyn_take_totals(pl->dyn);
  log_pipeline_stats_carry(pl, next);
}

size_t
log_pipeline_stop_handover(LogPipeline *pl, LogPipeline *next, int drain_ms)
{
  if (!pl->pool)
    return 0; /* never started: nothing to hand over */
  /* also after a start that failed (its queues are still whole) */
  _stop_sources(pl);
  worker_pool_run_everywhere(pl->pool, _flush_job, pl);
  _stop_procs(pl);
  size_t left = _stop_writers_into(pl, next, drain_ms);
  pl->running = false;
  _carry_counters(pl, next);
  return left;
}

void
log_pipeline_reopen(LogPipeline *pl)
{
  for (guint i = 0; i < pl->drivers->len; i++)
    {
      DriverRT *rt = g_ptr_array_index(pl->drivers, i);
      if (rt->writer)
        log_writer_request_reopen(rt->writer);
    }
}

uint64_t
log_pipeline_slot_dropped(LogPipeline *pl, int slot)
{
  SourceSlot *sl = g_ptr_array_index(pl->slots, slot);
  uint64_t n = atomic_load_explicit(&sl->dropped_base, memory_order_relaxed);
  if (sl->drv && sl->drv->dropped)
    n += (uint64_t) atomic_load_explicit(sl->drv->dropped, memory_order_relaxed);
  return n;
}

uint64_t
log_pipeline_slot_received(LogPipeline *pl, int slot, int64_t *stamp)
{
  SourceSlot *sl = g_ptr_array_index(pl->slots, slot);
  uint64_t n = atomic_load_explicit(&sl->base, memory_order_relaxed)
               + atomic_load_explicit(&sl->other, memory_order_relaxed);
  int64_t stamp_base = atomic_load_explicit(&sl->stamp_base, memory_order_relaxed);
  int64_t last = MAX(stamp_base, atomic_load_explicit(&sl->other_stamp, memory_order_relaxed));
  for (int w = 0; pl->received && w < pl->n_workers; w++)
    {
      size_t i = (size_t) w * pl->received_stride + (size_t) slot;
      n += atomic_load_explicit(&pl->received[i], memory_order_relaxed);
      last = MAX(last, atomic_load_explicit(&pl->stamps[i], memory_order_relaxed));
    }
  if (stamp)
    *stamp = last;
  return n;
}

uint64_t
log_pipeline_source_received(LogPipeline *pl, int source_id)
{
  SourceRT *s = g_ptr_array_index(pl->sources, source_id);
  uint64_t n = 0;
  for (size_t k = 0; k < (s->n_drivers ? s->n_drivers : 1); k++)
    n += log_pipeline_slot_received(pl, s->first_slot + (int) k, NULL);
  return n;
}

void
log_pipeline_get_stats(LogPipeline *pl, LogPipelineStats *out)
{
  out->received = 0;
  for (guint i = 0; i < pl->sources->len; i++)
    out->received += log_pipeline_source_received(pl, (int) i);
  out->queued = atomic_load(&pl->queued);
  out->dropped = atomic_load(&pl->dropped);
  out->written = 0;
  for (guint i = 0; i < pl->drivers->len; i++)
    {
      DriverRT *rt = g_ptr_array_index(pl->drivers, i);
      LogQueueStats qs;
      log_queue_get_stats(rt->q, &qs);
      out->written += qs.written;
    }
}

static void
_stat_append(GString *out, const char *kind, const char *counter, uint64_t value)
{
  bool first = out->len == 0 || out->str[out->len - 1] == ' ';
  g_string_append_printf(out, "%s%s='%s=%" PRIu64 "'", first ? "" : ", ", kind, counter, value);
}

void
log_pipeline_format_stats(LogPipeline *pl, GString *out)
{
  LogPipelineStats total;
  log_pipeline_get_stats(pl, &total);
  char name[512], component[64];
  /* as the control socket shows them: since their last reset */
#define V(c, id, inst, type, raw) log_pipeline_stat_value(pl, c, id, inst, type, raw)
  for (guint i = 0; i < pl->sources->len; i++)
    {
      SourceRT *s = g_ptr_array_index(pl->sources, i);
      snprintf(name, sizeof(name), "source(%s)", s->name);
      uint64_t n = log_pipeline_source_received(pl, (int) i);
      _stat_append(out, "processed", name, V("source", s->name, "", "processed", n));
    }
  for (guint i = 0; i < pl->drivers->len; i++)
    {
      DriverRT *rt = g_ptr_array_index(pl->drivers, i);
      LogQueueStats qs;
      log_queue_get_stats(rt->q, &qs);
      snprintf(name, sizeof(name), "dst.%s(%s)", rt->drv->driver, rt->name);
      snprintf(component, sizeof(component), "dst.%s", rt->drv->driver);
      const char *inst = rt->drv->stats_instance;
      _stat_append(out, "dropped", name, V(component, rt->name, inst, "dropped", qs.dropped));
      _stat_append(out, "processed", name, V(component, rt->name, inst, "processed", qs.queued + qs.dropped));
      _stat_append(out, "queued", name, qs.length);
      _stat_append(out, "written", name, V(component, rt->name, inst, "written", qs.written));
    }
  _stat_append(out, "processed", "center(received)", V("center", "", "received", "processed", total.received));
  _stat_append(out, "processed", "center(queued)", V("center", "", "queued", "processed", total.queued));
#undef V
}
