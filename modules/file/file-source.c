/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * file("PATH"): a source that follows one file, as syslog-ng 3.38's does,
 * on the core source layer (sluice/logsource.h) and a LogReader.
 *
 * Following.  The reader reads to the end of what the file holds and
 * stops (its eof callback); every follow-freq() seconds a timer on its
 * worker looks again:
 *
 *  - the file grew: read on;
 *  - it shrank below what was read (copytruncate): read it again from its
 *    start;
 *  - the path now names another file, or none (rename-and-create,
 *    deletion): the old file, already read to its end, is looked at once
 *    more (a writer may have added to it meanwhile), its last line without
 *    an end goes out as it is, and the new file is read from its start;
 *  - no file yet: it is waited for (and opened at the next look).
 *
 * Positions.  Every message holds a slot of the reader's window
 * (log-iw-size(), flow control or not) and carries a sequence number
 * (ack_cookie).  When the last destination that must write it has written
 * it (at once after routing for paths without flow-control), the
 * window's acked callback marks it in a FilePositions ring: the position
 * moves on over the longest run of written messages from the oldest, and
 * only so far.  The positions outlive the source (a reload, a stop: acks
 * that come after it still count) and are kept in the persist file
 * (sluice/persist.h) as the file's device, inode and offset.  At start
 * the source goes on from there when the path still names that file;
 * across a reload it goes on from where the old source stopped reading.
 *
 * Differences from syslog-ng 3.38: a file that shrinks is read again from
 * its start (syslog-ng goes on from the old offset in the new content
 * only when it grows past it).
 */
#include "file-source.h"

#include "sluice/internal-log.h"
#include "sluice/logsource.h"
#include "sluice/persist.h"
#include "sluice/timeutil.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <iv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct FileSourceOptions
{
  LogSourceOptions src;
  int64_t follow_freq_ms;  /* follow-freq() in seconds, kept in ms */
} FileSourceOptions;

/* ---- positions ------------------------------------------------------------ */

/* What was read of one file and what of it the destinations wrote; shared
 * by the reader's worker (delivery) and the writers (acks), and kept by
 * the window after the reader is gone. */
typedef struct FilePositions
{
  gint refs;
  GMutex lock;
  char *key;               /* in the persist file */
  PersistStore *store;     /* NULL: not kept */
  uint64_t dev, ino;
  uint64_t *ends;          /* by sequence number % cap: end offset of the message */
  uint8_t *done;           /* ... and whether it was written */
  size_t cap;              /* power of two */
  uint64_t head, tail;     /* oldest sequence not yet written; next to give */
  uint64_t written;        /* the position: everything before it was written */
} FilePositions;

/* What the persist file holds per file. */
typedef struct FilePersisted
{
  uint32_t version;
  uint32_t pad;
  uint64_t dev, ino, offset;
} FilePersisted;

#define FILE_PERSIST_VERSION 1

static FilePositions *
_positions_new(const char *key, PersistStore *store, const struct stat *st, uint64_t start)
{
  FilePositions *p = g_new0(FilePositions, 1);
  p->refs = 1;
  g_mutex_init(&p->lock);
  p->key = g_strdup(key);
  p->store = store;
  p->dev = (uint64_t) st->st_dev;
  p->ino = (uint64_t) st->st_ino;
  p->cap = 256;
  p->ends = g_new(uint64_t, p->cap);
  p->done = g_new0(uint8_t, p->cap);
  p->written = start;
  return p;
}

static void
_positions_unref(void *data)
{
  FilePositions *p = data;
  if (!g_atomic_int_dec_and_test(&p->refs))
    return;
  g_mutex_clear(&p->lock);
  g_free(p->key);
  g_free(p->ends);
  g_free(p->done);
  g_free(p);
}

static void
_positions_save(FilePositions *p)
{
  if (!p->store)
    return;
  FilePersisted v = { .version = FILE_PERSIST_VERSION, .dev = p->dev, .ino = p->ino, .offset = p->written };
  persist_store_set(p->store, p->key, &v, sizeof(v));
}

/* A message ending at end was read: its sequence number (lock held). */
static uint64_t
_positions_add(FilePositions *p, uint64_t end)
{
  if (p->tail - p->head == p->cap)
    {
      /* more in flight than the ring holds (a read's rest goes past the
       * window): twice as many, in order from head */
      size_t cap = p->cap * 2;
      uint64_t *ends = g_new(uint64_t, cap);
      uint8_t *done = g_new0(uint8_t, cap);
      for (uint64_t s = p->head; s != p->tail; s++)
        {
          ends[s & (cap - 1)] = p->ends[s & (p->cap - 1)];
          done[s & (cap - 1)] = p->done[s & (p->cap - 1)];
        }
      g_free(p->ends);
      g_free(p->done);
      p->ends = ends;
      p->done = done;
      p->cap = cap;
    }
  uint64_t seq = p->tail++;
  p->ends[seq & (p->cap - 1)] = end;
  p->done[seq & (p->cap - 1)] = 0;
  return seq;
}

/* On a writer's thread (or the reader's, for a message no destination
 * holds): msg was written everywhere it had to be. */
static void
_positions_acked(LogMsg *msg, void *data)
{
  FilePositions *p = data;
  g_mutex_lock(&p->lock);
  uint64_t seq = msg->ack_cookie;
  if (seq >= p->head && seq < p->tail)
    {
      p->done[seq & (p->cap - 1)] = 1;
      bool moved = false;
      while (p->head < p->tail && p->done[p->head & (p->cap - 1)])
        {
          p->written = p->ends[p->head & (p->cap - 1)];
          p->head++;
          moved = true;
        }
      if (moved)
        _positions_save(p);
    }
  g_mutex_unlock(&p->lock);
}

/* Where reading stopped, per path, for the next configuration's source of
 * the same path (a reload), kept for the life of the process. */
static GMutex handover_lock;
static GHashTable *handover; /* path -> FilePersisted */

static void
_handover_put(const char *path, const FilePersisted *v)
{
  g_mutex_lock(&handover_lock);
  if (!handover)
    handover = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  g_hash_table_replace(handover, g_strdup(path), g_memdup2(v, sizeof(*v)));
  g_mutex_unlock(&handover_lock);
}

static bool
_handover_take(const char *path, FilePersisted *v)
{
  g_mutex_lock(&handover_lock);
  FilePersisted *found = handover ? g_hash_table_lookup(handover, path) : NULL;
  if (found)
    {
      *v = *found;
      g_hash_table_remove(handover, path);
    }
  g_mutex_unlock(&handover_lock);
  return found != NULL;
}

/* ---- the source ----------------------------------------------------------- */

typedef struct FileSource
{
  LogSource base;
  FileSourceOptions o;
  char *path;
  char *key;               /* "file:" + path, in the persist file */
  PersistStore *store;

  /* on the worker */
  Worker *worker;
  LogReader *reader;       /* NULL while there is no file to read */
  FilePositions *pos;      /* the reader's */
  struct stat st;          /* the open file's, at open */
  LogSourcePeer peer;
  struct iv_timer follow;
  bool at_end;             /* the reader is waiting at the end of the file */
  bool missing_said;       /* "no such file" was logged */
  bool started;
  bool warned;             /* a truncated message was logged */
} FileSource;

static void _follow_arm(FileSource *s);

static void
_deliver(LogMsg *msg, void *user_data)
{
  FileSource *s = user_data;
  FilePositions *p = s->pos;
  g_mutex_lock(&p->lock);
  msg->ack_cookie = _positions_add(p, log_reader_offset(s->reader));
  g_mutex_unlock(&p->lock);
  log_source_post(&s->base, msg, &s->peer);
}

static void
_batch_done(void *user_data)
{
  FileSource *s = user_data;
  log_source_flush(&s->base);
  if (!s->warned && s->reader && log_reader_get_stats(s->reader)->truncated > 0)
    {
      s->warned = true;
      char size[32];
      snprintf(size, sizeof(size), "%zu", s->base.ro.log_msg_size);
      sluice_log(SLUICE_LOG_WARNING,
                 "Incoming message longer than log-msg-size(), truncated; later ones from this file are truncated "
                 "silently", "filename", s->path, "log_msg_size", size, NULL);
    }
}

/* Where reading stopped: the end of the last message handed on. */
static uint64_t
_read_offset(FileSource *s)
{
  FilePositions *p = s->pos;
  g_mutex_lock(&p->lock);
  uint64_t off = p->tail > p->head ? p->ends[(p->tail - 1) & (p->cap - 1)] : p->written;
  g_mutex_unlock(&p->lock);
  return off;
}

static void
_close_reader(FileSource *s)
{
  if (!s->reader)
    return;
  log_reader_free(s->reader); /* the positions live on in its window */
  s->reader = NULL;
  _positions_unref(s->pos);
  s->pos = NULL;
  worker_stream_removed(s->worker);
}

static void
_closed(LogReader *r, int error, const char *reason, void *user_data)
{
  FileSource *s = user_data;
  log_source_flush(&s->base);
  if (error)
    sluice_log(SLUICE_LOG_ERROR, "Error reading file, reopening it after follow-freq()", "filename", s->path,
               "error", reason, NULL);
  _close_reader(s);
  _follow_arm(s);
}

static void
_eof(void *user_data)
{
  FileSource *s = user_data;
  s->at_end = true;
  _follow_arm(s);
}

static const LogReaderCallbacks file_callbacks = { _deliver, _batch_done, _closed, _eof };

/* Open the path and start reading it at offset (from its start when the
 * file is shorter than that).  false when there is no file. */
static bool
_open_at(FileSource *s, uint64_t offset, bool is_rotation)
{
  int fd = open(s->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    {
      if (!s->missing_said)
        {
          s->missing_said = true;
          sluice_log(errno == ENOENT ? SLUICE_LOG_INFO : SLUICE_LOG_ERROR,
                     "Error opening file for reading, waiting for it", "filename", s->path, "error",
                     strerror(errno), NULL);
        }
      return false;
    }
  s->missing_said = false;
  struct stat st;
  if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode))
    {
      sluice_log(SLUICE_LOG_ERROR, "Error opening file for reading: not a file", "filename", s->path, NULL);
      close(fd);
      s->missing_said = true;
      return false;
    }
  if (!S_ISREG(st.st_mode) || (uint64_t) st.st_size < offset)
    offset = 0;
  if (offset > 0 && lseek(fd, (off_t) offset, SEEK_SET) < 0)
    offset = 0;
  LogReaderOptions ro = s->base.ro;
  ro.iw_size = (int) s->o.src.log_iw_size;
  LogReader *r = log_reader_new(fd, false, &ro, &file_callbacks, s, NULL);
  if (!r)
    {
      close(fd);
      return false;
    }
  s->st = st;
  s->pos = _positions_new(s->key, s->store, &st, offset);
  g_atomic_int_inc(&s->pos->refs); /* the window's */
  log_reader_set_offset(r, offset);
  log_reader_set_acked(r, _positions_acked, s->pos, _positions_unref);
  s->reader = r;
  s->at_end = false;
  worker_stream_added(s->worker);
  if (is_rotation)
    sluice_log(SLUICE_LOG_NOTICE, "Follow-mode file source moved to a new file", "filename", s->path, NULL);
  _positions_save(s->pos);
  log_reader_start(r);
  return true;
}

/* The follow-freq() look (on the worker). */
static void
_follow_due(void *cookie)
{
  FileSource *s = cookie;
  if (!s->reader)
    {
      _open_at(s, 0, false);
      if (!s->reader)
        _follow_arm(s);
      return;
    }
  if (!s->at_end)
    return; /* reading, or paused by flow control: the reader goes on by itself */
  struct stat now;
  if (fstat(log_reader_fd(s->reader), &now) == 0)
    {
      uint64_t read_to = log_reader_file_offset(s->reader);
      if ((uint64_t) now.st_size > read_to)
        {
          s->at_end = false;
          log_reader_resume(s->reader);
          return;
        }
      if ((uint64_t) now.st_size < read_to)
        {
          sluice_log(SLUICE_LOG_NOTICE, "File was truncated, reading it again from its start", "filename",
                     s->path, NULL);
          _close_reader(s);
          _open_at(s, 0, false);
          if (!s->reader)
            _follow_arm(s);
          return;
        }
    }
  struct stat named;
  bool same = stat(s->path, &named) == 0 && named.st_dev == s->st.st_dev && named.st_ino == s->st.st_ino;
  if (!same)
    {
      /* rotated or deleted: the old file is read to its end (we are at
       * it, and it did not grow since the fstat above) */
      log_reader_flush_partial(s->reader);
      _close_reader(s);
      if (!_open_at(s, 0, true))
        _follow_arm(s);
      return;
    }
  _follow_arm(s);
}

static void
_follow_arm(FileSource *s)
{
  if (iv_timer_registered(&s->follow))
    return;
  iv_validate_now();
  s->follow.expires = iv_now;
  timespec_add_ns(&s->follow.expires, s->o.follow_freq_ms * 1000000);
  iv_timer_register(&s->follow);
}

static void
_start_job(void *arg)
{
  FileSource *s = arg;
  IV_TIMER_INIT(&s->follow);
  s->follow.cookie = s;
  s->follow.handler = _follow_due;
  /* where to begin: where the last configuration stopped reading, else
   * where the destinations last had everything, else the start */
  FilePersisted v;
  size_t len = sizeof(v);
  uint64_t offset = 0;
  struct stat st;
  bool have = _handover_take(s->path, &v)
              || (s->store && persist_store_get(s->store, s->key, &v, &len) && len == sizeof(v)
                  && v.version == FILE_PERSIST_VERSION);
  if (have && stat(s->path, &st) == 0 && (uint64_t) st.st_dev == v.dev && (uint64_t) st.st_ino == v.ino)
    offset = v.offset;
  if (!_open_at(s, offset, false))
    _follow_arm(s);
}

static void
_stop_job(void *arg)
{
  FileSource *s = arg;
  if (worker_current() != s->worker)
    return;
  if (iv_timer_registered(&s->follow))
    iv_timer_unregister(&s->follow);
  if (s->reader)
    {
      FilePersisted v = { .version = FILE_PERSIST_VERSION, .dev = (uint64_t) s->st.st_dev,
                          .ino = (uint64_t) s->st.st_ino, .offset = _read_offset(s) };
      _handover_put(s->path, &v);
      _close_reader(s);
    }
  log_source_flush(&s->base);
}

static bool
_file_start(LogSourceDriver *d, const LogSourceEnv *env, char **error)
{
  FileSource *s = (FileSource *) d;
  log_source_begin(&s->base, env);
  s->store = env->persist;
  s->worker = worker_pool_pick(env->pool);
  worker_post(s->worker, _start_job, s);
  s->started = true;
  return true;
}

static void
_file_stop(LogSourceDriver *d)
{
  FileSource *s = (FileSource *) d;
  if (!s->started)
    return;
  worker_pool_run_everywhere(s->base.env.pool, _stop_job, s);
  s->started = false;
}

#define OFF(field) offsetof(FileSourceOptions, field)

static const char *
_check_follow_freq(const CfgOption *opt, const void *field)
{
  return *(const int64_t *) field >= 1 ? NULL
                                       : "follow-freq() must be at least 1 (seconds): Sluice follows files by "
                                         "looking at them, and 0 would never look again";
}

static const CfgOption file_source_options[] = {
  LOG_SOURCE_OPTION_ROWS(FileSourceOptions, src, 100),
  { .name = "follow-freq", .type = CFG_OPT_INT, .offset = OFF(follow_freq_ms), .def_int = 1, .min = 0,
    .max = 86400, .check = _check_follow_freq },
  { 0 },
};

static void
_file_free(LogSourceDriver *d)
{
  FileSource *s = (FileSource *) d;
  cfg_options_free(file_source_options, &s->o);
  log_source_deinit(&s->base);
  g_free(s->path);
  g_free(s->key);
  free(s);
}

static const LogSourceOps file_source_ops = { _file_start, _file_stop, _file_free };

static LogSourceDriver *
_file_source_new(const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  FileSource *s = calloc(1, sizeof(*s));
  if (!s)
    abort();
  log_source_init(&s->base, &file_source_ops, call);
  cfg_options_defaults(file_source_options, &s->o);
  if (!cfg_options_apply(file_source_options, call, &s->o, "file()", err)
      || !log_source_resolve(&s->base, &s->o.src, call, ctx, true, "local+file", err))
    {
      _file_free(&s->base.super);
      return NULL;
    }
  s->o.follow_freq_ms *= 1000;
  s->path = g_strdup(call->args[0].str);
  if (!s->path[0])
    {
      cfg_error_set(err, &call->args[0].loc, "file(): the file name is empty");
      _file_free(&s->base.super);
      return NULL;
    }
  s->key = g_strdup_printf("file:%s", s->path);
  g_strlcpy(s->base.super.stats_instance, s->path, sizeof(s->base.super.stats_instance));
  return &s->base.super;
}

const LogDriverFactory file_source_factory = {
  .def = { .kind = CFG_OBJ_SOURCE, .name = "file", .options = file_source_options,
           .struct_size = sizeof(FileSourceOptions), .min_args = 1, .max_args = 1 },
  .new_source = _file_source_new,
};
