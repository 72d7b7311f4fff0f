/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "sluice/internal-log.h"
#include "sluice/logwriter.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

typedef struct FakeDest
{
  pthread_mutex_t lock;
  uint32_t seen[10000];
  size_t n;
  int fail_next;   /* fail this many calls with -EIO */
  bool fail_always;
  size_t max_per_call;
  size_t largest; /* the most items one call was given */
  int batches;
  int reopens;
  bool finished;
} FakeDest;

static long
fake_write(void *dest, LogQueueItem *items, size_t n)
{
  FakeDest *d = dest;
  pthread_mutex_lock(&d->lock);
  long rc;
  if (d->fail_always || d->fail_next > 0)
    {
      d->fail_next--;
      rc = -EIO;
    }
  else
    {
      if (n > d->largest)
        d->largest = n;
      size_t k = d->max_per_call && n > d->max_per_call ? d->max_per_call : n;
      for (size_t i = 0; i < k; i++)
        d->seen[d->n++] = items[i].msg->seqnum;
      d->batches++;
      rc = (long) k;
    }
  pthread_mutex_unlock(&d->lock);
  return rc;
}

static void
fake_reopen(void *dest)
{
  ((FakeDest *) dest)->reopens++;
}

static void
fake_finish(void *dest)
{
  ((FakeDest *) dest)->finished = true;
}

static const LogWriterOps fake_ops = { fake_write, NULL, fake_reopen, fake_finish };

static void
push_numbered(LogQueue *q, uint32_t from, uint32_t count, LogWindow *w)
{
  for (uint32_t i = 0; i < count; i++)
    {
      LogMsg *msg = log_msg_new(0);
      msg->seqnum = from + i;
      if (w)
        log_msg_ack_begin(msg, w);
      LogQueueItem item = { msg, w != NULL };
      log_queue_push_batch(q, &item, 1);
    }
}

static void
quiet(void)
{
  sluice_log_set_stderr(false, SLUICE_LOG_ERROR);
}

Test(logwriter, writes_everything_in_order_in_batches_then_finishes, .init = quiet)
{
  static FakeDest d = { .lock = PTHREAD_MUTEX_INITIALIZER, .max_per_call = 7 };
  LogQueue *q = log_queue_new(100000);
  LogWindow *win = log_window_new(5000, NULL, NULL);
  push_numbered(q, 0, 5000, win);
  LogWriterOptions o = { .flush_lines = 100, .time_reopen = 1, .name = "d_fake" };
  const char *err;
  LogWriter *w = log_writer_start(q, &fake_ops, &d, &o, &err);
  cr_assert_not_null(w);
  cr_assert_eq(log_writer_stop(w, 10000), 0);
  cr_assert(d.finished);
  cr_assert_eq(d.n, 5000);
  for (size_t i = 0; i < 5000; i++)
    cr_assert_eq(d.seen[i], i);
  cr_assert_eq(atomic_load(&win->free), 5000, "every written message was acked");
  log_window_orphan(win);
  log_queue_free(q);
}

/* flush-lines bounds a batch unless the destination asks for more at once
 * (a file() with macros in its path: flush-lines for each of its files). */
Test(logwriter, batch_takes_flush_lines_or_what_the_destination_asks, .init = quiet)
{
  for (int wide = 0; wide < 2; wide++)
    {
      FakeDest *d = calloc(1, sizeof(*d));
      pthread_mutex_init(&d->lock, NULL);
      LogQueue *q = log_queue_new(100000);
      push_numbered(q, 0, 1000, NULL);
      LogWriterOptions o = { .flush_lines = 10, .batch = wide ? 300 : 0, .time_reopen = 1, .name = "d_fake" };
      const char *err;
      LogWriter *w = log_writer_start(q, &fake_ops, d, &o, &err);
      cr_assert_not_null(w);
      cr_assert_eq(log_writer_stop(w, 10000), 0);
      cr_assert_eq(d->n, 1000);
      for (size_t i = 0; i < 1000; i++)
        cr_assert_eq(d->seen[i], i);
      /* the queue was full before the writer started: every batch is whole */
      cr_expect_eq(d->largest, wide ? 300 : 10);
      cr_expect_eq(d->batches, wide ? 4 : 100);
      log_queue_free(q);
      pthread_mutex_destroy(&d->lock);
      free(d);
    }
}

Test(logwriter, failed_batch_is_retried_not_lost, .init = quiet)
{
  static FakeDest d = { .lock = PTHREAD_MUTEX_INITIALIZER, .fail_next = 1 };
  LogQueue *q = log_queue_new(1000);
  push_numbered(q, 0, 10, NULL);
  LogWriterOptions o = { .flush_lines = 4, .time_reopen = 1, .name = "d_fake" };
  const char *err;
  LogWriter *w = log_writer_start(q, &fake_ops, &d, &o, &err);
  cr_assert_eq(log_writer_stop(w, 10000), 0);
  cr_assert_eq(d.n, 10);
  for (size_t i = 0; i < 10; i++)
    cr_assert_eq(d.seen[i], i);
  log_queue_free(q);
}

Test(logwriter, stop_gives_up_at_the_deadline_and_counts_what_is_left, .init = quiet)
{
  static FakeDest d = { .lock = PTHREAD_MUTEX_INITIALIZER, .fail_always = true };
  long live = log_msg_live_count();
  LogQueue *q = log_queue_new(1000);
  LogWindow *win = log_window_new(100, NULL, NULL);
  push_numbered(q, 0, 30, win);
  LogWriterOptions o = { .flush_lines = 8, .time_reopen = 60, .name = "d_fake" };
  const char *err;
  LogWriter *w = log_writer_start(q, &fake_ops, &d, &o, &err);
  cr_assert_eq(log_writer_stop(w, 300), 30);
  cr_assert(d.finished);
  cr_assert_eq(atomic_load(&win->free), 100, "abandoned messages still return their slots");
  if (live >= 0)
    cr_assert_eq(log_msg_live_count(), live);
  log_window_orphan(win);
  log_queue_free(q);
}

Test(logwriter, reopen_request_reaches_the_destination, .init = quiet)
{
  static FakeDest d = { .lock = PTHREAD_MUTEX_INITIALIZER };
  LogQueue *q = log_queue_new(1000);
  LogWriterOptions o = { .flush_lines = 8, .time_reopen = 1, .name = "d_fake" };
  const char *err;
  LogWriter *w = log_writer_start(q, &fake_ops, &d, &o, &err);
  log_writer_request_reopen(w);
  push_numbered(q, 0, 1, NULL);
  cr_assert_eq(log_writer_stop(w, 5000), 0);
  cr_assert_eq(d.reopens, 1);
  cr_assert_eq(d.n, 1);
  log_queue_free(q);
}
