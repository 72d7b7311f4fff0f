/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: the persist file (include/sluice/persist.h).  The
 * input is put at the store's path and opened; whatever it holds, the
 * open must not crash, read out of bounds or allocate more than the file
 * could hold (libFuzzer's -malloc_limit_mb catches a length taken at its
 * word), and what it loads must come back the same after a commit and a
 * second open, which must find a good file.
 *
 * Input: one byte of options, then the file.  Checksums would stop almost
 * every mutation at the first check, so the options byte asks for some to
 * be put right:
 *   1  the header's checksum
 *   2  each record's checksum, following the record lengths as far as the
 *      file goes
 */
#include "queue/diskq-internal.h"
#include "runtime/persist-internal.h"
#include "sluice/internal-log.h"
#include "sluice/persist.h"

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
_fix(uint8_t *file, size_t len, uint8_t opts)
{
  if (len < PERSIST_HEADER_SIZE)
    return;
  if (opts & 1)
    _put32(file + 20, diskq_crc32(0, file, 20));
  if (!(opts & 2))
    return;
  uint32_t crc = _le32(file + 20);
  size_t o = PERSIST_HEADER_SIZE;
  while (o + PERSIST_REC_HDR <= len)
    {
      uint64_t body = (uint64_t) _le32(file + o) + _le32(file + o + 4);
      if (PERSIST_REC_HDR + body + PERSIST_REC_CRC > len - o)
        break;
      crc = diskq_crc32(crc, file + o, PERSIST_REC_HDR + (size_t) body);
      _put32(file + o + PERSIST_REC_HDR + body, crc);
      o += PERSIST_REC_HDR + (size_t) body + PERSIST_REC_CRC;
    }
}

static bool
_collect(const char *key, const void *val, size_t len, void *user_data)
{
  GString *all = user_data;
  /* the key's NUL separates it from its value, the length from the next */
  g_string_append_len(all, key, (gssize) strlen(key) + 1);
  g_string_append_printf(all, "%zu:", len);
  g_string_append_len(all, val, (gssize) len);
  return true;
}

static GString *
_contents(PersistStore *s)
{
  GString *all = g_string_new(NULL);
  persist_store_foreach(s, NULL, _collect, all);
  return all;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (size < 1)
    return 0;
  if (!dir)
    {
      sluice_log_set_stderr(false, SLUICE_LOG_ERROR);
      sluice_log_set_rate_limit(0);
      dir = g_dir_make_tmp("fuzz-persist-XXXXXX", NULL);
      if (!dir)
        abort();
    }
  size_t len = size - 1;
  uint8_t *file = malloc(len ? len : 1);
  if (!file)
    abort();
  memcpy(file, data + 1, len);
  _fix(file, len, data[0]);

  char *path = g_build_filename(dir, "sluice.persist", NULL);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0 || write(fd, file, len) != (ssize_t) len)
    abort();
  close(fd);
  free(file);

  char *error = NULL;
  PersistStore *s = persist_store_open(path, &error);
  if (!s)
    abort(); /* the directory is ours: only the file can be wrong */
  if (!persist_store_load_error(s) != !persist_store_moved_to(s))
    abort(); /* a damaged file is moved aside, a good one stays */
  if (persist_store_moved_to(s) && unlink(persist_store_moved_to(s)) != 0)
    abort();
  GString *before = _contents(s);
  size_t n = persist_store_count(s);

  /* a change and its undoing: the commit writes what was loaded */
  if (!persist_store_set(s, "\x01sluice-fuzz", "x", 1))
    abort();
  persist_store_remove(s, "\x01sluice-fuzz");
  if (!persist_store_commit(s, &error))
    abort();
  persist_store_free(s);

  s = persist_store_open(path, &error);
  if (!s || persist_store_load_error(s) || persist_store_count(s) != n)
    abort();
  GString *after = _contents(s);
  if (!g_string_equal(before, after))
    abort();
  persist_store_free(s);
  g_string_free(before, TRUE);
  g_string_free(after, TRUE);
  unlink(path);
  g_free(path);
  return 0;
}
