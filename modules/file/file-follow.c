/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * FileFollower (file-follow.h): following one file, for file() and
 * wildcard-file(), as syslog-ng 3.38 does.
 *
 * Following.  A LogReader reads to the end of what the file holds and
 * stops (its eof callback); every follow-freq() seconds a timer on the
 * follower's worker looks again, and with inotify (one instance per
 * worker, watches shared by path) at once when the file changes or a file
 * takes its name in its directory:
 *
 *  - the file grew: read on;
 *  - it shrank below what was read (copytruncate): read it again from its
 *    start;
 *  - the path now names another file, or none (rename-and-create,
 *    deletion): the old file is read to its end, and let go only when a
 *    look a follow-freq() later still finds nothing new in it (its writer
 *    may add to it until it reopens its file); then its last line without
 *    an end goes out as it is, and the new file is read from its start
 *    (wildcard-file(): a deleted file ends there);
 *  - the file that takes the path is opened when a look first sees it and
 *    waits in a queue (FileNext) while the old one is read to its end, so
 *    that a file rotated away again before the old one was let go (logrotate
 *    run more often than every two follow-freq()) is still read, from its
 *    start, in turn.  Its own wait is counted from when its successor was
 *    first seen.  Without inotify a file that holds the path for less
 *    than a follow-freq() between two looks can be missed;
 *  - no file yet: it is waited for (and opened at the next look);
 *  - nothing new: the reader goes (its 128 KiB buffer with it) and the
 *    follower keeps the open descriptor, its position and a line without
 *    its end, if any, until the file grows: an idle file costs a few KB.
 *    A worker keeps at most FILE_READERS_PER_WORKER readers; more
 *    followers with lines to read wait their turn.
 *
 * Positions.  Every message holds a slot of its reader's window
 * (log-iw-size(), flow control or not) and carries a sequence number
 * (ack_cookie).  When every destination that must write it has written it
 * (at once after routing on paths without flow control), the window's
 * acked callback marks it in the FilePositions ring: the position moves on
 * over the longest run of written messages from the oldest, and only so
 * far.  The positions outlive the reader and the source (a reload, a stop:
 * acknowledgements that come later still count) and go into the persist
 * file (sluice/persist.h) under "file:PATH" as the file's device, inode and
 * offset.  At start the follower goes on from there when the path still
 * names that file; when it names another one and a file in the same
 * directory has the device and inode kept (rotated while Sluice was
 * stopped), that one is read to its end first.  Across a reload it goes on
 * from where the old source stopped reading.
 *
 * Differences from syslog-ng 3.38: a file that shrinks is read again from
 * its start; a file rotated while the daemon was stopped is read to its end
 * (syslog-ng loses what was added to it after the stop).
 */
#include "file-follow.h"

#include "sluice/internal-log.h"
#include "sluice/threads.h"
#include "sluice/timeutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <iv.h>
#include <iv_inotify.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- positions ------------------------------------------------------------ */

/* What was read of one file and what of it the destinations wrote; shared
 * by the follower's worker (delivery) and the writers (acks), and kept by
 * the windows after the readers are gone. */
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

/* What the persist file and the reload handover hold per path. */
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
  p->cap = 16;
  p->ends = g_new(uint64_t, p->cap);
  p->done = g_new0(uint8_t, p->cap);
  p->written = start;
  return p;
}

static void
_positions_unref(void *data)
{
  FilePositions *p = data;
  if (!p || !g_atomic_int_dec_and_test(&p->refs))
    return;
  g_mutex_clear(&p->lock);
  g_free(p->key);
  g_free(p->ends);
  g_free(p->done);
  g_free(p);
}

/* Lock held (or the positions not shared yet). */
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
      /* more in flight than the ring holds: twice as many, in order */
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

/* On a writer's thread (or the worker's, for a message no destination
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

/* Where reading stopped: the end of the last message handed on. */
static uint64_t
_positions_read_end(FilePositions *p)
{
  g_mutex_lock(&p->lock);
  uint64_t off = p->tail > p->head ? p->ends[(p->tail - 1) & (p->cap - 1)] : p->written;
  g_mutex_unlock(&p->lock);
  return off;
}

/* Where reading stopped, per path, for the next configuration's follower
 * of the same path (a reload), kept for the life of the process. */
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

/* ---- the follower ---------------------------------------------------------- */

/* A file that took the path after the open one, opened when a look first
 * saw it there, read after the ones before it are let go. */
typedef struct FileNext
{
  int fd;
  struct stat st;
  int64_t seen_ms;         /* when a look first saw it under the path */
} FileNext;

/* More queued than this: the path is rotated much faster than follow-freq()
 * (a file is skipped, and that is said). */
#define FILE_NEXT_MAX 64

struct FileFollower
{
  LogSource *src;
  FileFollowOptions o;
  char *path;
  char *key;               /* "file:" + path, in the persist file */
  size_t path_len;
  NVHandle file_name;      /* FILE_NAME */
  PersistStore *store;
  Worker *worker;

  /* on the worker */
  int fd;                  /* -1: no file open */
  struct stat st;          /* the open file's, at open */
  FilePositions *pos;      /* the open file's */
  uint64_t read_to;        /* file offset of the end of what was read, while idle */
  LogReader *reader;       /* NULL while idle (or no file) */
  LogFramer partial;       /* idle: a line without its end */
  bool has_partial;
  bool at_end;             /* the reader waits at the end of the file */
  bool stream;             /* not a file that grows: a FIFO, a device, /proc/kmsg;
                            * polled, no position kept, reopened at its end */
  int64_t replaced_at_ms;  /* when a look first saw the path name another file or none
                            * with nothing new in this one; 0: not seen */
  GQueue next;             /* FileNext: the files that took the path since, oldest first */
  bool next_full_said;
  LogSourcePeer peer;
  struct iv_timer follow;
  struct iv_task kick;     /* read now: its turn came, or go idle at once */
  bool waiting;            /* in the worker's queue for a reader */
  char *watched;           /* the name the file's watch was made with; NULL: none */
  char *dir;               /* the path's directory and base name: with inotify, a file */
  char *base;              /* taking the path is seen at once (a rotation) */
  bool dir_watched;
  bool missing_said;       /* "Error opening file" was logged */
  bool warned;             /* a truncated message was logged */
  bool started;
  atomic_bool finished;
};

static void _follow_arm(FileFollower *f);
static void _follow_due(void *cookie);

/* ---- inotify: one instance per worker ------------------------------------ */

static _Thread_local struct iv_inotify *worker_inotify;
static _Thread_local int worker_inotify_users;
static _Thread_local bool worker_inotify_failed;

struct iv_inotify *
file_inotify_get(void)
{
  if (!worker_inotify && !worker_inotify_failed)
    {
      worker_inotify = g_new0(struct iv_inotify, 1);
      IV_INOTIFY_INIT(worker_inotify);
      if (iv_inotify_register(worker_inotify) != 0)
        {
          sluice_log(SLUICE_LOG_WARNING, "inotify cannot be had, looking at files every follow-freq() only", "error",
                     strerror(errno), NULL);
          g_free(worker_inotify);
          worker_inotify = NULL;
          worker_inotify_failed = true;
        }
    }
  if (worker_inotify)
    worker_inotify_users++;
  return worker_inotify;
}

void
file_inotify_put(void)
{
  if (worker_inotify && --worker_inotify_users == 0)
    {
      iv_inotify_unregister(worker_inotify);
      g_free(worker_inotify);
      worker_inotify = NULL;
    }
}

/* Watches are shared per worker by path: inotify gives one watch
 * descriptor per inode and instance, so two followers of one file, or of
 * files in one directory, must not each register their own. */
typedef struct FileWatch
{
  struct iv_inotify_watch w;
  char *path;
  bool dir;                /* a directory: creations and renames into it */
  GPtrArray *subs;         /* FileFollower */
  int refs;                /* the registry's, plus one while dispatching */
} FileWatch;

static _Thread_local GHashTable *worker_watches; /* "f:" / "d:" + path -> FileWatch */

static void _dir_event(FileFollower *f);

static void
_file_watch_unref(FileWatch *w)
{
  if (--w->refs > 0)
    return;
  g_ptr_array_free(w->subs, TRUE);
  g_free(w->path);
  g_free(w);
}

static void
_file_watch_event(void *cookie, struct inotify_event *ev)
{
  FileWatch *w = cookie;
  /* a handler may take its follower (or the last one, the watch itself)
   * off: walk a copy, and keep w until the walk ends */
  w->refs++;
  GPtrArray *subs = g_ptr_array_copy(w->subs, NULL, NULL);
  for (guint i = 0; i < subs->len; i++)
    {
      FileFollower *f = g_ptr_array_index(subs, i);
      if (!g_ptr_array_find(w->subs, f, NULL))
        continue;
      if (!w->dir)
        _follow_due(f); /* a write, a rename or a delete: look now */
      else if (ev->len > 0 && strcmp(ev->name, f->base) == 0)
        _dir_event(f);  /* a file took the path: queue it now */
    }
  g_ptr_array_free(subs, TRUE);
  _file_watch_unref(w);
}

/* Subscribe f to path's watch (false: no inotify, or out of watches). */
static bool
_watch_add(FileFollower *f, const char *path, bool dir)
{
  if (!worker_watches)
    worker_watches = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  char *key = g_strdup_printf("%c:%s", dir ? 'd' : 'f', path);
  FileWatch *w = g_hash_table_lookup(worker_watches, key);
  if (!w)
    {
      struct iv_inotify *in = file_inotify_get();
      if (!in)
        {
          g_free(key);
          return false;
        }
      w = g_new0(FileWatch, 1);
      w->path = g_strdup(path);
      w->dir = dir;
      w->subs = g_ptr_array_new();
      w->refs = 1;
      IV_INOTIFY_WATCH_INIT(&w->w);
      w->w.inotify = in;
      w->w.pathname = w->path;
      w->w.mask = dir ? IN_CREATE | IN_MOVED_TO : IN_MODIFY | IN_ATTRIB | IN_MOVE_SELF | IN_DELETE_SELF;
      w->w.cookie = w;
      w->w.handler = _file_watch_event;
      if (iv_inotify_watch_register(&w->w) != 0)
        {
          /* out of watches (fs.inotify.max_user_watches): looked at
           * every follow-freq() only */
          file_inotify_put();
          _file_watch_unref(w);
          g_free(key);
          return false;
        }
      g_hash_table_insert(worker_watches, key, w);
    }
  else
    g_free(key);
  g_ptr_array_add(w->subs, f);
  return true;
}

static void
_watch_del(FileFollower *f, const char *path, bool dir)
{
  char *key = g_strdup_printf("%c:%s", dir ? 'd' : 'f', path);
  FileWatch *w = worker_watches ? g_hash_table_lookup(worker_watches, key) : NULL;
  if (w)
    {
      g_ptr_array_remove_fast(w->subs, f);
      if (w->subs->len == 0)
        {
          g_hash_table_remove(worker_watches, key);
          iv_inotify_watch_unregister(&w->w);
          file_inotify_put();
          _file_watch_unref(w);
        }
    }
  g_free(key);
}

static void
_unwatch(FileFollower *f)
{
  if (!f->watched)
    return;
  _watch_del(f, f->watched, false);
  g_free(f->watched);
  f->watched = NULL;
}

/* Watch name, the file just opened (nothing happens without inotify). */
static void
_watch(FileFollower *f, const char *name)
{
  _unwatch(f);
  if (f->o.inotify && _watch_add(f, name, false))
    f->watched = g_strdup(name);
}

/* ---- readers: a budget per worker ------------------------------------------ */

/* A reader holds a buffer of log-msg-size() + 64 KiB while it exists: a
 * worker keeps at most this many at once, and followers beyond them wait
 * for their turn in its queue (10,000 files with lines waiting would
 * otherwise take 1.3 GB at start).  A reader at the end of its file goes
 * at once while others wait, else at the next look. */
#define FILE_READERS_PER_WORKER 256

static _Thread_local int worker_readers;
static _Thread_local GQueue worker_waiting = G_QUEUE_INIT;

static void
_reader_gone(void)
{
  worker_readers--;
  FileFollower *next = g_queue_pop_head(&worker_waiting);
  if (next)
    {
      next->waiting = false;
      if (!iv_task_registered(&next->kick))
        iv_task_register(&next->kick); /* not from inside another's call */
    }
}

static void
_unqueue(FileFollower *f)
{
  if (f->waiting)
    g_queue_remove(&worker_waiting, f);
  f->waiting = false;
  if (iv_task_registered(&f->kick))
    iv_task_unregister(&f->kick);
}

FileFollower *
file_follower_new(LogSource *s, const char *path, const FileFollowOptions *o, PersistStore *store)
{
  FileFollower *f = g_new0(FileFollower, 1);
  f->src = s;
  f->o = *o;
  f->path = g_strdup(path);
  f->path_len = strlen(path);
  f->dir = g_path_get_dirname(path);
  f->base = g_path_get_basename(path);
  f->file_name = log_msg_get_value_handle("FILE_NAME", -1);
  f->key = g_strdup_printf("file:%s", path);
  f->store = store;
  f->fd = -1;
  g_queue_init(&f->next);
  atomic_init(&f->finished, false);
  return f;
}

static void
_deliver(LogMsg *msg, void *user_data)
{
  FileFollower *f = user_data;
  FilePositions *p = f->pos;
  g_mutex_lock(&p->lock);
  msg->ack_cookie = _positions_add(p, log_reader_offset(f->reader));
  g_mutex_unlock(&p->lock);
  /* as syslog-ng: the name the source follows (a rotated file being
   * read to its end keeps it) */
  log_msg_set_value(msg, f->file_name, f->path, (ssize_t) f->path_len);
  log_source_post(f->src, msg, &f->peer);
}

static void
_batch_done(void *user_data)
{
  FileFollower *f = user_data;
  assert_worker_owns(f->worker);
  log_source_flush(f->src);
  log_source_warn_truncated(f->src, f->reader, &f->warned, "filename", f->path, NULL, NULL);
}

/* The reader goes; the descriptor, the position and a part line stay. */
static void
_idle(FileFollower *f)
{
  if (!f->reader)
    return;
  f->read_to = log_reader_file_offset(f->reader);
  f->fd = log_reader_detach(f->reader, &f->partial);
  f->reader = NULL;
  _reader_gone();
  f->has_partial = f->partial.end > f->partial.pos;
  if (!f->has_partial)
    log_framer_deinit(&f->partial);
}

/* The file is let go: reader, descriptor, part line. */
static void
_close_file(FileFollower *f)
{
  _unwatch(f);
  if (f->reader && log_reader_holding(f->reader))
    {
      /* part of a multi-line message was not handed on: it is after the
       * position kept, and the next reader of the file reads it again
       * (a detach would send it as a message of its own) */
      log_reader_free(f->reader);
      f->reader = NULL;
      _reader_gone();
      f->fd = -1;
      worker_stream_removed(f->worker);
    }
  _idle(f);
  _unqueue(f);
  if (f->has_partial)
    log_framer_deinit(&f->partial);
  f->has_partial = false;
  if (f->fd >= 0)
    {
      close(f->fd);
      worker_stream_removed(f->worker);
    }
  f->fd = -1;
  _positions_unref(f->pos);
  f->pos = NULL;
  f->at_end = false;
  f->replaced_at_ms = 0;
}

static void
_closed(LogReader *r, int error, const char *reason, void *user_data)
{
  FileFollower *f = user_data;
  log_source_flush(f->src);
  if (error)
    sluice_log(SLUICE_LOG_ERROR, "Error reading file, reopening it after follow-freq()", "filename", f->path,
               "error", reason, NULL);
  _close_file(f);
  _follow_arm(f);
}

static void
_eof(void *user_data)
{
  FileFollower *f = user_data;
  assert_worker_owns(f->worker);
  f->at_end = true;
  _follow_arm(f);
  /* others wait for a reader: this one goes now (after the reader's
   * own call returns) */
  if (!g_queue_is_empty(&worker_waiting) && !iv_task_registered(&f->kick))
    iv_task_register(&f->kick);
}

static const LogReaderCallbacks follow_callbacks = { _deliver, _batch_done, _closed, _eof };

/* A reader for the open file, on from read_to, now, whatever the budget
 * (false: no memory). */
static bool
_read_now(FileFollower *f)
{
  LogReaderOptions ro = f->src->ro;
  ro.iw_size = f->o.iw_size;
  ro.pollable = f->stream;
  LogReader *r = log_reader_new(f->fd, false, &ro, &follow_callbacks, f, NULL);
  if (!r)
    return false;
  if (f->has_partial)
    log_reader_adopt_framer(r, &f->partial);
  f->has_partial = false;
  log_reader_set_offset(r, f->read_to);
  g_atomic_int_inc(&f->pos->refs); /* the window's */
  log_reader_set_acked(r, _positions_acked, f->pos, _positions_unref);
  f->reader = r;
  worker_readers++;
  f->at_end = false;
  log_reader_start(r);
  return true;
}

/* A reader for the open file when the worker's budget allows, else a
 * place in its queue (true then too). */
static bool
_read(FileFollower *f)
{
  if (worker_readers >= FILE_READERS_PER_WORKER)
    {
      if (!f->waiting)
        {
          f->waiting = true;
          g_queue_push_tail(&worker_waiting, f);
        }
      return true;
    }
  return _read_now(f);
}

/* The kick task: the follower's turn for a reader came, or it is at the
 * end of its file while others wait. */
static void
_kick_run(void *cookie)
{
  FileFollower *f = cookie;
  assert_worker_owns(f->worker);
  if (f->reader && f->at_end && !log_reader_holding(f->reader))
    _idle(f);
  else if (!f->reader && f->fd >= 0 && !f->waiting && !_read(f))
    _follow_arm(f);
}

/* Read fd (of st, opened as name; NULL: not named any more, not watched)
 * from offset (from its start when the file is shorter). */
static void
_use(FileFollower *f, int fd, const struct stat *st, uint64_t offset, const char *name, bool is_rotation)
{
  /* as syslog-ng: what is not a regular file, and /proc/kmsg, is read as
   * it comes (follow-freq(0) there), from where it is now */
  f->stream = !S_ISREG(st->st_mode) || (name && strcmp(name, "/proc/kmsg") == 0);
  if (f->stream)
    offset = 0;
  if (offset > 0 && ((uint64_t) st->st_size < offset || lseek(fd, (off_t) offset, SEEK_SET) < 0))
    offset = 0;
  f->fd = fd;
  f->st = *st;
  f->read_to = offset;
  f->pos = _positions_new(f->key, f->stream ? NULL : f->store, st, offset);
  _positions_save(f->pos);
  worker_stream_added(f->worker);
  if (name && !f->stream)
    _watch(f, name);
  if (is_rotation)
    sluice_log(SLUICE_LOG_NOTICE, "Follow-mode file source moved to a new file", "filename", f->path, NULL);
  if (!_read(f))
    _follow_arm(f); /* read at the next look */
}

/* The path names named (a stat of it), not the open file: when it is not
 * the last file queued either, open it and queue it. */
static void
_queue_next(FileFollower *f, const struct stat *named, int64_t now_ms)
{
  if (!S_ISREG(named->st_mode))
    return;
  FileNext *last = g_queue_peek_tail(&f->next);
  if (last && last->st.st_dev == named->st_dev && last->st.st_ino == named->st_ino)
    return;
  if (g_queue_get_length(&f->next) >= FILE_NEXT_MAX)
    {
      if (!f->next_full_said)
        sluice_log(SLUICE_LOG_WARNING, "File rotated faster than it is read, a rotated file is skipped",
                   "filename", f->path, NULL);
      f->next_full_said = true;
      return;
    }
  int fd = open(f->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    return;
  FileNext *n = g_new0(FileNext, 1);
  /* the file opened, which may already be another than the one stat saw */
  if (fstat(fd, &n->st) != 0 || !S_ISREG(n->st.st_mode)
      || (n->st.st_dev == f->st.st_dev && n->st.st_ino == f->st.st_ino)
      || (last && last->st.st_dev == n->st.st_dev && last->st.st_ino == n->st.st_ino))
    {
      close(fd);
      g_free(n);
      return;
    }
  n->fd = fd;
  n->seen_ms = now_ms;
  g_queue_push_tail(&f->next, n);
}

static void
_drop_next(FileFollower *f)
{
  FileNext *n;
  while ((n = g_queue_pop_head(&f->next)) != NULL)
    {
      close(n->fd);
      g_free(n);
    }
  f->next_full_said = false;
}

/* The oldest file queued becomes the open one, read from its start;
 * false: none queued. */
static bool
_use_next(FileFollower *f)
{
  FileNext *n = g_queue_pop_head(&f->next);
  if (!n)
    return false;
  struct stat named;
  bool still = stat(f->path, &named) == 0 && named.st_dev == n->st.st_dev && named.st_ino == n->st.st_ino;
  _use(f, n->fd, &n->st, 0, still ? f->path : NULL, true);
  /* replaced already: its wait runs from when its successor was seen */
  FileNext *after = g_queue_peek_head(&f->next);
  if (after)
    f->replaced_at_ms = after->seen_ms;
  g_free(n);
  if (g_queue_is_empty(&f->next))
    f->next_full_said = false;
  return true;
}

/* Open name (the path, or where its old file went) and read it from
 * offset (from its start when the file is shorter).  false: no file. */
static bool
_open_at(FileFollower *f, const char *name, uint64_t offset, bool is_rotation)
{
  int fd = open(name, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    {
      if (!f->missing_said && !f->o.end_when_gone)
        {
          f->missing_said = true;
          sluice_log(errno == ENOENT ? SLUICE_LOG_INFO : SLUICE_LOG_ERROR,
                     "Error opening file for reading, waiting for it", "filename", name, "error", strerror(errno),
                     NULL);
        }
      return false;
    }
  struct stat st;
  if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode))
    {
      if (!f->missing_said)
        sluice_log(SLUICE_LOG_ERROR, "Error opening file for reading: a directory", "filename", name, NULL);
      f->missing_said = true;
      close(fd);
      return false;
    }
  f->missing_said = false;
  _use(f, fd, &st, offset, name, is_rotation);
  return true;
}

/* inotify: a file was created in, or renamed into, the path's directory
 * under its name.  Waiting for a file: open it now.  Else it took the path
 * from the open one (a rotation): open it and queue it now, before it may
 * be rotated away in turn. */
static void
_dir_event(FileFollower *f)
{
  if (!f->started)
    return;
  if (f->fd < 0)
    {
      _follow_due(f);
      return;
    }
  struct stat named;
  if (f->stream || stat(f->path, &named) != 0
      || (named.st_dev == f->st.st_dev && named.st_ino == f->st.st_ino))
    return;
  iv_validate_now();
  _queue_next(f, &named, (int64_t) iv_now.tv_sec * 1000 + iv_now.tv_nsec / 1000000);
  _follow_arm(f);
}

static void
_unwatch_dir(FileFollower *f)
{
  if (f->dir_watched)
    _watch_del(f, f->dir, true);
  f->dir_watched = false;
}

static void
_finish(FileFollower *f)
{
  _unwatch_dir(f);
  if (iv_timer_registered(&f->follow))
    iv_timer_unregister(&f->follow);
  /* the file is gone for good: its position goes from the persist file
   * too (dated names would pile up there), and late acknowledgements do
   * not bring it back */
  if (f->pos)
    {
      g_mutex_lock(&f->pos->lock);
      f->pos->store = NULL;
      g_mutex_unlock(&f->pos->lock);
    }
  if (f->store)
    persist_store_remove(f->store, f->key);
  _close_file(f);
  _drop_next(f);
  f->started = false;
  atomic_store_explicit(&f->finished, true, memory_order_release);
}

/* The follow-freq() look (on the worker). */
static void
_follow_due(void *cookie)
{
  FileFollower *f = cookie;
  assert_worker_owns(f->worker);
  if (f->fd < 0)
    {
      if (!_use_next(f) && !_open_at(f, f->path, 0, false))
        {
          if (f->o.end_when_gone)
            _finish(f);
          else
            _follow_arm(f);
        }
      return;
    }
  if (f->reader && (!f->at_end || f->stream))
    return; /* reading, or paused by flow control: it goes on by itself */
  if (f->waiting)
    return; /* its turn for a reader comes */
  uint64_t read_to = f->reader ? log_reader_file_offset(f->reader) : f->read_to;
  struct stat now;
  if (fstat(f->fd, &now) == 0) /* the reader's, while there is one */
    {
      if ((uint64_t) now.st_size > read_to)
        {
          f->replaced_at_ms = 0;
          if (f->reader)
            {
              f->at_end = false;
              log_reader_resume(f->reader);
            }
          else if (!_read(f))
            _follow_arm(f);
          return;
        }
      if ((uint64_t) now.st_size < read_to)
        {
          sluice_log(SLUICE_LOG_NOTICE, "File was truncated, reading it again from its start", "filename", f->path,
                     NULL);
          _close_file(f);
          if (!_use_next(f) && !_open_at(f, f->path, 0, false))
            _follow_arm(f);
          return;
        }
    }
  struct stat named;
  bool have_named = stat(f->path, &named) == 0;
  bool same = have_named && named.st_dev == f->st.st_dev && named.st_ino == f->st.st_ino;
  if (same)
    {
      /* nothing new: no buffer while there is nothing to read (unless it
       * holds part of a multi-line message, which waits for its rest) */
      if (!f->reader || !log_reader_holding(f->reader))
        _idle(f);
      _follow_arm(f);
      return;
    }
  /* rotated or deleted, and read to its end: a writer may still add to
   * it until it reopens its file, so it is let go only when a look a
   * follow-freq() later still finds nothing new.  The file that took the
   * path meanwhile is opened now: it may be rotated away too before then */
  iv_validate_now();
  int64_t now_ms = (int64_t) iv_now.tv_sec * 1000 + iv_now.tv_nsec / 1000000;
  if (have_named)
    _queue_next(f, &named, now_ms);
  if (f->replaced_at_ms == 0 || now_ms - f->replaced_at_ms < f->o.follow_freq_ms)
    {
      if (f->replaced_at_ms == 0)
        f->replaced_at_ms = now_ms;
      if (!f->reader || !log_reader_holding(f->reader))
        _idle(f);
      _follow_arm(f);
      return;
    }
  f->replaced_at_ms = 0;
  /* a last line without its end goes out as it is */
  if (!f->reader && f->has_partial)
    _read_now(f);
  if (f->reader)
    log_reader_flush_partial(f->reader);
  _close_file(f);
  if (_use_next(f) || _open_at(f, f->path, 0, true))
    return;
  if (f->o.end_when_gone)
    _finish(f);
  else
    _follow_arm(f);
}

static void
_follow_arm(FileFollower *f)
{
  if (iv_timer_registered(&f->follow))
    return;
  iv_validate_now();
  f->follow.expires = iv_now;
  timespec_add_ns(&f->follow.expires, f->o.follow_freq_ms * 1000000);
  iv_timer_register(&f->follow);
}

/* The file of v's device and inode in the directory of path, renamed
 * there while the daemon was stopped; NULL (g_free) when there is none. */
static char *
_find_rotated(const char *path, const FilePersisted *v)
{
  char *dir = g_path_get_dirname(path);
  DIR *d = opendir(dir);
  char *found = NULL;
  struct dirent *e;
  while (d && !found && (e = readdir(d)) != NULL)
    {
      if (e->d_ino != v->ino)
        continue;
      char *name = g_build_filename(dir, e->d_name, NULL);
      struct stat st;
      if (stat(name, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t) st.st_dev == v->dev
          && (uint64_t) st.st_ino == v->ino)
        found = name;
      else
        g_free(name);
    }
  if (d)
    closedir(d);
  g_free(dir);
  return found;
}

static void
_start_job(void *arg)
{
  FileFollower *f = arg;
  IV_TIMER_INIT(&f->follow);
  f->follow.cookie = f;
  f->follow.handler = _follow_due;
  IV_TASK_INIT(&f->kick);
  f->kick.cookie = f;
  f->kick.handler = _kick_run;
  if (f->o.inotify)
    f->dir_watched = _watch_add(f, f->dir, true);
  f->started = true;
  /* where to begin: where the last configuration stopped reading, else
   * where the destinations last had everything, else the start */
  FilePersisted v;
  size_t len = sizeof(v);
  bool have = _handover_take(f->path, &v)
              || (f->store && persist_store_get(f->store, f->key, &v, &len) && len == sizeof(v)
                  && v.version == FILE_PERSIST_VERSION);
  struct stat st;
  if (have && stat(f->path, &st) == 0 && (uint64_t) st.st_dev == v.dev && (uint64_t) st.st_ino == v.ino)
    {
      if (!_open_at(f, f->path, v.offset, false))
        _follow_arm(f);
      return;
    }
  if (have)
    {
      /* the path names another file now: the one it named may be here
       * under another name, with lines not read yet */
      char *old = _find_rotated(f->path, &v);
      if (old && stat(old, &st) == 0 && (uint64_t) st.st_size > v.offset)
        {
          sluice_log(SLUICE_LOG_NOTICE, "File was rotated while Sluice was stopped, reading the old one to its end "
                     "first", "filename", f->path, "rotated", old, NULL);
          bool ok = _open_at(f, old, v.offset, false);
          g_free(old);
          if (ok)
            return;
        }
      else
        g_free(old);
    }
  if (!_open_at(f, f->path, 0, false))
    {
      if (f->o.end_when_gone)
        _finish(f);
      else
        _follow_arm(f);
    }
}

void
file_follower_start(FileFollower *f, Worker *w)
{
  f->worker = w;
  worker_post(w, _start_job, f);
}

void
_stop_job(void *arg)
{
  FileFollower *f = arg;
  assert_worker_owns(f->worker);
  if (!f->started)
    return;
  if (iv_timer_registered(&f->follow))
    iv_timer_unregister(&f->follow);
  _unwatch_dir(f);
  if (f->pos)
    {
      FilePersisted v = { .version = FILE_PERSIST_VERSION, .dev = (uint64_t) f->st.st_dev,
                          .ino = (uint64_t) f->st.st_ino, .offset = _positions_read_end(f->pos) };
      /* the file's own path: a follower still reading a rotated file
       * hands over where it stopped in that one */
      _handover_put(f->path, &v);
    }
  _close_file(f);
  _drop_next(f);
  log_source_flush(f->src);
  f->started = false;
}

void
file_follower_stop(FileFollower *f)
{
  if (f->worker)
    worker_run(f->worker, _stop_job, f);
}

void
file_follower_stop_if_here(FileFollower *f)
{
  if (worker_current() == f->worker)
    _stop_job(f);
}

bool
file_follower_finished(const FileFollower *f)
{
  return atomic_load_explicit(&f->finished, memory_order_acquire);
}

void
file_follower_file_id(const FileFollower *f, uint64_t *dev, uint64_t *ino)
{
  *dev = f->fd >= 0 ? (uint64_t) f->st.st_dev : 0;
  *ino = f->fd >= 0 ? (uint64_t) f->st.st_ino : 0;
}

void
file_follower_free(FileFollower *f)
{
  if (!f)
    return;
  g_free(f->path);
  g_free(f->key);
  g_free(f->dir);
  g_free(f->base);
  g_free(f);
}
