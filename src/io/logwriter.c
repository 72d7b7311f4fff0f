/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Destination writer threads: see include/sluice/logwriter.h. */
#include "sluice/logwriter.h"

#include "sluice/hostname.h"
#include "sluice/identity.h"
#include "sluice/internal-log.h"
#include "sluice/timeutil.h"

#include <errno.h>
#include <glib.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct LogWriter
{
  pthread_t thread;
  LogQueue *q;
  LogWriterOps ops;
  void *dest;
  LogWriterOptions opts;
  LogQueueItem *batch;
  atomic_bool reopen;
  atomic_bool abandon; /* stop retrying: the deadline passed */
  atomic_bool detach;  /* stop after the write in hand, keep the rest queued */
  atomic_bool stopping; /* log_writer_stop, not a reload's detach */
  atomic_uint_fast64_t written;
  size_t left; /* unwritten when abandoned */
  bool stalled; /* the last batch failed (writer thread only) */
  double tokens;     /* throttle(): messages that may go now (writer thread only) */
  int64_t tokens_us; /* when tokens was last filled (mono_us) */
  pthread_mutex_t lock;
  pthread_cond_t cond;
  bool done;
  /* suppress(): the last message queued and how often it repeated since */
  pthread_mutex_t sup_lock;
  LogMsg *sup_last;
  uint32_t sup_count;
  int64_t sup_deadline_ms; /* the summary is due (mono_ms), with sup_count > 0 */
};

/* Sleep up to ms, waking early when the writer is told to give up. */
static void
_pause(LogWriter *w, int64_t ms)
{
  int64_t until = mono_ms() + ms;
  while (!atomic_load(&w->abandon) && !atomic_load(&w->detach) && mono_ms() < until)
    {
      struct timespec ts = { 0, 50 * 1000000L };
      nanosleep(&ts, NULL);
    }
}

/* throttle(): the bucket gets what the time since it was last filled
 * earned, up to a second's worth. */
static void
_throttle_fill(LogWriter *w)
{
  double rate = w->opts.throttle;
  int64_t now = mono_us();
  w->tokens += (double) (now - w->tokens_us) * rate / 1e6;
  if (w->tokens > rate)
    w->tokens = rate;
  w->tokens_us = now;
}

/* throttle(): how many of want may be written now, from a bucket that
 * fills at opts.throttle a second and holds a second's worth (syslog-ng's
 * throttle() allows a burst of that size too); waits, 50 ms at a time,
 * while it is empty.  0 when the writer is told to give up meanwhile. */
static size_t
_throttle_take(LogWriter *w, size_t want)
{
  double rate = w->opts.throttle;
  for (;;)
    {
      _throttle_fill(w);
      if (w->tokens >= 1)
        {
          size_t n = w->tokens < (double) want ? (size_t) w->tokens : want;
          w->tokens -= (double) n;
          return n;
        }
      if (atomic_load(&w->abandon) || atomic_load(&w->detach))
        return 0;
      int64_t wait_us = (int64_t) ((1 - w->tokens) * 1e6 / rate) + 1;
      struct timespec ts = { 0, (long) (wait_us < 50000 ? wait_us : 50000) * 1000L };
      nanosleep(&ts, NULL);
    }
}

/* Write items[0..n) until all are written or the writer gives up; returns
 * how many were not written. */
static size_t
_deliver(LogWriter *w, LogQueueItem *items, size_t n)
{
  size_t done = 0;
  while (done < n)
    {
      if (atomic_exchange(&w->reopen, false) && w->ops.reopen)
        w->ops.reopen(w->dest);
      size_t now = w->opts.throttle ? _throttle_take(w, n - done) : n - done;
      if (now == 0)
        break;
      long rc = w->ops.write_batch(w->dest, items + done, now);
      if (w->opts.throttle && rc < (long) now)
        w->tokens += (double) (now - (size_t) (rc > 0 ? rc : 0)); /* not taken: not spent */
      if (rc > 0)
        {
          if (w->stalled)
            {
              w->stalled = false;
              log_queue_set_stalled(w->q, false);
            }
          if (!w->ops.bind_queue)
            log_queue_ack_batch(w->q, items + done, (size_t) rc);
          atomic_fetch_add(&w->written, (uint64_t) rc);
          done += (size_t) rc;
          continue;
        }
      if (atomic_load(&w->abandon) || atomic_load(&w->detach))
        break;
      if (rc == -EINPROGRESS)
        continue; /* a peer that is slow, not a failure: no time-reopen */
      if (!w->stalled)
        {
          w->stalled = true;
          log_queue_set_stalled(w->q, true);
        }
      char reopen[16];
      snprintf(reopen, sizeof(reopen), "%d", w->opts.time_reopen);
      sluice_log(SLUICE_LOG_ERROR, "Destination write failed, retrying after time-reopen", "driver", w->opts.name,
                 "error", rc < 0 ? strerror((int) -rc) : "no progress", "time_reopen", reopen, NULL);
      _pause(w, (int64_t) w->opts.time_reopen * 1000);
    }
  return n - done;
}

/* ---- suppress() ---------------------------------------------------------- */

static bool
_same_value(const LogMsg *a, const LogMsg *b, NVHandle h)
{
  size_t la, lb;
  const char *va = log_msg_get_value(a, h, &la), *vb = log_msg_get_value(b, h, &lb);
  return la == lb && memcmp(va, vb, la) == 0;
}

static bool
_is_repeat(const LogWriter *w, const LogMsg *msg)
{
  const LogMsg *last = w->sup_last;
  size_t len;
  const char *text = log_msg_get_value(msg, LM_V_MESSAGE, &len);
  return last->stamps[LM_TS_RECVD].sec >= msg->stamps[LM_TS_RECVD].sec - (int64_t) w->opts.suppress
         && _same_value(last, msg, LM_V_MESSAGE) && _same_value(last, msg, LM_V_HOST)
         && _same_value(last, msg, LM_V_PROGRAM) && _same_value(last, msg, LM_V_PID)
         && !(len >= 10 && memcmp(text, "-- MARK --", 10) == 0);
}

/* Under sup_lock, with sup_count > 0: the summary of the repeats, and the
 * last message forgotten. */
static LogMsg *
_summary(LogWriter *w)
{
  const LogMsg *last = w->sup_last;
  size_t len;
  const char *text = log_msg_get_value(last, LM_V_MESSAGE, &len);
  char buf[1024];
  int k = snprintf(buf, sizeof(buf), "Last message '%.*s' repeated %u times, suppressed by %s on %s",
                   (int) MIN(len, 20), text, w->sup_count, sluice_identity_name(), sluice_hostname(true));
  LogMsg *m = log_msg_new((size_t) k + 128);
  log_stamp_now(&m->stamps[LM_TS_STAMP]);
  m->stamps[LM_TS_RECVD] = m->stamps[LM_TS_STAMP];
  m->pri = last->pri;
  m->flags |= LF_INTERNAL | LF_LOCAL;
  char pid[16];
  snprintf(pid, sizeof(pid), "%ld", (long) getpid());
  log_msg_set_value(m, LM_V_PID, pid, -1);
  const NVHandle copied[] = { LM_V_HOST, LM_V_PROGRAM };
  for (size_t i = 0; i < G_N_ELEMENTS(copied); i++)
    {
      const char *v = log_msg_get_value(last, copied[i], &len);
      log_msg_set_value(m, copied[i], v, (ssize_t) len);
    }
  log_msg_set_value(m, LM_V_MESSAGE, buf, k);
  log_msg_unref(w->sup_last);
  w->sup_last = NULL;
  w->sup_count = 0;
  return m;
}

size_t
log_writer_suppress(LogWriter *w, LogQueueItem *items, size_t n, LogQueueItem *out)
{
  if (!w->opts.suppress)
    {
      memcpy(out, items, n * sizeof(*items));
      return n;
    }
  size_t k = 0;
  pthread_mutex_lock(&w->sup_lock);
  for (size_t i = 0; i < n; i++)
    {
      LogMsg *msg = items[i].msg;
      if (w->sup_last && _is_repeat(w, msg))
        {
          if (w->sup_count++ == 0)
            w->sup_deadline_ms = mono_ms() + (int64_t) w->opts.suppress * 1000;
          log_queue_items_done(&items[i], 1);
          continue;
        }
      if (w->sup_count)
        out[k++] = (LogQueueItem) { _summary(w), false };
      if (w->sup_last)
        log_msg_unref(w->sup_last);
      w->sup_last = log_msg_ref(msg);
      out[k++] = items[i];
    }
  pthread_mutex_unlock(&w->sup_lock);
  return k;
}

/* On the writer thread: the summary that is due, queued. */
static void
_suppress_expire(LogWriter *w)
{
  if (!w->opts.suppress)
    return;
  LogQueueItem item = { NULL, false };
  pthread_mutex_lock(&w->sup_lock);
  if (w->sup_count && mono_ms() >= w->sup_deadline_ms)
    item.msg = _summary(w);
  pthread_mutex_unlock(&w->sup_lock);
  if (item.msg)
    log_queue_push_batch(w->q, &item, 1);
}

/* the dest of the writer whose thread this is (assert_writer_thread);
 * &any_dest on a thread that runs destinations' ops itself (a test) */
static _Thread_local const void *current_dest;
static const char any_dest;
/* the writer whose thread this is (NULL elsewhere) */
static _Thread_local LogWriter *current_writer;

bool
log_writer_on_thread_of(const void *dest)
{
  return dest && (current_dest == dest || current_dest == &any_dest);
}

void
log_writer_act_as_writer(void)
{
  current_dest = &any_dest;
}

static void *
_writer_main(void *arg)
{
  LogWriter *w = arg;
  current_dest = w->dest;
  current_writer = w;
  int64_t last_housekeep = mono_ms();
  if (w->ops.bind_queue)
    w->ops.bind_queue(w->dest, w->q);
  for (;;)
    {
      if (atomic_load(&w->detach))
        break;
      _suppress_expire(w);
      ssize_t n = log_queue_pop_batch(w->q, w->batch, w->opts.batch, w->opts.suppress ? 250 : 1000);
      if (n < 0)
        break; /* closed and drained */
      if (n > 0)
        {
          size_t left = _deliver(w, w->batch, (size_t) n);
          /* a disk queue keeps what is not written for the next start */
          if (left && (atomic_load(&w->detach) || log_queue_is_persistent(w->q)))
            {
              log_queue_unpop(w->q, w->batch + (size_t) n - left, left);
              break;
            }
          if (left)
            {
              /* given up at the deadline: release the rest, and the queue */
              log_queue_items_done(w->batch + (size_t) n - left, left);
              w->left += left;
              LogQueueItem rest[64];
              ssize_t k;
              while ((k = log_queue_pop_batch(w->q, rest, 64, 0)) > 0)
                {
                  log_queue_items_done(rest, (size_t) k);
                  w->left += (size_t) k;
                }
              break;
            }
        }
      int64_t now = mono_ms();
      if (w->ops.housekeep && (n == 0 || now - last_housekeep >= 1000))
        {
          w->ops.housekeep(w->dest, now / 1000);
          last_housekeep = now;
        }
      if (n == 0 && atomic_exchange(&w->reopen, false) && w->ops.reopen)
        w->ops.reopen(w->dest);
    }
  if (w->ops.finish)
    w->ops.finish(w->dest);
  pthread_mutex_lock(&w->lock);
  w->done = true;
  pthread_cond_broadcast(&w->cond);
  pthread_mutex_unlock(&w->lock);
  return NULL;
}

LogWriter *
log_writer_start(LogQueue *q, const LogWriterOps *ops, void *dest, const LogWriterOptions *opts,
                 const char **error)
{
  LogWriter *w = calloc(1, sizeof(*w));
  if (!w)
    abort();
  w->q = q;
  w->ops = *ops;
  w->dest = dest;
  w->opts = *opts;
  if (w->opts.flush_lines < 1)
    w->opts.flush_lines = 1;
  if (w->opts.batch < w->opts.flush_lines)
    w->opts.batch = w->opts.flush_lines;
  if (w->opts.time_reopen < 1)
    w->opts.time_reopen = 1;
  /* a full bucket at start: the first second's worth goes at once */
  w->tokens = w->opts.throttle;
  w->tokens_us = mono_us();
  if (!w->opts.name)
    w->opts.name = "";
  w->batch = calloc(w->opts.batch, sizeof(LogQueueItem));
  if (!w->batch)
    abort();
  pthread_mutex_init(&w->lock, NULL);
  pthread_mutex_init(&w->sup_lock, NULL);
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&w->cond, &attr);
  pthread_condattr_destroy(&attr);
  if (pthread_create(&w->thread, NULL, _writer_main, w) != 0)
    {
      *error = "cannot start a destination writer thread";
      pthread_mutex_destroy(&w->sup_lock);
      pthread_cond_destroy(&w->cond);
      pthread_mutex_destroy(&w->lock);
      free(w->batch);
      free(w);
      return NULL;
    }
  return w;
}

static void
_writer_free(LogWriter *w)
{
  if (w->sup_last)
    log_msg_unref(w->sup_last);
  pthread_mutex_destroy(&w->sup_lock);
  pthread_cond_destroy(&w->cond);
  pthread_mutex_destroy(&w->lock);
  free(w->batch);
  free(w);
}

void
log_writer_detach(LogWriter *w)
{
  atomic_store(&w->detach, true);
  log_queue_interrupt(w->q);
  if (w->ops.interrupt)
    w->ops.interrupt(w->dest);
  pthread_join(w->thread, NULL);
  _writer_free(w);
}

bool
log_writer_wait_fd(int fd, short events, int timeout_ms)
{
  struct pollfd p = { .fd = fd, .events = events };
  for (;;)
    {
      int rc = poll(&p, 1, timeout_ms);
      if (rc > 0)
        return true;
      if (rc == 0 || errno != EINTR)
        return false;
    }
}

void
log_writer_request_reopen(LogWriter *w)
{
  atomic_store(&w->reopen, true);
}

bool
log_writer_detached(void)
{
  LogWriter *w = current_writer;
  return w && atomic_load(&w->detach) && !atomic_load(&w->stopping);
}

bool
log_writer_stopping(void)
{
  LogWriter *w = current_writer;
  return w && (atomic_load(&w->abandon) || atomic_load(&w->detach));
}

size_t
log_writer_pop_more(LogQueueItem *out, size_t max, int timeout_ms)
{
  LogWriter *w = current_writer;
  if (!w)
    return 0; /* a test acting as the writer has no queue to pop */
  if (w->opts.throttle)
    {
      _throttle_fill(w);
      max = w->tokens < (double) max ? (size_t) w->tokens : max;
      if (!max)
        return 0;
    }
  ssize_t k = log_queue_pop_batch(w->q, out, max, timeout_ms);
  if (k <= 0)
    return 0;
  if (w->opts.throttle)
    w->tokens -= (double) k;
  return (size_t) k;
}

uint64_t
log_writer_written(const LogWriter *w)
{
  return atomic_load(&((LogWriter *) w)->written);
}

size_t
log_writer_stop(LogWriter *w, int timeout_ms)
{
  atomic_store(&w->stopping, true);
  if (log_queue_is_persistent(w->q))
    {
      /* a disk buffer keeps what is not written for the next start, as
       * syslog-ng's does: no reason to hold the stop up draining it */
      log_writer_detach(w);
      return 0;
    }
  log_queue_close(w->q);
  struct timespec until;
  mono_deadline(&until, timeout_ms);
  pthread_mutex_lock(&w->lock);
  while (!w->done)
    if (pthread_cond_timedwait(&w->cond, &w->lock, &until) != 0)
      break;
  pthread_mutex_unlock(&w->lock);
  atomic_store(&w->abandon, true);
  if (w->ops.interrupt)
    w->ops.interrupt(w->dest);
  pthread_join(w->thread, NULL);
  size_t left = w->left;
  _writer_free(w);
  return left;
}
