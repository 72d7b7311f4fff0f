/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "sluice/logreader.h"
#include "sluice/worker.h"

#include <criterion/criterion.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* What a reader handed on, collected under a lock for the test thread. */
typedef struct Sink
{
  pthread_mutex_t lock;
  pthread_cond_t cond;
  LogMsg *msgs[4096];
  int n;
  int batches;
  bool closed;
  int error;
  char reason[128];
  LogReader *reader;
} Sink;

static void
sink_deliver(LogMsg *msg, void *user_data)
{
  Sink *s = user_data;
  pthread_mutex_lock(&s->lock);
  cr_assert_lt(s->n, 4096);
  s->msgs[s->n++] = msg;
  pthread_cond_broadcast(&s->cond);
  pthread_mutex_unlock(&s->lock);
}

static void
sink_batch_done(void *user_data)
{
  Sink *s = user_data;
  pthread_mutex_lock(&s->lock);
  s->batches++;
  pthread_mutex_unlock(&s->lock);
}

static void
sink_closed(LogReader *r, int error, const char *reason, void *user_data)
{
  Sink *s = user_data;
  log_reader_free(r);
  pthread_mutex_lock(&s->lock);
  s->closed = true;
  s->error = error;
  snprintf(s->reason, sizeof(s->reason), "%s", reason ? reason : "");
  pthread_cond_broadcast(&s->cond);
  pthread_mutex_unlock(&s->lock);
}

static const LogReaderCallbacks sink_cb = { sink_deliver, sink_batch_done, sink_closed };

static void
start_reader(void *arg)
{
  log_reader_start(((Sink *) arg)->reader);
}

static void
free_reader(void *arg)
{
  log_reader_free(((Sink *) arg)->reader);
}

/* Wait until pred holds or 10 s pass. */
#define WAIT_FOR(s, pred)                                                        \
  do                                                                             \
    {                                                                            \
      struct timespec until_;                                                    \
      clock_gettime(CLOCK_REALTIME, &until_);                                    \
      until_.tv_sec += 10;                                                       \
      pthread_mutex_lock(&(s)->lock);                                            \
      while (!(pred))                                                            \
        if (pthread_cond_timedwait(&(s)->cond, &(s)->lock, &until_) != 0)        \
          break;                                                                 \
      bool ok_ = (pred);                                                         \
      pthread_mutex_unlock(&(s)->lock);                                          \
      cr_assert(ok_, "timed out waiting for " #pred);                            \
    }                                                                            \
  while (0)

static Sink *
sink_new(void)
{
  Sink *s = calloc(1, sizeof(Sink));
  pthread_mutex_init(&s->lock, NULL);
  pthread_cond_init(&s->cond, NULL);
  return s;
}

static void
sink_free(Sink *s)
{
  for (int i = 0; i < s->n; i++)
    log_msg_unref(s->msgs[i]);
  free(s);
}

static void
assert_msg(const LogMsg *msg, const char *expected)
{
  size_t len;
  const char *v = log_msg_get_value(msg, LM_V_MESSAGE, &len);
  cr_assert(len == strlen(expected) && memcmp(v, expected, len) == 0, "MESSAGE \"%.*s\", expected \"%s\"",
            (int) len, v, expected);
}

Test(logreader, stream_lines_are_parsed_and_tagged_until_eof)
{
  int sv[2];
  cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  fcntl(sv[0], F_SETFL, O_NONBLOCK);
  const char *err;
  WorkerPool *pool = worker_pool_start(1, &err);
  Sink *s = sink_new();
  LogReaderOptions opts;
  log_reader_options_defaults(&opts);
  opts.transport = "rfc3164+unix-stream";
  opts.source = "s_test";
  s->reader = log_reader_new(sv[0], false, &opts, &sink_cb, s, NULL);
  worker_post(worker_pool_get(pool, 0), start_reader, s);

  const char *input = "<13>Nov 22 10:00:00 host prog[1]: one\n<14>Nov 22 10:00:01 host prog: two\r\n"
                      "<13>Nov 22 10:00:02 host prog: thr";
  cr_assert_eq(write(sv[1], input, strlen(input)), (ssize_t) strlen(input));
  WAIT_FOR(s, s->n == 2);
  cr_assert_eq(write(sv[1], "ee", 2), 2);
  close(sv[1]);
  WAIT_FOR(s, s->closed);
  cr_assert_eq(s->error, 0);
  cr_assert_eq(s->n, 3);
  assert_msg(s->msgs[0], "one");
  assert_msg(s->msgs[1], "two");
  assert_msg(s->msgs[2], "three");
  size_t len;
  cr_assert_str_eq(log_msg_get_value(s->msgs[0], LM_V_TRANSPORT, &len), "rfc3164+unix-stream");
  cr_assert_str_eq(log_msg_get_value(s->msgs[2], LM_V_SOURCE, &len), "s_test");
  cr_assert_eq(s->msgs[1]->pri, 14);
  cr_assert_gt(s->msgs[0]->stamps[LM_TS_RECVD].sec, 1700000000);
  cr_assert_geq(s->batches, 1);
  worker_pool_stop(pool);
  sink_free(s);
}

Test(logreader, framing_error_closes_with_a_reason)
{
  int sv[2];
  cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  fcntl(sv[0], F_SETFL, O_NONBLOCK);
  const char *err;
  WorkerPool *pool = worker_pool_start(1, &err);
  Sink *s = sink_new();
  LogReaderOptions opts;
  log_reader_options_defaults(&opts);
  opts.framing = LOG_FRAMING_OCTET_COUNTED;
  s->reader = log_reader_new(sv[0], false, &opts, &sink_cb, s, NULL);
  worker_post(worker_pool_get(pool, 0), start_reader, s);
  const char *input = "11 <13>p: good x";
  cr_assert_eq(write(sv[1], input, strlen(input)), (ssize_t) strlen(input));
  WAIT_FOR(s, s->closed);
  cr_assert_eq(s->error, -1);
  cr_assert_neq(s->reason[0], '\0');
  cr_assert_eq(s->n, 1, "the frame before the error is kept");
  assert_msg(s->msgs[0], "good");
  close(sv[1]);
  worker_pool_stop(pool);
  sink_free(s);
}

Test(logreader, empty_window_stops_reading_until_acked)
{
  int sv[2];
  cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  fcntl(sv[0], F_SETFL, O_NONBLOCK);
  const char *err;
  WorkerPool *pool = worker_pool_start(1, &err);
  Sink *s = sink_new();
  LogReaderOptions opts;
  log_reader_options_defaults(&opts);
  opts.iw_size = 5;
  s->reader = log_reader_new(sv[0], false, &opts, &sink_cb, s, NULL);
  worker_post(worker_pool_get(pool, 0), start_reader, s);

  /* One line per write, so the reader must go back to the fd for each. */
  for (int i = 0; i < 5; i++)
    cr_assert_eq(write(sv[1], "<13>x: m\n", 9), 9);
  WAIT_FOR(s, s->n == 5);
  for (int i = 0; i < 3; i++)
    cr_assert_eq(write(sv[1], "<13>x: m\n", 9), 9);
  usleep(200000);
  pthread_mutex_lock(&s->lock);
  int held = s->n;
  pthread_mutex_unlock(&s->lock);
  cr_assert_eq(held, 5, "the reader must not read with its window empty (got %d)", held);

  /* The destination acks one: the reader comes back and takes the whole
   * read (all three lines), going below zero rather than losing any. */
  log_msg_ack(s->msgs[0]);
  WAIT_FOR(s, s->n == 8);
  for (int i = 1; i < 8; i++)
    log_msg_ack(s->msgs[i]);
  close(sv[1]);
  WAIT_FOR(s, s->closed);
  worker_pool_stop(pool);
  sink_free(s);
}

Test(logreader, datagrams_record_their_sender)
{
  int rx = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
  int tx = socket(AF_INET, SOCK_DGRAM, 0);
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  socklen_t al = sizeof(a);
  cr_assert_eq(bind(rx, (struct sockaddr *) &a, sizeof(a)), 0);
  cr_assert_eq(getsockname(rx, (struct sockaddr *) &a, &al), 0);
  cr_assert_eq(connect(tx, (struct sockaddr *) &a, sizeof(a)), 0);
  struct sockaddr_in me;
  socklen_t ml = sizeof(me);
  cr_assert_eq(getsockname(tx, (struct sockaddr *) &me, &ml), 0);

  const char *err;
  WorkerPool *pool = worker_pool_start(1, &err);
  Sink *s = sink_new();
  LogReaderOptions opts;
  log_reader_options_defaults(&opts);
  s->reader = log_reader_new(rx, true, &opts, &sink_cb, s, NULL);
  worker_post(worker_pool_get(pool, 0), start_reader, s);
  cr_assert_eq(send(tx, "<13>a: one\n", 11, 0), 11);
  cr_assert_eq(send(tx, "<13>a: two", 10, 0), 10);
  WAIT_FOR(s, s->n == 2);
  assert_msg(s->msgs[0], "one");
  assert_msg(s->msgs[1], "two");
  cr_assert_eq(s->msgs[0]->saddr.family, AF_INET);
  cr_assert_eq(s->msgs[1]->saddr.port, ntohs(me.sin_port));
  cr_assert(memcmp(s->msgs[0]->saddr.addr, &me.sin_addr, 4) == 0);
  close(tx);
  /* a datagram socket does not end with its peer: the owner frees it at
   * stop, on its worker */
  worker_post(worker_pool_get(pool, 0), free_reader, s);
  worker_pool_stop(pool);
  cr_assert_not(s->closed);
  sink_free(s);
}

/* ---- multi-line (sluice/multiline.h) -------------------------------------- */

static LogMultiLineOptions *
indented_options(int64_t timeout)
{
  char *error = NULL;
  LogMultiLineOptions *o = log_multi_line_options_new(LOG_MULTI_LINE_INDENTED, NULL, NULL, timeout, &error);
  cr_assert_not_null(o);
  return o;
}

static int64_t
usec_of(const LogStamp *t)
{
  return t->sec * 1000000 + t->usec;
}

Test(logreader, multi_line_joins_parses_and_stamps_with_the_first_line)
{
  int sv[2];
  cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  fcntl(sv[0], F_SETFL, O_NONBLOCK);
  const char *err;
  WorkerPool *pool = worker_pool_start(1, &err);
  Sink *s = sink_new();
  LogReaderOptions opts;
  log_reader_options_defaults(&opts);
  opts.multi_line = indented_options(0);
  s->reader = log_reader_new(sv[0], false, &opts, &sink_cb, s, NULL);
  /* the reader holds its own reference */
  log_multi_line_options_unref(opts.multi_line);
  worker_post(worker_pool_get(pool, 0), start_reader, s);

  /* stdin run of syslog-ng 3.38.1, multi-line-mode(indented), template
   * "[$HOST|$PROGRAM|$PID|$MSG]": [host|prog|1|one\n  two][host|prog||three\n\tfour] */
  const char *first = "<13>Nov 22 10:00:00 host prog[1]: one\n";
  cr_assert_eq(write(sv[1], first, strlen(first)), (ssize_t) strlen(first));
  usleep(300000);
  const char *rest = "  two\n<14>Nov 22 10:00:01 host prog: three\n\tfour\n";
  cr_assert_eq(write(sv[1], rest, strlen(rest)), (ssize_t) strlen(rest));
  WAIT_FOR(s, s->n == 1);
  assert_msg(s->msgs[0], "one\n  two");
  size_t len;
  const char *v = log_msg_get_value(s->msgs[0], LM_V_PROGRAM, &len);
  cr_assert(len == 4 && memcmp(v, "prog", 4) == 0);
  v = log_msg_get_value(s->msgs[0], LM_V_PID, &len);
  cr_assert(len == 1 && v[0] == '1');
  close(sv[1]);
  WAIT_FOR(s, s->closed);
  cr_assert_eq(s->n, 2, "the end of the stream sends the open message");
  assert_msg(s->msgs[1], "three\n\tfour");
  /* the joined message was read in two reads 300 ms apart: it has the first's time */
  int64_t gap = usec_of(&s->msgs[1]->stamps[LM_TS_RECVD]) - usec_of(&s->msgs[0]->stamps[LM_TS_RECVD]);
  cr_assert_geq(gap, 200000, "RECVD of the first line kept (gap %lld us)", (long long) gap);
  worker_pool_stop(pool);
  sink_free(s);
}

Test(logreader, multi_line_timeout_sends_what_is_held)
{
  int sv[2];
  cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  fcntl(sv[0], F_SETFL, O_NONBLOCK);
  const char *err;
  WorkerPool *pool = worker_pool_start(1, &err);
  Sink *s = sink_new();
  LogReaderOptions opts;
  log_reader_options_defaults(&opts);
  opts.parse.flags |= MF_NO_PARSE;
  opts.multi_line = indented_options(1);
  s->reader = log_reader_new(sv[0], false, &opts, &sink_cb, s, NULL);
  log_multi_line_options_unref(opts.multi_line);
  worker_post(worker_pool_get(pool, 0), start_reader, s);

  /* file run of syslog-ng 3.38.1, follow-freq(0.5) multi-line-mode(indented)
   * multi-line-timeout(1), input "\n\nfirst\nsecond\nthird": [first]
   * [second\nthird], the partial line in the timed-out message */
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  cr_assert_eq(write(sv[1], "\n\nfirst\nsecond\nthi", 18), 18);
  WAIT_FOR(s, s->n == 1);
  assert_msg(s->msgs[0], "first");
  /* more data puts the timeout off */
  usleep(600000);
  cr_assert_eq(write(sv[1], "rd", 2), 2);
  WAIT_FOR(s, s->n == 2);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  assert_msg(s->msgs[1], "second\nthird");
  double waited = (double) (t1.tv_sec - t0.tv_sec) + (double) (t1.tv_nsec - t0.tv_nsec) / 1e9;
  cr_assert_geq(waited, 1.5, "sent after %.2f s: the second read must restart the timeout", waited);
  /* the timer sleeps again: nothing is held */
  usleep(1300000);
  pthread_mutex_lock(&s->lock);
  int n = s->n;
  pthread_mutex_unlock(&s->lock);
  cr_assert_eq(n, 2);
  cr_assert_eq(write(sv[1], "next\n cont\n", 11), 11);
  WAIT_FOR(s, s->n == 3);
  assert_msg(s->msgs[2], "next\n cont");
  close(sv[1]);
  WAIT_FOR(s, s->closed);
  cr_assert_eq(s->n, 3);
  worker_pool_stop(pool);
  sink_free(s);
}

Test(logreader, multi_line_ignores_framings_other_than_lf)
{
  int sv[2];
  cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  fcntl(sv[0], F_SETFL, O_NONBLOCK);
  const char *err;
  WorkerPool *pool = worker_pool_start(1, &err);
  Sink *s = sink_new();
  LogReaderOptions opts;
  log_reader_options_defaults(&opts);
  opts.parse.flags |= MF_NO_PARSE;
  opts.framing = LOG_FRAMING_OCTET_COUNTED;
  opts.multi_line = indented_options(0);
  s->reader = log_reader_new(sv[0], false, &opts, &sink_cb, s, NULL);
  log_multi_line_options_unref(opts.multi_line);
  worker_post(worker_pool_get(pool, 0), start_reader, s);
  cr_assert_eq(write(sv[1], "1 a2  b", 7), 7);
  close(sv[1]);
  WAIT_FOR(s, s->closed);
  cr_assert_eq(s->n, 2);
  assert_msg(s->msgs[0], "a");
  assert_msg(s->msgs[1], " b");
  worker_pool_stop(pool);
  sink_free(s);
}
