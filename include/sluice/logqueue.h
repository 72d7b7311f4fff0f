/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_LOGQUEUE_H
#define SLUICE_LOGQUEUE_H

/*
 * Destination queues and flow control.
 *
 * A LogQueue sits in front of each destination writer.  Producers (the I/O
 * workers) push whole batches under one lock; the writer pops up to
 * flush-lines at a time.  The queue holds `log-fifo-size` messages that are
 * not flow-controlled; beyond that such messages are dropped and counted.
 *
 * Flow control: a source with flags(flow-control) paths owns a LogWindow of
 * `log-iw-size` slots.  Every message it reads takes a slot
 * (log_window_take) and starts an ack count of 1, the source's own hold
 * (log_msg_ack_begin).  Each flow-controlled destination the message is
 * queued to adds one (log_msg_ack_add) and acks when the message is written.
 * When the source has routed the message it drops its hold (log_msg_ack).
 * The last ack returns the slot; when a window that had run dry gets a slot
 * back its wakeup callback runs (on the acking thread: it should only post
 * an event to the source's own thread).  Flow-controlled messages are never
 * dropped: the window bounds how many can be queued.
 */

#include "sluice/logmsg.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* ---- windows and acks -------------------------------------------------- */

typedef void (*LogWindowWakeupFunc)(void *user_data);
typedef void (*LogWindowAckedFunc)(LogMsg *msg, void *user_data);

typedef struct LogWindow
{
  atomic_int free; /* slots left; <= 0 means the source must pause */
  atomic_int refs; /* the owner's, plus one per slot taken */
  int size;        /* log-iw-size */
  pthread_mutex_t lock; /* orders wakeup and acked against log_window_orphan */
  LogWindowWakeupFunc wakeup;
  void *user_data;
  bool has_acked;  /* set before the first slot is taken, never cleared */
  LogWindowAckedFunc acked; /* NULL once orphaned, unless its data is its own */
  void *acked_data;         /* what acked gets: user_data, or data of its own */
  void (*acked_free)(void *data); /* with data of its own: frees it with the window */
} LogWindow;

/* A window of size slots (size >= 1) for its owner (the source); wakeup
 * (user_data) runs when a slot comes back to an empty window. */
LogWindow *log_window_new(int size, LogWindowWakeupFunc wakeup, void *user_data);

/* Before any message takes a slot of w: acked(msg, user_data) runs for
 * each message whose last holder acks it (every flow-controlled
 * destination has written it), on the acking thread and before its slot
 * returns; msg is the message the source made (msg->ack_cookie is the
 * source's).  Like wakeup it should only hand the news to the source's own
 * thread.  A source whose sender waits for the write (relp()) uses it to
 * answer per message; it costs windows without it nothing. */
void log_window_set_acked(LogWindow *w, LogWindowAckedFunc acked);

/* As log_window_set_acked, but acked gets data, which is not the owner's:
 * acked calls go on after log_window_orphan() (the owner's successor
 * learns what was written after the owner went: a file source's
 * position), and data_free(data) runs when the window goes. */
void log_window_set_acked_owned(LogWindow *w, LogWindowAckedFunc acked, void *data, void (*data_free)(void *data));

/* The owner is going away: no more wakeups, nor acked calls unless their
 * data is their own (log_window_set_acked_owned); the window itself lives on
 * until the last message holding a slot of it is acked. */
void log_window_orphan(LogWindow *w);

/* True while the window has a free slot (the source may read more). */
static inline bool
log_window_has_room(LogWindow *w)
{
  return atomic_load_explicit(&w->free, memory_order_acquire) > 0;
}

/* Take one slot for a message (may go to zero or, for the rest of a read
 * batch already in memory, below it). */
void log_window_take(LogWindow *w);

/* Return n slots. */
void log_window_release(LogWindow *w, int n);

/* msg (fresh from a source) holds a slot of window: its ack count is 1. */
void log_msg_ack_begin(LogMsg *msg, LogWindow *window);

/* One more holder must ack msg (or its original, for a clone).  A message
 * without a window ignores acks. */
void log_msg_ack_add(LogMsg *msg);

/* One holder is done with msg; the last returns the window slot. */
void log_msg_ack(LogMsg *msg);

/* ---- queues ------------------------------------------------------------ */

typedef struct LogQueueItem
{
  LogMsg *msg; /* one reference, owned by the queue while queued */
  bool ack;    /* flow-controlled: ack after writing */
} LogQueueItem;

typedef struct LogQueue LogQueue;

typedef struct LogQueueStats
{
  uint64_t queued;    /* messages accepted */
  uint64_t dropped;   /* messages refused because the queue was full */
  uint64_t processed; /* messages popped by the writer */
  uint64_t length;    /* messages in the queue now */
  uint64_t memory;    /* bytes of the messages in the queue now */
  uint64_t written;   /* messages the writer confirmed written (log_queue_ack_batch) */
} LogQueueStats;

/* A queue that holds fifo_size (>= 1) messages that are not flow-controlled.
 * Owned by the caller; free with log_queue_free(). */
LogQueue *log_queue_new(uint32_t fifo_size);

/* Free q, unreffing (and acking) whatever is still queued.  A disk queue
 * first saves what it holds in memory to its file (sluice/logqueue-disk.h). */
void log_queue_free(LogQueue *q);

/* Open what q keeps outside memory (a disk queue's file, found again by
 * name with what an earlier run left in it); true at once for a memory
 * queue and for a queue already open.  False with *error (g_free). */
bool log_queue_open(LogQueue *q, char **error);

/* True for a queue that keeps what the writer has not acked across a stop
 * (a disk queue): a writer that gives up puts the rest back instead of
 * releasing it. */
bool log_queue_is_persistent(const LogQueue *q);

/* Queue items[0..n) under one lock.  The queue takes each item's message
 * reference.  Items that are not flow-controlled and find the queue full are
 * dropped: their message is unreffed here and counted.  Returns how many
 * were dropped.  Wakes a waiting writer. */
size_t log_queue_push_batch(LogQueue *q, LogQueueItem *items, size_t n);

/* Move up to max items into out.  With nothing queued it waits up to
 * timeout_ms (< 0: without limit) for a push or a close.  Returns the
 * number of items (the caller now owns their references and acks), 0 on
 * timeout, or -1 when the queue is closed and empty. */
ssize_t log_queue_pop_batch(LogQueue *q, LogQueueItem *out, size_t max, int timeout_ms);

/* No more pushes are coming: a writer waiting on an empty queue returns -1
 * once it is drained. */
void log_queue_close(LogQueue *q);

/* Wake the writer waiting in log_queue_pop_batch on q: that (or the next)
 * call returns 0 at once. */
void log_queue_interrupt(LogQueue *q);

/* Put items[0..n), popped from q and not written, back at its front in
 * their order (no drops; the queue takes their references again). */
void log_queue_unpop(LogQueue *q, LogQueueItem *items, size_t n);

/* A reload gives q to the new configuration's destination of the same
 * name: its log-fifo-size from now on, a writer that is not failing. */
void log_queue_set_fifo_size(LogQueue *q, uint32_t fifo_size);

/* Counters, read under the lock. */
void log_queue_get_stats(LogQueue *q, LogQueueStats *out);

/* Ack (when item->ack) and unref the messages of items[0..n). */
void log_queue_items_done(LogQueueItem *items, size_t n);

/* The writer has written items[0..n), the oldest it popped from q and has
 * not acked, in pop order: q forgets them (a disk queue frees their place
 * in its file) and they are acked and released as log_queue_items_done. */
void log_queue_ack_batch(LogQueue *q, LogQueueItem *items, size_t n);

/* A destination that confirms writes itself may let go of the items of a
 * queue that is not persistent, and not flow-controlled, before they are
 * written (log_queue_items_done), once it keeps what they hold in a form
 * of its own (logstore()'s records): when n of them are written, this
 * counts them, as log_queue_ack_batch would have. */
void log_queue_count_written(LogQueue *q, size_t n);

/* As log_queue_ack_batch, for items[0..n) the destination gave up on for
 * good (a message its peer refuses whatever is tried): forgotten, acked
 * and released the same way, but counted as dropped, not written. */
void log_queue_drop_batch(LogQueue *q, LogQueueItem *items, size_t n);

/* What became of an item a destination that confirms writes itself
 * (LogWriterOps.bind_queue) holds: its peer has not settled it yet, has
 * it (written), or refused it for good (dropped). */
typedef enum LogQueueOutcome
{
  LOG_QUEUE_UNSETTLED,
  LOG_QUEUE_WRITTEN,
  LOG_QUEUE_DROPPED,
} LogQueueOutcome;

/* items[0..n), the oldest popped from q and not acked, in pop order, with
 * outcome[i] for each: the settled front (up to the first unsettled item)
 * goes through log_queue_ack_batch and log_queue_drop_batch, in order, a
 * run of each at a time.  Returns how many it took (the caller forgets
 * them). */
size_t log_queue_settle_front(LogQueue *q, LogQueueItem *items, const LogQueueOutcome *outcome, size_t n);

/* The same destination stops (its finish) with items[0..n) still held:
 * the settled front is taken as by log_queue_settle_front, the unsettled
 * ones go back to the front of q in their order (log_queue_unpop), to be
 * sent again by the next writer of q.  A settled item behind an unsettled
 * one is acked (or dropped) by a memory queue, which keeps no positions; a
 * disk queue can forget only its oldest records, so there it goes back
 * with the rest and is sent again (at least once, never lost).  Returns
 * how many went back. */
size_t log_queue_give_back(LogQueue *q, LogQueueItem *items, const LogQueueOutcome *outcome, size_t n);

/* Congestion: a source that is not flow-controlled would have its messages
 * dropped once a destination queue holds log-fifo-size of them, as in
 * syslog-ng.  Sluice first slows such a source down instead: a push that
 * leaves a queue at least half full (a disk queue: with front-cache-size()
 * messages in its file behind its front cache) tells the pushing thread
 * (a flag the reader takes after each read, log_queue_congestion_take),
 * and the reader pauses for a moment so the writer can catch up.  TCP
 * then pushes back on the sender instead of losing a burst.  A queue whose
 * writer is failing (stalled: waiting for time-reopen) never asks for
 * this, so a dead destination still cannot stop the sources: its messages
 * are dropped and counted. */

/* The writer of q is failing (true) or writing again (false). */
void log_queue_set_stalled(LogQueue *q, bool stalled);

/* True when a push from this thread since the last call left a queue that
 * is not stalled half full or more; clears the flag. */
bool log_queue_congestion_take(void);

/* True while some queue that was found congested has not drained to a
 * quarter of log-fifo-size (and its writer is not failing).  A paused
 * reader stays paused while this holds, so a writer that gets no CPU for a
 * while is not overrun by readers that wake every millisecond. */
bool log_queue_congestion_persists(void);

#endif
