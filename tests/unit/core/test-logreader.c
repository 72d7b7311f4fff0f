/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "sluice/charset.h"
#include "sluice/logqueue.h"
#include "sluice/logreader.h"
#include "sluice/transport.h"
#include "sluice/worker.h"

#include <criterion/criterion.h>
#include <glib.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
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

/* A reader of a stream socket with opts, callbacks cb (and transport t,
 * when not NULL), started on worker w: sv[1] is the end to write to. */
static Sink *
socket_reader_start(Worker *w, const LogReaderOptions *opts, const LogReaderCallbacks *cb, LogTransport *t,
                    int sv[2])
{
  cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  fcntl(sv[0], F_SETFL, O_NONBLOCK);
  Sink *s = sink_new();
  s->reader = log_reader_new(sv[0], false, opts, cb, s, NULL);
  cr_assert_not_null(s->reader);
  if (t)
    log_reader_set_transport(s->reader, t);
  worker_post(w, start_reader, s);
  return s;
}

/* The same with the sink's callbacks, on a pool of one worker of its own. */
static Sink *
stream_reader_start(const LogReaderOptions *opts, LogTransport *t, int sv[2], WorkerPool **pool)
{
  const char *err;
  *pool = worker_pool_start(1, &err);
  cr_assert_not_null(*pool, "%s", err);
  return socket_reader_start(worker_pool_get(*pool, 0), opts, &sink_cb, t, sv);
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
  LogReaderOptions opts;
  log_reader_options_defaults(&opts);
  opts.transport = "rfc3164+unix-stream";
  opts.source = "s_test";
  int sv[2];
  WorkerPool *pool;
  Sink *s = stream_reader_start(&opts, NULL, sv, &pool);

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

/* A transport that hands out a buffer of lines and records the most any
 * read asked for. */
typedef struct BigTransport
{
  LogTransport super;
  const char *data;
  size_t len, at, most_asked;
} BigTransport;

static ssize_t
big_read(LogTransport *t, char *buf, size_t len, bool *want_write)
{
  BigTransport *b = (BigTransport *) t;
  if (len > b->most_asked)
    b->most_asked = len;
  size_t n = MIN(len, b->len - b->at);
  memcpy(buf, b->data + b->at, n);
  b->at += n;
  return (ssize_t) n; /* 0 once all is read: the end of the stream */
}

static bool
big_pending(LogTransport *t)
{
  return true; /* come back until the end of the stream */
}

static void
big_free(LogTransport *t)
{
}

static const LogTransportOps big_ops = { big_read, big_pending, big_free, NULL };

/* A stream with more waiting than a read's worth is read a
 * LOG_FRAMER_READ_SIZE at a time, not into the whole buffer: the room kept
 * for a long message's pending part stays untouched, so a connection
 * under load costs a read's worth of memory, not twice that. */
Test(logreader, a_stream_read_asks_for_a_reads_worth)
{
  enum { LINES = 1000, LINE = 300 };
  GString *data = g_string_new(NULL);
  for (int i = 0; i < LINES; i++)
    {
      g_string_append_printf(data, "<13>Nov 22 10:00:00 host prog: %04d ", i);
      while (data->len % LINE != LINE - 1)
        g_string_append_c(data, 'x');
      g_string_append_c(data, '\n');
    }
  BigTransport *t = calloc(1, sizeof(*t));
  t->super.ops = &big_ops;
  t->data = data->str;
  t->len = data->len;
  LogReaderOptions opts;
  log_reader_options_defaults(&opts);
  opts.source = "s_test";
  int sv[2];
  WorkerPool *pool;
  Sink *s = stream_reader_start(&opts, &t->super, sv, &pool);
  WAIT_FOR(s, s->closed);
  cr_assert_eq(s->n, LINES);
  cr_assert_gt(t->len, 3 * LOG_FRAMER_READ_SIZE);
  cr_assert_leq(t->most_asked, LOG_FRAMER_READ_SIZE, "a read asked for %zu bytes", t->most_asked);
  worker_pool_stop(pool);
  close(sv[1]);
  sink_free(s);
  free(t);
  g_string_free(data, TRUE);
}

Test(logreader, framing_error_closes_with_a_reason)
{
  LogReaderOptions opts;
  log_reader_options_defaults(&opts);
  opts.framing = LOG_FRAMING_OCTET_COUNTED;
  int sv[2];
  WorkerPool *pool;
  Sink *s = stream_reader_start(&opts, NULL, sv, &pool);
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
  LogReaderOptions opts;
  log_reader_options_defaults(&opts);
  opts.iw_size = 5;
  int sv[2];
  WorkerPool *pool;
  Sink *s = stream_reader_start(&opts, NULL, sv, &pool);

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

/* 40 datagrams waiting before the reader starts: without a window they
 * come in two recvmmsg calls (32 and 8, then one that finds none: three
 * batch_done), in order; with a window of 5 no call reads more than the
 * window has room for, and each ack lets the next ones in. */
static void
queued_datagrams(int iw_size)
{
  int rx = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
  int tx = socket(AF_INET, SOCK_DGRAM, 0);
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  socklen_t al = sizeof(a);
  cr_assert_eq(bind(rx, (struct sockaddr *) &a, sizeof(a)), 0);
  cr_assert_eq(getsockname(rx, (struct sockaddr *) &a, &al), 0);
  cr_assert_eq(connect(tx, (struct sockaddr *) &a, sizeof(a)), 0);
  char line[64];
  for (int i = 0; i < 40; i++)
    {
      int n = snprintf(line, sizeof(line), "<13>a: m%d", i);
      cr_assert_eq(send(tx, line, (size_t) n, 0), n);
    }

  const char *err;
  WorkerPool *pool = worker_pool_start(1, &err);
  Sink *s = sink_new();
  LogReaderOptions opts;
  log_reader_options_defaults(&opts);
  opts.iw_size = iw_size;
  s->reader = log_reader_new(rx, true, &opts, &sink_cb, s, NULL);
  worker_post(worker_pool_get(pool, 0), start_reader, s);
  if (iw_size)
    {
      for (int got = 5; got <= 40; got += 5)
        {
          WAIT_FOR(s, s->n >= got);
          usleep(20000);
          pthread_mutex_lock(&s->lock);
          int n = s->n;
          pthread_mutex_unlock(&s->lock);
          cr_assert_eq(n, got, "read %d with room for %d", n, got);
          for (int i = got - 5; i < got; i++)
            log_msg_ack(s->msgs[i]);
        }
    }
  else
    {
      WAIT_FOR(s, s->n == 40);
      usleep(50000); /* batch_done signals nothing: the last read's */
      pthread_mutex_lock(&s->lock);
      cr_assert_eq(s->batches, 3, "40 datagrams in %d reads", s->batches);
      pthread_mutex_unlock(&s->lock);
    }
  for (int i = 0; i < 40; i++)
    {
      snprintf(line, sizeof(line), "m%d", i);
      assert_msg(s->msgs[i], line);
    }
  close(tx);
  worker_post(worker_pool_get(pool, 0), free_reader, s);
  worker_pool_stop(pool);
  sink_free(s);
}

Test(logreader, queued_datagrams_are_read_32_a_call)
{
  queued_datagrams(0);
}

Test(logreader, queued_datagrams_are_read_no_more_than_the_window_holds)
{
  queued_datagrams(5);
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
  LogReaderOptions opts;
  log_reader_options_defaults(&opts);
  opts.multi_line = indented_options(0);
  int sv[2];
  WorkerPool *pool;
  Sink *s = stream_reader_start(&opts, NULL, sv, &pool);
  /* the reader holds its own reference */
  log_multi_line_options_unref(opts.multi_line);

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
  LogReaderOptions opts;
  log_reader_options_defaults(&opts);
  opts.parse.flags |= MF_NO_PARSE;
  opts.multi_line = indented_options(1);
  int sv[2];
  WorkerPool *pool;
  Sink *s = stream_reader_start(&opts, NULL, sv, &pool);
  log_multi_line_options_unref(opts.multi_line);

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
  LogReaderOptions opts;
  log_reader_options_defaults(&opts);
  opts.parse.flags |= MF_NO_PARSE;
  opts.framing = LOG_FRAMING_OCTET_COUNTED;
  opts.multi_line = indented_options(0);
  int sv[2];
  WorkerPool *pool;
  Sink *s = stream_reader_start(&opts, NULL, sv, &pool);
  log_multi_line_options_unref(opts.multi_line);
  cr_assert_eq(write(sv[1], "1 a2  b", 7), 7);
  close(sv[1]);
  WAIT_FOR(s, s->closed);
  cr_assert_eq(s->n, 2);
  assert_msg(s->msgs[0], "a");
  assert_msg(s->msgs[1], " b");
  worker_pool_stop(pool);
  sink_free(s);
}

/* ---- encoding() ------------------------------------------------------------- */

/* input written to a stream reader with encoding (NULL: none), then the
 * end of the stream; the messages it handed on, in s (no-parse: MESSAGE
 * is the whole line). */
static Sink *
read_encoded(const char *encoding, const char *input, size_t len, size_t log_msg_size, int expected)
{
  LogReaderOptions opts;
  log_reader_options_defaults(&opts);
  opts.parse.flags |= MF_NO_PARSE;
  opts.encoding = encoding;
  if (log_msg_size)
    opts.log_msg_size = log_msg_size;
  int sv[2];
  WorkerPool *pool;
  Sink *s = stream_reader_start(&opts, NULL, sv, &pool);
  size_t off = 0;
  while (off < len)
    {
      ssize_t k = write(sv[1], input + off, len - off);
      cr_assert_gt(k, 0);
      off += (size_t) k;
    }
  close(sv[1]);
  WAIT_FOR(s, s->closed);
  cr_assert_eq(s->error, 0);
  cr_assert_eq(s->n, expected);
  worker_pool_stop(pool);
  return s;
}

Test(logreader, encoding_latin1_arrives_as_utf8)
{
  const char in[] = "caf\xe9 \xc0 la cr\xe8me\n\xa9 2026 \xff\n";
  Sink *s = read_encoded("ISO-8859-1", in, sizeof(in) - 1, 0, 2);
  assert_msg(s->msgs[0], "caf\xc3\xa9 \xc3\x80 la cr\xc3\xa8me");
  assert_msg(s->msgs[1], "\xc2\xa9 2026 \xc3\xbf");
  sink_free(s);
}

Test(logreader, encoding_latin1_is_converted_before_parsing)
{
  LogReaderOptions opts;
  log_reader_options_defaults(&opts);
  opts.encoding = "latin1";
  int sv[2];
  WorkerPool *pool;
  Sink *s = stream_reader_start(&opts, NULL, sv, &pool);
  const char *input = "<13>Nov 22 10:00:00 h\xf6st pr\xf6g[7]: gr\xfc\xdf dich\n";
  cr_assert_eq(write(sv[1], input, strlen(input)), (ssize_t) strlen(input));
  close(sv[1]);
  WAIT_FOR(s, s->closed);
  cr_assert_eq(s->n, 1);
  assert_msg(s->msgs[0], "gr\xc3\xbc\xc3\x9f dich");
  size_t len;
  const char *v = log_msg_get_value(s->msgs[0], LM_V_HOST, &len);
  cr_assert(len == 5 && memcmp(v, "h\xc3\xb6st", 5) == 0, "HOST %.*s", (int) len, v);
  v = log_msg_get_value(s->msgs[0], LM_V_PROGRAM, &len);
  cr_assert(len == 5 && memcmp(v, "pr\xc3\xb6g", 5) == 0, "PROGRAM %.*s", (int) len, v);
  worker_pool_stop(pool);
  sink_free(s);
}

Test(logreader, encoding_cp1252_has_its_own_upper_half)
{
  /* 0x80 is the euro sign, 0x93/0x94 curly quotes, 0x9c oe (not latin1's C1 controls) */
  const char in[] = "\x80 5 \x93q\x94 \x9c\n";
  Sink *s = read_encoded("CP1252", in, sizeof(in) - 1, 0, 1);
  assert_msg(s->msgs[0], "\xe2\x82\xac 5 \xe2\x80\x9cq\xe2\x80\x9d \xc5\x93");
  sink_free(s);
}

Test(logreader, encoding_invalid_bytes_become_replacement_characters)
{
  /* EUC-JP: A4 A2 is HIRAGANA A; FF is no character; A4 alone at the end
   * of a line is a character cut short; each bad byte is one U+FFFD */
  const char in[] = "a\xa4\xa2" "b\xff" "c\n" "d\xa4\n" "\xff\xff\n";
  Sink *s = read_encoded("EUC-JP", in, sizeof(in) - 1, 0, 3);
  assert_msg(s->msgs[0], "a\xe3\x81\x82" "b\xef\xbf\xbd" "c");
  assert_msg(s->msgs[1], "d\xef\xbf\xbd");
  assert_msg(s->msgs[2], "\xef\xbf\xbd\xef\xbf\xbd");
  sink_free(s);
  /* SHIFT_JIS: 82 A0 is HIRAGANA A; 82 followed by a space is no character */
  const char sj[] = "\x82\xa0 \x82 x\n";
  s = read_encoded("SHIFT_JIS", sj, sizeof(sj) - 1, 0, 1);
  assert_msg(s->msgs[0], "\xe3\x81\x82 \xef\xbf\xbd x");
  sink_free(s);
}

Test(logreader, encoding_utf8_or_none_leaves_the_bytes_alone)
{
  /* no encoding(): the bytes as they came, invalid UTF-8 too */
  const char in[] = "caf\xc3\xa9 \xe9\n";
  Sink *s = read_encoded(NULL, in, sizeof(in) - 1, 0, 1);
  assert_msg(s->msgs[0], "caf\xc3\xa9 \xe9");
  sink_free(s);
  /* UTF-8 in any spelling is nothing to convert: the source gives the
   * reader no encoding then */
  const char *const utf8[] = { "UTF-8", "utf8", "utf-8", "UTF8", NULL };
  for (size_t i = 0; utf8[i]; i++)
    {
      bool convert = true;
      char *error = NULL;
      cr_assert(log_charset_check(utf8[i], &convert, &error), "%s: %s", utf8[i], error);
      cr_assert_not(convert, "%s converts", utf8[i]);
    }
}

Test(logreader, encoding_check_refuses_what_byte_framing_cannot_read)
{
  const char *const ok[] = { "ISO-8859-1", "latin1", "CP1252", "EUC-JP", "SHIFT_JIS", "GB18030", "KOI8-R",
                             NULL };
  for (size_t i = 0; ok[i]; i++)
    {
      bool convert = false;
      char *error = NULL;
      cr_assert(log_charset_check(ok[i], &convert, &error), "%s: %s", ok[i], error);
      cr_assert(convert, "%s does not convert", ok[i]);
    }
  const char *const refused[] = { "UTF-16", "UTF-16LE", "UTF-32", "UCS-2", "UCS-4", "EBCDIC-US", "CP037",
                                  NULL };
  for (size_t i = 0; refused[i]; i++)
    {
      bool convert = true;
      char *error = NULL;
      cr_assert_not(log_charset_check(refused[i], &convert, &error), "%s accepted", refused[i]);
      cr_assert_not_null(error);
      char *name = g_strdup_printf("encoding(\"%s\") is not supported", refused[i]);
      cr_assert_not_null(strstr(error, name), "%s", error);
      cr_assert_not_null(strstr(error, "frames messages by their bytes"), "%s", error);
      g_free(name);
      g_free(error);
    }
  bool convert = true;
  char *error = NULL;
  cr_assert_not(log_charset_check("no-such-charset", &convert, &error));
  cr_assert_not_null(strstr(error, "encoding(\"no-such-charset\"): unknown character set"), "%s", error);
  g_free(error);
}

Test(logreader, encoding_long_message_converts_fully)
{
  /* a line of log-msg-size bytes, every one of them two bytes of UTF-8 */
  size_t size = 8192;
  char *in = g_malloc(size + 1);
  memset(in, '\xe9', size);
  in[size] = '\n';
  Sink *s = read_encoded("ISO-8859-1", in, size + 1, size, 1);
  size_t len;
  const char *v = log_msg_get_value(s->msgs[0], LM_V_MESSAGE, &len);
  cr_assert_eq(len, 2 * size);
  for (size_t i = 0; i < size; i++)
    cr_assert(v[2 * i] == '\xc3' && v[2 * i + 1] == '\xa9', "byte %zu", i);
  g_free(in);
  sink_free(s);
}

Test(logreader, encoding_applies_to_joined_multi_line_messages)
{
  LogReaderOptions opts;
  log_reader_options_defaults(&opts);
  opts.encoding = "ISO-8859-15";
  opts.multi_line = indented_options(0);
  int sv[2];
  WorkerPool *pool;
  Sink *s = stream_reader_start(&opts, NULL, sv, &pool);
  log_multi_line_options_unref(opts.multi_line);
  const char *input = "<13>Nov 22 10:00:00 host prog: \xa4 one\n  \xe9two\n"
                      "<13>Nov 22 10:00:01 host prog: x\n";
  cr_assert_eq(write(sv[1], input, strlen(input)), (ssize_t) strlen(input));
  close(sv[1]);
  WAIT_FOR(s, s->closed);
  cr_assert_eq(s->n, 2);
  assert_msg(s->msgs[0], "\xe2\x82\xac one\n  \xc3\xa9two");
  assert_msg(s->msgs[1], "x");
  worker_pool_stop(pool);
  sink_free(s);
}

/* Readers that deliver into one queue of 10, which is congested from its
 * fifth message until it drains to a quarter (logqueue.h). */
static LogQueue *pause_q;

static void
queue_deliver(LogMsg *msg, void *user_data)
{
  LogQueueItem it = { log_msg_ref(msg), false };
  log_queue_push_batch(pause_q, &it, 1);
  sink_deliver(msg, user_data);
}

static const LogReaderCallbacks queue_cb = { queue_deliver, sink_batch_done, sink_closed };

static Sink *
queue_reader_start(Worker *w, int sv[2])
{
  LogReaderOptions opts;
  log_reader_options_defaults(&opts);
  return socket_reader_start(w, &opts, &queue_cb, NULL, sv);
}

static void
write_line(int fd, const char *text)
{
  char line[128];
  int len = snprintf(line, sizeof(line), "<13>Nov 22 10:00:00 host prog: %s\n", text);
  cr_assert_eq(write(fd, line, (size_t) len), len);
}

static int
sink_count(Sink *s)
{
  pthread_mutex_lock(&s->lock);
  int n = s->n;
  pthread_mutex_unlock(&s->lock);
  return n;
}

/* More readers than a pause's end resumes at once (LOG_READER_RESUME_BATCH). */
#define PAUSED_READERS 80

Test(logreader, a_congested_queue_pauses_every_reader_of_the_worker_until_it_drains)
{
  pause_q = log_queue_new(10);
  log_queue_congestion_take();
  const char *err;
  WorkerPool *pool = worker_pool_start(1, &err);
  cr_assert_not_null(pool, "%s", err);
  Worker *w = worker_pool_get(pool, 0);
  int a[2], sv[PAUSED_READERS][2];
  Sink *sa = queue_reader_start(w, a), *s[PAUSED_READERS];
  for (int i = 0; i < PAUSED_READERS; i++)
    s[i] = queue_reader_start(w, sv[i]);

  /* five lines in one read: the fifth push congests the queue, and the
   * worker pauses */
  char five[512] = "";
  for (int i = 0; i < 5; i++)
    g_strlcat(five, "<13>Nov 22 10:00:00 host prog: a\n", sizeof(five));
  cr_assert_eq(write(a[1], five, strlen(five)), (ssize_t) strlen(five));
  WAIT_FOR(sa, sa->n == 5);
  cr_assert(log_queue_congestion_persists());

  /* the other readers of the worker wait with it, and one freed while it
   * waits leaves the pause */
  for (int i = 0; i < PAUSED_READERS; i++)
    write_line(sv[i][1], "other");
  usleep(200 * 1000);
  for (int i = 0; i < PAUSED_READERS; i++)
    cr_assert_eq(sink_count(s[i]), 0, "reader %d read while its worker paused", i);
  worker_post(w, free_reader, s[0]);

  /* the writer drains the queue: the pause ends, and every reader left
   * reads again, a batch at a time; each line goes on to the queue, which
   * the test keeps draining so that no new pause holds them */
  LogQueueItem out[16];
  cr_assert_eq(log_queue_pop_batch(pause_q, out, 16, 0), 5);
  log_queue_items_done(out, 5);
  for (int i = 1; i < PAUSED_READERS; i++)
    {
      struct timespec until;
      clock_gettime(CLOCK_MONOTONIC, &until);
      until.tv_sec += 10;
      while (sink_count(s[i]) == 0)
        {
          ssize_t k = log_queue_pop_batch(pause_q, out, 16, 10);
          if (k > 0)
            log_queue_items_done(out, (size_t) k);
          struct timespec now;
          clock_gettime(CLOCK_MONOTONIC, &now);
          cr_assert(now.tv_sec < until.tv_sec || (now.tv_sec == until.tv_sec && now.tv_nsec < until.tv_nsec),
                    "reader %d never read after the pause", i);
        }
    }
  write_line(a[1], "a again");
  WAIT_FOR(sa, sa->n == 6);
  cr_assert_eq(sink_count(s[0]), 0);

  worker_post(w, free_reader, sa);
  for (int i = 1; i < PAUSED_READERS; i++)
    worker_post(w, free_reader, s[i]);
  worker_pool_stop(pool);
  ssize_t left;
  while ((left = log_queue_pop_batch(pause_q, out, 16, 0)) > 0)
    log_queue_items_done(out, (size_t) left);
  log_queue_free(pause_q);
  /* the readers closed their ends */
  close(a[1]);
  for (int i = 0; i < PAUSED_READERS; i++)
    close(sv[i][1]);
  sink_free(sa);
  for (int i = 0; i < PAUSED_READERS; i++)
    sink_free(s[i]);
}
