/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The disk queue behind LogQueue: order, acks, wrap-around, a full file,
 * corrupt records, reopening after a clean and an unclean stop. */
#include "queue/diskq-internal.h"
#include "sluice/internal-log.h"
#include "sluice/logmsg-serialize.h"
#include "sluice/logqueue-disk.h"
#include "sluice/logwriter.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char *dir;

static void
_setup(void)
{
  dir = g_dir_make_tmp("diskq-XXXXXX", NULL);
  cr_assert_not_null(dir);
  sluice_log_set_stderr(false, SLUICE_LOG_DEBUG);
}

static void
_teardown(void)
{
  GDir *d = g_dir_open(dir, 0, NULL);
  const char *name;
  while (d && (name = g_dir_read_name(d)))
    {
      char *p = g_build_filename(dir, name, NULL);
      unlink(p);
      g_free(p);
    }
  if (d)
    g_dir_close(d);
  rmdir(dir);
  g_free(dir);
}

TestSuite(logqueue_disk, .init = _setup, .fini = _teardown);

static DiskBufferOptions
_opts(bool reliable, int64_t qout)
{
  DiskBufferOptions o = { .enabled = true, .reliable = reliable, .capacity = DISKQ_MIN_CAPACITY,
                          .mem_buf_size = -1, .mem_buf_length = -1, .qout_size = qout, .dir = dir };
  return o;
}

static LogQueue *
_open(const DiskBufferOptions *o)
{
  LogQueue *q = log_queue_new_disk(o, "d_test#0");
  char *error = NULL;
  cr_assert(log_queue_open(q, &error), "%s", error);
  cr_assert(log_queue_is_persistent(q));
  return q;
}

static LogMsg *
_msg(int i, size_t pad)
{
  LogMsg *m = log_msg_new(0);
  char *text = g_strdup_printf("message %d %*s", i, (int) pad, "");
  log_msg_set_value(m, LM_V_MESSAGE, text, -1);
  g_free(text);
  log_msg_set_value_by_name(m, "n", "v", -1);
  return m;
}

static int
_num(const LogMsg *m)
{
  size_t len;
  const char *v = log_msg_get_value(m, LM_V_MESSAGE, &len);
  cr_assert(len > 8 && strncmp(v, "message ", 8) == 0, "not a test message: %.*s", (int) len, v);
  return atoi(v + 8);
}

static void
_push_range(LogQueue *q, int from, int to, size_t pad)
{
  for (int i = from; i < to; i++)
    {
      LogQueueItem it = { _msg(i, pad), false };
      cr_assert_eq(log_queue_push_batch(q, &it, 1), 0, "message %d dropped", i);
    }
}

/* Pop and ack count messages, expecting from, from + 1, ... */
static void
_pop_expect(LogQueue *q, int from, int count)
{
  LogQueueItem out[16];
  int seen = 0;
  while (seen < count)
    {
      ssize_t n = log_queue_pop_batch(q, out, count - seen < 16 ? (size_t) (count - seen) : 16, 0);
      cr_assert_gt(n, 0, "only %d of %d messages came back", seen, count);
      for (ssize_t i = 0; i < n; i++)
        cr_assert_eq(_num(out[i].msg), from + seen + (int) i);
      log_queue_ack_batch(q, out, (size_t) n);
      seen += (int) n;
    }
}

static uint64_t
_length(LogQueue *q)
{
  LogQueueStats st;
  log_queue_get_stats(q, &st);
  return st.length;
}

Test(logqueue_disk, reliable_push_pop_ack_in_order_from_cache_and_file)
{
  DiskBufferOptions o = _opts(true, 10);
  LogQueue *q = _open(&o);
  _push_range(q, 0, 100, 10);
  cr_assert_eq(_length(q), 100);
  _pop_expect(q, 0, 100); /* 10 from memory, 90 read back */
  cr_assert_eq(_length(q), 0);
  LogQueueItem out[4];
  cr_assert_eq(log_queue_pop_batch(q, out, 4, 0), 0);
  log_queue_free(q);
  q = _open(&o);
  cr_assert_eq(_length(q), 0, "acked messages came back");
  log_queue_free(q);
}

Test(logqueue_disk, unpop_puts_messages_back_in_order)
{
  DiskBufferOptions o = _opts(true, 3);
  LogQueue *q = _open(&o);
  _push_range(q, 0, 10, 0);
  LogQueueItem out[6];
  cr_assert_eq(log_queue_pop_batch(q, out, 6, 0), 6);
  log_queue_ack_batch(q, out, 2);
  log_queue_unpop(q, out + 2, 4);
  _pop_expect(q, 2, 8);
  log_queue_free(q);
}

/* A disk queue forgets only its oldest records: give_back acks the settled
 * front and puts back everything from the first unsettled one on, settled
 * or not, and they are still there after a restart. */
Test(logqueue_disk, give_back_keeps_all_from_the_first_unsettled)
{
  DiskBufferOptions o = _opts(true, 3);
  LogQueue *q = _open(&o);
  _push_range(q, 0, 10, 0);
  LogQueueItem out[5];
  cr_assert_eq(log_queue_pop_batch(q, out, 5, 0), 5);
  LogQueueOutcome how[] = { LOG_QUEUE_WRITTEN, LOG_QUEUE_UNSETTLED, LOG_QUEUE_WRITTEN, LOG_QUEUE_DROPPED,
                            LOG_QUEUE_UNSETTLED };
  cr_assert_eq(log_queue_give_back(q, out, how, 5), 4);
  cr_assert_eq(_length(q), 9);
  log_queue_free(q);
  q = _open(&o);
  _pop_expect(q, 1, 9);
  log_queue_free(q);
}

/* A child pushes, pops and acks, then dies by SIGKILL without a word;
 * returns after it is gone. */
static void
_in_killed_child(const DiskBufferOptions *o, int push, int pop, int ack, size_t pad)
{
  pid_t pid = fork();
  cr_assert_neq(pid, -1);
  if (pid == 0)
    {
      LogQueue *q = log_queue_new_disk(o, "d_test#0");
      char *error = NULL;
      if (!log_queue_open(q, &error))
        _exit(3);
      for (int i = 0; i < push; i++)
        {
          LogQueueItem it = { _msg(i, pad), false };
          log_queue_push_batch(q, &it, 1);
        }
      LogQueueItem *out = calloc((size_t) pop + 1, sizeof(LogQueueItem));
      int got = 0;
      while (got < pop)
        {
          ssize_t n = log_queue_pop_batch(q, out + got, (size_t) (pop - got), 0);
          if (n <= 0)
            _exit(4);
          got += (int) n;
        }
      log_queue_ack_batch(q, out, (size_t) ack);
      raise(SIGKILL);
      _exit(5);
    }
  int status;
  waitpid(pid, &status, 0);
  cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "child status %d", status);
}

Test(logqueue_disk, sigkill_replays_exactly_what_was_not_acked)
{
  DiskBufferOptions o = _opts(true, 5);
  _in_killed_child(&o, 50, 20, 12, 0);
  LogQueue *q = _open(&o);
  cr_assert_eq(_length(q), 38); /* 8 popped and not acked, 30 never popped */
  _pop_expect(q, 12, 38);
  log_queue_free(q);
}

Test(logqueue_disk, wrap_around_keeps_order_and_survives_sigkill)
{
  DiskBufferOptions o = _opts(true, 2);
  LogQueue *q = _open(&o);
  /* 1 MiB ring, records of about 20 KiB: 300 of them go round five times */
  int next = 0;
  for (int round = 0; round < 30; round++)
    {
      _push_range(q, next, next + 10, 20000);
      _pop_expect(q, next, 10);
      next += 10;
    }
  log_queue_free(q);
  q = _open(&o);
  cr_assert_eq(_length(q), 0);
  log_queue_free(q);
  /* now with the head and tail somewhere in the ring */
  _in_killed_child(&o, 45, 30, 25, 20000);
  q = _open(&o);
  cr_assert_eq(_length(q), 20);
  _pop_expect(q, 25, 20);
  log_queue_free(q);
}

static int wakeups;

static void
_wakeup(void *user_data)
{
  wakeups++;
}

Test(logqueue_disk, full_file_drops_others_and_holds_flow_controlled)
{
  DiskBufferOptions o = _opts(true, 0);
  o.mem_buf_size = 0; /* nothing besides the flow-controlled waits in memory */
  LogQueue *q = _open(&o);
  size_t dropped = 0;
  int pushed = 0;
  while (dropped == 0)
    {
      LogQueueItem it = { _msg(pushed, 10000), false };
      dropped += log_queue_push_batch(q, &it, 1);
      pushed++;
    }
  int on_disk = pushed - 1;
  cr_assert_gt(on_disk, 90);
  LogQueueStats st;
  log_queue_get_stats(q, &st);
  cr_assert_eq(st.dropped, 1);

  /* a flow-controlled message waits, unacked, until there is room */
  LogWindow *win = log_window_new(4, _wakeup, NULL);
  LogMsg *m = _msg(on_disk, 10000);
  log_msg_ack_begin(m, win);
  log_msg_ack_add(m);
  LogQueueItem it = { m, true };
  cr_assert_eq(log_queue_push_batch(q, &it, 1), 0);
  log_msg_ack(m); /* the source's own hold */
  cr_assert_eq(atomic_load(&win->free), 3, "acked before it was in the file");
  _pop_expect(q, 0, 5); /* frees room: it goes to the file and is acked */
  cr_assert_eq(atomic_load(&win->free), 4);
  _pop_expect(q, 5, on_disk - 5 + 1);
  log_window_orphan(win);
  log_queue_free(q);
}

/* A sink for internal log lines, to see the corruption reported. */
static GString *logged;

static void
_sink(SluiceLogLevel level, const char *line, void *user_data)
{
  g_string_append_printf(logged, "%s\n", line);
}

Test(logqueue_disk, corrupt_record_is_skipped_with_a_log_line)
{
  DiskBufferOptions o = _opts(true, 0);
  LogQueue *q = _open(&o);
  _push_range(q, 0, 3, 100);
  log_queue_free(q);
  /* flip a byte in the middle record's payload */
  char *path = g_build_filename(dir, "sluice-d_test_0.rqf", NULL);
  DiskQFile *f = NULL;
  char *error = NULL;
  f = diskq_file_open_ro(path, &error);
  cr_assert_not_null(f, "%s", error);
  diskq_file_close(f);
  FILE *fp = fopen(path, "r+b");
  cr_assert_not_null(fp);
  uint8_t hdr[DISKQ_REC_HDR];
  fseek(fp, DISKQ_HEADER_SIZE, SEEK_SET);
  cr_assert_eq(fread(hdr, 1, sizeof(hdr), fp), sizeof(hdr));
  uint32_t len = hdr[4] | hdr[5] << 8 | hdr[6] << 16 | (uint32_t) hdr[7] << 24;
  long second = DISKQ_HEADER_SIZE + DISKQ_REC_HDR + (long) ((len + 7) & ~7u);
  fseek(fp, second + DISKQ_REC_HDR + 40, SEEK_SET);
  int c = fgetc(fp);
  fseek(fp, second + DISKQ_REC_HDR + 40, SEEK_SET);
  fputc(c ^ 0x5a, fp);
  fclose(fp);

  logged = g_string_new(NULL);
  sluice_log_set_sink(_sink, NULL);
  q = _open(&o);
  cr_assert_eq(_length(q), 2, "the damaged record is counted out when the file is loaded");
  LogQueueItem out[4];
  cr_assert_eq(log_queue_pop_batch(q, out, 4, 0), 2);
  cr_assert_eq(_num(out[0].msg), 0);
  cr_assert_eq(_num(out[1].msg), 2);
  log_queue_ack_batch(q, out, 2);
  sluice_log_set_sink(NULL, NULL);
  cr_assert(strstr(logged->str, "Disk buffer damaged: records lost"), "%s", logged->str);
  LogQueueStats st;
  log_queue_get_stats(q, &st);
  cr_assert_eq(st.dropped, 1);
  cr_assert_eq(st.length, 0);
  log_queue_free(q);
  /* and it is gone from the file with the others */
  q = _open(&o);
  cr_assert_eq(_length(q), 0);
  log_queue_free(q);
  g_string_free(logged, TRUE);
  g_free(path);
}

Test(logqueue_disk, normal_front_cache_overflows_to_file_and_is_saved_on_stop)
{
  DiskBufferOptions o = _opts(false, 5);
  LogQueue *q = _open(&o);
  _push_range(q, 0, 20, 0); /* 5 in memory, 15 in the file */
  _pop_expect(q, 0, 3);
  log_queue_free(q);
  char *path = g_build_filename(dir, "sluice-d_test_0.qf", NULL);
  char *error = NULL;
  DiskQFile *f = diskq_file_open_ro(path, &error);
  cr_assert_not_null(f, "%s", error);
  cr_assert_eq(diskq_file_header(f)->front_count, 2);
  diskq_file_close(f);
  q = _open(&o);
  cr_assert_eq(_length(q), 17);
  _pop_expect(q, 3, 17);
  log_queue_free(q);
  q = _open(&o);
  cr_assert_eq(_length(q), 0);
  log_queue_free(q);
  g_free(path);
}

Test(logqueue_disk, fsync_mode_and_a_second_opener_is_refused)
{
  DiskBufferOptions o = _opts(true, 4);
  o.fsync = true;
  LogQueue *q = _open(&o);
  _push_range(q, 0, 10, 0);
  LogQueue *other = log_queue_new_disk(&o, "d_test#0");
  char *error = NULL;
  cr_assert_not(log_queue_open(other, &error));
  cr_assert(strstr(error, "in use"), "%s", error);
  g_free(error);
  log_queue_free(other);
  _pop_expect(q, 0, 10);
  log_queue_free(q);
}

Test(logqueue_disk, empty_buffer_is_truncated_past_the_ratio)
{
  DiskBufferOptions o = _opts(true, 0);
  o.truncate_size_ratio = "0.1";
  LogQueue *q = _open(&o);
  _push_range(q, 0, 20, 10000); /* about 200 KiB: past 10 % of the ring */
  _pop_expect(q, 0, 20);
  char *path = g_build_filename(dir, "sluice-d_test_0.rqf", NULL);
  struct stat st;
  cr_assert_eq(stat(path, &st), 0);
  cr_assert_eq(st.st_size, DISKQ_HEADER_SIZE, "file still %lld bytes", (long long) st.st_size);
  _push_range(q, 20, 25, 0);
  log_queue_free(q);
  q = _open(&o);
  _pop_expect(q, 20, 5);
  log_queue_free(q);
  g_free(path);
}

Test(logqueue_disk, crc32c_in_hardware_and_tables_in_pieces_too)
{
  cr_assert_eq(diskq_crc32(0, "123456789", 9), 0xe3069283u);
  cr_assert_eq(diskq_crc32_sw(0, "123456789", 9), 0xe3069283u);
  uint8_t buf[768];
  for (size_t i = 0; i < sizeof(buf); i++)
    buf[i] = (uint8_t) (i * 7 + 3);
  uint32_t whole = diskq_crc32_sw(0, buf, sizeof(buf));
  cr_assert_eq(diskq_crc32(0, buf, sizeof(buf)), whole);
  for (size_t cut = 0; cut < 20; cut++)
    {
      cr_assert_eq(diskq_crc32(diskq_crc32(0, buf, cut), buf + cut, sizeof(buf) - cut), whole);
      cr_assert_eq(diskq_crc32_sw(diskq_crc32_sw(0, buf + 1, cut), buf + 1 + cut, sizeof(buf) - 1 - cut),
                   diskq_crc32(0, buf + 1, sizeof(buf) - 1));
    }
  /* the hardware path joins three chains over 192-byte stretches: every
   * length around and across them, at an odd address too */
  for (size_t len = 0; len < sizeof(buf) - 1; len++)
    {
      cr_assert_eq(diskq_crc32(5, buf, len), diskq_crc32_sw(5, buf, len), "length %zu", len);
      cr_assert_eq(diskq_crc32(0, buf + 1, len), diskq_crc32_sw(0, buf + 1, len), "length %zu, odd", len);
    }
}

static long
_failing_write(void *dest, LogQueueItem *items, size_t n)
{
  return -EIO;
}

Test(logqueue_disk, a_stop_keeps_what_a_failing_writer_could_not_write)
{
  DiskBufferOptions o = _opts(false, 4);
  LogQueue *q = _open(&o);
  _push_range(q, 0, 10, 0);
  LogWriterOps ops = { .write_batch = _failing_write };
  LogWriterOptions wo = { .flush_lines = 3, .time_reopen = 60, .name = "d_test#0" };
  const char *error = NULL;
  LogWriter *w = log_writer_start(q, &ops, NULL, &wo, &error);
  cr_assert_not_null(w, "%s", error);
  usleep(100 * 1000); /* it has popped a batch and is waiting to retry */
  cr_assert_eq(log_writer_stop(w, 30000), 0, "a disk buffer is not drained nor released at a stop");
  cr_assert_eq(_length(q), 10);
  log_queue_free(q);
  q = _open(&o);
  _pop_expect(q, 0, 10);
  log_queue_free(q);
}

Test(logqueue_disk, fsync_mode_overflow_moves_to_the_file_once_acks_make_room)
{
  DiskBufferOptions o = _opts(true, 0);
  o.fsync = true;
  o.mem_buf_size = 30000; /* about three messages wait in memory */
  LogQueue *q = _open(&o);
  int pushed = 0;
  size_t dropped = 0;
  while (dropped == 0)
    {
      LogQueueItem it = { _msg(pushed, 10000), false };
      dropped = log_queue_push_batch(q, &it, 1);
      pushed++;
    }
  int kept = pushed - 1;
  _pop_expect(q, 0, 20);
  /* the head moved; the next pushes must find room, not a full memory */
  for (int i = 0; i < 10; i++)
    {
      LogQueueItem it = { _msg(pushed + i, 10000), false };
      cr_assert_eq(log_queue_push_batch(q, &it, 1), 0, "push %d dropped", i);
    }
  _pop_expect(q, 20, kept - 20);
  _pop_expect(q, pushed, 10);
  log_queue_free(q);
}

Test(logqueue_disk, damaged_files_never_crash_and_keep_order)
{
  DiskBufferOptions o = _opts(true, 0);
  LogQueue *q = _open(&o);
  _push_range(q, 0, 50, 1000);
  log_queue_free(q);
  char *path = g_build_filename(dir, "sluice-d_test_0.rqf", NULL);
  char *aside = g_strdup_printf("%s.corrupted", path);
  gchar *orig;
  gsize len;
  cr_assert(g_file_get_contents(path, &orig, &len, NULL));
  sluice_log_set_sink(NULL, NULL);
  unsigned seed = 4711;
  for (int trial = 0; trial < 150; trial++)
    {
      gchar *copy = g_malloc(len);
      memcpy(copy, orig, len);
      int flips = 1 + rand_r(&seed) % 8;
      for (int k = 0; k < flips; k++)
        {
          /* mostly the ring, now and then the header */
          size_t at = rand_r(&seed) % 10 == 0 ? (size_t) rand_r(&seed) % 96
                                               : DISKQ_HEADER_SIZE + (size_t) rand_r(&seed) % (len - DISKQ_HEADER_SIZE);
          copy[at] ^= (char) (1 + rand_r(&seed) % 255);
        }
      cr_assert(g_file_set_contents(path, copy, (gssize) len, NULL));
      g_free(copy);
      q = _open(&o);
      int last = -1;
      LogQueueItem out[8];
      ssize_t n;
      while ((n = log_queue_pop_batch(q, out, 8, 0)) > 0)
        {
          for (ssize_t i = 0; i < n; i++)
            {
              int v = _num(out[i].msg);
              cr_assert(v > last && v < 50, "trial %d: %d after %d", trial, v, last);
              last = v;
            }
          log_queue_ack_batch(q, out, (size_t) n);
        }
      log_queue_free(q);
      unlink(aside);
    }
  g_free(orig);
  g_free(aside);
  g_free(path);
}

Test(logqueue_disk, an_emptied_buffer_starts_again_at_the_ring_start_and_survives_sigkill)
{
  DiskBufferOptions o = _opts(true, 0);
  o.capacity = 8 * DISKQ_MIN_CAPACITY;
  o.truncate_size_ratio = "1"; /* never cut: only the rewind */
  LogQueue *q = _open(&o);
  _push_range(q, 0, 200, 10000); /* about 2 MiB into the ring */
  _pop_expect(q, 0, 200);
  log_queue_free(q);
  char *path = g_build_filename(dir, "sluice-d_test_0.rqf", NULL);
  char *error = NULL;
  DiskQFile *f = diskq_file_open_ro(path, &error);
  cr_assert_not_null(f, "%s", error);
  uint64_t ring = diskq_file_header(f)->capacity - DISKQ_HEADER_SIZE;
  cr_assert_eq(diskq_file_header(f)->head % ring, 0, "not rewound: head %llu",
               (unsigned long long) diskq_file_header(f)->head);
  diskq_file_close(f);
  _in_killed_child(&o, 30, 10, 5, 10000);
  q = _open(&o);
  cr_assert_eq(_length(q), 25);
  _pop_expect(q, 5, 25);
  log_queue_free(q);
  g_free(path);
}

/* A buffer file as version 1 wrote it: the header, then count records
 * whose checksum covers the length and sequence number first. */
static char *
_write_v1_file(int count)
{
  char *path = g_build_filename(dir, "sluice-d_test_0.rqf", NULL);
  GByteArray *ring = g_byte_array_new();
  for (int i = 0; i < count; i++)
    {
      LogMsg *m = _msg(i, 10);
      size_t len = log_msg_serialized_size(m);
      uint8_t *rec = g_malloc0(diskq_rec_size((uint32_t) len, 1));
      log_msg_serialize(m, rec + DISKQ_REC_HDR_V1);
      diskq_rec_hdr_encode(rec, (uint32_t) len, (uint64_t) i, rec + DISKQ_REC_HDR_V1, 1);
      g_byte_array_append(ring, rec, (guint) diskq_rec_size((uint32_t) len, 1));
      g_free(rec);
      log_msg_unref(m);
    }
  DiskQHeader h = { .version = 1, .flags = DISKQ_F_RELIABLE, .capacity = DISKQ_MIN_CAPACITY,
                    .tail = ring->len, .tail_seq = (uint64_t) count };
  uint8_t file[DISKQ_HEADER_SIZE] = { 0 };
  diskq_header_encode(&h, file);
  FILE *fp = fopen(path, "wb");
  cr_assert_not_null(fp);
  cr_assert_eq(fwrite(file, 1, sizeof(file), fp), sizeof(file));
  cr_assert_eq(fwrite(ring->data, 1, ring->len, fp), ring->len);
  fclose(fp);
  g_byte_array_free(ring, TRUE);
  return path;
}

static uint32_t
_file_version(const char *path)
{
  char *error = NULL;
  DiskQFile *f = diskq_file_open_ro(path, &error);
  cr_assert_not_null(f, "%s", error);
  uint32_t v = diskq_file_header(f)->version;
  diskq_file_close(f);
  return v;
}

Test(logqueue_disk, a_version_1_file_is_read_and_written_as_the_current_version_once_emptied)
{
  char *path = _write_v1_file(5);
  DiskBufferOptions o = _opts(true, 0);
  LogQueue *q = _open(&o);
  cr_assert_eq(_length(q), 5);
  _push_range(q, 5, 8, 10); /* appended in the file's own format */
  log_queue_free(q);
  cr_assert_eq(_file_version(path), 1);
  q = _open(&o);
  cr_assert_eq(_length(q), 8);
  _pop_expect(q, 0, 8);
  cr_assert_eq(_file_version(path), DISKQ_VERSION, "the emptied file kept version 1");
  _push_range(q, 8, 12, 10);
  log_queue_free(q);
  q = _open(&o);
  cr_assert_eq(_length(q), 4);
  _pop_expect(q, 8, 4);
  log_queue_free(q);
  g_free(path);
}

Test(logqueue_disk, a_file_of_an_unknown_version_is_refused_by_name)
{
  char *path = _write_v1_file(1);
  FILE *fp = fopen(path, "r+b");
  cr_assert_not_null(fp);
  uint8_t hdr[DISKQ_HEADER_ENC];
  cr_assert_eq(fread(hdr, 1, sizeof(hdr), fp), sizeof(hdr));
  DiskQHeader h;
  cr_assert_null(diskq_header_decode(hdr, &h));
  h.version = DISKQ_VERSION + 1;
  diskq_header_encode(&h, hdr);
  fseek(fp, 0, SEEK_SET);
  cr_assert_eq(fwrite(hdr, 1, sizeof(hdr), fp), sizeof(hdr));
  fclose(fp);
  char *error = NULL;
  cr_assert_null(diskq_file_open_ro(path, &error));
  cr_assert(strstr(error, "unsupported disk buffer version"), "%s", error);
  g_free(error);
  g_free(path);
}

Test(logqueue_disk, records_checksummed_ahead_of_the_lock_match_the_whole_record_checksum)
{
  uint8_t payload[203];
  for (size_t i = 0; i < sizeof(payload); i++)
    payload[i] = (uint8_t) (i * 7 + 1);
  for (uint32_t v = 2; v <= DISKQ_VERSION; v++)
    {
      uint8_t one[DISKQ_REC_HDR], two[DISKQ_REC_HDR];
      diskq_rec_hdr_encode(one, sizeof(payload), 77, payload, v);
      diskq_rec_hdr_encode_crc(two, sizeof(payload), 77, diskq_crc32(0, payload, sizeof(payload)), v);
      cr_assert_eq(memcmp(one, two, diskq_rec_hdr_size(v)), 0, "version %u", v);
    }
  uint8_t one[DISKQ_REC_HDR], two[DISKQ_REC_HDR];
  diskq_rec_hdr_encode(one, sizeof(payload), 77, payload, 2);
  diskq_rec_hdr_encode(two, sizeof(payload), 77, payload, 1);
  cr_assert_neq(memcmp(one + 4, two + 4, 4), 0, "versions 1 and 2 checksum alike");
}

/* One push of messages bigger than the pushing thread keeps serialized
 * between pushes (1 MiB), then small ones: all come back, in order. */
Test(logqueue_disk, a_batch_of_big_messages_then_small_ones_keeps_order)
{
  DiskBufferOptions o = _opts(true, 4);
  o.capacity = 8 * DISKQ_MIN_CAPACITY;
  LogQueue *q = _open(&o);
  for (int round = 0; round < 2; round++)
    {
      LogQueueItem big[24];
      for (int i = 0; i < 24; i++)
        big[i] = (LogQueueItem) { _msg(round * 100 + i, 100000), false };
      cr_assert_eq(log_queue_push_batch(q, big, 24), 0);
      LogQueueItem small[8];
      for (int i = 0; i < 8; i++)
        small[i] = (LogQueueItem) { _msg(round * 100 + 24 + i, 10), false };
      cr_assert_eq(log_queue_push_batch(q, small, 8), 0);
      _pop_expect(q, round * 100, 32);
    }
  log_queue_free(q);
}

/* A source without flow control is paused (logqueue.h, congestion) only
 * once front-cache-size() messages wait in the file behind the front
 * cache, not at the first one the writer will read back, and reads on
 * once the writer has caught up. */
Test(logqueue_disk, sources_pause_once_a_front_cache_waits_behind_the_front_cache)
{
  DiskBufferOptions o = _opts(true, 10);
  LogQueue *q = _open(&o);
  log_queue_congestion_take();
  _push_range(q, 0, 19, 0); /* 10 cached, 9 in the file only */
  cr_assert_not(log_queue_congestion_take(), "paused with 9 messages behind a cache of 10");
  cr_assert_not(log_queue_congestion_persists());
  _push_range(q, 19, 20, 0);
  cr_assert(log_queue_congestion_take(), "not paused with 10 messages behind a cache of 10");
  cr_assert(log_queue_congestion_persists());
  _pop_expect(q, 0, 18);
  cr_assert(log_queue_congestion_persists(), "resumed before the writer read the file");
  _pop_expect(q, 18, 2);
  cr_assert_not(log_queue_congestion_persists(), "still paused with the queue drained");
  log_queue_free(q);
}

/* ---- damage: a bad record costs that record, not the rest -------------- */

#define DAMAGE_COUNT 2000
#define DAMAGED 1000

static GString *errors;

static void
_error_sink(SluiceLogLevel level, const char *line, void *user_data)
{
  if (level == SLUICE_LOG_ERROR)
    g_string_append_printf(errors, "%s\n", line);
}

/* DAMAGE_COUNT records in a reliable buffer's file, closed cleanly; the
 * file offset of each record and the file's end in at[] (at[DAMAGE_COUNT]).
 * Returns the file's path. */
static char *
_file_of_records(const DiskBufferOptions *o, long at[DAMAGE_COUNT + 1])
{
  LogQueue *q = _open(o);
  _push_range(q, 0, DAMAGE_COUNT, 10);
  log_queue_free(q);
  char *path = g_build_filename(dir, "sluice-d_test_0.rqf", NULL);
  FILE *fp = fopen(path, "rb");
  cr_assert_not_null(fp);
  long off = DISKQ_HEADER_SIZE;
  for (int i = 0; i <= DAMAGE_COUNT; i++)
    {
      at[i] = off;
      uint8_t hdr[DISKQ_REC_HDR];
      fseek(fp, off, SEEK_SET);
      if (i == DAMAGE_COUNT)
        break;
      cr_assert_eq(fread(hdr, 1, sizeof(hdr), fp), sizeof(hdr));
      uint32_t magic = hdr[0] | hdr[1] << 8 | hdr[2] << 16 | (uint32_t) hdr[3] << 24;
      uint32_t len = hdr[4] | hdr[5] << 8 | hdr[6] << 16 | (uint32_t) hdr[7] << 24;
      cr_assert_eq(magic, DISKQ_REC_MAGIC, "record %d has no magic", i);
      cr_assert_eq(hdr[8] | hdr[9] << 8, i, "record %d has another sequence number", i);
      off += (long) diskq_rec_size(len, DISKQ_VERSION);
    }
  fclose(fp);
  return path;
}

static void
_poke(const char *path, long off, const void *bytes, size_t len)
{
  FILE *fp = fopen(path, "r+b");
  cr_assert_not_null(fp);
  fseek(fp, off, SEEK_SET);
  cr_assert_eq(fwrite(bytes, 1, len, fp), len);
  fclose(fp);
}

static uint8_t
_peek(const char *path, long off)
{
  FILE *fp = fopen(path, "rb");
  cr_assert_not_null(fp);
  fseek(fp, off, SEEK_SET);
  int c = fgetc(fp);
  fclose(fp);
  cr_assert_neq(c, EOF);
  return (uint8_t) c;
}

static void
_flip(const char *path, long off)
{
  uint8_t c = _peek(path, off) ^ 0x01;
  _poke(path, off, &c, 1);
}

/* Open the buffer and pop everything: exactly the messages not in
 * [lost_from, lost_to) come back, in order; the load logged an error that
 * says how many records and bytes were lost at which offset, and counted
 * them as dropped. */
static void
_reopen_expect(const DiskBufferOptions *o, int lost_from, int lost_to, long lost_off, long lost_bytes)
{
  errors = g_string_new(NULL);
  sluice_log_set_sink(_error_sink, NULL);
  LogQueue *q = _open(o);
  sluice_log_set_sink(NULL, NULL);
  int lost = lost_to - lost_from;
  char *want = g_strdup_printf("offset='%ld', seq='%d', lost_records='%d', lost_bytes='%ld'", lost_off, lost_from,
                               lost, lost_bytes);
  cr_assert(strstr(errors->str, want), "wanted %s in the errors logged:\n%s", want, errors->str);
  g_free(want);
  LogQueueStats st;
  log_queue_get_stats(q, &st);
  cr_assert_eq(st.length, (uint64_t) (DAMAGE_COUNT - lost));
  cr_assert_eq(st.dropped, (uint64_t) lost);
  int next = 0, got = 0;
  LogQueueItem out[64];
  ssize_t n;
  while ((n = log_queue_pop_batch(q, out, 64, 0)) > 0)
    {
      for (ssize_t i = 0; i < n; i++)
        {
          if (next == lost_from)
            next = lost_to;
          cr_assert_eq(_num(out[i].msg), next, "message %d where %d was due", _num(out[i].msg), next);
          next++;
          got++;
        }
      log_queue_ack_batch(q, out, (size_t) n);
    }
  cr_assert_eq(got, DAMAGE_COUNT - lost);
  log_queue_get_stats(q, &st);
  cr_assert_eq(st.dropped, (uint64_t) lost, "the loss was counted again when read back");
  log_queue_free(q);
  g_string_free(errors, TRUE);
  /* all acked: the damage left with them */
  q = _open(o);
  cr_assert_eq(_length(q), 0);
  log_queue_free(q);
}

typedef struct Seen
{
  uint64_t records, lost, lost_bytes, stretches, offset;
} Seen;

static void
_seen(const char *section, uint64_t seq, uint32_t size, LogMsg *msg, const char *error, void *user_data)
{
  Seen *s = user_data;
  cr_assert_not_null(msg, "%s", error);
  s->records++;
}

static void
_seen_loss(const char *section, uint64_t offset, uint64_t seq, uint64_t records, uint64_t bytes, void *user_data)
{
  Seen *s = user_data;
  if (!s->stretches++)
    s->offset = offset;
  s->lost += records;
  s->lost_bytes += bytes;
}

/* What sluice-dqtool sees (diskq_file_foreach). */
static Seen
_inspect(const char *path)
{
  char *error = NULL;
  DiskQFile *f = diskq_file_open_ro(path, &error);
  cr_assert_not_null(f, "%s", error);
  Seen s = { 0 };
  diskq_file_foreach(f, _seen, _seen_loss, &s);
  diskq_file_close(f);
  return s;
}

static void
_inspect_expect(const char *path, int lost, long lost_off, long lost_bytes)
{
  Seen s = _inspect(path);
  cr_assert_eq(s.records, (uint64_t) (DAMAGE_COUNT - lost));
  cr_assert_eq(s.stretches, 1);
  cr_assert_eq(s.lost, (uint64_t) lost);
  cr_assert_eq(s.offset, (uint64_t) lost_off);
  cr_assert_eq(s.lost_bytes, (uint64_t) lost_bytes);
}

Test(logqueue_disk, a_flipped_sequence_number_costs_that_record_only)
{
  DiskBufferOptions o = _opts(true, 0);
  long at[DAMAGE_COUNT + 1];
  char *path = _file_of_records(&o, at);
  _flip(path, at[DAMAGED] + 8);
  _inspect_expect(path, 1, at[DAMAGED], at[DAMAGED + 1] - at[DAMAGED]);
  _reopen_expect(&o, DAMAGED, DAMAGED + 1, at[DAMAGED], at[DAMAGED + 1] - at[DAMAGED]);
  g_free(path);
}

Test(logqueue_disk, a_flipped_payload_byte_costs_that_record_only)
{
  DiskBufferOptions o = _opts(true, 0);
  long at[DAMAGE_COUNT + 1];
  char *path = _file_of_records(&o, at);
  _flip(path, at[DAMAGED] + DISKQ_REC_HDR + 30);
  _inspect_expect(path, 1, at[DAMAGED], at[DAMAGED + 1] - at[DAMAGED]);
  _reopen_expect(&o, DAMAGED, DAMAGED + 1, at[DAMAGED], at[DAMAGED + 1] - at[DAMAGED]);
  g_free(path);
}

Test(logqueue_disk, garbage_over_several_records_costs_those_records_only)
{
  DiskBufferOptions o = _opts(true, 0);
  long at[DAMAGE_COUNT + 1];
  char *path = _file_of_records(&o, at);
  /* from inside record DAMAGED's header to inside record DAMAGED + 4's payload */
  long from = at[DAMAGED] + 5, to = at[DAMAGED + 4] + DISKQ_REC_HDR + 9;
  uint8_t junk[4096];
  cr_assert_lt(to - from, (long) sizeof(junk));
  unsigned seed = 99;
  for (size_t i = 0; i < sizeof(junk); i++)
    junk[i] = (uint8_t) rand_r(&seed);
  _poke(path, from, junk, (size_t) (to - from));
  _inspect_expect(path, 5, at[DAMAGED], at[DAMAGED + 5] - at[DAMAGED]);
  _reopen_expect(&o, DAMAGED, DAMAGED + 5, at[DAMAGED], at[DAMAGED + 5] - at[DAMAGED]);
  g_free(path);
}

Test(logqueue_disk, a_file_cut_short_mid_record_keeps_everything_before)
{
  DiskBufferOptions o = _opts(true, 0);
  long at[DAMAGE_COUNT + 1];
  char *path = _file_of_records(&o, at);
  cr_assert_eq(truncate(path, at[DAMAGED] + DISKQ_REC_HDR + 20), 0);
  /* the header says where the records ended: the ones cut off are known */
  _inspect_expect(path, DAMAGE_COUNT - DAMAGED, at[DAMAGED], at[DAMAGE_COUNT] - at[DAMAGED]);
  _reopen_expect(&o, DAMAGED, DAMAGE_COUNT, at[DAMAGED], at[DAMAGE_COUNT] - at[DAMAGED]);
  g_free(path);
}

static void
_rewrite_header(const char *path, void (*edit)(DiskQHeader *h, const long *at), const long *at)
{
  uint8_t buf[DISKQ_HEADER_ENC];
  FILE *fp = fopen(path, "r+b");
  cr_assert_not_null(fp);
  cr_assert_eq(fread(buf, 1, sizeof(buf), fp), sizeof(buf));
  DiskQHeader h;
  cr_assert_null(diskq_header_decode(buf, &h));
  edit(&h, at);
  diskq_header_encode(&h, buf);
  fseek(fp, 0, SEEK_SET);
  cr_assert_eq(fwrite(buf, 1, sizeof(buf), fp), sizeof(buf));
  fclose(fp);
}

/* As a SIGKILL leaves it: the header written at an ack with 500 records in
 * the file, the rest written after it. */
static void
_unclean_at_500(DiskQHeader *h, const long *at)
{
  cr_assert(h->flags & DISKQ_F_CLEAN, "a clean stop did not say so");
  h->flags &= ~DISKQ_F_CLEAN;
  h->tail = (uint64_t) (at[500] - DISKQ_HEADER_SIZE);
  h->tail_seq = 500;
}

Test(logqueue_disk, after_an_unclean_stop_damage_past_the_headers_tail_costs_that_record_only)
{
  DiskBufferOptions o = _opts(true, 0);
  long at[DAMAGE_COUNT + 1];
  char *path = _file_of_records(&o, at);
  _rewrite_header(path, _unclean_at_500, at);
  _flip(path, at[DAMAGED] + 8);
  _inspect_expect(path, 1, at[DAMAGED], at[DAMAGED + 1] - at[DAMAGED]);
  _reopen_expect(&o, DAMAGED, DAMAGED + 1, at[DAMAGED], at[DAMAGED + 1] - at[DAMAGED]);
  g_free(path);
}

Test(logqueue_disk, after_an_unclean_stop_a_record_cut_short_ends_the_buffer_there)
{
  DiskBufferOptions o = _opts(true, 0);
  long at[DAMAGE_COUNT + 1];
  char *path = _file_of_records(&o, at);
  _rewrite_header(path, _unclean_at_500, at);
  cr_assert_eq(truncate(path, at[1500] + DISKQ_REC_HDR + 20), 0);
  Seen s = _inspect(path);
  cr_assert_eq(s.records, 1500);
  cr_assert_eq(s.lost, 0, "records after the header's tail are not known to exist");
  LogQueue *q = _open(&o);
  cr_assert_eq(_length(q), 1500);
  _pop_expect(q, 0, 1500);
  _push_range(q, 1500, 1510, 10); /* written where the cut record was */
  log_queue_free(q);
  q = _open(&o);
  cr_assert_eq(_length(q), 10);
  _pop_expect(q, 1500, 10);
  log_queue_free(q);
  g_free(path);
}

/* Damage found when the writer reads records back, not when loading. */
Test(logqueue_disk, damage_met_reading_back_costs_that_record_only)
{
  DiskBufferOptions o = _opts(true, 0);
  long at[DAMAGE_COUNT + 1];
  char *path = _file_of_records(&o, at);
  unlink(path);
  LogQueue *q = _open(&o);
  _push_range(q, 0, DAMAGE_COUNT, 10); /* the same records again */
  _flip(path, at[DAMAGED] + 8);
  errors = g_string_new(NULL);
  sluice_log_set_sink(_error_sink, NULL);
  int next = 0;
  LogQueueItem out[64];
  ssize_t n;
  while ((n = log_queue_pop_batch(q, out, 64, 0)) > 0)
    {
      for (ssize_t i = 0; i < n; i++)
        {
          if (next == DAMAGED)
            next++;
          cr_assert_eq(_num(out[i].msg), next);
          next++;
        }
      log_queue_ack_batch(q, out, (size_t) n);
    }
  sluice_log_set_sink(NULL, NULL);
  cr_assert_eq(next, DAMAGE_COUNT);
  char *want = g_strdup_printf("offset='%ld', seq='%d', lost_records='1', lost_bytes='%ld'", at[DAMAGED], DAMAGED,
                               at[DAMAGED + 1] - at[DAMAGED]);
  cr_assert(strstr(errors->str, want), "wanted %s in:\n%s", want, errors->str);
  g_free(want);
  LogQueueStats st;
  log_queue_get_stats(q, &st);
  cr_assert_eq(st.dropped, 1);
  cr_assert_eq(st.length, 0);
  log_queue_free(q);
  g_string_free(errors, TRUE);
  g_free(path);
}

Test(logqueue_disk, a_damaged_version_1_file_loses_only_the_damaged_record)
{
  char *path = g_build_filename(dir, "sluice-d_test_0.rqf", NULL);
  g_free(_write_v1_file(DAMAGE_COUNT));
  long at[DAMAGE_COUNT + 1];
  FILE *fp = fopen(path, "rb");
  cr_assert_not_null(fp);
  long off = DISKQ_HEADER_SIZE;
  for (int i = 0; i <= DAMAGE_COUNT; i++)
    {
      at[i] = off;
      uint8_t hdr[DISKQ_REC_HDR_V1];
      fseek(fp, off, SEEK_SET);
      if (i < DAMAGE_COUNT && fread(hdr, 1, sizeof(hdr), fp) == sizeof(hdr))
        off += (long) diskq_rec_size(hdr[0] | hdr[1] << 8 | hdr[2] << 16 | (uint32_t) hdr[3] << 24, 1);
    }
  fclose(fp);
  _flip(path, at[DAMAGED] + 8);
  _inspect_expect(path, 1, at[DAMAGED], at[DAMAGED + 1] - at[DAMAGED]);
  DiskBufferOptions o = _opts(true, 0);
  _reopen_expect(&o, DAMAGED, DAMAGED + 1, at[DAMAGED], at[DAMAGED + 1] - at[DAMAGED]);
  g_free(path);
}

/* A length field of 4 GB (in a header that checks out) allocates nothing
 * near it: the reader knows the file is smaller. */
static void
_huge_ring(DiskQHeader *h, const long *at)
{
  h->capacity = UINT64_C(1) << 40;
}

Test(logqueue_disk, a_huge_record_length_allocates_nothing_and_costs_that_record_only)
{
  DiskBufferOptions o = _opts(true, 0);
  long at[DAMAGE_COUNT + 1];
  char *path = _file_of_records(&o, at);
  _rewrite_header(path, _huge_ring, at);
  uint8_t hdr[DISKQ_REC_HDR];
  diskq_rec_hdr_encode_crc(hdr, 0xfffffff0u, DAMAGED, 0, DISKQ_VERSION);
  _poke(path, at[DAMAGED], hdr, sizeof(hdr));

  int fd = open(path, O_RDONLY);
  cr_assert_geq(fd, 0);
  DiskQReader r;
  diskq_reader_init(&r, fd);
  cr_assert_null(diskq_reader_get(&r, (uint64_t) at[DAMAGED] + DISKQ_REC_HDR, 0xfffffff0u));
  cr_assert_lt(r.cap, 1024 * 1024, "the reader took %zu bytes for a record the file cannot hold", r.cap);
  diskq_reader_destroy(&r);
  close(fd);

  _inspect_expect(path, 1, at[DAMAGED], at[DAMAGED + 1] - at[DAMAGED]);
  o.capacity = (int64_t) (UINT64_C(1) << 40);
  _reopen_expect(&o, DAMAGED, DAMAGED + 1, at[DAMAGED], at[DAMAGED + 1] - at[DAMAGED]);
  g_free(path);
}

/* The saved front cache of a reliable(no) buffer is read back the same
 * way: a damaged record there costs that record only. */
Test(logqueue_disk, damage_in_the_saved_front_cache_costs_that_record_only)
{
  DiskBufferOptions o = _opts(false, DAMAGE_COUNT);
  LogQueue *q = _open(&o);
  _push_range(q, 0, DAMAGE_COUNT, 10); /* all in memory, saved after the ring on the stop */
  log_queue_free(q);
  char *path = g_build_filename(dir, "sluice-d_test_0.qf", NULL);
  long at[DAMAGE_COUNT + 1];
  FILE *fp = fopen(path, "rb");
  cr_assert_not_null(fp);
  long off = DISKQ_MIN_CAPACITY;
  for (int i = 0; i <= DAMAGE_COUNT; i++)
    {
      at[i] = off;
      uint8_t hdr[DISKQ_REC_HDR];
      fseek(fp, off, SEEK_SET);
      if (i < DAMAGE_COUNT)
        {
          cr_assert_eq(fread(hdr, 1, sizeof(hdr), fp), sizeof(hdr));
          off += (long) diskq_rec_size(hdr[4] | hdr[5] << 8 | hdr[6] << 16 | (uint32_t) hdr[7] << 24, DISKQ_VERSION);
        }
    }
  fclose(fp);
  _flip(path, at[DAMAGED] + 8);
  Seen s = _inspect(path);
  cr_assert_eq(s.records, DAMAGE_COUNT - 1);
  cr_assert_eq(s.lost, 1);
  cr_assert_eq(s.offset, (uint64_t) at[DAMAGED]);
  _reopen_expect(&o, DAMAGED, DAMAGED + 1, at[DAMAGED], at[DAMAGED + 1] - at[DAMAGED]);
  g_free(path);
}
