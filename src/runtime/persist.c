/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The persist store (sluice/persist.h): a sorted tree of records in memory,
 * one mutex, and a file written whole.  The layout is in persist-internal.h.
 *
 * Loading reads the file record by record and allocates only for what it
 * has checked, so what it allocates is bounded by the file's real size and
 * by the PERSIST_MAX_* bounds, never by a length the file declares.
 */
#include "sluice/persist.h"

#include "queue/diskq-internal.h"
#include "persist-internal.h"
#include "sluice/internal-log.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* One allocation per key: the key with its NUL, then the value. */
typedef struct Record
{
  uint32_t klen, vlen, vcap;
  char key[];
} Record;

static inline uint8_t *
_value(Record *r)
{
  return (uint8_t *) r->key + r->klen + 1;
}

struct PersistStore
{
  char *path, *tmp_path, *dir;
  GMutex lock;        /* records, bytes, gen */
  GMutex commit_lock; /* one commit at a time; taken before lock */
  GTree *records;     /* Record.key -> Record* (owned) */
  size_t bytes;       /* the keys' and values' bytes, for PERSIST_MAX_BYTES */
  /* gen counts changes; written_gen is the gen the file holds, so a change
   * made while a commit writes keeps the store dirty */
  uint64_t gen, written_gen;
  char *load_error, *moved_to;
};

static void
_put32(uint8_t *p, uint32_t v)
{
  for (int i = 0; i < 4; i++)
    p[i] = (uint8_t) (v >> (8 * i));
}

static uint32_t
_get32(const uint8_t *p)
{
  return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 | (uint32_t) p[3] << 24;
}

static gint
_cmp(gconstpointer a, gconstpointer b, gpointer user_data)
{
  return strcmp(a, b);
}

static Record *
_record_new(const char *key, size_t klen, const void *val, size_t vlen)
{
  Record *r = malloc(sizeof(Record) + klen + 1 + vlen);
  if (!r)
    abort();
  r->klen = (uint32_t) klen;
  r->vlen = r->vcap = (uint32_t) vlen;
  memcpy(r->key, key, klen + 1);
  if (vlen)
    memcpy(_value(r), val, vlen);
  return r;
}

/* Set key under the lock; klen and vlen are within their bounds.  False
 * when the store is full. */
static bool
_set_locked(PersistStore *s, const char *key, size_t klen, const void *val, size_t vlen)
{
  Record *r = g_tree_lookup(s->records, key);
  if (r && r->vlen == vlen && memcmp(_value(r), val, vlen) == 0)
    return true; /* an ack that moved nothing: not a change */
  size_t bytes = s->bytes - (r ? r->klen + r->vlen : 0) + klen + vlen;
  if (bytes > PERSIST_MAX_BYTES || (!r && (size_t) g_tree_nnodes(s->records) >= PERSIST_MAX_RECORDS))
    return false;
  if (r && vlen <= r->vcap)
    {
      /* the usual case: a position of the same size, no allocation */
      memcpy(_value(r), val, vlen);
      r->vlen = (uint32_t) vlen;
    }
  else
    {
      if (r)
        g_tree_remove(s->records, key);
      r = _record_new(key, klen, val, vlen);
      g_tree_insert(s->records, r->key, r);
    }
  s->bytes = bytes;
  s->gen++;
  return true;
}

/* ---- loading ---------------------------------------------------------- */

/* Read exactly len bytes; false at the end of the file or an error. */
static bool
_read(FILE *f, void *buf, size_t len)
{
  return fread(buf, 1, len, f) == len;
}

static char *
_why_short(FILE *f, const char *what)
{
  if (ferror(f))
    return g_strdup_printf("read error in %s: %s", what, g_strerror(errno));
  return g_strdup_printf("truncated in %s", what);
}

/* Load the records of f until the first damage; NULL when the whole file
 * was good, else why not (g_free). */
static char *
_load_file(PersistStore *s, FILE *f)
{
  uint8_t h[PERSIST_HEADER_SIZE];
  size_t got = fread(h, 1, sizeof(h), f);
  if (got == 0 && !ferror(f))
    return g_strdup("the file is empty");
  if (got >= PERSIST_MAGIC_LEN && memcmp(h, PERSIST_MAGIC, PERSIST_MAGIC_LEN) != 0)
    return g_strdup("not a Sluice persist file (unknown magic)");
  if (got < sizeof(h))
    return _why_short(f, "the header");
  uint32_t version = _get32(h + 8);
  if (version != PERSIST_VERSION)
    return g_strdup_printf("format version %u, this Sluice reads version %u", version, PERSIST_VERSION);
  uint32_t crc = _get32(h + 20);
  if (diskq_crc32(0, h, 20) != crc)
    return g_strdup("header checksum mismatch");
  if (_get32(h + 12) != 0)
    return g_strdup_printf("unknown flags 0x%x in the header", _get32(h + 12));
  uint32_t count = _get32(h + 16);
  if (count > PERSIST_MAX_RECORDS)
    return g_strdup_printf("the header declares %u records, more than %u", count, PERSIST_MAX_RECORDS);

  /* one buffer for the largest record the bounds allow, not what the
   * lengths say */
  uint8_t *buf = malloc(PERSIST_REC_HDR + PERSIST_MAX_KEY + 1 + PERSIST_MAX_VALUE + PERSIST_REC_CRC);
  if (!buf)
    abort();
  char *why = NULL;
  char what[64];
  for (uint32_t i = 1; i <= count && !why; i++)
    {
      snprintf(what, sizeof(what), "record %u", i);
      if (!_read(f, buf, PERSIST_REC_HDR))
        {
          why = _why_short(f, what);
          break;
        }
      uint32_t klen = _get32(buf), vlen = _get32(buf + 4);
      if (klen == 0 || klen > PERSIST_MAX_KEY || vlen > PERSIST_MAX_VALUE)
        {
          why = g_strdup_printf("%s: key length %u or value length %u out of bounds", what, klen, vlen);
          break;
        }
      size_t rest = (size_t) klen + vlen + PERSIST_REC_CRC;
      if (!_read(f, buf + PERSIST_REC_HDR, rest))
        {
          why = _why_short(f, what);
          break;
        }
      uint32_t next = diskq_crc32(crc, buf, PERSIST_REC_HDR + klen + vlen);
      if (_get32(buf + PERSIST_REC_HDR + klen + vlen) != next)
        {
          why = g_strdup_printf("checksum mismatch in %s", what);
          break;
        }
      crc = next;
      /* the key becomes a C string: move the value one byte up for its NUL */
      char *key = (char *) buf + PERSIST_REC_HDR;
      uint8_t *val = buf + PERSIST_REC_HDR + klen;
      memmove(val + 1, val, vlen);
      key[klen] = '\0';
      if (strlen(key) != klen)
        why = g_strdup_printf("%s: the key holds a NUL byte", what);
      else if (g_tree_lookup(s->records, key))
        why = g_strdup_printf("%s: key '%s' repeated", what, key);
      else if (!_set_locked(s, key, klen, val + 1, vlen))
        why = g_strdup_printf("%s: more than %d bytes of keys and values", what, PERSIST_MAX_BYTES);
    }
  free(buf);
  if (!why && fgetc(f) != EOF)
    why = g_strdup_printf("bytes after the last of its %u records", count);
  if (!why && ferror(f))
    why = g_strdup_printf("read error: %s", g_strerror(errno));
  return why;
}

/* Move the damaged file aside under a name no other file has, so that it
 * can be looked at; the name (g_free), NULL when it could not be moved. */
static char *
_move_aside(const char *path)
{
  long long now = (long long) time(NULL);
  struct stat st;
  for (int n = 1; n <= 100; n++)
    {
      char *aside = n == 1 ? g_strdup_printf("%s.corrupt-%lld", path, now)
                           : g_strdup_printf("%s.corrupt-%lld-%d", path, now, n);
      if (lstat(aside, &st) != 0 && errno == ENOENT)
        {
          if (rename(path, aside) == 0)
            return aside;
          g_free(aside);
          return NULL;
        }
      g_free(aside);
    }
  errno = EEXIST;
  return NULL;
}

static void
_load(PersistStore *s)
{
  struct stat st;
  if (stat(s->path, &st) != 0 && errno == ENOENT)
    return; /* a first start */
  char *why = NULL;
  /* O_NONBLOCK: a FIFO someone left at the path must not hang the start */
  int fd = open(s->path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0)
    why = g_strdup_printf("cannot be opened: %s", g_strerror(errno));
  else if (fstat(fd, &st) != 0)
    why = g_strdup_printf("cannot be examined: %s", g_strerror(errno));
  else if (!S_ISREG(st.st_mode))
    why = g_strdup(S_ISDIR(st.st_mode) ? "a directory, not a file" : "not a regular file");
  if (why)
    {
      if (fd >= 0)
        close(fd);
    }
  else
    {
      FILE *f = fdopen(fd, "rb");
      if (!f)
        abort();
      g_mutex_lock(&s->lock);
      why = _load_file(s, f);
      s->written_gen = s->gen; /* what was read is what the file holds */
      g_mutex_unlock(&s->lock);
      fclose(f);
    }
  if (!why)
    return;

  s->load_error = why;
  s->moved_to = _move_aside(s->path);
  int rename_errno = errno;
  char kept[24];
  snprintf(kept, sizeof(kept), "%zu", persist_store_count(s));
  if (s->moved_to)
    sluice_log(SLUICE_LOG_ERROR, "Persist file damaged or not Sluice's, moved it aside; keeping the records "
               "before the damage",
               "filename", s->path, "error", why, "moved_to", s->moved_to, "records_kept", kept, NULL);
  else
    sluice_log(SLUICE_LOG_ERROR, "Persist file damaged or not Sluice's and cannot be moved aside; keeping "
               "the records before the damage",
               "filename", s->path, "error", why, "rename_error", g_strerror(rename_errno), "records_kept",
               kept, NULL);
  /* what was kept must reach a good file even if nothing changes */
  g_mutex_lock(&s->lock);
  if (g_tree_nnodes(s->records) > 0)
    s->gen++;
  g_mutex_unlock(&s->lock);
}

/* ---- the API ------------------------------------------------------------ */

PersistStore *
persist_store_open(const char *path, char **error)
{
  if (!path || !*path)
    {
      *error = g_strdup("the persist file's path is empty");
      return NULL;
    }
  /* every commit renames into the directory: check once here that it can,
   * rather than failing every second from now on */
  char *dir = g_path_get_dirname(path);
  struct stat st;
  int err = 0;
  if (stat(dir, &st) != 0)
    err = errno;
  else if (!S_ISDIR(st.st_mode))
    err = ENOTDIR;
  else if (access(dir, W_OK | X_OK) != 0)
    err = errno;
  if (err)
    {
      *error = g_strdup_printf("cannot use the persist file %s: its directory %s cannot be written: %s", path,
                               dir, g_strerror(err));
      g_free(dir);
      return NULL;
    }

  PersistStore *s = calloc(1, sizeof(*s));
  if (!s)
    abort();
  s->path = g_strdup(path);
  s->tmp_path = g_strdup_printf("%s.tmp", path);
  s->dir = dir;
  g_mutex_init(&s->lock);
  g_mutex_init(&s->commit_lock);
  s->records = g_tree_new_full(_cmp, NULL, NULL, free);

  /* a commit that died between writing PATH.tmp and the rename: PATH is
   * still the last good file, and the half-written one is of no use */
  if (unlink(s->tmp_path) == 0)
    sluice_log(SLUICE_LOG_NOTICE, "Removed an unfinished write of the persist file", "filename", s->tmp_path,
               NULL);
  _load(s);
  return s;
}

void
persist_store_free(PersistStore *s)
{
  if (!s)
    return;
  g_tree_destroy(s->records);
  g_mutex_clear(&s->lock);
  g_mutex_clear(&s->commit_lock);
  g_free(s->path);
  g_free(s->tmp_path);
  g_free(s->dir);
  g_free(s->load_error);
  g_free(s->moved_to);
  free(s);
}

bool
persist_store_get(PersistStore *s, const char *key, void *buf, size_t *len)
{
  g_mutex_lock(&s->lock);
  Record *r = g_tree_lookup(s->records, key);
  bool ok = r && r->vlen <= *len;
  if (ok && r->vlen)
    memcpy(buf, _value(r), r->vlen);
  *len = r ? r->vlen : 0;
  g_mutex_unlock(&s->lock);
  return ok;
}

bool
persist_store_set(PersistStore *s, const char *key, const void *val, size_t len)
{
  size_t klen = strnlen(key, PERSIST_MAX_KEY + 1);
  if (klen == 0 || klen > PERSIST_MAX_KEY || len > PERSIST_MAX_VALUE)
    return false;
  g_mutex_lock(&s->lock);
  bool ok = _set_locked(s, key, klen, val, len);
  g_mutex_unlock(&s->lock);
  return ok;
}

void
persist_store_remove(PersistStore *s, const char *key)
{
  g_mutex_lock(&s->lock);
  Record *r = g_tree_lookup(s->records, key);
  if (r)
    {
      s->bytes -= r->klen + r->vlen;
      g_tree_remove(s->records, key);
      s->gen++;
    }
  g_mutex_unlock(&s->lock);
}

typedef struct ForeachArgs
{
  const char *prefix;
  size_t plen;
  PersistStoreFunc fn;
  void *user_data;
} ForeachArgs;

static gboolean
_foreach_one(gpointer key, gpointer value, gpointer data)
{
  ForeachArgs *a = data;
  Record *r = value;
  int c = strncmp(r->key, a->prefix, a->plen);
  if (c < 0)
    return FALSE; /* before the prefix's keys */
  if (c > 0)
    return TRUE; /* past them: the tree is in strcmp order */
  return !a->fn(r->key, _value(r), r->vlen, a->user_data);
}

void
persist_store_foreach(PersistStore *s, const char *prefix, PersistStoreFunc fn, void *user_data)
{
  ForeachArgs a = { .prefix = prefix ? prefix : "", .plen = prefix ? strlen(prefix) : 0, .fn = fn,
                    .user_data = user_data };
  g_mutex_lock(&s->lock);
  g_tree_foreach(s->records, _foreach_one, &a);
  g_mutex_unlock(&s->lock);
}

size_t
persist_store_count(PersistStore *s)
{
  g_mutex_lock(&s->lock);
  size_t n = (size_t) g_tree_nnodes(s->records);
  g_mutex_unlock(&s->lock);
  return n;
}

bool
persist_store_dirty(PersistStore *s)
{
  g_mutex_lock(&s->lock);
  bool dirty = s->gen != s->written_gen;
  g_mutex_unlock(&s->lock);
  return dirty;
}

const char *
persist_store_path(PersistStore *s)
{
  return s->path;
}

const char *
persist_store_dir(PersistStore *s)
{
  return s->dir;
}

const char *
persist_store_load_error(PersistStore *s)
{
  return s->load_error;
}

const char *
persist_store_moved_to(PersistStore *s)
{
  return s->moved_to;
}

/* ---- committing ----------------------------------------------------------- */

typedef struct Encoder
{
  uint8_t *p;
  uint32_t crc;
} Encoder;

static gboolean
_encode_one(gpointer key, gpointer value, gpointer data)
{
  Encoder *e = data;
  Record *r = value;
  uint8_t *start = e->p;
  _put32(e->p, r->klen);
  _put32(e->p + 4, r->vlen);
  memcpy(e->p + PERSIST_REC_HDR, r->key, r->klen);
  memcpy(e->p + PERSIST_REC_HDR + r->klen, _value(r), r->vlen);
  e->p += PERSIST_REC_HDR + r->klen + r->vlen;
  e->crc = diskq_crc32(e->crc, start, (size_t) (e->p - start));
  _put32(e->p, e->crc);
  e->p += PERSIST_REC_CRC;
  return FALSE;
}

/* The file's bytes for what the store holds now (under the lock). */
static uint8_t *
_encode(PersistStore *s, size_t *len)
{
  size_t n = (size_t) g_tree_nnodes(s->records);
  *len = PERSIST_HEADER_SIZE + n * (PERSIST_REC_HDR + PERSIST_REC_CRC) + s->bytes;
  uint8_t *buf = malloc(*len);
  if (!buf)
    abort();
  memcpy(buf, PERSIST_MAGIC, PERSIST_MAGIC_LEN);
  _put32(buf + 8, PERSIST_VERSION);
  _put32(buf + 12, 0);
  _put32(buf + 16, (uint32_t) n);
  Encoder e = { .p = buf + PERSIST_HEADER_SIZE, .crc = diskq_crc32(0, buf, 20) };
  _put32(buf + 20, e.crc);
  g_tree_foreach(s->records, _encode_one, &e);
  g_assert((size_t) (e.p - buf) == *len);
  return buf;
}

static bool
_write_all(int fd, const uint8_t *p, size_t len)
{
  while (len > 0)
    {
      ssize_t n = write(fd, p, len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return false;
      p += n;
      len -= (size_t) n;
    }
  return true;
}

/* PATH.tmp, fsync, rename, fsync of the directory: after a crash at any
 * point PATH is the old file or the new one. */
static bool
_write_file(PersistStore *s, const uint8_t *buf, size_t len, char **error)
{
  const char *step = "open";
  int fd = open(s->tmp_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0)
    goto fail;
  step = "write";
  if (!_write_all(fd, buf, len))
    goto fail;
  step = "fsync";
  if (fsync(fd) != 0)
    goto fail;
  step = "close";
  int rc = close(fd);
  fd = -1;
  if (rc != 0)
    goto fail;
  step = "rename";
  if (rename(s->tmp_path, s->path) != 0)
    goto fail;
  /* the rename is in the directory: without this a power cut could bring
   * back the old file, or none on a first commit */
  int dfd = open(s->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0 || (fsync(dfd) != 0 && errno != EINVAL)) /* EINVAL: the filesystem cannot */
    {
      *error = g_strdup_printf("cannot sync the directory %s of the persist file: %s", s->dir,
                               g_strerror(errno));
      if (dfd >= 0)
        close(dfd);
      return false;
    }
  close(dfd);
  return true;

fail:;
  int e = errno;
  if (fd >= 0)
    close(fd);
  unlink(s->tmp_path);
  *error = g_strdup_printf("cannot write the persist file %s (%s of %s): %s", s->path, step, s->tmp_path,
                           g_strerror(e));
  return false;
}

bool
persist_store_commit(PersistStore *s, char **error)
{
  g_mutex_lock(&s->commit_lock);
  g_mutex_lock(&s->lock);
  if (s->gen == s->written_gen)
    {
      g_mutex_unlock(&s->lock);
      g_mutex_unlock(&s->commit_lock);
      return true;
    }
  uint64_t gen = s->gen;
  size_t len;
  /* a copy under the lock, the I/O without it: sets from the ack paths
   * never wait for a disk */
  uint8_t *buf = _encode(s, &len);
  g_mutex_unlock(&s->lock);

  bool ok = _write_file(s, buf, len, error);
  free(buf);
  if (ok)
    {
      g_mutex_lock(&s->lock);
      s->written_gen = gen;
      g_mutex_unlock(&s->lock);
    }
  g_mutex_unlock(&s->commit_lock);
  return ok;
}
