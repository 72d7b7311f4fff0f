/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Flow-control windows and message acks: see include/sluice/logqueue.h. */
#include "sluice/logqueue.h"

#include <pthread.h>
#include <stdlib.h>

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
