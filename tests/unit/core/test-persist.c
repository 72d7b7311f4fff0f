/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The persist store (sluice/persist.h): get/set/remove, commits, and every
 * way a file at the path can be wrong: each must load as empty or as the
 * records before the damage, with the file kept aside. */
#include "queue/diskq-internal.h"
#include "runtime/persist-internal.h"
#include "sluice/internal-log.h"
#include "sluice/persist.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *dir, *path;

static void
_rm_rf(const char *p)
{
  struct stat st;
  if (lstat(p, &st) != 0)
    return;
  if (S_ISDIR(st.st_mode))
    {
      GDir *d = g_dir_open(p, 0, NULL);
      const char *name;
      while (d && (name = g_dir_read_name(d)))
        {
          char *c = g_build_filename(p, name, NULL);
          _rm_rf(c);
          g_free(c);
        }
      if (d)
        g_dir_close(d);
      rmdir(p);
    }
  else
    unlink(p);
}

static void
_setup(void)
{
  dir = g_dir_make_tmp("persist-XXXXXX", NULL);
  cr_assert_not_null(dir);
  path = g_build_filename(dir, "sluice.persist", NULL);
  sluice_log_set_stderr(false, SLUICE_LOG_DEBUG);
}

static void
_teardown(void)
{
  _rm_rf(dir);
  g_free(path);
  g_free(dir);
}

TestSuite(persist, .init = _setup, .fini = _teardown);

static PersistStore *
_open(void)
{
  char *error = NULL;
  PersistStore *s = persist_store_open(path, &error);
  cr_assert_not_null(s, "open failed: %s", error);
  return s;
}

static void
_commit(PersistStore *s)
{
  char *error = NULL;
  cr_assert(persist_store_commit(s, &error), "commit failed: %s", error);
  cr_assert_not(persist_store_dirty(s));
}

static bool
_exists(const char *p)
{
  struct stat st;
  return lstat(p, &st) == 0;
}

/* The value of key as a string ("" when it is not there: see _has). */
static char *
_get(PersistStore *s, const char *key)
{
  static char buf[PERSIST_MAX_VALUE + 1];
  size_t len = PERSIST_MAX_VALUE;
  if (!persist_store_get(s, key, buf, &len))
    return NULL;
  buf[len] = '\0';
  return buf;
}

static void
_set(PersistStore *s, const char *key, const char *val)
{
  cr_assert(persist_store_set(s, key, val, strlen(val)), "set %s refused", key);
}

static void
_write(const char *p, const void *data, size_t len)
{
  GError *gerr = NULL;
  cr_assert(g_file_set_contents(p, data, (gssize) len, &gerr), "%s", gerr ? gerr->message : "");
}

static GBytes *
_read(const char *p)
{
  char *data;
  gsize len;
  cr_assert(g_file_get_contents(p, &data, &len, NULL), "cannot read %s", p);
  return g_bytes_new_take(data, len);
}

/* ---- the API -------------------------------------------------------------- */

Test(persist, missing_file_is_empty_and_nothing_is_written_until_a_change)
{
  PersistStore *s = _open();
  cr_assert_eq(persist_store_count(s), 0);
  cr_assert_null(persist_store_load_error(s));
  cr_assert_not(persist_store_dirty(s));
  _commit(s);
  cr_assert_not(_exists(path), "a commit without a change wrote the file");
  cr_assert_null(_get(s, "file:/nope"));
  persist_store_free(s);
  cr_assert_not(_exists(path));
}

Test(persist, round_trip)
{
  PersistStore *s = _open();
  _set(s, "file:/var/log/app.log", "position 1");
  _set(s, "k", "");
  static const char bin[] = { 0, 1, 2, 0, (char) 0xff };
  cr_assert(persist_store_set(s, "binary", bin, sizeof(bin)));
  cr_assert(persist_store_dirty(s));
  _commit(s);
  cr_assert(_exists(path));
  persist_store_free(s);

  s = _open();
  cr_assert_null(persist_store_load_error(s));
  cr_assert_not(persist_store_dirty(s));
  cr_assert_eq(persist_store_count(s), 3);
  cr_assert_str_eq(_get(s, "file:/var/log/app.log"), "position 1");
  cr_assert_str_eq(_get(s, "k"), "");
  char buf[16];
  size_t len = sizeof(buf);
  cr_assert(persist_store_get(s, "binary", buf, &len));
  cr_assert_eq(len, sizeof(bin));
  cr_assert_eq(memcmp(buf, bin, len), 0);
  persist_store_free(s);
}

Test(persist, overwrite_with_same_shorter_and_longer_values)
{
  PersistStore *s = _open();
  _set(s, "a", "12345");
  _commit(s);
  _set(s, "a", "12345");
  cr_assert_not(persist_store_dirty(s), "the same value is not a change");
  _set(s, "a", "abcde");
  cr_assert(persist_store_dirty(s));
  cr_assert_str_eq(_get(s, "a"), "abcde");
  _set(s, "a", "xy");
  cr_assert_str_eq(_get(s, "a"), "xy");
  _set(s, "a", "a much longer value than the first one");
  cr_assert_str_eq(_get(s, "a"), "a much longer value than the first one");
  _set(s, "a", "xyz");
  _commit(s);
  persist_store_free(s);
  s = _open();
  cr_assert_eq(persist_store_count(s), 1);
  cr_assert_str_eq(_get(s, "a"), "xyz");
  persist_store_free(s);
}

Test(persist, remove)
{
  PersistStore *s = _open();
  _set(s, "a", "1");
  _set(s, "b", "2");
  _commit(s);
  persist_store_remove(s, "nope");
  cr_assert_not(persist_store_dirty(s));
  persist_store_remove(s, "a");
  cr_assert(persist_store_dirty(s));
  cr_assert_null(_get(s, "a"));
  _commit(s);
  persist_store_free(s);
  s = _open();
  cr_assert_eq(persist_store_count(s), 1);
  cr_assert_null(_get(s, "a"));
  cr_assert_str_eq(_get(s, "b"), "2");
  /* the last key gone: an empty file, not the old one */
  persist_store_remove(s, "b");
  _commit(s);
  persist_store_free(s);
  s = _open();
  cr_assert_null(persist_store_load_error(s));
  cr_assert_eq(persist_store_count(s), 0);
  persist_store_free(s);
}

Test(persist, get_with_a_small_buffer)
{
  PersistStore *s = _open();
  _set(s, "a", "0123456789");
  char buf[4];
  size_t len = sizeof(buf);
  cr_assert_not(persist_store_get(s, "a", buf, &len));
  cr_assert_eq(len, 10, "the length it needs");
  len = sizeof(buf);
  cr_assert_not(persist_store_get(s, "b", buf, &len));
  cr_assert_eq(len, 0);
  persist_store_free(s);
}

Test(persist, bounds_on_set)
{
  PersistStore *s = _open();
  char *key = g_strnfill(PERSIST_MAX_KEY + 1, 'k');
  char *val = g_strnfill(PERSIST_MAX_VALUE + 1, 'v');
  cr_assert_not(persist_store_set(s, "", "x", 1));
  cr_assert_not(persist_store_set(s, key, "x", 1));
  cr_assert_not(persist_store_set(s, "k", val, PERSIST_MAX_VALUE + 1));
  cr_assert_eq(persist_store_count(s), 0);
  cr_assert_not(persist_store_dirty(s));
  key[PERSIST_MAX_KEY] = '\0';
  cr_assert(persist_store_set(s, key, val, PERSIST_MAX_VALUE));
  _commit(s);
  persist_store_free(s);
  s = _open();
  cr_assert_null(persist_store_load_error(s));
  char *got = _get(s, key);
  cr_assert_not_null(got);
  cr_assert_eq(strlen(got), PERSIST_MAX_VALUE);
  persist_store_free(s);
  g_free(key);
  g_free(val);
}

typedef struct Seen
{
  GPtrArray *keys;
  int stop_after;
} Seen;

static bool
_collect(const char *key, const void *val, size_t len, void *user_data)
{
  Seen *seen = user_data;
  g_ptr_array_add(seen->keys, g_strdup(key));
  return --seen->stop_after != 0;
}

Test(persist, foreach_in_order_with_a_prefix)
{
  PersistStore *s = _open();
  static const char *const keys[] = { "filf", "file:/b", "a", "fil", "file:/a", "file:", "g" };
  for (size_t i = 0; i < G_N_ELEMENTS(keys); i++)
    _set(s, keys[i], "v");
  Seen seen = { g_ptr_array_new_with_free_func(g_free), -1 };
  persist_store_foreach(s, "file:", _collect, &seen);
  cr_assert_eq(seen.keys->len, 3);
  cr_assert_str_eq(seen.keys->pdata[0], "file:");
  cr_assert_str_eq(seen.keys->pdata[1], "file:/a");
  cr_assert_str_eq(seen.keys->pdata[2], "file:/b");
  g_ptr_array_set_size(seen.keys, 0);
  persist_store_foreach(s, NULL, _collect, &seen);
  cr_assert_eq(seen.keys->len, G_N_ELEMENTS(keys));
  cr_assert_str_eq(seen.keys->pdata[0], "a");
  g_ptr_array_set_size(seen.keys, 0);
  seen.stop_after = 2;
  persist_store_foreach(s, "", _collect, &seen);
  cr_assert_eq(seen.keys->len, 2, "stops when told");
  g_ptr_array_free(seen.keys, TRUE);
  persist_store_free(s);
}

Test(persist, many_keys)
{
  enum
  {
    N = 20000
  };
  PersistStore *s = _open();
  char key[64], val[64];
  for (int i = 0; i < N; i++)
    {
      snprintf(key, sizeof(key), "file:/var/log/hosts/h%d/messages", i);
      snprintf(val, sizeof(val), "%d:%d", i, i * 7);
      _set(s, key, val);
    }
  _commit(s);
  persist_store_free(s);
  s = _open();
  cr_assert_null(persist_store_load_error(s));
  cr_assert_eq(persist_store_count(s), N);
  for (int i = 0; i < N; i++)
    {
      snprintf(key, sizeof(key), "file:/var/log/hosts/h%d/messages", i);
      snprintf(val, sizeof(val), "%d:%d", i, i * 7);
      cr_assert_str_eq(_get(s, key), val);
    }
  persist_store_free(s);
}

typedef struct Setter
{
  PersistStore *s;
  int id;
} Setter;

static void *
_setter(void *arg)
{
  Setter *t = arg;
  char key[32], val[32];
  for (int round = 0; round < 50; round++)
    for (int i = 0; i < 200; i++)
      {
        snprintf(key, sizeof(key), "t%d:%d", t->id, i);
        snprintf(val, sizeof(val), "%d", round * (i + 1));
        if (!persist_store_set(t->s, key, val, strlen(val)))
          abort();
        if (i % 50 == 0)
          persist_store_remove(t->s, "shared");
        else if (i % 50 == 1)
          persist_store_set(t->s, "shared", val, strlen(val));
      }
  return NULL;
}

/* Sets from several threads while commits run: every commit writes a
 * file that loads whole, and the last one holds the last values. */
Test(persist, sets_from_threads_during_commits)
{
  PersistStore *s = _open();
  Setter t[4];
  pthread_t th[4];
  for (int i = 0; i < 4; i++)
    {
      t[i] = (Setter) { s, i };
      cr_assert_eq(pthread_create(&th[i], NULL, _setter, &t[i]), 0);
    }
  for (int i = 0; i < 20; i++)
    {
      char *error = NULL;
      cr_assert(persist_store_commit(s, &error), "%s", error);
    }
  for (int i = 0; i < 4; i++)
    pthread_join(th[i], NULL);
  _commit(s);
  persist_store_free(s);
  s = _open();
  cr_assert_null(persist_store_load_error(s));
  for (int id = 0; id < 4; id++)
    for (int i = 0; i < 200; i++)
      {
        char key[32], val[32];
        snprintf(key, sizeof(key), "t%d:%d", id, i);
        snprintf(val, sizeof(val), "%d", 49 * (i + 1));
        cr_assert_str_eq(_get(s, key), val);
      }
  persist_store_free(s);
}

/* ---- commits and crashes ----------------------------------------------- */

Test(persist, stray_tmp_from_a_crash_before_the_rename_leaves_the_old_file)
{
  PersistStore *s = _open();
  _set(s, "a", "old");
  _commit(s);
  persist_store_free(s);
  /* the next commit died after writing part of PATH.tmp */
  char *tmp = g_strdup_printf("%s.tmp", path);
  _write(tmp, "SLUICEPS\x01\x00\x00", 11);
  s = _open();
  cr_assert_null(persist_store_load_error(s));
  cr_assert_str_eq(_get(s, "a"), "old");
  cr_assert_not(_exists(tmp), "the unfinished write was not removed");
  persist_store_free(s);

  /* a first commit that died: no file, only the tmp */
  unlink(path);
  _write(tmp, "garbage", 7);
  s = _open();
  cr_assert_eq(persist_store_count(s), 0);
  cr_assert_null(persist_store_load_error(s));
  cr_assert_not(_exists(tmp));
  persist_store_free(s);
  g_free(tmp);
}

Test(persist, failed_commit_keeps_the_old_file_and_the_store_dirty)
{
  PersistStore *s = _open();
  _set(s, "a", "old");
  _commit(s);
  GBytes *before = _read(path);
  _set(s, "a", "new");
  /* PATH.tmp cannot be made (a directory is in its place; chmod would
   * not stop root) */
  char *tmp = g_strdup_printf("%s.tmp", path);
  cr_assert_eq(mkdir(tmp, 0700), 0);
  char *inner = g_build_filename(tmp, "x", NULL);
  _write(inner, "x", 1);
  char *error = NULL;
  cr_assert_not(persist_store_commit(s, &error));
  cr_assert_not_null(error);
  cr_assert(strstr(error, path), "the error names the file: %s", error);
  g_free(error);
  cr_assert(persist_store_dirty(s));
  GBytes *after = _read(path);
  cr_assert(g_bytes_equal(before, after), "the old file changed");
  _rm_rf(tmp);
  _commit(s);
  persist_store_free(s);
  s = _open();
  cr_assert_str_eq(_get(s, "a"), "new");
  persist_store_free(s);
  g_bytes_unref(before);
  g_bytes_unref(after);
  g_free(inner);
  g_free(tmp);
}

Test(persist, directory_that_cannot_be_written_is_refused)
{
  char *error = NULL;
  char *p = g_build_filename(dir, "missing", "sluice.persist", NULL);
  cr_assert_null(persist_store_open(p, &error));
  cr_assert_not_null(error);
  cr_assert(strstr(error, "missing") && strstr(error, "No such file"), "%s", error);
  g_free(error);
  g_free(p);

  /* the directory is a file */
  char *file = g_build_filename(dir, "plain", NULL);
  _write(file, "x", 1);
  p = g_build_filename(file, "sluice.persist", NULL);
  error = NULL;
  cr_assert_null(persist_store_open(p, &error));
  cr_assert(strstr(error, "Not a directory"), "%s", error);
  g_free(error);
  g_free(p);
  g_free(file);

  error = NULL;
  cr_assert_null(persist_store_open("", &error));
  g_free(error);

  if (geteuid() != 0)
    {
      char *ro = g_build_filename(dir, "ro", NULL);
      cr_assert_eq(mkdir(ro, 0500), 0);
      p = g_build_filename(ro, "sluice.persist", NULL);
      error = NULL;
      cr_assert_null(persist_store_open(p, &error));
      cr_assert(strstr(error, "Permission denied"), "%s", error);
      g_free(error);
      g_free(p);
      chmod(ro, 0700);
      g_free(ro);
    }
}

/* ---- damaged and foreign files ------------------------------------------ */

/* A good file of n records, the store's keys in strcmp order in *keys. */
static GBytes *
_reference(int n, GPtrArray **keys)
{
  PersistStore *s = _open();
  char key[64], val[64];
  for (int i = 0; i < n; i++)
    {
      snprintf(key, sizeof(key), "file:/var/log/f%d.log", i);
      snprintf(val, sizeof(val), "%0*d", i * 3, i); /* 0, 1, 3, ... bytes: empty values too */
      _set(s, key, i ? val : "");
    }
  _commit(s);
  Seen seen = { g_ptr_array_new_with_free_func(g_free), -1 };
  persist_store_foreach(s, NULL, _collect, &seen);
  *keys = seen.keys;
  persist_store_free(s);
  GBytes *b = _read(path);
  unlink(path);
  return b;
}

static bool
_expected(const char *key, const void *val, size_t len, void *user_data)
{
  int i = atoi(key + strlen("file:/var/log/f"));
  char want[64];
  snprintf(want, sizeof(want), "%0*d", i * 3, i);
  size_t wlen = i ? strlen(want) : 0;
  cr_assert(len == wlen && memcmp(val, want, len) == 0, "key %s has a value it was never given", key);
  return true;
}

/* Open a store on path holding data[0..len): it must load as empty or as
 * the first records of keys, with the damaged file moved aside whole.
 * Returns how many records it kept. */
static size_t
_open_damaged(const void *data, size_t len, GPtrArray *keys, const char *want_error)
{
  _write(path, data, len);
  PersistStore *s = _open();
  const char *why = persist_store_load_error(s);
  cr_assert_not_null(why, "a damaged file (%zu bytes) loaded as good", len);
  if (want_error)
    cr_assert(strstr(why, want_error), "error '%s' does not say '%s'", why, want_error);
  const char *aside = persist_store_moved_to(s);
  cr_assert_not_null(aside, "the damaged file was not moved aside");
  cr_assert_not(_exists(path));
  GBytes *kept = _read(aside);
  cr_assert_eq(g_bytes_get_size(kept), len);
  cr_assert(len == 0 || memcmp(g_bytes_get_data(kept, NULL), data, len) == 0,
            "the file aside is not the file");
  g_bytes_unref(kept);
  unlink(aside);

  size_t n = persist_store_count(s);
  Seen seen = { g_ptr_array_new_with_free_func(g_free), -1 };
  persist_store_foreach(s, NULL, _collect, &seen);
  cr_assert(keys || n == 0);
  for (size_t i = 0; i < n; i++)
    cr_assert_str_eq(seen.keys->pdata[i], keys->pdata[i], "not the records before the damage");
  g_ptr_array_free(seen.keys, TRUE);
  persist_store_foreach(s, NULL, _expected, NULL);
  /* what was kept is written again; nothing kept, nothing written */
  cr_assert_eq(persist_store_dirty(s), n > 0);
  _commit(s);
  persist_store_free(s);
  if (n > 0)
    {
      s = _open();
      cr_assert_null(persist_store_load_error(s));
      cr_assert_eq(persist_store_count(s), n);
      persist_store_free(s);
      unlink(path);
    }
  cr_assert_not(_exists(path));
  return n;
}

Test(persist, truncated_at_every_byte)
{
  GPtrArray *keys;
  GBytes *ref = _reference(5, &keys);
  size_t len;
  const uint8_t *data = g_bytes_get_data(ref, &len);
  size_t last = 0;
  for (size_t cut = 0; cut < len; cut++)
    {
      size_t n = _open_damaged(data, cut, keys, cut == 0 ? "empty" : "truncated");
      cr_assert_geq(n, last, "a longer prefix kept fewer records");
      last = n;
    }
  cr_assert_eq(last, 4, "the cut in the last record keeps the four before it");
  g_bytes_unref(ref);
  g_ptr_array_free(keys, TRUE);
}

Test(persist, every_bit_flipped)
{
  GPtrArray *keys;
  GBytes *ref = _reference(4, &keys);
  size_t len;
  const uint8_t *data = g_bytes_get_data(ref, &len);
  uint8_t *copy = g_malloc(len);
  memcpy(copy, data, len);
  for (size_t bit = 0; bit < len * 8; bit++)
    {
      copy[bit / 8] ^= (uint8_t) (1u << (bit % 8));
      size_t n = _open_damaged(copy, len, keys, NULL);
      cr_assert_lt(n, keys->len);
      copy[bit / 8] ^= (uint8_t) (1u << (bit % 8));
    }
  g_free(copy);
  g_bytes_unref(ref);
  g_ptr_array_free(keys, TRUE);
}

Test(persist, bytes_after_the_last_record)
{
  GPtrArray *keys;
  GBytes *ref = _reference(3, &keys);
  size_t len;
  const uint8_t *data = g_bytes_get_data(ref, &len);
  uint8_t *longer = g_malloc(len + 1);
  memcpy(longer, data, len);
  longer[len] = 'x';
  cr_assert_eq(_open_damaged(longer, len + 1, keys, "after the last"), 3);
  g_free(longer);
  g_bytes_unref(ref);
  g_ptr_array_free(keys, TRUE);
}

/* A header for count records, and the crc the first record continues. */
static uint32_t
_header(uint8_t *h, uint32_t version, uint32_t count)
{
  memcpy(h, PERSIST_MAGIC, PERSIST_MAGIC_LEN);
  uint32_t v[3] = { version, 0, count };
  for (int i = 0; i < 3; i++)
    for (int b = 0; b < 4; b++)
      h[8 + 4 * i + b] = (uint8_t) (v[i] >> (8 * b));
  uint32_t crc = diskq_crc32(0, h, 20);
  for (int b = 0; b < 4; b++)
    h[20 + b] = (uint8_t) (crc >> (8 * b));
  return crc;
}

/* A record with lengths klen and vlen whatever its bytes are, its crc
 * right; returns its size. */
static size_t
_record(uint8_t *p, uint32_t *crc, uint32_t klen, uint32_t vlen, const char *bytes, size_t have)
{
  for (int b = 0; b < 4; b++)
    {
      p[b] = (uint8_t) (klen >> (8 * b));
      p[4 + b] = (uint8_t) (vlen >> (8 * b));
    }
  memcpy(p + 8, bytes, have);
  *crc = diskq_crc32(*crc, p, 8 + have);
  for (int b = 0; b < 4; b++)
    p[8 + have + b] = (uint8_t) (*crc >> (8 * b));
  return 8 + have + 4;
}

Test(persist, huge_declared_lengths_and_counts)
{
  uint8_t buf[256];
  uint32_t crc = _header(buf, PERSIST_VERSION, 0xffffffffu);
  _open_damaged(buf, PERSIST_HEADER_SIZE, NULL, "declares");

  static const uint32_t lens[][2] = {
    { 0xffffffffu, 0 }, { 0x80000000u, 0 }, { 3, 0xffffffffu }, { PERSIST_MAX_KEY + 1, 0 },
    { 3, PERSIST_MAX_VALUE + 1 }, { 0, 3 },
  };
  for (size_t i = 0; i < G_N_ELEMENTS(lens); i++)
    {
      crc = _header(buf, PERSIST_VERSION, 1);
      size_t n = PERSIST_HEADER_SIZE;
      n += _record(buf + n, &crc, lens[i][0], lens[i][1], "abc", 3);
      _open_damaged(buf, n, NULL, "out of bounds");
    }
  /* lengths within the bounds that the file does not have */
  crc = _header(buf, PERSIST_VERSION, 1);
  size_t n = PERSIST_HEADER_SIZE
             + _record(buf + PERSIST_HEADER_SIZE, &crc, PERSIST_MAX_KEY, PERSIST_MAX_VALUE, "abcdef", 6);
  _open_damaged(buf, n, NULL, "truncated");
}

Test(persist, repeated_key_and_nul_in_a_key)
{
  uint8_t buf[256];
  uint32_t crc = _header(buf, PERSIST_VERSION, 2);
  size_t n = PERSIST_HEADER_SIZE;
  n += _record(buf + n, &crc, 3, 1, "abcx", 4);
  n += _record(buf + n, &crc, 3, 1, "abcy", 4);
  _write(path, buf, n);
  PersistStore *s = _open();
  cr_assert(strstr(persist_store_load_error(s), "repeated"), "%s", persist_store_load_error(s));
  cr_assert_str_eq(_get(s, "abc"), "x", "the first one is kept");
  unlink(persist_store_moved_to(s));
  persist_store_free(s);

  crc = _header(buf, PERSIST_VERSION, 1);
  n = PERSIST_HEADER_SIZE + _record(buf + PERSIST_HEADER_SIZE, &crc, 3, 0, "a\0c", 3);
  _open_damaged(buf, n, NULL, "NUL");
}

Test(persist, foreign_and_newer_files)
{
  static const char syslog_ng[] = "SLP4\x00\x00\x00\x01 a syslog-ng persist file, say";
  _open_damaged(syslog_ng, sizeof(syslog_ng), NULL, "not a Sluice persist file");
  _open_damaged("SLUI", 4, NULL, "truncated");
  uint8_t h[PERSIST_HEADER_SIZE];
  _header(h, 2, 0);
  _open_damaged(h, sizeof(h), NULL, "version 2");
  _header(h, PERSIST_VERSION, 0);
  h[12] = 1; /* flags; the checksum made right again */
  uint32_t crc = diskq_crc32(0, h, 20);
  for (int b = 0; b < 4; b++)
    h[20 + b] = (uint8_t) (crc >> (8 * b));
  _open_damaged(h, sizeof(h), NULL, "flags");
}

Test(persist, random_bytes)
{
  GRand *r = g_rand_new_with_seed(20240601);
  uint8_t buf[4096];
  for (int round = 0; round < 50; round++)
    {
      size_t len = (size_t) g_rand_int_range(r, 1, sizeof(buf));
      for (size_t i = 0; i < len; i++)
        buf[i] = (uint8_t) g_rand_int(r);
      if (round % 2)
        memcpy(buf, PERSIST_MAGIC, len < PERSIST_MAGIC_LEN ? len : PERSIST_MAGIC_LEN);
      _open_damaged(buf, len, NULL, NULL);
    }
  g_rand_free(r);
}

Test(persist, directory_or_fifo_at_the_path)
{
  cr_assert_eq(mkdir(path, 0700), 0);
  char *inner = g_build_filename(path, "inside", NULL);
  _write(inner, "x", 1);
  PersistStore *s = _open();
  cr_assert(strstr(persist_store_load_error(s), "directory"), "%s", persist_store_load_error(s));
  char *aside = g_strdup(persist_store_moved_to(s));
  cr_assert_not_null(aside);
  cr_assert_not(_exists(path));
  _set(s, "a", "1");
  _commit(s);
  persist_store_free(s);
  s = _open();
  cr_assert_str_eq(_get(s, "a"), "1");
  persist_store_free(s);
  char *moved_inner = g_build_filename(aside, "inside", NULL);
  cr_assert(_exists(moved_inner), "the directory was not kept whole");
  g_free(moved_inner);
  g_free(aside);
  g_free(inner);

  unlink(path);
  cr_assert_eq(mkfifo(path, 0600), 0);
  s = _open(); /* must not wait for a writer */
  cr_assert(strstr(persist_store_load_error(s), "not a regular file"), "%s", persist_store_load_error(s));
  cr_assert_not(_exists(path));
  persist_store_free(s);
}

Test(persist, two_damaged_files_in_one_second_are_both_kept)
{
  char *first = NULL;
  for (int i = 0; i < 2; i++)
    {
      _write(path, "junk", 4);
      PersistStore *s = _open();
      cr_assert_not_null(persist_store_moved_to(s));
      if (!first)
        first = g_strdup(persist_store_moved_to(s));
      else
        cr_assert_str_neq(first, persist_store_moved_to(s),
                          "the second damaged file took the first one's place");
      persist_store_free(s);
    }
  cr_assert(_exists(first));
  g_free(first);
}
