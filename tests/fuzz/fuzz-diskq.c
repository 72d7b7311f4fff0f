/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: a disk buffer file (include/sluice/logqueue-disk.h)
 * read every way Sluice reads one: by sluice-dqtool's walk
 * (diskq_file_foreach) and by the disk queue, which loads it, hands out
 * every message and takes the acks, then saves.  Whatever the file says,
 * nothing may crash, read out of bounds or allocate more than the file
 * could hold (libFuzzer's -malloc_limit_mb catches a record length of
 * 4 GB taken at its word).
 *
 * Input: one byte of options, then the file's header (the 96 bytes it
 * writes), then the ring from its start (what follows the 4096-byte
 * header block), the saved sections after it when the header's capacity
 * is small enough.  Checksums would stop almost every mutation at the
 * first check, so the options byte asks for some to be put right:
 *   1  the file header's checksum
 *   2  each record header's checksum (wherever a record magic is)
 *   4  each such record's payload checksum (where the payload is there)
 *   8  the queue is opened as reliable(yes) (else no)
 */
#include "queue/diskq-internal.h"
#include "sluice/internal-log.h"
#include "sluice/logqueue-disk.h"

#include <fcntl.h>
#include <glib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *dir;

static uint32_t
_le32(const uint8_t *p)
{
  return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 | (uint32_t) p[3] << 24;
}

static void
_put32(uint8_t *p, uint32_t v)
{
  for (int i = 0; i < 4; i++)
    p[i] = (uint8_t) (v >> (8 * i));
}

static void
_fix_records(uint8_t *file, size_t len, bool payloads)
{
  for (size_t o = DISKQ_HEADER_SIZE; o + DISKQ_REC_HDR <= len; o += 8)
    {
      uint8_t *r = file + o;
      if (_le32(r) != DISKQ_REC_MAGIC)
        continue;
      uint32_t plen = _le32(r + 4);
      if (payloads && plen != DISKQ_SKIP && plen <= len - o - DISKQ_REC_HDR)
        _put32(r + 16, diskq_crc32(0, r + DISKQ_REC_HDR, plen));
      _put32(r + 20, diskq_crc32(0, r, 20));
    }
}

static void
_record(const char *section, uint64_t seq, uint32_t size, LogMsg *msg, const char *error, void *user_data)
{
  if (!msg && !error)
    abort();
  (*(uint64_t *) user_data)++;
}

static void
_loss(const char *section, uint64_t offset, uint64_t seq, uint64_t records, uint64_t bytes, void *user_data)
{
  if (!records && !bytes)
    abort(); /* reported nothing */
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (size < 1 + DISKQ_HEADER_ENC)
    return 0;
  if (!dir)
    {
      sluice_log_set_stderr(false, SLUICE_LOG_ERROR);
      dir = g_dir_make_tmp("fuzz-diskq-XXXXXX", NULL);
      if (!dir)
        abort();
    }
  uint8_t opts = data[0];
  size_t ring = size - 1 - DISKQ_HEADER_ENC;
  size_t len = DISKQ_HEADER_SIZE + ring;
  uint8_t *file = calloc(1, len);
  if (!file)
    abort();
  memcpy(file, data + 1, DISKQ_HEADER_ENC);
  memcpy(file + DISKQ_HEADER_SIZE, data + 1 + DISKQ_HEADER_ENC, ring);
  if (opts & 2)
    _fix_records(file, len, opts & 4);
  if (opts & 1)
    _put32(file + DISKQ_HEADER_ENC - 4, diskq_crc32(0, file, DISKQ_HEADER_ENC - 4));

  bool reliable = opts & 8;
  char *path = g_build_filename(dir, reliable ? "sluice-fz.rqf" : "sluice-fz.qf", NULL);
  char *aside = g_strdup_printf("%s.corrupted", path);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0 || write(fd, file, len) != (ssize_t) len) /* no fsync: g_file_set_contents() would */
    abort();
  close(fd);
  free(file);

  char *error = NULL;
  DiskQFile *f = diskq_file_open_ro(path, &error);
  if (f)
    {
      uint64_t n = 0;
      if (diskq_file_foreach(f, _record, _loss, &n) != n)
        abort();
      diskq_file_close(f);
    }
  else
    g_free(error);

  DiskBufferOptions o = { .enabled = true, .reliable = reliable, .capacity = DISKQ_MIN_CAPACITY,
                          .mem_buf_size = -1, .mem_buf_length = -1, .qout_size = opts >> 4, .dir = dir };
  LogQueue *q = log_queue_new_disk(&o, "fz");
  error = NULL;
  if (log_queue_open(q, &error))
    {
      LogQueueItem out[64];
      ssize_t got;
      while ((got = log_queue_pop_batch(q, out, 64, 0)) > 0)
        log_queue_ack_batch(q, out, (size_t) got);
      LogQueueStats st;
      log_queue_get_stats(q, &st);
      if (st.length != 0)
        abort(); /* what was counted in was handed out or dropped */
    }
  g_free(error);
  log_queue_free(q);
  unlink(path);
  unlink(aside);
  g_free(path);
  g_free(aside);
  return 0;
}
