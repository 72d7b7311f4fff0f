/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * LogSourceConns (sluice/logsource.h): a listener's live connections, for
 * every stream source (network()'s stream drivers and relp()): the
 * listening socket on one worker, max-connections() and its refusal, the
 * set of connections across workers, and the rounds of jobs that stop it.
 * What a connection reads and how it closes stays the driver's.
 */
#include "sluice/logsource.h"

#include "sluice/internal-log.h"
#include "sluice/pipeline.h"
#include "sluice/worker.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

void
log_source_conns_init(LogSourceConns *cs, LogSource *src)
{
  cs->src = src;
  cs->local = "";
  cs->listen_fd = -1;
  atomic_init(&cs->n, 0);
  g_mutex_init(&cs->lock);
  cs->conns = g_ptr_array_new();
}

void
log_source_conns_deinit(LogSourceConns *cs)
{
  if (cs->conns)
    g_ptr_array_free(cs->conns, TRUE);
  cs->conns = NULL;
  g_mutex_clear(&cs->lock);
}

/* ---- the listener (on its worker) ---------------------------------------- */

static void
_listen_start_job(void *arg)
{
  LogSourceConns *cs = arg;
  acceptor_start(cs->acceptor);
}

void
log_source_conns_listen(LogSourceConns *cs, int fd, const char *local, int max, AcceptorFunc accepted,
                        void *cookie)
{
  LogSourceDriver *d = &cs->src->super;
  cs->local = local;
  cs->max = max;
  cs->listen_fd = fd;
  cs->acceptor = calloc(1, sizeof(*cs->acceptor));
  if (!cs->acceptor)
    abort();
  acceptor_init(cs->acceptor, fd, local, accepted, cookie);
  d->connections = &cs->n;
  d->max_connections = max;
  cs->listen_worker = worker_pool_pick(cs->src->env.pool);
  worker_post(cs->listen_worker, _listen_start_job, cs);
}

typedef struct ListenStop
{
  LogSourceConns *cs;
  void (*release)(int fd, void *arg);
  void *arg;
} ListenStop;

static void
_listen_stop_job(void *arg)
{
  ListenStop *st = arg;
  LogSourceConns *cs = st->cs;
  if (!cs->acceptor)
    return;
  /* a connection parked for the descriptor reserve joins the others,
   * whose stop reads on or hands them over, before this round ends */
  acceptor_hand_over_parked(cs->acceptor);
  acceptor_stop(cs->acceptor);
  free(cs->acceptor);
  cs->acceptor = NULL;
  st->release(cs->listen_fd, st->arg);
  cs->listen_fd = -1;
}

void
log_source_conns_stop_listener(LogSourceConns *cs, void (*release)(int fd, void *arg), void *arg)
{
  ListenStop st = { cs, release, arg };
  if (cs->listen_worker)
    worker_run(cs->listen_worker, _listen_stop_job, &st);
}

/* ---- slots --------------------------------------------------------------- */

bool
log_source_conns_admit(LogSourceConns *cs, int fd, const char *client)
{
  if (atomic_fetch_add(&cs->n, 1) < cs->max)
    return true;
  atomic_fetch_sub(&cs->n, 1);
  char max[16];
  snprintf(max, sizeof(max), "%d", cs->max);
  sluice_log(SLUICE_LOG_ERROR, "Number of allowed concurrent connections reached, rejecting connection",
             "client", client, "local", cs->local, "group_name", cs->src->env.name, "location",
             cs->src->location, "max", max, NULL);
  close(fd);
  return false;
}

void
log_source_conns_admit_any(LogSourceConns *cs)
{
  atomic_fetch_add(&cs->n, 1);
}

void
log_source_conns_refund(LogSourceConns *cs)
{
  atomic_fetch_sub(&cs->n, 1);
}

void
log_source_conns_release(LogSourceConns *cs, LogSourceConn *c)
{
  if (!c->counted)
    return;
  c->counted = false;
  atomic_fetch_sub(&cs->n, 1);
}

/* ---- the set --------------------------------------------------------------- */

void
log_source_conns_add(LogSourceConns *cs, LogSourceConn *c)
{
  c->counted = true;
  c->worker = worker_pool_pick(cs->src->env.pool);
  worker_stream_added(c->worker);
  g_mutex_lock(&cs->lock);
  c->index = cs->conns->len;
  g_ptr_array_add(cs->conns, c);
  g_mutex_unlock(&cs->lock);
}

/* Takes c out of the set (lock held) in O(1): the last entry fills its
 * place. */
static void
_take_out(LogSourceConns *cs, LogSourceConn *c)
{
  g_ptr_array_remove_index_fast(cs->conns, c->index);
  if (c->index < cs->conns->len)
    ((LogSourceConn *) g_ptr_array_index(cs->conns, c->index))->index = c->index;
}

void
log_source_conns_remove(LogSourceConns *cs, LogSourceConn *c)
{
  log_source_conns_release(cs, c);
  g_mutex_lock(&cs->lock);
  _take_out(cs, c);
  g_mutex_unlock(&cs->lock);
  worker_stream_removed(c->worker);
}

/* ---- jobs on every worker ---------------------------------------------------- */

typedef struct ConnsJob
{
  LogSourceConns *cs;
  LogSourceConnFunc fn;
  void *arg;
} ConnsJob;

static void
_foreach_job(void *arg)
{
  ConnsJob *job = arg;
  LogSourceConns *cs = job->cs;
  Worker *me = worker_current();
  g_mutex_lock(&cs->lock);
  for (guint i = 0; i < cs->conns->len; i++)
    {
      LogSourceConn *c = g_ptr_array_index(cs->conns, i);
      if (c->worker == me)
        job->fn(c, job->arg);
    }
  g_mutex_unlock(&cs->lock);
}

void
log_source_conns_foreach(LogSourceConns *cs, LogSourceConnFunc fn, void *arg)
{
  ConnsJob job = { cs, fn, arg };
  worker_pool_run_everywhere(cs->src->env.pool, _foreach_job, &job);
}

void
log_source_conns_drain(LogSourceConns *cs, LogSourceConnFunc half_close, void *arg)
{
  if (atomic_load(&cs->n) == 0)
    return;
  log_source_conns_foreach(cs, half_close, arg);
  LogSource *src = cs->src;
  /* "nothing on the way" is the pipeline's own per-worker count of what
   * this source delivered, read from here */
  int64_t start = g_get_monotonic_time() / 1000, quiet_since = start;
  uint64_t seen = log_pipeline_slot_received(src->env.pipeline, src->env.source_id, NULL);
  while (atomic_load(&cs->n) > 0)
    {
      g_usleep(2000);
      int64_t now = g_get_monotonic_time() / 1000;
      uint64_t n = log_pipeline_slot_received(src->env.pipeline, src->env.source_id, NULL);
      if (n != seen)
        {
          seen = n;
          quiet_since = now;
        }
      if (now - quiet_since >= LOG_SOURCE_STOP_QUIET_MS || now - start >= LOG_SOURCE_STOP_DRAIN_MS)
        break;
    }
}

static void
_close_job(void *arg)
{
  ConnsJob *job = arg;
  LogSourceConns *cs = job->cs;
  Worker *me = worker_current();
  /* take this worker's connections out in one pass, then close them */
  GPtrArray *mine = g_ptr_array_new();
  g_mutex_lock(&cs->lock);
  for (guint i = 0; i < cs->conns->len;)
    {
      LogSourceConn *c = g_ptr_array_index(cs->conns, i);
      if (c->worker == me)
        {
          g_ptr_array_add(mine, c);
          _take_out(cs, c);
        }
      else
        i++;
    }
  g_mutex_unlock(&cs->lock);
  if (mine->len)
    log_pipeline_flush(cs->src->env.pipeline);
  for (guint i = 0; i < mine->len; i++)
    {
      LogSourceConn *c = g_ptr_array_index(mine, i);
      log_source_conns_release(cs, c);
      worker_stream_removed(c->worker);
      job->fn(c, job->arg);
    }
  g_ptr_array_free(mine, TRUE);
}

void
log_source_conns_close_all(LogSourceConns *cs, LogSourceConnFunc close_fn, void *arg)
{
  ConnsJob job = { cs, close_fn, arg };
  worker_pool_run_everywhere(cs->src->env.pool, _close_job, &job);
}
