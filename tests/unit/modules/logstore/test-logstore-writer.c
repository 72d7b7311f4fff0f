/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * logstore()'s writer (modules/logstore/logstore-writer.c), driven as its
 * writer thread would drive it: full chunks go to the sealer thread while
 * the writer gathers the next.  No message is acknowledged before its
 * chunk is whole in the file; a chunk the sealer cannot write (the file
 * size limit, RLIMIT_FSIZE) is tried again until it can be; in the end
 * every message is in the file once, in order.  A stop while chunks
 * cannot be written gives back what is not in the files (messages let go
 * early made again from their records), and only that; files closed by
 * a reopen or reaped while idle are found again by path, not through
 * stale keys; a flow-controlled message tried again is waited for once.
 */
#include "../file/file-test.h"
#include "logstore/logstore-dest.h"

#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <unistd.h>

#define N_MSGS 3000
#define BATCH 100

typedef struct Store
{
  Rig r;
  LogQueue *q;
  int (*host)(int);     /* message i's host; NULL: i % 3 */
  LogMsg *kept[N_MSGS]; /* a reference of the test's to each message */
} Store;

static int
host_of(const Store *s, int i)
{
  return s->host ? s->host(i) : i % 3;
}

/* N_MSGS messages into logstore(path), in chunks of 4 KiB (about 25
 * records): the sealer gets many.  Message i comes from host(i), or from
 * host i % 3 by default; acks: every other message is flow-controlled, or
 * every one with all_acks. */
static void
store_build_from(Store *s, const char *path, bool acks, bool all_acks, int (*host)(int))
{
  s->r.factories = logstore_driver_factories;
  s->host = host;
  char *conf = g_strdup_printf("destination d { logstore(\"%s\" max-chunk-size(4096)); };", path);
  rig_build(&s->r, conf);
  g_free(conf);
  s->q = log_queue_new(N_MSGS + 10);
  s->r.drv->writer_ops->bind_queue(s->r.drv, s->q);
  char *pad = g_strnfill(100, 'p');
  for (int i = 0; i < N_MSGS; i++)
    {
      char *line = g_strdup_printf("<13>Mar 10 11:58:01 host%d app: %d %s", host_of(s, i), i, pad);
      LogQueueItem it = { make_msg(line), all_acks || (acks && i % 2 == 0) };
      s->kept[i] = log_msg_ref(it.msg);
      cr_assert_eq(log_queue_push_batch(s->q, &it, 1), 0);
      g_free(line);
    }
  g_free(pad);
}

static void
store_build(Store *s, const char *path, bool acks)
{
  store_build_from(s, path, acks, false, NULL);
}

static void
store_free(Store *s)
{
  rig_free(&s->r);
  log_queue_free(s->q);
  for (int i = 0; i < N_MSGS; i++)
    log_msg_unref(s->kept[i]);
}

/* The writer has let go of message i (acknowledged it, or released it
 * early): the test's reference is its last. */
static bool
let_go(Store *s, int i)
{
  return atomic_load(&s->kept[i]->refcnt) == 1;
}

static uint64_t
acked(Store *s)
{
  LogQueueStats st;
  log_queue_get_stats(s->q, &st);
  return st.written;
}

/* The records in the whole chunks of file name, in order: each one's
 * number into nums (when given).  *closed: the file ends in its closing
 * record. */
static size_t
read_store(Store *s, const char *name, int *nums, bool *closed)
{
  char *path = rig_path(&s->r, name);
  int fd = open(path, O_RDONLY);
  g_free(path);
  cr_assert_geq(fd, 0);
  LsHeader h;
  LsKeyBlock kb;
  LsChain chain = { 0 };
  uint64_t off = 0;
  char *error = NULL;
  cr_assert_eq(ls_fd_header(fd, &h, &kb, &chain, &off, &error), LS_OK, "%s", error);
  LsReadKey rk = { NULL, true };
  GByteArray *buf = g_byte_array_new(), *plain = g_byte_array_new(), *scratch = g_byte_array_new();
  size_t n = 0;
  int last = 0;
  LsStatus st;
  for (;;)
    {
      LsChunk c = { .plain = plain };
      g_byte_array_set_size(plain, 0);
      st = ls_fd_chunk(fd, &chain, &rk, &off, buf, &c, &error);
      if (st != LS_OK)
        break;
      last = c.type;
      size_t pos = 0;
      LsRecord rec;
      while (c.type == LS_CHUNK_DATA && ls_record_next(plain, &pos, &rec) == LS_OK)
        {
          const char *why = NULL;
          LogMsg *m = ls_record_msg(&rec, scratch, &why);
          cr_assert_not_null(m, "%s", why);
          if (nums && n < N_MSGS)
            nums[n] = atoi(log_msg_get_value(m, LM_V_MESSAGE, NULL));
          n++;
          log_msg_unref(m);
        }
    }
  cr_assert_neq(st, LS_BAD, "%s", error);
  if (closed)
    *closed = st == LS_END && last == LS_CHUNK_CLOSE;
  g_free(error);
  g_byte_array_free(buf, TRUE);
  g_byte_array_free(plain, TRUE);
  g_byte_array_free(scratch, TRUE);
  close(fd);
  return n;
}

/* Every message once, in order, in a closed file; every one acknowledged. */
static void
assert_all_written(Store *s)
{
  s->r.drv->writer_ops->finish(s->r.drv);
  int *nums = g_new(int, N_MSGS + 1);
  bool closed = false;
  size_t n = read_store(s, "s.lgs", nums, &closed);
  cr_assert_eq(n, N_MSGS, "%zu records in the file", n);
  for (int i = 0; i < N_MSGS; i++)
    cr_assert_eq(nums[i], i, "record %d holds message %d", i, nums[i]);
  cr_assert(closed, "the file should end in its closing record");
  cr_assert_eq(acked(s), N_MSGS);
  g_free(nums);
}

Test(logstore_writer, no_message_is_acknowledged_before_its_chunk_is_in_the_file, .timeout = 60)
{
  Store s = { 0 };
  store_build(&s, "@DIR@/s.lgs", false);
  LogQueueItem items[BATCH];
  ssize_t k;
  while ((k = log_queue_pop_batch(s.q, items, BATCH, 0)) > 0)
    {
      cr_assert_eq(rig_write(&s.r, items, (size_t) k), k);
      uint64_t a = acked(&s);
      size_t in_file = read_store(&s, "s.lgs", NULL, NULL);
      cr_assert_leq(a, in_file, "%" G_GUINT64_FORMAT " acknowledged, %zu in the file", a, in_file);
    }
  assert_all_written(&s);
  store_free(&s);
}

/* How many times each message is in the whole chunks of host0.lgs ..
 * host<hosts-1>.lgs, into times[N_MSGS], each in its own host's file;
 * the records of all.  *closed (when given): every file ends in its
 * closing record. */
static size_t
count_in_hosts(Store *s, int hosts, int *times, bool *closed)
{
  int *nums = g_new(int, N_MSGS);
  memset(times, 0, N_MSGS * sizeof(int));
  size_t total = 0;
  if (closed)
    *closed = true;
  for (int h = 0; h < hosts; h++)
    {
      char *name = g_strdup_printf("host%d.lgs", h);
      bool file_closed = false;
      size_t n = read_store(s, name, nums, &file_closed);
      cr_assert_leq(n, N_MSGS, "%zu records in %s", n, name);
      for (size_t i = 0; i < n; i++)
        {
          cr_assert_eq(host_of(s, nums[i]), h, "message %d in %s", nums[i], name);
          times[nums[i]]++;
        }
      if (closed)
        *closed = *closed && file_closed;
      total += n;
      g_free(name);
    }
  g_free(nums);
  return total;
}

/* The messages a stop gave back, taken out of the queue and counted into
 * times[]: they come in the order they were taken. */
static void
count_back_in_queue(Store *s, int *times)
{
  LogQueueItem items[BATCH];
  ssize_t k;
  int last = -1;
  while ((k = log_queue_pop_batch(s->q, items, BATCH, 0)) > 0)
    {
      for (ssize_t i = 0; i < k; i++)
        {
          int num = atoi(log_msg_get_value(items[i].msg, LM_V_MESSAGE, NULL));
          cr_assert_gt(num, last, "message %d came back after %d", num, last);
          times[num]++;
          last = num;
        }
      log_queue_items_done(items, (size_t) k);
    }
}

/* Every message is in a file or back in the queue, once. */
static void
assert_each_once(const int *times)
{
  for (int i = 0; i < N_MSGS; i++)
    {
      cr_assert_gt(times[i], 0, "message %d is neither in a file nor back in the queue", i);
      cr_assert_lt(times[i], 2, "message %d is there %d times", i, times[i]);
    }
}

/* Writes everything the queue holds, a batch a round, calling between(s,
 * round) after each round, then stops the writer; every message is then
 * in its host's file once.  *closed as for count_in_hosts. */
static void
write_rounds_all_in_hosts(Store *s, void (*between)(Store *s, int round), bool *closed)
{
  LogQueueItem items[BATCH];
  ssize_t k;
  for (int round = 0; (k = log_queue_pop_batch(s->q, items, BATCH, 0)) > 0; round++)
    {
      cr_assert_eq(rig_write(&s->r, items, (size_t) k), k);
      between(s, round);
    }
  s->r.drv->writer_ops->finish(s->r.drv);
  int *times = g_new(int, N_MSGS);
  cr_assert_eq(count_in_hosts(s, 3, times, closed), N_MSGS);
  assert_each_once(times);
  g_free(times);
}

/* Files may not grow past bytes from now on: a write past it fails
 * (EFBIG), in the sealer or in the writer.  The limit before in *old. */
static void
limit_file_size(rlim_t bytes, struct rlimit *old)
{
  signal(SIGXFSZ, SIG_IGN);
  cr_assert_eq(getrlimit(RLIMIT_FSIZE, old), 0);
  struct rlimit lim = { bytes, old->rlim_max };
  cr_assert_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
}

/* Three files whose chunks fill side by side, every message
 * flow-controlled: a message is acknowledged (the writer lets go of it:
 * the test's own reference is its last) only once it is in a file, while
 * the oldest chunk still gathering holds back what was taken after it. */
Test(logstore_writer, no_message_is_acknowledged_before_its_chunk_is_in_one_of_three_files, .timeout = 60)
{
  Store s = { 0 };
  store_build_from(&s, "@DIR@/${HOST}.lgs", true, true, NULL);
  int *times = g_new(int, N_MSGS);
  LogQueueItem items[BATCH];
  ssize_t k;
  size_t early_checks = 0;
  /* batches of 10, a millisecond apart: most find the sealer done with
   * what it had, so that the chunks still gathering alone hold back */
  while ((k = log_queue_pop_batch(s.q, items, 10, 0)) > 0)
    {
      g_usleep(1000);
      cr_assert_eq(rig_write(&s.r, items, (size_t) k), k);
      count_in_hosts(&s, 3, times, NULL);
      for (int i = 0; i < N_MSGS; i++)
        if (let_go(&s, i))
          {
            cr_assert(times[i], "message %d was acknowledged before it was in a file", i);
            early_checks++;
          }
    }
  cr_assert_gt(early_checks, 0, "some messages should be acknowledged while the run goes on");
  s.r.drv->writer_ops->finish(s.r.drv);
  count_in_hosts(&s, 3, times, NULL);
  for (int i = 0; i < N_MSGS; i++)
    cr_assert(times[i] == 1 && let_go(&s, i), "message %d", i);
  cr_assert_eq(acked(&s), N_MSGS);
  g_free(times);
  store_free(&s);
}

Test(logstore_writer, a_chunk_that_cannot_be_written_is_tried_again_and_nothing_is_lost, .timeout = 60)
{
  Store s = { 0 };
  store_build(&s, "@DIR@/s.lgs", false);
  struct rlimit old;
  limit_file_size(30000, &old);
  LogQueueItem items[BATCH];
  size_t have = 0, off = 0;
  int failures = 0;
  for (int round = 0; round < 10000; round++)
    {
      if (off == have)
        {
          ssize_t k = log_queue_pop_batch(s.q, items, BATCH, 0);
          if (k <= 0)
            break;
          have = (size_t) k;
          off = 0;
        }
      long rc = rig_write(&s.r, items + off, have - off);
      uint64_t a = acked(&s);
      size_t in_file = read_store(&s, "s.lgs", NULL, NULL);
      cr_assert_leq(a, in_file, "%" G_GUINT64_FORMAT " acknowledged, %zu in the file", a, in_file);
      if (rc < 0)
        {
          /* the writer would wait time-reopen() and try the same again:
           * the limit is lifted after the second failure, and the next
           * try must go through */
          failures++;
          cr_assert_leq(failures, 2, "a write failed again after the size limit was lifted: %ld", rc);
          if (failures == 2)
            cr_assert_eq(setrlimit(RLIMIT_FSIZE, &old), 0);
          continue;
        }
      off += (size_t) rc;
    }
  cr_assert_eq(failures, 2, "the size limit should have failed a write");
  assert_all_written(&s);
  store_free(&s);
}

/* A file size limit as in the test above (each file's a fifth of what it
 * would hold), on three files; a stop comes while their chunks cannot be
 * written. */
Test(logstore_writer, a_stop_while_chunks_cannot_be_written_gives_back_what_is_not_in_the_files, .timeout = 60)
{
  Store s = { 0 };
  store_build(&s, "@DIR@/${HOST}.lgs", true);
  struct rlimit old;
  limit_file_size(6000, &old);
  LogQueueItem items[BATCH];
  bool failed = false;
  ssize_t k = 0;
  while (!failed && (k = log_queue_pop_batch(s.q, items, BATCH, 0)) > 0)
    {
      long rc = rig_write(&s.r, items, (size_t) k);
      failed = rc < 0;
      if (rc >= 0)
        cr_assert_eq(rc, k);
    }
  cr_assert(failed, "the size limit should have failed a write");
  log_queue_unpop(s.q, items, (size_t) k); /* what the failed call did not take */
  s.r.drv->writer_ops->finish(s.r.drv);
  int *times = g_new(int, N_MSGS);
  size_t in_files = count_in_hosts(&s, 3, times, NULL);
  cr_assert_eq(acked(&s), in_files, "the messages in the files are the ones written");
  cr_assert_lt(in_files, N_MSGS, "the limit should have kept some out");
  count_back_in_queue(&s, times);
  assert_each_once(times);
  g_free(times);
  cr_assert_eq(setrlimit(RLIMIT_FSIZE, &old), 0);
  store_free(&s);
}

/* Files found by the values of their macros (${HOST}): a reopen
 * (SIGUSR1) closes them, and the next messages open them again by path,
 * not through keys that pointed at the closed ones. */
static void
reopen_every_seventh(Store *s, int round)
{
  if (round % 7 == 6)
    s->r.drv->writer_ops->reopen(s->r.drv);
}

Test(logstore_writer, files_closed_by_a_reopen_are_found_again_by_path, .timeout = 60)
{
  Store s = { 0 };
  store_build(&s, "@DIR@/${HOST}.lgs", false);
  bool closed = false;
  write_rounds_all_in_hosts(&s, reopen_every_seventh, &closed);
  cr_assert(closed, "every file should end in its closing record");
  cr_assert_eq(acked(&s), N_MSGS);
  store_free(&s);
}

/* A flow-controlled message that could not be taken (its file cannot be
 * opened yet) is counted as waiting for its ack once, when it is taken:
 * counted at every try, the writer would write its chunks at every pause
 * from then on, however small. */
Test(logstore_writer, a_message_tried_again_is_waited_for_once, .timeout = 60)
{
  Store s = { 0 };
  store_build(&s, "@DIR@/sub/s.lgs", true);
  LogQueueItem items[BATCH];
  ssize_t k = log_queue_pop_batch(s.q, items, BATCH, 0);
  cr_assert_eq(k, BATCH);
  cr_assert(items[0].ack);
  for (int i = 0; i < 3; i++)
    cr_assert_lt(rig_write(&s.r, items, (size_t) k), 0, "sub/ does not exist yet");
  char *sub = rig_path(&s.r, "sub");
  cr_assert_eq(g_mkdir(sub, 0700), 0);
  g_free(sub);
  for (;;)
    {
      cr_assert_eq(rig_write(&s.r, items, (size_t) k), k);
      if ((k = log_queue_pop_batch(s.q, items, BATCH, 0)) <= 0)
        break;
    }
  LogstoreDest *d = (LogstoreDest *) s.r.drv;
  cr_assert_eq(acked(&s), N_MSGS, "the last write found the queue empty and wrote every chunk");
  cr_assert_eq(d->waiting, 0, "%zu flow-controlled messages still counted as waiting", d->waiting);
  store_free(&s);
}

/* Files reaped while idle (time-reap()) leave the table: the next
 * messages for them open them again by path, not through keys that
 * pointed at the reaped ones. */
static void
reap_after_rounds_3_and_17(Store *s, int round)
{
  if (round != 3 && round != 17)
    return;
  /* max-chunk-time(1) makes the chunks due; then every file has been
   * idle for longer than time-reap() */
  g_usleep(1100 * 1000);
  s->r.drv->writer_ops->housekeep(s->r.drv, mono_now() + 100000);
  LogstoreDest *d = (LogstoreDest *) s->r.drv;
  cr_assert_eq(g_hash_table_size(d->files), 0, "every idle file should be reaped");
}

Test(logstore_writer, files_reaped_while_idle_are_found_again_by_path, .timeout = 60)
{
  Store s = { 0 };
  store_build(&s, "@DIR@/${HOST}.lgs", false);
  write_rounds_all_in_hosts(&s, reap_after_rounds_3_and_17, NULL);
  store_free(&s);
}

static int
ten_then_one(int i)
{
  return i < 10 ? 0 : 1;
}

/* host0's first chunk is still gathering while host1's later chunks are
 * written; a stop that cannot write host0's chunk gives back host0's
 * flow-controlled messages, and takes host1's written ones as written,
 * not to be written a second time. */
Test(logstore_writer, a_stop_gives_back_only_what_is_not_in_the_files, .timeout = 60)
{
  Store s = { 0 };
  store_build_from(&s, "@DIR@/${HOST}.lgs", true, true, ten_then_one);
  LogQueueItem items[BATCH];
  for (int round = 0; round < N_MSGS / BATCH - 1; round++)
    {
      ssize_t k = log_queue_pop_batch(s.q, items, BATCH, 0);
      cr_assert_eq(rig_write(&s.r, items, (size_t) k), k); /* the queue is not empty: no flush for an ack */
    }
  cr_assert_gt(read_store(&s, "host1.lgs", NULL, NULL), 0, "host1's full chunks should be written");
  cr_assert_eq(read_store(&s, "host0.lgs", NULL, NULL), 0, "host0's chunk should be gathering");
  cr_assert_eq(acked(&s), 0, "nothing behind host0's chunk is acknowledged");
  struct rlimit old;
  limit_file_size(1, &old); /* no file may grow now */
  s.r.drv->writer_ops->finish(s.r.drv);
  cr_assert_eq(setrlimit(RLIMIT_FSIZE, &old), 0);
  int *times = g_new(int, N_MSGS);
  size_t in_files = count_in_hosts(&s, 2, times, NULL);
  cr_assert_eq(acked(&s), in_files, "what is in the files is acknowledged as written");
  count_back_in_queue(&s, times);
  assert_each_once(times);
  g_free(times);
  store_free(&s);
}
