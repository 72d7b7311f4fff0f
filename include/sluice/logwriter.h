/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_LOGWRITER_H
#define SLUICE_LOGWRITER_H

/*
 * LogWriter: the thread of one destination (docs/architecture.md, "Threads").  It pops
 * batches of up to flush-lines messages from the destination's queue and
 * hands them to the destination's write_batch.  Messages written are acked
 * (flow control) and released; when the destination fails, the rest of the
 * batch is kept and tried again after time-reopen, so nothing is lost to a
 * transient error.
 *
 * Stopping closes the queue and lets the writer write out what is queued,
 * bounded by a deadline; what could not be written by then is counted and
 * reported.
 */

#include "sluice/logqueue.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct LogWriter LogWriter;

typedef struct LogWriterOps
{
  /* Write items[0..n) in order.  Returns how many were written (0..n; the
   * writer acks and releases them), or a negative errno when nothing could
   * be (the same batch is tried again after time-reopen).  -EINPROGRESS:
   * nothing was written but nothing failed either (a network peer that
   * takes nothing yet); the writer asks again at once, so write_batch
   * should wait a while (about a second) before returning it. */
  long (*write_batch)(void *dest, LogQueueItem *items, size_t n);
  /* Called about once a second and when the queue is idle: flush buffers,
   * close idle files.  now is CLOCK_MONOTONIC seconds.  May be NULL. */
  void (*housekeep)(void *dest, int64_t now);
  /* Reopen files (log rotation, SIGUSR1).  May be NULL. */
  void (*reopen)(void *dest);
  /* The writer is done: close everything (on the writer's thread). */
  void (*finish)(void *dest);
  /* May be NULL.  When set, the destination confirms writes itself (a
   * peer's acknowledgement comes later): the writer gives it q once, before
   * the first write, and does not ack what write_batch reports written;
   * the destination owns those items and passes them to
   * log_queue_ack_batch(q, ...) in the order it got them once confirmed, or
   * back with log_queue_unpop(q, ...) in finish when they never were, so
   * a disk buffer frees a message's place only once the peer has it. */
  void (*bind_queue)(void *dest, LogQueue *q);
  /* May be NULL.  Called on another thread when the writer is told to stop
   * (a reload's detach, a stop's deadline): a destination that waits inside
   * write_batch or housekeep for its peer ends that wait (it asks
   * log_writer_stopping() on its own thread). */
  void (*interrupt)(void *dest);
} LogWriterOps;

typedef struct LogWriterOptions
{
  uint32_t flush_lines;  /* batch size (>= 1) */
  uint32_t batch;        /* items taken from the queue at once: flush_lines when below it */
  int time_reopen;       /* seconds to wait before retrying a failed batch */
  uint32_t throttle;     /* throttle(): at most this many messages a second; 0: no limit */
  uint32_t suppress;     /* suppress(): seconds repeats are held back for; 0: off */
  const char *name;      /* for internal log lines, e.g. "d_file" */
} LogWriterOptions;

/* Start the writer thread for dest, reading q.  ops and opts are copied
 * (opts->name must outlive the writer).  Returns NULL with *error set when
 * the thread cannot start. */
LogWriter *log_writer_start(LogQueue *q, const LogWriterOps *ops, void *dest, const LogWriterOptions *opts,
                            const char **error);

/* For destinations on their writer thread: wait until fd is ready for
 * events (POLLIN, POLLOUT), retrying on EINTR; false after timeout_ms
 * without, or on a poll error. */
bool log_writer_wait_fd(int fd, short events, int timeout_ms);

/* suppress(N), as syslog-ng's: a message that repeats the last one queued
 * (the same MESSAGE, HOST, PROGRAM and PID, received within N seconds of
 * it, not a MARK) is not written; the first message that differs, or N
 * seconds after the first repeat, gets "Last message '<20 bytes>' repeated
 * <n> times, suppressed by syslog-ng on <host>" written before it (PRI,
 * HOST and PROGRAM of the repeated message).  The pushing thread (any
 * worker) calls this on what it queues: items[0..n) go to out (room for 2n
 * items) with the repeats left out (acked and released here) and the
 * summaries put in; returns how many are in out.  With suppress(0) out is
 * items as they are. */
size_t log_writer_suppress(LogWriter *w, LogQueueItem *items, size_t n, LogQueueItem *out);

/* Ask the writer to reopen its files at its next chance (thread-safe). */
void log_writer_request_reopen(LogWriter *w);

/* Close the queue, let the writer drain it for up to timeout_ms, then stop
 * it and free it.  Returns how many messages were left unwritten (and
 * released).  q stays the caller's.  A persistent queue (a disk buffer) is
 * not drained: the writer stops after the write in hand, as
 * log_writer_detach, and the queue keeps the rest; returns 0. */
size_t log_writer_stop(LogWriter *w, int timeout_ms);

/* Stop the writer after the write in hand (a reload), leaving in q what it
 * has not written, in order, for the next writer of q; then free it.  A
 * writer waiting for time-reopen stops waiting at once. */
void log_writer_detach(LogWriter *w);

/* On a writer thread, in its finish: true when the writer was detached
 * for a reload (its queue goes on to the next configuration's destination
 * of the same name), false when it is stopped (a stop of the daemon, or
 * of a destination the new configuration no longer has). */
bool log_writer_detached(void);

/* On a writer thread: true once the writer is told to stop (a reload's
 * detach, a stop's deadline): a write in progress should give up now, its
 * messages unwritten. */
bool log_writer_stopping(void);

/* On a writer thread, inside write_batch or housekeep: pop up to max more
 * items of its queue to go with the batch in hand (waiting up to
 * timeout_ms for some), within what throttle() allows now; the caller owns
 * them as it owns a batch (a destination that confirms writes itself,
 * LogWriterOps.bind_queue, settles them so).  Returns how many (0 when
 * throttle() allows none now). */
size_t log_writer_pop_more(LogQueueItem *out, size_t max, int timeout_ms);

/* Messages written so far. */
uint64_t log_writer_written(const LogWriter *w);

/* True on the writer thread of dest, the `dest` its LogWriterOps get
 * (assert_writer_thread, sluice/threads.h). */
bool log_writer_on_thread_of(const void *dest);

/* The calling thread runs destinations' LogWriterOps itself, as a unit
 * test does: log_writer_on_thread_of() is true there for any dest. */
void log_writer_act_as_writer(void);

#endif
