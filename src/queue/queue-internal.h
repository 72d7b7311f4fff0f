/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What every kind of LogQueue shares, and the operations each kind
 * implements.  logqueue.c owns the shared part: the lock and the writer's
 * wait, close / interrupt / stall, the counters, congestion, and the
 * dispatch of the public calls (include/sluice/logqueue.h) to the kind's
 * LogQueueOps.  The kinds: the memory ring (queue-memory.c) and the disk
 * queue (queue-disk*.c).  A kind embeds LogQueue as its first member.
 */
#ifndef SLUICE_QUEUE_INTERNAL_H
#define SLUICE_QUEUE_INTERNAL_H

#include "sluice/logqueue.h"

#include <pthread.h>
#include <stdatomic.h>

typedef struct LogQueueOps
{
  /* Keeps what the writer has not acked across a stop (log_queue_is_persistent). */
  bool persistent;
  /* Opens what the kind keeps outside memory; NULL: nothing to open.  No lock held. */
  bool (*open)(LogQueue *q, char **error);
  /* Queues items[0..n) (the kind takes q->lock itself: it may prepare
   * outside it), and ends with log_queue_pushed_locked().  Items it refuses
   * go to the front of items; returns how many (the caller acks and unrefs
   * them, log_queue_items_done). */
  size_t (*push)(LogQueue *q, LogQueueItem *items, size_t n);
  /* Under q->lock: how many items a pop could take now. */
  uint64_t (*length)(LogQueue *q);
  /* Under q->lock, with length() > 0: moves up to max items into out and
   * returns how many. */
  size_t (*take)(LogQueue *q, LogQueueItem *out, size_t max);
  /* Under q->lock, after a pop took some: true once the queue has drained
   * far enough to stop counting as congested. */
  bool (*drained)(LogQueue *q);
  /* Under q->lock: items[0..n), popped and not written, back at the front. */
  void (*unpop)(LogQueue *q, LogQueueItem *items, size_t n);
  /* The writer wrote items[0..n), the oldest popped and not acked (no lock
   * held); the kind forgets them and calls log_queue_items_done().  A kind
   * that is not persistent keeps no positions: it takes any items popped
   * (log_queue_give_back relies on this). */
  void (*ack)(LogQueue *q, LogQueueItem *items, size_t n);
  /* Under q->lock: a reload's new log-fifo-size; NULL: the kind has none. */
  void (*set_fifo_size)(LogQueue *q, uint32_t fifo_size);
  /* Under q->lock: bytes of the messages held in memory (0: bounded otherwise). */
  uint64_t (*memory)(LogQueue *q);
  /* Releases what the kind holds (its messages acked and unreffed), not q itself. */
  void (*destroy)(LogQueue *q);
} LogQueueOps;

struct LogQueue
{
  const LogQueueOps *ops;
  pthread_mutex_t lock;
  pthread_cond_t nonempty; /* a push, an unpop, a close or an interrupt */
  bool closed;
  bool interrupted; /* log_queue_interrupt: the next pop returns at once */
  bool stalled;     /* the writer is failing and waiting for time-reopen */
  bool congested;   /* counted in the process's congested queues */
  uint64_t queued, dropped, processed;
  atomic_uint_fast64_t written; /* acked by the writer: popped is not written */
};

/* Sets up the shared part of q (zeroed by the caller) for a kind. */
void log_queue_init(LogQueue *q, const LogQueueOps *ops);

/* Under q->lock, at the end of a push of n items of which dropped were
 * refused: counts them and wakes the writer. */
void log_queue_pushed_locked(LogQueue *q, size_t n, size_t dropped);

/* Under q->lock: the push left q congested (the kind's own threshold):
 * tells the pushing thread (log_queue_congestion_take) and counts q as
 * congested, unless its writer is failing. */
void log_queue_note_congested(LogQueue *q);

/* Under q->lock: q counts as congested (on) or not. */
void log_queue_mark_congested(LogQueue *q, bool on);

#endif
