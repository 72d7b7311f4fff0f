/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "sluice/logqueue.h"

#include <glib.h>
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdatomic.h>

static LogMsg *
numbered(uint32_t n)
{
  LogMsg *msg = log_msg_new(0);
  msg->seqnum = n;
  return msg;
}

static void
push_one(LogQueue *q, LogMsg *msg, bool ack)
{
  LogQueueItem item = { msg, ack };
  log_queue_push_batch(q, &item, 1);
}

Test(logqueue, pops_in_order_in_batches)
{
  LogQueue *q = log_queue_new(1000);
  LogQueueItem items[10];
  for (uint32_t i = 0; i < 10; i++)
    items[i] = (LogQueueItem) { numbered(i), false };
  cr_assert_eq(log_queue_push_batch(q, items, 10), 0);

  LogQueueItem out[4];
  uint32_t expect = 0;
  ssize_t n;
  while ((n = log_queue_pop_batch(q, out, 4, 0)) > 0)
    {
      cr_assert_leq(n, 4);
      for (ssize_t i = 0; i < n; i++)
        cr_assert_eq(out[i].msg->seqnum, expect++);
      log_queue_items_done(out, (size_t) n);
    }
  cr_assert_eq(n, 0, "an empty open queue times out with 0");
  cr_assert_eq(expect, 10);
  LogQueueStats st;
  log_queue_get_stats(q, &st);
  cr_assert_eq(st.queued, 10);
  cr_assert_eq(st.processed, 10);
  cr_assert_eq(st.length, 0);
  log_queue_free(q);
}

Test(logqueue, full_queue_drops_and_counts_without_flow_control)
{
  long live = log_msg_live_count();
  LogQueue *q = log_queue_new(3);
  LogQueueItem items[5];
  for (uint32_t i = 0; i < 5; i++)
    items[i] = (LogQueueItem) { numbered(i), false };
  cr_assert_eq(log_queue_push_batch(q, items, 5), 2);
  LogQueueStats st;
  log_queue_get_stats(q, &st);
  cr_assert_eq(st.dropped, 2);
  cr_assert_eq(st.length, 3);
  /* the dropped messages are freed, the queued ones kept */
  if (live >= 0)
    cr_assert_eq(log_msg_live_count(), live + 3);
  LogQueueItem out[8];
  cr_assert_eq(log_queue_pop_batch(q, out, 8, 0), 3);
  cr_assert_eq(out[2].msg->seqnum, 2, "the oldest are kept, the newest dropped");
  log_queue_items_done(out, 3);
  log_queue_free(q);
  if (live >= 0)
    cr_assert_eq(log_msg_live_count(), live);
}

Test(logqueue, half_full_queue_asks_the_pushing_thread_to_slow_down_unless_stalled)
{
  LogQueue *q = log_queue_new(10);
  LogQueueItem items[6];
  log_queue_congestion_take();
  for (uint32_t i = 0; i < 4; i++)
    items[i] = (LogQueueItem) { numbered(i), false };
  log_queue_push_batch(q, items, 4);
  cr_assert_not(log_queue_congestion_take(), "4 of 10 is not congested");
  items[0] = (LogQueueItem) { numbered(4), false };
  log_queue_push_batch(q, items, 1);
  cr_assert(log_queue_congestion_take(), "5 of 10 is");
  cr_assert_not(log_queue_congestion_take(), "taking clears the flag");
  /* a failing writer's queue never slows sources: it drops instead */
  log_queue_set_stalled(q, true);
  items[0] = (LogQueueItem) { numbered(5), false };
  log_queue_push_batch(q, items, 1);
  cr_assert_not(log_queue_congestion_take());
  log_queue_set_stalled(q, false);
  items[0] = (LogQueueItem) { numbered(6), false };
  log_queue_push_batch(q, items, 1);
  cr_assert(log_queue_congestion_take());
  /* the pause lasts until the queue drains to a quarter, not just below half */
  cr_assert(log_queue_congestion_persists());
  LogQueueItem out[16];
  cr_assert_eq(log_queue_pop_batch(q, out, 4, 0), 4);
  log_queue_items_done(out, 4);
  cr_assert(log_queue_congestion_persists(), "3 of 10 left: still draining");
  cr_assert_eq(log_queue_pop_batch(q, out, 16, 0), 3);
  log_queue_items_done(out, 3);
  cr_assert_not(log_queue_congestion_persists(), "empty: over");
  /* a writer that starts failing ends the pause at once */
  for (uint32_t i = 0; i < 6; i++)
    items[i] = (LogQueueItem) { numbered(10 + i), false };
  log_queue_push_batch(q, items, 6);
  cr_assert(log_queue_congestion_persists());
  log_queue_set_stalled(q, true);
  cr_assert_not(log_queue_congestion_persists());
  log_queue_congestion_take();
  /* and a freed queue does not leave its count behind */
  log_queue_set_stalled(q, false);
  items[0] = (LogQueueItem) { numbered(20), false };
  log_queue_push_batch(q, items, 1);
  cr_assert(log_queue_congestion_persists());
  log_queue_congestion_take();
  log_queue_free(q);
  cr_assert_not(log_queue_congestion_persists());
}

Test(logqueue, flow_controlled_messages_are_never_dropped)
{
  LogQueue *q = log_queue_new(2);
  LogWindow *w = log_window_new(500, NULL, NULL);
  for (uint32_t i = 0; i < 300; i++)
    {
      LogMsg *msg = numbered(i);
      log_msg_ack_begin(msg, w);
      log_msg_ack_add(msg);
      push_one(q, msg, true);
      log_msg_ack(msg); /* the source's own hold */
    }
  cr_assert_eq(atomic_load(&w->free), 200);
  LogQueueStats st;
  log_queue_get_stats(q, &st);
  cr_assert_eq(st.dropped, 0);
  cr_assert_eq(st.length, 300);
  /* a non-flow-controlled message still finds the queue full */
  push_one(q, numbered(999), false);
  log_queue_get_stats(q, &st);
  cr_assert_eq(st.dropped, 1);

  LogQueueItem out[64];
  ssize_t n;
  uint32_t expect = 0;
  while ((n = log_queue_pop_batch(q, out, 64, 0)) > 0)
    {
      for (ssize_t i = 0; i < n; i++)
        cr_assert_eq(out[i].msg->seqnum, expect++);
      log_queue_items_done(out, (size_t) n);
    }
  cr_assert_eq(expect, 300);
  cr_assert_eq(atomic_load(&w->free), 500, "every slot came back");
  log_window_orphan(w);
  log_queue_free(q);
}

static int wakeups;

static void
count_wakeup(void *user_data)
{
  (void) user_data;
  wakeups++;
}

Test(logqueue, window_wakes_the_source_once_when_it_gets_room)
{
  LogWindow *w = log_window_new(2, count_wakeup, NULL);
  wakeups = 0;
  LogMsg *a = numbered(1), *b = numbered(2), *c = numbered(3);
  log_msg_ack_begin(a, w);
  cr_assert(log_window_has_room(w));
  log_msg_ack_begin(b, w);
  cr_assert_not(log_window_has_room(w));
  /* a third message already read in the same batch goes below zero */
  log_msg_ack_begin(c, w);
  log_msg_ack(a);
  cr_assert_not(log_window_has_room(w));
  cr_assert_eq(wakeups, 0);
  log_msg_ack(b);
  cr_assert(log_window_has_room(w));
  cr_assert_eq(wakeups, 1);
  log_msg_ack(c);
  cr_assert_eq(wakeups, 1, "no wakeup while the window was not empty");
  log_window_orphan(w);
  log_msg_unref(a);
  log_msg_unref(b);
  log_msg_unref(c);
}

Test(logqueue, message_is_acked_after_every_holder)
{
  LogWindow *w = log_window_new(1, NULL, NULL);
  LogMsg *msg = numbered(1);
  log_msg_ack_begin(msg, w);
  log_msg_ack_add(msg);
  log_msg_ack_add(msg);
  log_msg_ack(msg);
  log_msg_ack(msg);
  cr_assert_eq(atomic_load(&w->free), 0);
  log_msg_ack(msg);
  cr_assert_eq(atomic_load(&w->free), 1);
  log_window_orphan(w);
  log_msg_unref(msg);
}

Test(logqueue, clone_acks_through_its_original)
{
  LogWindow *w = log_window_new(1, NULL, NULL);
  LogMsg *msg = numbered(1);
  log_msg_ack_begin(msg, w);
  LogMsg *copy = log_msg_clone_cow(msg);
  log_msg_ack_add(copy);
  log_msg_ack(msg);
  cr_assert_eq(atomic_load(&w->free), 0, "the clone still holds the slot");
  log_msg_ack(copy);
  cr_assert_eq(atomic_load(&w->free), 1);
  log_window_orphan(w);
  log_msg_unref(copy);
  log_msg_unref(msg);
}

Test(logqueue, orphaned_window_lives_until_its_last_slot_returns)
{
  wakeups = 0;
  LogWindow *w = log_window_new(1, count_wakeup, NULL);
  LogMsg *msg = numbered(1);
  log_msg_ack_begin(msg, w);
  log_window_orphan(w); /* the source is gone; msg is still queued */
  cr_assert_eq(atomic_load(&w->refs), 1);
  log_msg_ack(msg); /* frees the window (AddressSanitizer checks the rest) */
  cr_assert_eq(wakeups, 0, "no wakeup after the owner left");
  log_msg_unref(msg);
}

/* acked callbacks: "window:seqnum," in the order they came */
static GString *acked_log;

static void
log_acked(LogMsg *msg, void *user_data)
{
  g_string_append_printf(acked_log, "%s:%u,", (const char *) user_data, msg->seqnum);
}

/* A batch acks its messages in runs of one window (one lock, one release
 * each): every message whose last holder it was is acked, in order, to its
 * own window, and one still held elsewhere is not. */
Test(logqueue, a_batch_acks_each_window_in_order)
{
  acked_log = g_string_new("");
  wakeups = 0;
  LogWindow *a = log_window_new(3, count_wakeup, "a"), *b = log_window_new(2, NULL, "b");
  log_window_set_acked(a, log_acked);
  log_window_set_acked(b, log_acked);
  LogQueueItem items[6];
  LogWindow *owner[6] = { a, a, b, a, b, a };
  for (uint32_t i = 0; i < 6; i++)
    {
      LogMsg *m = numbered(i);
      log_msg_ack_begin(m, owner[i]);
      items[i] = (LogQueueItem) { m, true };
    }
  LogMsg *held = log_msg_ref(items[5].msg);
  log_msg_ack_add(held); /* a second destination still has it */
  cr_assert_eq(atomic_load(&a->free), -1);
  log_queue_items_done(items, 6);
  cr_assert_str_eq(acked_log->str, "a:0,a:1,b:2,a:3,b:4,");
  cr_assert_eq(atomic_load(&a->free), 2);
  cr_assert_eq(atomic_load(&b->free), 2);
  cr_assert_eq(wakeups, 1, "a got room once");
  log_msg_ack(held);
  cr_assert_str_eq(acked_log->str, "a:0,a:1,b:2,a:3,b:4,a:5,");
  cr_assert_eq(atomic_load(&a->free), 3);
  log_msg_unref(held);
  log_window_orphan(a);
  log_window_orphan(b);
  g_string_free(acked_log, TRUE);
}

/* A destination that confirms writes itself stops with 0..5 held: 0 and
 * 3 unsettled, 1 and 4 written, 2 dropped; 5 written at the front the
 * next time.  A memory queue keeps no positions: only 0 and 3 go back. */
Test(logqueue, give_back_returns_only_the_unsettled)
{
  LogQueue *q = log_queue_new(100);
  LogQueueItem items[6];
  for (uint32_t i = 0; i < 6; i++)
    items[i] = (LogQueueItem) { numbered(i), false };
  log_queue_push_batch(q, items, 6);
  LogQueueItem out[6];
  cr_assert_eq(log_queue_pop_batch(q, out, 6, 0), 6);
  LogQueueOutcome front[] = { LOG_QUEUE_WRITTEN, LOG_QUEUE_UNSETTLED };
  cr_assert_eq(log_queue_settle_front(q, out, front, 2), 1, "the settled front only");
  LogQueueOutcome how[] = { LOG_QUEUE_UNSETTLED, LOG_QUEUE_WRITTEN, LOG_QUEUE_DROPPED, LOG_QUEUE_UNSETTLED,
                            LOG_QUEUE_WRITTEN };
  cr_assert_eq(log_queue_give_back(q, out + 1, how, 5), 2);
  LogQueueStats st;
  log_queue_get_stats(q, &st);
  cr_assert_eq(st.written, 3);
  cr_assert_eq(st.dropped, 1);
  cr_assert_eq(st.length, 2);
  cr_assert_eq(log_queue_pop_batch(q, out, 6, 0), 2);
  cr_assert_eq(out[0].msg->seqnum, 1);
  cr_assert_eq(out[1].msg->seqnum, 4);
  log_queue_items_done(out, 2);
  log_queue_free(q);
}

Test(logqueue, closed_queue_drains_then_reports_end)
{
  LogQueue *q = log_queue_new(10);
  push_one(q, numbered(7), false);
  log_queue_close(q);
  LogQueueItem out[4];
  cr_assert_eq(log_queue_pop_batch(q, out, 4, -1), 1);
  log_queue_items_done(out, 1);
  cr_assert_eq(log_queue_pop_batch(q, out, 4, -1), -1);
  log_queue_free(q);
}

Test(logqueue, free_releases_queued_messages_and_slots)
{
  long live = log_msg_live_count();
  LogWindow *w = log_window_new(4, NULL, NULL);
  LogQueue *q = log_queue_new(10);
  LogMsg *msg = numbered(1);
  log_msg_ack_begin(msg, w);
  push_one(q, msg, true); /* the queue's ack takes over the source's hold */
  push_one(q, numbered(2), false);
  log_queue_free(q);
  cr_assert_eq(atomic_load(&w->free), 4);
  log_window_orphan(w);
  if (live >= 0)
    cr_assert_eq(log_msg_live_count(), live);
}

#define PRODUCERS 4
#define PER_PRODUCER 20000

typedef struct Producer
{
  LogQueue *q;
  LogWindow *w;
  uint32_t id;
} Producer;

static void *
produce(void *arg)
{
  Producer *p = arg;
  LogQueueItem batch[50];
  size_t n = 0;
  for (uint32_t i = 0; i < PER_PRODUCER; i++)
    {
      while (!log_window_has_room(p->w))
        sched_yield();
      LogMsg *msg = numbered(p->id * PER_PRODUCER + i);
      log_msg_ack_begin(msg, p->w);
      batch[n++] = (LogQueueItem) { msg, true };
      if (n == 50 || i + 1 == PER_PRODUCER)
        {
          log_queue_push_batch(p->q, batch, n);
          n = 0;
        }
    }
  return NULL;
}

Test(logqueue, producers_and_a_writer_on_threads_lose_nothing)
{
  LogQueue *q = log_queue_new(100);
  LogWindow *windows[PRODUCERS];
  Producer prod[PRODUCERS];
  pthread_t th[PRODUCERS];
  for (uint32_t i = 0; i < PRODUCERS; i++)
    {
      windows[i] = log_window_new(200, NULL, NULL);
      prod[i] = (Producer) { q, windows[i], i };
      pthread_create(&th[i], NULL, produce, &prod[i]);
    }
  uint32_t last[PRODUCERS] = { 0 };
  bool seen_any[PRODUCERS] = { false };
  size_t total = 0;
  LogQueueItem out[128];
  while (total < PRODUCERS * PER_PRODUCER)
    {
      ssize_t n = log_queue_pop_batch(q, out, 128, 5000);
      cr_assert_gt(n, 0, "the writer starved after %zu messages", total);
      for (ssize_t i = 0; i < n; i++)
        {
          uint32_t s = out[i].msg->seqnum, p = s / PER_PRODUCER;
          cr_assert(!seen_any[p] || s == last[p] + 1, "producer %u out of order", p);
          last[p] = s;
          seen_any[p] = true;
        }
      log_queue_items_done(out, (size_t) n);
      total += (size_t) n;
    }
  for (int i = 0; i < PRODUCERS; i++)
    {
      pthread_join(th[i], NULL);
      cr_assert_eq(atomic_load(&windows[i]->free), 200);
      log_window_orphan(windows[i]);
    }
  log_queue_free(q);
}
