/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * logstore()'s writer (logstore-dest.h), on the destination's own thread.
 *
 * A batch's messages become records appended to the chunk their file is
 * gathering; the writer keeps the messages (bind_queue) instead of letting
 * LogWriter acknowledge them.  A file's chunk is written when it reaches
 * max-chunk-size(), when it is max-chunk-time() old, and when the queue
 * has nothing more to give (_flush_idle says which): then the chunks due are
 * compressed, encrypted and written (and fdatasync'd with
 * fsync(yes)), and the messages are acknowledged, in the order they were
 * taken, once the chunks that hold them are out.
 *
 * A chunk that is full while messages keep coming is handed to the sealer
 * thread, which compresses, encrypts and writes it while the writer goes
 * on gathering; every other write waits for the sealer to be done first
 * (_seal_wait), so that the acknowledgements, the closing records and the
 * time stamps follow the chunks they are about.  While a file has chunks
 * with the sealer (LsFile.queued), the sealer alone touches its chain,
 * size and written count, and the writer neither closes nor stamps it.
 *
 * Opening a file that exists reads its chain first (logstore-file.c): a
 * torn tail (a SIGKILL or power loss in the middle of a write) is cut off
 * and the cut is recorded in the OPEN chunk that starts this writer's
 * part, with its new data key.  A file that is not a logstore, was written
 * with another cipher, or is damaged before its end is left as it is,
 * renamed aside, and a new file is started in its place.
 */
#include "logstore-dest.h"
#include "logstore-tsa.h"

#include "sluice/internal-log.h"
#include "sluice/logmsg-serialize.h"
#include "sluice/threads.h"
#include "sluice/timeutil.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/rand.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

static int64_t
_real_us(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void
_log_err(const char *text, const char *path, int err)
{
  char e[128];
  snprintf(e, sizeof(e), "%s (%d)", strerror(err), err);
  sluice_log(SLUICE_LOG_ERROR, text, "filename", path, "error", e, NULL);
}

/* Write all of buf at the end of f (O_APPEND); on failure the file is cut
 * back to its last whole chunk, so that a retry does not leave half a
 * chunk in the middle.  0 or a negative errno. */
static int
_append(LogstoreDest *d, LsFile *f, const uint8_t *buf, size_t len)
{
  size_t done = 0;
  while (done < len)
    {
      ssize_t w = write(f->fd, buf + done, len - done);
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0)
        {
          int e = w < 0 ? errno : EIO;
          _log_err("Error writing logstore chunk", f->path, e);
          if (done && ftruncate(f->fd, (off_t) f->size) != 0)
            _log_err("Error cutting a half-written logstore chunk", f->path, errno);
          return -e;
        }
      done += (size_t) w;
    }
  if (d->o.fsync && fdatasync(f->fd) != 0)
    {
      int e = errno;
      _log_err("Error syncing logstore file", f->path, e);
      if (ftruncate(f->fd, (off_t) f->size) != 0)
        _log_err("Error cutting a half-written logstore chunk", f->path, errno);
      return -e;
    }
  f->size += len;
  return 0;
}

/* Write a chunk of type from payload[0..len) (compressing DATA as
 * compress() says), built in s. */
static int
_write_chunk(LogstoreDest *d, LsScratch *s, LsFile *f, int type, uint32_t records, const uint8_t *payload,
             size_t len)
{
  const uint8_t *body = payload;
  size_t body_len = len;
  int flags = 0;
  if (type == LS_CHUNK_DATA && d->o.compress > 0 && len > 0)
    {
      if (!s->zctx)
        s->zctx = ZSTD_createCCtx();
      size_t bound = ZSTD_compressBound(len);
      g_byte_array_set_size(s->zbuf, (guint) bound);
      size_t z = s->zctx ? ZSTD_compressCCtx(s->zctx, s->zbuf->data, bound, payload, len, (int) d->o.compress)
                         : len; /* no memory for a context: stored as it is */
      if (!ZSTD_isError(z) && z < len)
        {
          body = s->zbuf->data;
          body_len = z;
          flags = LS_CHUNK_COMPRESSED;
        }
    }
  g_byte_array_set_size(s->out, 0);
  LsChain saved = f->chain;
  if (!ls_chunk_build(&f->chain, type, flags, records, (uint32_t) len, body, body_len, s->out))
    {
      sluice_log(SLUICE_LOG_ERROR, "Error encrypting logstore chunk", "filename", f->path, NULL);
      return -EIO;
    }
  int rc = _append(d, f, s->out->data, s->out->len);
  if (rc < 0)
    f->chain = saved; /* the chunk is not in the file: the next one takes its place */
  return rc;
}

/* ---- the sealer ---------------------------------------------------------- */

#define SEAL_MAX_JOBS 4 /* chunks with the sealer: the writer waits for room past this */

/* The sealer thread: the jobs in order; a job that fails stays first, and
 * the sealer waits until the writer asks it to try again (_seal_wait). */
static void *
_sealer_main(void *arg)
{
  LogstoreDest *d = arg;
  pthread_mutex_lock(&d->seal_lock);
  for (;;)
    {
      while (!d->seal_stop && (g_queue_is_empty(&d->jobs) || d->seal_err))
        pthread_cond_wait(&d->seal_work, &d->seal_lock);
      if (d->seal_stop)
        break;
      LsJob *j = g_queue_peek_head(&d->jobs);
      pthread_mutex_unlock(&d->seal_lock);
      int rc = _write_chunk(d, &d->seal_scratch, j->f, LS_CHUNK_DATA, j->records, j->plain->data, j->plain->len);
      pthread_mutex_lock(&d->seal_lock);
      if (rc < 0)
        d->seal_err = rc;
      else
        {
          g_queue_pop_head(&d->jobs);
          j->f->written += j->records;
          j->f->queued--;
          g_byte_array_set_size(j->plain, 0);
          if (d->spare->len < SEAL_MAX_JOBS)
            g_ptr_array_add(d->spare, j->plain);
          else
            g_byte_array_free(j->plain, TRUE);
          g_free(j);
        }
      pthread_cond_broadcast(&d->seal_done);
    }
  pthread_mutex_unlock(&d->seal_lock);
  return NULL;
}

/* Hand f's gathering chunk, if any, to the sealer; f gathers the next one
 * in a buffer the sealer has emptied. */
static int
_hand_over(LogstoreDest *d, LsFile *f)
{
  if (!f->chunk_id)
    return 0;
  if (f->fd < 0)
    return -EBADF;
  LsJob *j = g_new(LsJob, 1);
  *j = (LsJob) { f, f->pending, f->records, f->chunk_id };
  pthread_mutex_lock(&d->seal_lock);
  while (g_queue_get_length(&d->jobs) >= SEAL_MAX_JOBS && !d->seal_err)
    pthread_cond_wait(&d->seal_done, &d->seal_lock);
  if (d->seal_err)
    d->failing = true;
  g_queue_push_tail(&d->jobs, j);
  f->queued++;
  f->pending = d->spare->len ? g_ptr_array_steal_index_fast(d->spare, d->spare->len - 1) : g_byte_array_new();
  pthread_cond_signal(&d->seal_work);
  pthread_mutex_unlock(&d->seal_lock);
  f->records = 0;
  f->chunk_id = 0;
  g_queue_unlink(&d->gathering, f->gathering);
  return 0;
}

/* Wait until the sealer has written every chunk handed to it, asking it
 * first to try again a chunk that failed.  0, or the error it stopped at
 * (it is idle then too). */
static int
_seal_wait(LogstoreDest *d)
{
  pthread_mutex_lock(&d->seal_lock);
  if (d->seal_err)
    {
      d->seal_err = 0;
      pthread_cond_signal(&d->seal_work);
    }
  while (!g_queue_is_empty(&d->jobs) && !d->seal_err)
    pthread_cond_wait(&d->seal_done, &d->seal_lock);
  int rc = d->seal_err;
  pthread_mutex_unlock(&d->seal_lock);
  return rc;
}

/* f has no chunk with the sealer: the writer may close or stamp it. */
static bool
_settled(LogstoreDest *d, const LsFile *f)
{
  pthread_mutex_lock(&d->seal_lock);
  bool idle = f->queued == 0;
  pthread_mutex_unlock(&d->seal_lock);
  return idle;
}

/* The chunks with the sealer are dropped (finish: their messages go back
 * to the queue); it must be idle (_seal_wait). */
static void
_seal_discard(LogstoreDest *d)
{
  pthread_mutex_lock(&d->seal_lock);
  LsJob *j;
  while ((j = g_queue_pop_head(&d->jobs)))
    {
      j->f->queued--;
      g_byte_array_free(j->plain, TRUE);
      g_free(j);
    }
  d->seal_err = 0;
  pthread_mutex_unlock(&d->seal_lock);
}

/* Acknowledge the messages taken so far whose chunks are written, in the
 * order they were taken. */
static void
_ack_ready(LogstoreDest *d)
{
  uint64_t min_pending = UINT64_MAX;
  if (d->files)
    {
      if (d->gathering.head)
        min_pending = ((LsFile *) d->gathering.head->data)->chunk_id;
      pthread_mutex_lock(&d->seal_lock);
      for (GList *l = d->jobs.head; l; l = l->next)
        min_pending = MIN(min_pending, ((LsJob *) l->data)->chunk_id);
      if (d->seal_err)
        d->failing = true;
      pthread_mutex_unlock(&d->seal_lock);
    }
  guint k = d->held_head;
  LsHeld *h = (LsHeld *) d->held->data;
  while (k < d->held->len && h[k].chunk_id < min_pending)
    k++;
  if (k == d->held_head)
    return;
  /* log_queue_ack_batch takes consecutive LogQueueItems; those let go
   * early are only counted */
  LogQueueItem items[256];
  guint n = 0;
  size_t released = 0;
  for (guint i = d->held_head; i < k; i++)
    {
      if (!h[i].item.msg)
        {
          released++;
          continue;
        }
      d->waiting -= h[i].item.ack;
      items[n++] = h[i].item;
      if (n == G_N_ELEMENTS(items))
        {
          log_queue_ack_batch(d->q, items, n);
          n = 0;
        }
    }
  if (n)
    log_queue_ack_batch(d->q, items, n);
  if (released)
    log_queue_count_written(d->q, released);
  /* the acknowledged front is cut off once it is the larger part, so
   * that acknowledging moves what stays only now and then */
  d->held_head = k;
  if (k == d->held->len)
    {
      g_array_set_size(d->held, 0);
      d->held_head = 0;
    }
  else if (k >= d->held->len - k)
    {
      g_array_remove_range(d->held, 0, k);
      d->held_head = 0;
    }
}

/* Write every gathering chunk, then acknowledge.  0, or the first error. */
static int
_flush_all(LogstoreDest *d)
{
  int err = 0;
  if (d->files)
    {
      GHashTableIter it;
      gpointer v;
      g_hash_table_iter_init(&it, d->files);
      while (g_hash_table_iter_next(&it, NULL, &v))
        {
          int rc = _hand_over(d, v);
          if (rc < 0 && !err)
            err = rc;
        }
      int rc = _seal_wait(d);
      if (rc < 0 && !err)
        err = rc;
    }
  d->failing = err != 0;
  _ack_ready(d);
  return err;
}

/* ---- opening ------------------------------------------------------------ */

/* A new file's header, with a fresh data key. */
static int
_start_file(LogstoreDest *d, LsFile *f)
{
  LsHeader h = { .version = LS_VERSION, .compression = LS_COMPRESS_ZSTD, .hash = LS_HASH_SHA256 };
  RAND_bytes(h.file_id, LS_FILE_ID_LEN);
  LsKeyBlock kb;
  memset(&f->chain, 0, sizeof(f->chain));
  if (d->pub)
    {
      h.cipher = LS_CIPHER_AES_256_GCM;
      h.wrap = LS_WRAP_RSA_OAEP_SHA256;
      const char *e = NULL;
      if (!ls_key_wrap(d->pub, d->fingerprint, f->chain.key, &kb, &e))
        {
          sluice_log(SLUICE_LOG_ERROR, "Error making a logstore data key", "filename", f->path, "error", e,
                     NULL);
          return -EIO;
        }
    }
  GByteArray *out = d->scratch.out;
  g_byte_array_set_size(out, 0);
  uint8_t hash[LS_HASH_LEN];
  ls_header_build(&h, d->pub ? &kb : NULL, out, hash);
  f->size = 0;
  int rc = _append(d, f, out->data, out->len);
  if (rc < 0)
    return rc;
  memcpy(f->chain.prev, hash, LS_HASH_LEN);
  f->chain.encrypted = d->pub != NULL;
  f->chain.key_set = d->pub != NULL;
  f->lean = true;
  return 0;
}

/* An existing file: walk its chain to its last whole chunk.  Returns the
 * offset where appending goes on (*torn: bytes after it), or -1 when the
 * file must not be appended to (*why says why). */
static int64_t
_scan(LogstoreDest *d, LsFile *f, uint64_t size, uint64_t *torn, char **why)
{
  LsHeader h;
  LsKeyBlock kb;
  uint64_t off = 0;
  LsStatus st = ls_fd_header(f->fd, &h, &kb, &f->chain, &off, why);
  *torn = 0;
  if (st == LS_MORE)
    {
      /* the header itself was being written: nothing was ever acknowledged */
      *torn = size;
      return 0;
    }
  if (st != LS_OK)
    return -1;
  f->lean = h.version >= 2; /* a version 1 file goes on with records its readers know */
  if ((h.cipher == LS_CIPHER_AES_256_GCM) != (d->pub != NULL))
    {
      *why = g_strdup_printf("it was written %s and logstore() is now configured %s",
                             h.cipher ? "encrypted" : "unencrypted", d->pub ? "to encrypt"
                               : "not to encrypt");
      return -1;
    }
  GByteArray *buf = g_byte_array_new();
  LsReadKey rk = { 0 };
  /* a chunk's bytes at most: records may pass max-chunk-size by one message */
  uint64_t torn_max = 2 * (uint64_t) MAX(d->o.max_chunk_size, 1 << 20) + LS_MAX_KEY_BLOCK + 1024;
  for (;;)
    {
      LsChunk c = { 0 };
      char *e = NULL;
      uint64_t at = off;
      st = ls_fd_chunk(f->fd, &f->chain, &rk, &off, buf, &c, &e);
      if (st == LS_OK)
        continue;
      if (st == LS_END)
        break;
      /* the writer writes a chunk with one write(): only the last one can
       * be torn, and no message in it was acknowledged.  What fails to
       * read within one chunk's length of the end is that chunk (a power
       * loss leaves zeros or old blocks in it, so its own length may lie) */
      bool last = size - at <= torn_max;
      if (st == LS_MORE || last)
        {
          *torn = size - at;
          off = at;
          g_free(e);
          break;
        }
      *why = e;
      g_byte_array_free(buf, TRUE);
      return -1;
    }
  g_byte_array_free(buf, TRUE);
  return (int64_t) off;
}

/* Go on after the last whole chunk of an existing file: seal the torn tail
 * and start this writer's part with an OPEN chunk and a new data key. */
static int
_resume_file(LogstoreDest *d, LsFile *f, uint64_t size)
{
  uint64_t torn = 0;
  char *why = NULL;
  int64_t end = _scan(d, f, size, &torn, &why);
  if (end < 0)
    {
      char *aside = g_strdup_printf("%s.damaged-%" G_GINT64_FORMAT, f->path, (gint64) time(NULL));
      sluice_log(SLUICE_LOG_ERROR, "Logstore file cannot be appended to; renamed aside and started anew",
                 "filename",
                 f->path, "renamed", aside, "reason", why ? why : "", NULL);
      int rc = rename(f->path, aside) == 0 ? 0 : -errno;
      g_free(aside);
      g_free(why);
      return rc < 0 ? rc : 1; /* 1: open again */
    }
  if (end == 0)
    {
      if (ftruncate(f->fd, 0) != 0)
        return -errno;
      return _start_file(d, f);
    }
  if (torn)
    {
      char n[32];
      snprintf(n, sizeof(n), "%" G_GUINT64_FORMAT, torn);
      sluice_log(SLUICE_LOG_WARNING,
                 "Logstore file ended in a torn chunk; sealed it and went on in a new chunk",
                 "filename", f->path, "torn_bytes", n, NULL);
      if (ftruncate(f->fd, (off_t) end) != 0)
        return -errno;
    }
  f->size = (uint64_t) end;
  LsKeyBlock kb;
  if (d->pub)
    {
      const char *e = NULL;
      if (!ls_key_wrap(d->pub, d->fingerprint, f->chain.key, &kb, &e))
        {
          sluice_log(SLUICE_LOG_ERROR, "Error making a logstore data key", "filename", f->path, "error", e,
                     NULL);
          return -EIO;
        }
      f->chain.key_set = true;
    }
  g_byte_array_set_size(d->ser, 0);
  ls_open_payload(torn, _real_us(), d->pub ? &kb : NULL, d->ser);
  return _write_chunk(d, &d->scratch, f, LS_CHUNK_OPEN, 0, d->ser->data, d->ser->len);
}

static int
_open_file(LogstoreDest *d, LsFile *f)
{
  for (int attempt = 0; attempt < 2; attempt++)
    {
      if (d->o.create_dirs)
        {
          int rc = file_create_parents(&d->dir_perm, f->path);
          if (rc < 0)
            return rc;
        }
      int mode = d->file_perm.mode >= 0 ? d->file_perm.mode : 0600;
      f->fd = open(f->path, O_RDWR | O_CREAT | O_APPEND | O_NOCTTY | O_CLOEXEC, (mode_t) mode);
      if (f->fd < 0)
        {
          int e = errno;
          _log_err("Error opening file for writing", f->path, e);
          return -e;
        }
      file_perm_apply(&d->file_perm, f->fd, f->path);
      struct stat st;
      int rc = fstat(f->fd, &st) != 0 ? -errno : !S_ISREG(st.st_mode) ? -EINVAL : 0;
      if (rc == -EINVAL)
        sluice_log(SLUICE_LOG_ERROR, "logstore() writes regular files only", "filename", f->path, NULL);
      if (rc == 0)
        rc = st.st_size == 0 ? _start_file(d, f) : _resume_file(d, f, (uint64_t) st.st_size);
      if (rc == 0)
        return 0;
      close(f->fd);
      f->fd = -1;
      if (rc < 0)
        return rc;
    }
  return -EIO;
}

/* Write f's closing record and close it.  f gathers nothing and has no
 * chunk with the sealer: its callers close only such files. */
static void
_close_file(LogstoreDest *d, LsFile *f)
{
  if (f->fd < 0)
    return;
  g_assert(!f->chunk_id);
  uint8_t p[16];
  uint64_t n = f->written;
  int64_t now = _real_us();
  for (int i = 0; i < 8; i++)
    {
      p[i] = (uint8_t) (n >> (8 * i));
      p[8 + i] = (uint8_t) ((uint64_t) now >> (8 * i));
    }
  _write_chunk(d, &d->scratch, f, LS_CHUNK_CLOSE, 0, p, sizeof(p));
  close(f->fd);
  f->fd = -1;
}

static void
_file_free(gpointer p)
{
  LsFile *f = p;
  if (f->fd >= 0)
    close(f->fd);
  OPENSSL_cleanse(f->chain.key, sizeof(f->chain.key));
  g_byte_array_free(f->pending, TRUE);
  g_list_free_1(f->gathering);
  g_free(f->path);
  g_free(f);
}

static void
_scratch_init(LsScratch *s)
{
  *s = (LsScratch) { NULL, g_byte_array_new(), g_byte_array_new() };
}

static void
_scratch_free(LsScratch *s)
{
  ZSTD_freeCCtx(s->zctx);
  g_byte_array_free(s->zbuf, TRUE);
  g_byte_array_free(s->out, TRUE);
}

/* The writer's state, made at its first batch, and the sealer thread
 * (false when it cannot start: the batch is tried again later). */
static bool
_ensure_state(LogstoreDest *d)
{
  if (!d->files)
    {
      d->files = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, _file_free);
      if (!d->path_is_literal)
        d->by_key = log_template_keys_new(d->path);
      d->path_buf = g_string_sized_new(256);
      d->text = g_string_sized_new(1024);
      d->ser = g_byte_array_new();
      _scratch_init(&d->scratch);
      d->held = g_array_new(FALSE, FALSE, sizeof(LsHeld));
      g_queue_init(&d->gathering);
      pthread_mutex_init(&d->seal_lock, NULL);
      pthread_cond_init(&d->seal_work, NULL);
      pthread_cond_init(&d->seal_done, NULL);
      g_queue_init(&d->jobs);
      d->spare = g_ptr_array_new();
      _scratch_init(&d->seal_scratch);
    }
  if (!d->sealer_running)
    {
      int e = pthread_create(&d->sealer, NULL, _sealer_main, d);
      if (e)
        {
          _log_err("Error starting the logstore sealer thread", d->name, e);
          return false;
        }
      d->sealer_running = true;
    }
  return true;
}

/* The open file for path, or NULL with *err. */
static LsFile *
_lookup(LogstoreDest *d, const char *path, int *err)
{
  LsFile *f = g_hash_table_lookup(d->files, path);
  if (!f)
    {
      f = g_new0(LsFile, 1);
      f->path = g_strdup(path);
      f->fd = -1;
      f->pending = g_byte_array_new();
      f->gathering = g_list_alloc();
      f->gathering->data = f;
      g_hash_table_insert(d->files, f->path, f);
    }
  if (f->fd < 0)
    {
      int rc = _open_file(d, f);
      if (rc < 0)
        {
          if (!f->chunk_id && _settled(d, f))
            {
              g_hash_table_remove(d->files, path);
              log_template_keys_clear(d->by_key); /* a key may point at it */
            }
          *err = rc;
          return NULL;
        }
    }
  return f;
}

/* ---- the writer's operations -------------------------------------------- */

/* Whether d->path_buf, a path made from macros, may be opened; a path
 * that may not drops its message, as file() does. */
static bool
_check_path(LogstoreDest *d)
{
  const char *why = NULL;
  if (d->path_buf->len == 0 || d->path_buf->str[d->path_buf->len - 1] == '/')
    why = "Path names a directory, message dropped";
  else if (file_path_is_spurious(d->path_buf->str) || strlen(d->path_buf->str) != d->path_buf->len)
    why = "Spurious path, logfile not created";
  if (!why)
    return true;
  sluice_log(SLUICE_LOG_ERROR, why, "path", d->path_buf->str, "driver", d->name, NULL);
  return false;
}

/* The open file msg goes to, or NULL: with *err when it should be tried
 * again after time-reopen(), else (*err 0) the message is dropped, its
 * path refused or its file not to be opened (logged). */
static LsFile *
_file_for(LogstoreDest *d, const LogMsg *msg, int *err)
{
  *err = 0;
  if (d->path_is_literal && d->last && d->last->fd >= 0)
    return d->last; /* one file: no path to make */
  g_string_truncate(d->path_buf, 0);
  if (d->path_is_literal)
    g_string_append(d->path_buf, log_template_get_text(d->path));
  else
    {
      /* by the values of its macros; the whole path only for a key not
       * met since a file left the table */
      LsFile *f = log_template_keys_find(d->by_key, msg, &d->popts);
      if (f && f->fd >= 0)
        return f;
      log_template_keys_text(d->by_key, d->path_buf);
      if (!_check_path(d))
        return NULL;
    }
  LsFile *f = _lookup(d, d->path_buf->str, err);
  if (d->path_is_literal)
    d->last = f;
  else if (f)
    log_template_keys_add(d->by_key, f, 4 * (size_t) g_hash_table_size(d->files) + 1024);
  if (f || d->path_is_literal || *err == -EMFILE || *err == -ENFILE || *err == -ENOSPC)
    return f;
  sluice_log(SLUICE_LOG_ERROR, "Message dropped: its logstore file cannot be opened", "path", d->path_buf->str,
             "driver", d->name, NULL);
  *err = 0;
  return NULL;
}

static void
_add_record(LogstoreDest *d, LsFile *f, const LogMsg *msg)
{
  const LogStamp *r = &msg->stamps[LM_TS_RECVD];
  int64_t recv_us = r->sec * 1000000 + r->usec;
  if (!f->chunk_id)
    {
      f->chunk_id = ++d->next_chunk_id;
      f->pending_since = mono_ms();
      g_queue_push_tail_link(&d->gathering, f->gathering);
    }
  if (d->tmpl)
    {
      g_string_truncate(d->text, 0);
      log_template_format(d->tmpl, msg, &d->topts, d->text);
      ls_record_append(f->pending, LS_RECORD_TEXT, recv_us, d->text->str, d->text->len);
    }
  else if (f->lean)
    ls_record_append_lean(f->pending, recv_us, msg);
  else
    {
      /* a version 1 file: the serialized form its readers know */
      size_t n = log_msg_serialized_size(msg);
      log_msg_serialize(msg, ls_record_reserve(f->pending, LS_RECORD_MSG, recv_us, n));
    }
  f->records++;
}

/* The queue has nothing more to give right now. */
static bool
_queue_empty(LogstoreDest *d)
{
  LogQueueStats st;
  log_queue_get_stats(d->q, &st);
  return st.length == 0;
}

#define IDLE_MIN_CHUNK 4096 /* bytes of records: smaller chunks wait for max-chunk-time() */
#define IDLE_QUIET_MS 20     /* an empty queue for this long ends a burst */

/* The queue is empty: write what should not wait for a fuller chunk.
 * While a flow-controlled source waits for an ack, every chunk at once
 * (its window would stay shut until the chunk is full).  Else, once the
 * queue has stayed empty for IDLE_QUIET_MS (a burst has ended; a pause of
 * a busy source is shorter), the chunks of at least IDLE_MIN_CHUNK bytes,
 * so that a burst's last messages are in the file then and not
 * max-chunk-time() later, while a trickle still gathers some before it
 * is compressed; and what the sealer has is waited for, so that its
 * messages are acknowledged then. */
static void
_flush_idle(LogstoreDest *d)
{
  if (d->waiting)
    {
      _flush_all(d);
      return;
    }
  pthread_mutex_lock(&d->seal_lock);
  bool any = !g_queue_is_empty(&d->jobs);
  pthread_mutex_unlock(&d->seal_lock);
  for (GList *l = d->gathering.head; l && !any; l = l->next)
    any = ((LsFile *) l->data)->pending->len >= IDLE_MIN_CHUNK;
  for (int ms = 0; any && ms < IDLE_QUIET_MS; ms++)
    {
      g_usleep(1000);
      if (!_queue_empty(d))
        any = false; /* more is coming: go on gathering */
    }
  for (GList *l = any ? d->gathering.head : NULL, *next; l; l = next)
    {
      next = l->next; /* a chunk handed over leaves the list */
      LsFile *f = l->data;
      if (f->pending->len >= IDLE_MIN_CHUNK && _hand_over(d, f) < 0)
        d->failing = true;
    }
  if (any && _seal_wait(d) < 0)
    d->failing = true;
  _ack_ready(d);
}

static long
_write_batch(void *dest, LogQueueItem *items, size_t n)
{
  assert_writer_thread(dest);
  LogstoreDest *d = dest;
  if (!_ensure_state(d))
    return -EAGAIN;
  if (d->failing && _flush_all(d) < 0)
    return -EIO; /* nothing more is taken until the chunks in hand are out */
  size_t i;
  int err = 0;
  int64_t now = mono_sec();
  for (i = 0; i < n; i++)
    {
      /* the next message was made on another CPU: its lines travel while
       * this one's record is made */
      if (i + 1 < n)
        log_msg_prefetch(items[i + 1].msg);
      const LogMsg *msg = items[i].msg;
      LsHeld h = { items[i], 0 };
      LsFile *f = _file_for(d, msg, &err);
      if (!f && err)
        break; /* tried again after time-reopen: not held */
      d->waiting += items[i].ack;
      if (!f)
        {
          g_array_append_val(d->held, h); /* dropped: acknowledged in its turn */
          continue;
        }
      f->last_used = now;
      h.rec_off = f->pending->len;
      _add_record(d, f, msg);
      h.chunk_id = f->chunk_id;
      if (d->release_early && !h.item.ack)
        {
          /* its record holds it all: the message goes back to the cache
           * now, while it is in this CPU's cache, not a chunk later */
          log_queue_items_done(&h.item, 1);
          h.item.msg = NULL;
        }
      g_array_append_val(d->held, h);
      if (f->pending->len >= (guint) d->o.max_chunk_size && _hand_over(d, f) < 0)
        d->failing = true;
    }
  if (d->failing || i < n)
    _flush_all(d);
  else if (_queue_empty(d))
    _flush_idle(d);
  else
    _ack_ready(d);
  if (i > 0)
    return (long) i;
  return err ? err : -EIO;
}

#define TSA_TIMEOUT_MS 5000
#define TSA_RETRY_S 60

/* timestamp-url(): every timestamp-freq() seconds, a file whose chain has
 * grown gets an RFC 3161 token on the hash of its last chunk, as a
 * TIMESTAMP chunk (after what the sealer has of it, so that a busy file
 * is stamped too).  An authority that does not answer is logged and asked
 * again a minute (or timestamp-freq()) later; the records are written all
 * the same. */
static void
_stamp(LogstoreDest *d, LsFile *f, int64_t now)
{
  if (!d->o.timestamp_url || f->fd < 0 || now - f->ts_last < d->o.timestamp_freq)
    return;
  if (!_settled(d, f) && _seal_wait(d) < 0)
    return; /* its chunks cannot be written now: stamped once they are */
  if (f->chain.seq <= f->ts_seq)
    return;
  f->ts_last = now;
  GByteArray *token = g_byte_array_new();
  char *error = NULL;
  if (ls_tsa_stamp(d->o.timestamp_url, d->o.timestamp_policy, f->chain.prev, TSA_TIMEOUT_MS, token, &error))
    {
      if (_write_chunk(d, &d->scratch, f, LS_CHUNK_TIMESTAMP, 0, token->data, token->len) == 0)
        f->ts_seq = f->chain.seq;
    }
  else
    {
      sluice_log(SLUICE_LOG_ERROR, "Error getting a time stamp for a logstore chunk", "filename", f->path,
                 "url", d->o.timestamp_url, "error", error ? error : "", NULL);
      /* an authority that hangs costs the writer up to TSA_TIMEOUT_MS a
       * try: not more often than once a minute */
      if (d->o.timestamp_freq < TSA_RETRY_S)
        f->ts_last = now + TSA_RETRY_S - d->o.timestamp_freq;
    }
  g_free(error);
  g_byte_array_free(token, TRUE);
}

static void
_housekeep(void *dest, int64_t now)
{
  assert_writer_thread(dest);
  LogstoreDest *d = dest;
  if (!d->files)
    return;
  /* the oldest chunk gathering is the first due */
  const LsFile *oldest = d->gathering.head ? d->gathering.head->data : NULL;
  bool due = d->failing || (oldest && mono_ms() - oldest->pending_since >= d->o.max_chunk_time * 1000);
  GHashTableIter it;
  gpointer v;
  if (due)
    _flush_all(d);
  else if (_queue_empty(d))
    _flush_idle(d);
  g_hash_table_iter_init(&it, d->files);
  while (g_hash_table_iter_next(&it, NULL, &v))
    _stamp(d, v, now);
  if (d->path_is_literal)
    return;
  g_hash_table_iter_init(&it, d->files);
  while (g_hash_table_iter_next(&it, NULL, &v))
    {
      LsFile *f = v;
      if (f->chunk_id)
        continue;
      if ((f->fd < 0 || (d->o.time_reap > 0 && now - f->last_used >= d->o.time_reap)) && _settled(d, f))
        {
          _close_file(d, f);
          g_hash_table_iter_remove(&it);
          log_template_keys_clear(d->by_key); /* a key may point at it */
        }
    }
}

/* Close every file (each with its closing record); those whose chunks
 * cannot be written stay in the table, open, to be tried again. */
static void
_close_all(LogstoreDest *d)
{
  _flush_all(d);
  d->last = NULL;
  GHashTableIter it;
  gpointer v;
  g_hash_table_iter_init(&it, d->files);
  while (g_hash_table_iter_next(&it, NULL, &v))
    {
      LsFile *f = v;
      if (f->chunk_id || !_settled(d, f))
        continue;
      _close_file(d, f);
      g_hash_table_iter_remove(&it);
    }
  log_template_keys_clear(d->by_key);
}

static void
_reopen(void *dest)
{
  assert_writer_thread(dest);
  LogstoreDest *d = dest;
  if (d->files)
    _close_all(d);
}

/* The chunks not written (gathering, or with the sealer, which is idle):
 * their ids (pointing into the files and jobs) -> their records. */
static GHashTable *
_unwritten(LogstoreDest *d)
{
  GHashTable *t = g_hash_table_new(g_int64_hash, g_int64_equal);
  GHashTableIter it;
  gpointer v;
  g_hash_table_iter_init(&it, d->files);
  while (g_hash_table_iter_next(&it, NULL, &v))
    if (((LsFile *) v)->chunk_id)
      g_hash_table_insert(t, &((LsFile *) v)->chunk_id, ((LsFile *) v)->pending);
  pthread_mutex_lock(&d->seal_lock);
  for (GList *l = d->jobs.head; l; l = l->next)
    g_hash_table_insert(t, &((LsJob *) l->data)->chunk_id, ((LsJob *) l->data)->plain);
  pthread_mutex_unlock(&d->seal_lock);
  return t;
}

/* At the end: the held messages whose chunks could not be written go back
 * to the queue, in the order taken, for the next writer; those let go
 * early are made again from their records.  Those whose chunks are in the
 * file (behind one that is not) are written, but a disk buffer can only
 * forget its records in order: there they go back too, to be written
 * again. */
static void
_give_back(LogstoreDest *d)
{
  guint n = d->held->len - d->held_head;
  if (!n)
    return;
  LogQueueItem *items = g_new(LogQueueItem, n), *done = g_new(LogQueueItem, n);
  GByteArray *scratch = g_byte_array_new();
  GHashTable *unwritten = _unwritten(d);
  bool in_order = log_queue_is_persistent(d->q);
  size_t k = 0, n_done = 0, written = 0, lost = 0;
  for (guint i = d->held_head; i < d->held->len; i++)
    {
      const LsHeld *h = &g_array_index(d->held, LsHeld, i);
      if (h->item.msg)
        {
          if (h->chunk_id && !in_order && !g_hash_table_contains(unwritten, &h->chunk_id))
            done[n_done++] = h->item;
          else
            items[k++] = h->item;
          continue;
        }
      GByteArray *plain = g_hash_table_lookup(unwritten, &h->chunk_id);
      if (!plain)
        {
          written++;
          continue;
        }
      size_t pos = h->rec_off;
      LsRecord r;
      const char *why = NULL;
      LogMsg *m = ls_record_next(plain, &pos, &r) == LS_OK ? ls_record_msg(&r, scratch, &why) : NULL;
      if (m)
        items[k++] = (LogQueueItem) { m, false };
      else
        lost++;
    }
  if (n_done)
    log_queue_ack_batch(d->q, done, n_done);
  if (k)
    log_queue_unpop(d->q, items, k);
  if (written)
    log_queue_count_written(d->q, written);
  if (lost)
    {
      char l[32];
      snprintf(l, sizeof(l), "%zu", lost);
      sluice_log(SLUICE_LOG_ERROR, "Logstore records could not be made messages again at stop; lost", "driver",
                 d->name, "messages", l, NULL);
    }
  g_hash_table_destroy(unwritten);
  g_byte_array_free(scratch, TRUE);
  g_free(done);
  g_free(items);
}

static void
_finish(void *dest)
{
  assert_writer_thread(dest);
  LogstoreDest *d = dest;
  if (!d->files)
    return;
  _close_all(d);
  _give_back(d);
  g_array_set_size(d->held, 0);
  d->held_head = 0;
  d->waiting = 0;
  _seal_discard(d);
  g_queue_init(&d->gathering); /* its links go with the files */
  g_hash_table_remove_all(d->files);
  log_template_keys_clear(d->by_key);
}

static void
_bind_queue(void *dest, LogQueue *q)
{
  LogstoreDest *d = dest;
  d->q = q;
  /* a disk buffer frees a record's place only once it is written, and a
   * template()'s text cannot be made a message again */
  d->release_early = !log_queue_is_persistent(q) && !d->tmpl;
}

const LogWriterOps logstore_writer_ops = { _write_batch, _housekeep, _reopen, _finish, _bind_queue };

void
logstore_writer_free(LogstoreDest *d)
{
  if (!d->files)
    return;
  if (d->sealer_running)
    {
      pthread_mutex_lock(&d->seal_lock);
      d->seal_stop = true;
      pthread_cond_signal(&d->seal_work);
      pthread_mutex_unlock(&d->seal_lock);
      pthread_join(d->sealer, NULL);
    }
  _seal_discard(d);
  g_queue_init(&d->gathering);
  g_hash_table_destroy(d->files);
  log_template_keys_free(d->by_key);
  g_string_free(d->path_buf, TRUE);
  g_string_free(d->text, TRUE);
  g_byte_array_free(d->ser, TRUE);
  _scratch_free(&d->scratch);
  _scratch_free(&d->seal_scratch);
  g_array_free(d->held, TRUE);
  for (guint i = 0; i < d->spare->len; i++)
    g_byte_array_free(g_ptr_array_index(d->spare, i), TRUE);
  g_ptr_array_free(d->spare, TRUE);
  pthread_mutex_destroy(&d->seal_lock);
  pthread_cond_destroy(&d->seal_work);
  pthread_cond_destroy(&d->seal_done);
}
