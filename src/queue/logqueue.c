/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Destination queues (include/sluice/logqueue.h): what every kind shares,
 * and the calls handed to the kind's operations (queue-internal.h). */
#include "queue-internal.h"
#include "sluice/timeutil.h"

#include <errno.h>
#include <glib.h>
#include <stdlib.h>
#include <time.h>

/* Set by a push on the pushing thread; see log_queue_congestion_take(). */
static _Thread_local bool congestion_seen;

/* Queues that filled past their kind's threshold and have not drained
 * since, with a healthy writer: while any is, throttled readers stay paused. */
static atomic_int congested_queues;

void
log_queue_init(LogQueue *q, const LogQueueOps *ops)
{
  q->ops = ops;
  pthread_mutex_init(&q->lock, NULL);
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&q->nonempty, &attr);
  pthread_condattr_destroy(&attr);
}

void
log_queue_mark_congested(LogQueue *q, bool on)
{
  if (q->congested == on)
    return;
  q->congested = on;
  atomic_fetch_add_explicit(&congested_queues, on ? 1 : -1, memory_order_relaxed);
}

void
log_queue_note_congested(LogQueue *q)
{
  if (q->stalled)
    return;
  congestion_seen = true;
  log_queue_mark_congested(q, true);
}

void
log_queue_pushed_locked(LogQueue *q, size_t n, size_t dropped)
{
  q->queued += n - dropped;
  q->dropped += dropped;
  if (n > dropped)
    pthread_cond_signal(&q->nonempty);
}

bool
log_queue_open(LogQueue *q, char **error)
{
  return !q->ops->open || q->ops->open(q, error);
}

bool
log_queue_is_persistent(const LogQueue *q)
{
  return q->ops->persistent;
}

void
log_queue_free(LogQueue *q)
{
  if (!q)
    return;
  q->ops->destroy(q);
  log_queue_mark_congested(q, false);
  pthread_cond_destroy(&q->nonempty);
  pthread_mutex_destroy(&q->lock);
  free(q);
}

size_t
log_queue_push_batch(LogQueue *q, LogQueueItem *items, size_t n)
{
  size_t dropped = q->ops->push(q, items, n);
  log_queue_items_done(items, dropped);
  return dropped;
}

ssize_t
log_queue_pop_batch(LogQueue *q, LogQueueItem *out, size_t max, int timeout_ms)
{
  struct timespec until;
  if (timeout_ms >= 0)
    mono_deadline(&until, timeout_ms);

  pthread_mutex_lock(&q->lock);
  while (q->ops->length(q) == 0 && !q->closed && !q->interrupted)
    {
      if (timeout_ms < 0)
        pthread_cond_wait(&q->nonempty, &q->lock);
      else if (pthread_cond_timedwait(&q->nonempty, &q->lock, &until) == ETIMEDOUT)
        break;
    }
  size_t n = q->ops->length(q) ? q->ops->take(q, out, max) : 0;
  if (n == 0)
    {
      bool closed = q->closed;
      q->interrupted = false;
      pthread_mutex_unlock(&q->lock);
      return closed ? -1 : 0;
    }
  q->processed += n;
  if (q->ops->drained(q))
    log_queue_mark_congested(q, false);
  pthread_mutex_unlock(&q->lock);
  return (ssize_t) n;
}

void
log_queue_close(LogQueue *q)
{
  pthread_mutex_lock(&q->lock);
  q->closed = true;
  pthread_cond_broadcast(&q->nonempty);
  pthread_mutex_unlock(&q->lock);
}

void
log_queue_interrupt(LogQueue *q)
{
  pthread_mutex_lock(&q->lock);
  q->interrupted = true;
  pthread_cond_broadcast(&q->nonempty);
  pthread_mutex_unlock(&q->lock);
}

void
log_queue_unpop(LogQueue *q, LogQueueItem *items, size_t n)
{
  pthread_mutex_lock(&q->lock);
  q->ops->unpop(q, items, n);
  q->processed -= n;
  pthread_cond_signal(&q->nonempty);
  pthread_mutex_unlock(&q->lock);
}

void
log_queue_set_fifo_size(LogQueue *q, uint32_t fifo_size)
{
  pthread_mutex_lock(&q->lock);
  if (q->ops->set_fifo_size)
    q->ops->set_fifo_size(q, fifo_size ? fifo_size : 1);
  q->stalled = false;
  q->interrupted = false;
  pthread_mutex_unlock(&q->lock);
}

void
log_queue_get_stats(LogQueue *q, LogQueueStats *out)
{
  out->written = atomic_load_explicit(&q->written, memory_order_relaxed);
  pthread_mutex_lock(&q->lock);
  out->queued = q->queued;
  out->dropped = q->dropped;
  out->processed = q->processed;
  out->length = q->ops->length(q);
  out->memory = q->ops->memory(q);
  pthread_mutex_unlock(&q->lock);
}

void
log_queue_ack_batch(LogQueue *q, LogQueueItem *items, size_t n)
{
  atomic_fetch_add_explicit(&q->written, n, memory_order_relaxed);
  q->ops->ack(q, items, n);
}

void
log_queue_count_written(LogQueue *q, size_t n)
{
  atomic_fetch_add_explicit(&q->written, n, memory_order_relaxed);
}

void
log_queue_drop_batch(LogQueue *q, LogQueueItem *items, size_t n)
{
  /* they were counted queued when pushed: moved over, so that processed
   * (queued + dropped) counts each message once */
  pthread_mutex_lock(&q->lock);
  q->queued -= n;
  q->dropped += n;
  pthread_mutex_unlock(&q->lock);
  q->ops->ack(q, items, n);
}

/* Ack or drop the settled items[0..n) in runs of the same outcome. */
static void
_settle_runs(LogQueue *q, LogQueueItem *items, const LogQueueOutcome *outcome, size_t n)
{
  for (size_t i = 0, j; i < n; i = j)
    {
      for (j = i + 1; j < n && outcome[j] == outcome[i]; j++)
        ;
      if (outcome[i] == LOG_QUEUE_DROPPED)
        log_queue_drop_batch(q, items + i, j - i);
      else
        log_queue_ack_batch(q, items + i, j - i);
    }
}

size_t
log_queue_settle_front(LogQueue *q, LogQueueItem *items, const LogQueueOutcome *outcome, size_t n)
{
  size_t k = 0;
  while (k < n && outcome[k] != LOG_QUEUE_UNSETTLED)
    k++;
  _settle_runs(q, items, outcome, k);
  return k;
}

size_t
log_queue_give_back(LogQueue *q, LogQueueItem *items, const LogQueueOutcome *outcome, size_t n)
{
  size_t k = log_queue_settle_front(q, items, outcome, n);
  items += k;
  outcome += k;
  n -= k;
  if (!n)
    return 0;
  if (q->ops->persistent)
    {
      /* its ack forgets the oldest records popped, whatever items it is
       * given: what follows an unsettled item goes back with it */
      log_queue_unpop(q, items, n);
      return n;
    }
  LogQueueItem *back = g_new(LogQueueItem, n);
  size_t nb = 0;
  for (size_t i = 0; i < n;)
    {
      if (outcome[i] == LOG_QUEUE_UNSETTLED)
        {
          back[nb++] = items[i++];
          continue;
        }
      size_t j = i;
      while (j < n && outcome[j] != LOG_QUEUE_UNSETTLED)
        j++;
      _settle_runs(q, items + i, outcome + i, j - i);
      i = j;
    }
  log_queue_unpop(q, back, nb);
  g_free(back);
  return nb;
}

void
log_queue_set_stalled(LogQueue *q, bool stalled)
{
  pthread_mutex_lock(&q->lock);
  q->stalled = stalled;
  if (stalled)
    log_queue_mark_congested(q, false);
  pthread_mutex_unlock(&q->lock);
}

bool
log_queue_congestion_take(void)
{
  bool seen = congestion_seen;
  congestion_seen = false;
  return seen;
}

bool
log_queue_congestion_persists(void)
{
  return atomic_load_explicit(&congested_queues, memory_order_relaxed) > 0;
}
