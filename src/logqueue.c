/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Destination queues and flow control: see include/sluice/logqueue.h. */
#include "sluice/logqueue.h"

#include "logqueue-internal.h"
#include "sluice/timeutil.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- windows and acks -------------------------------------------------- */

LogWindow *
log_window_new(int size, LogWindowWakeupFunc wakeup, void *user_data)
{
  LogWindow *w = calloc(1, sizeof(*w));
  if (!w)
    abort();
  w->size = size > 0 ? size : 1;
  atomic_init(&w->free, w->size);
  atomic_init(&w->refs, 1);
  pthread_mutex_init(&w->lock, NULL);
  w->wakeup = wakeup;
  w->user_data = user_data;
  return w;
}

static void
_window_unref(LogWindow *w, int n)
{
  if (atomic_fetch_sub_explicit(&w->refs, n, memory_order_acq_rel) == n)
    {
      if (w->acked_free)
        w->acked_free(w->acked_data);
      pthread_mutex_destroy(&w->lock);
      free(w);
    }
}

void
log_window_set_acked(LogWindow *w, LogWindowAckedFunc acked)
{
  w->acked = acked;
  w->acked_data = w->user_data;
  w->has_acked = acked != NULL;
}

void
log_window_set_acked_owned(LogWindow *w, LogWindowAckedFunc acked, void *data, void (*data_free)(void *data))
{
  w->acked = acked;
  w->acked_data = data;
  w->acked_free = data_free;
  w->has_acked = acked != NULL;
}

void
log_window_orphan(LogWindow *w)
{
  pthread_mutex_lock(&w->lock);
  w->wakeup = NULL;
  if (!w->acked_free)
    w->acked = NULL; /* its data was the owner's */
  pthread_mutex_unlock(&w->lock);
  _window_unref(w, 1);
}

void
log_window_take(LogWindow *w)
{
  atomic_fetch_add_explicit(&w->refs, 1, memory_order_relaxed);
  atomic_fetch_sub_explicit(&w->free, 1, memory_order_acq_rel);
}

void
log_window_release(LogWindow *w, int n)
{
  int old = atomic_fetch_add_explicit(&w->free, n, memory_order_acq_rel);
  /* Only the release that lifts the window off empty wakes the source;
   * the lock keeps the owner from vanishing during the call. */
  if (old <= 0 && old + n > 0)
    {
      pthread_mutex_lock(&w->lock);
      if (w->wakeup)
        w->wakeup(w->user_data);
      pthread_mutex_unlock(&w->lock);
    }
  _window_unref(w, n);
}

/* The message that carries the ack count: a clone acks through the message
 * the source made. */
static LogMsg *
_ack_root(LogMsg *msg)
{
  while (!msg->ack_window && msg->original)
    msg = msg->original;
  return msg;
}

void
log_msg_ack_begin(LogMsg *msg, LogWindow *window)
{
  msg->ack_window = window;
  atomic_store_explicit(&msg->ack_pending, 1, memory_order_relaxed);
  log_window_take(window);
}

void
log_msg_ack_add(LogMsg *msg)
{
  LogMsg *root = _ack_root(msg);
  if (root->ack_window)
    atomic_fetch_add_explicit(&root->ack_pending, 1, memory_order_relaxed);
}

/* The end of a run of log_queue_items_done: w's lock (taken when it has an
 * acked callback) goes, then the run's n slots. */
static void
_window_run_end(LogWindow *w, int n)
{
  if (!w)
    return;
  if (w->has_acked)
    pthread_mutex_unlock(&w->lock);
  log_window_release(w, n);
}

void
log_msg_ack(LogMsg *msg)
{
  LogMsg *root = _ack_root(msg);
  if (!root->ack_window)
    return;
  if (atomic_fetch_sub_explicit(&root->ack_pending, 1, memory_order_acq_rel) == 1)
    {
      LogWindow *w = root->ack_window;
      /* the slot keeps w alive through the call; the lock keeps its owner */
      if (w->has_acked)
        {
          pthread_mutex_lock(&w->lock);
          if (w->acked)
            w->acked(root, w->acked_data);
          pthread_mutex_unlock(&w->lock);
        }
      log_window_release(w, 1);
    }
}

/* ---- queues ------------------------------------------------------------ */

/*
 * A ring of items that grows by doubling when flow-controlled messages
 * overfill it; it never shrinks, so a queue in steady state allocates
 * nothing.  A queue with a disk backend (disk != NULL) hands every call to
 * it: one predictable branch per call keeps the memory path as it was.
 */
struct LogQueue
{
  LogQueueDisk *disk;
  pthread_mutex_t lock;
  pthread_cond_t nonempty;
  LogQueueItem *ring;
  size_t cap;  /* power of two */
  size_t head; /* index of the oldest item */
  size_t len;
  uint32_t fifo_size;
  bool closed;
  bool interrupted; /* log_queue_interrupt: the next pop returns at once */
  bool stalled;   /* the writer is failing and waiting for time-reopen */
  bool congested; /* counted in congested_queues */
  uint64_t queued, dropped, processed;
  atomic_uint_fast64_t written; /* acked by the writer: popped is not written */
  uint64_t memory; /* alloc_len of the queued messages */
};

/* Set by log_queue_push_batch on the pushing thread; see
 * log_queue_congestion_take(). */
static _Thread_local bool congestion_seen;

/* Queues that filled to half and have not drained to a quarter since, with
 * a healthy writer: while any is, throttled readers stay paused. */
static atomic_int congested_queues;

/* Under q->lock. */
static void
_set_congested(LogQueue *q, bool on)
{
  if (q->congested == on)
    return;
  q->congested = on;
  atomic_fetch_add_explicit(&congested_queues, on ? 1 : -1, memory_order_relaxed);
}

void
log_queue_congestion_mark(bool *flag, bool on)
{
  if (*flag == on)
    return;
  *flag = on;
  atomic_fetch_add_explicit(&congested_queues, on ? 1 : -1, memory_order_relaxed);
}

void
log_queue_congestion_note_push(void)
{
  congestion_seen = true;
}

LogQueue *
log_queue_new(uint32_t fifo_size)
{
  LogQueue *q = calloc(1, sizeof(*q));
  if (!q)
    abort();
  pthread_mutex_init(&q->lock, NULL);
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&q->nonempty, &attr);
  pthread_condattr_destroy(&attr);
  q->fifo_size = fifo_size ? fifo_size : 1;
  q->cap = 64;
  while (q->cap < q->fifo_size && q->cap < 65536)
    q->cap <<= 1;
  q->ring = malloc(q->cap * sizeof(LogQueueItem));
  if (!q->ring)
    abort();
  return q;
}

LogQueue *
log_queue_new_backed(LogQueueDisk *d)
{
  LogQueue *q = log_queue_new(1);
  q->disk = d;
  return q;
}

bool
log_queue_open(LogQueue *q, char **error)
{
  return !q->disk || log_queue_disk_open(q->disk, error);
}

bool
log_queue_is_persistent(const LogQueue *q)
{
  return q->disk != NULL;
}

void
log_queue_free(LogQueue *q)
{
  if (!q)
    return;
  if (q->disk)
    log_queue_disk_free(q->disk);
  _set_congested(q, false);
  for (size_t i = 0; i < q->len; i++)
    log_queue_items_done(&q->ring[(q->head + i) & (q->cap - 1)], 1);
  free(q->ring);
  pthread_cond_destroy(&q->nonempty);
  pthread_mutex_destroy(&q->lock);
  free(q);
}

static void
_grow(LogQueue *q)
{
  size_t cap = q->cap * 2;
  LogQueueItem *ring = malloc(cap * sizeof(LogQueueItem));
  if (!ring)
    abort();
  for (size_t i = 0; i < q->len; i++)
    ring[i] = q->ring[(q->head + i) & (q->cap - 1)];
  free(q->ring);
  q->ring = ring;
  q->cap = cap;
  q->head = 0;
}

size_t
log_queue_push_batch(LogQueue *q, LogQueueItem *items, size_t n)
{
  if (q->disk)
    return log_queue_disk_push(q->disk, items, n);
  size_t dropped = 0;
  pthread_mutex_lock(&q->lock);
  for (size_t i = 0; i < n; i++)
    {
      if (!items[i].ack && q->len >= q->fifo_size)
        {
          /* Counted here, freed outside the lock. */
          items[dropped++] = items[i];
          continue;
        }
      if (q->len == q->cap)
        _grow(q);
      q->ring[(q->head + q->len) & (q->cap - 1)] = items[i];
      q->len++;
      q->memory += items[i].msg->alloc_len;
    }
  q->queued += n - dropped;
  q->dropped += dropped;
  if (q->len >= q->fifo_size / 2 && !q->stalled)
    {
      congestion_seen = true;
      _set_congested(q, true);
    }
  if (n > dropped)
    pthread_cond_signal(&q->nonempty);
  pthread_mutex_unlock(&q->lock);
  for (size_t i = 0; i < dropped; i++)
    log_msg_unref(items[i].msg);
  return dropped;
}

ssize_t
log_queue_pop_batch(LogQueue *q, LogQueueItem *out, size_t max, int timeout_ms)
{
  if (q->disk)
    return log_queue_disk_pop(q->disk, out, max, timeout_ms);
  struct timespec until;
  if (timeout_ms >= 0)
    mono_deadline(&until, timeout_ms);

  pthread_mutex_lock(&q->lock);
  while (q->len == 0 && !q->closed && !q->interrupted)
    {
      if (timeout_ms < 0)
        pthread_cond_wait(&q->nonempty, &q->lock);
      else if (pthread_cond_timedwait(&q->nonempty, &q->lock, &until) == ETIMEDOUT)
        break;
    }
  if (q->len == 0)
    {
      bool closed = q->closed;
      q->interrupted = false;
      pthread_mutex_unlock(&q->lock);
      return closed ? -1 : 0;
    }
  size_t n = q->len < max ? q->len : max;
  for (size_t i = 0; i < n; i++)
    {
      out[i] = q->ring[(q->head + i) & (q->cap - 1)];
      q->memory -= out[i].msg->alloc_len;
    }
  q->head = (q->head + n) & (q->cap - 1);
  q->len -= n;
  q->processed += n;
  if (q->len < q->fifo_size / 4)
    _set_congested(q, false);
  pthread_mutex_unlock(&q->lock);
  return (ssize_t) n;
}

void
log_queue_close(LogQueue *q)
{
  if (q->disk)
    log_queue_disk_close(q->disk);
  pthread_mutex_lock(&q->lock);
  q->closed = true;
  pthread_cond_broadcast(&q->nonempty);
  pthread_mutex_unlock(&q->lock);
}

void
log_queue_interrupt(LogQueue *q)
{
  if (q->disk)
    log_queue_disk_interrupt(q->disk);
  pthread_mutex_lock(&q->lock);
  q->interrupted = true;
  pthread_cond_broadcast(&q->nonempty);
  pthread_mutex_unlock(&q->lock);
}

void
log_queue_unpop(LogQueue *q, LogQueueItem *items, size_t n)
{
  if (q->disk)
    {
      log_queue_disk_unpop(q->disk, items, n);
      return;
    }
  pthread_mutex_lock(&q->lock);
  while (q->len + n > q->cap)
    _grow(q);
  for (size_t i = n; i-- > 0;)
    {
      q->head = (q->head + q->cap - 1) & (q->cap - 1);
      q->ring[q->head] = items[i];
      q->memory += items[i].msg->alloc_len;
    }
  q->len += n;
  q->processed -= n;
  pthread_mutex_unlock(&q->lock);
}

void
log_queue_set_fifo_size(LogQueue *q, uint32_t fifo_size)
{
  if (q->disk)
    log_queue_disk_handed_over(q->disk);
  pthread_mutex_lock(&q->lock);
  q->fifo_size = fifo_size ? fifo_size : 1;
  q->stalled = false;
  q->interrupted = false;
  pthread_mutex_unlock(&q->lock);
}

void
log_queue_get_stats(LogQueue *q, LogQueueStats *out)
{
  out->written = atomic_load_explicit(&q->written, memory_order_relaxed);
  if (q->disk)
    {
      log_queue_disk_get_stats(q->disk, out);
      return;
    }
  pthread_mutex_lock(&q->lock);
  out->queued = q->queued;
  out->dropped = q->dropped;
  out->processed = q->processed;
  out->length = q->len;
  out->memory = q->memory;
  pthread_mutex_unlock(&q->lock);
}

void
log_queue_items_done(LogQueueItem *items, size_t n)
{
  /* Messages whose last holder this was reach their window in runs: a
   * run of one window's messages (a batch mostly is one) takes its lock
   * for the acked callbacks once and releases its slots in one call,
   * instead of both per message as log_msg_ack does. */
  LogWindow *run = NULL;
  int run_n = 0;
  for (size_t i = 0; i < n; i++)
    {
      LogMsg *root = items[i].ack ? _ack_root(items[i].msg) : NULL;
      if (root && root->ack_window
          && atomic_fetch_sub_explicit(&root->ack_pending, 1, memory_order_acq_rel) == 1)
        {
          LogWindow *w = root->ack_window;
          if (w != run)
            {
              _window_run_end(run, run_n);
              run = w;
              run_n = 0;
              if (w->has_acked)
                pthread_mutex_lock(&w->lock);
            }
          /* the run's slots keep w alive; the lock keeps its owner */
          if (w->has_acked && w->acked)
            w->acked(root, w->acked_data);
          run_n++;
        }
      log_msg_unref(items[i].msg);
    }
  _window_run_end(run, run_n);
}

void
log_queue_ack_batch(LogQueue *q, LogQueueItem *items, size_t n)
{
  atomic_fetch_add_explicit(&q->written, n, memory_order_relaxed);
  if (q->disk)
    log_queue_disk_ack(q->disk, items, n);
  else
    log_queue_items_done(items, n);
}

void
log_queue_set_stalled(LogQueue *q, bool stalled)
{
  if (q->disk)
    log_queue_disk_set_stalled(q->disk, stalled);
  pthread_mutex_lock(&q->lock);
  q->stalled = stalled;
  if (stalled)
    _set_congested(q, false);
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
