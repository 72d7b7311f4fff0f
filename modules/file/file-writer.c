/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The writer side of file(), pipe() and stdout(), run on the destination's
 * LogWriter thread.
 *
 * A batch is written in passes.  First every message is given its file
 * (one open descriptor per path, kept in a table).  A path with macros is
 * found by its key, the values its macros give (log_template_format_key):
 * only a key not met before has the whole path made from it, checked and
 * looked up, and keys whose values make the same path share its file.
 * Each line is formatted in the same pass, at the end of its file's own
 * buffer (OpenFile.body), while its message is still in the cache: a
 * second pass over a batch of thousands of messages in file order found
 * them gone from it.  Last, each file the batch touched gets all its
 * lines in one writev, in batch order, from one piece of memory; partial
 * writes continue where they stopped, EINTR is retried and EAGAIN (a full
 * pipe) waits for room.
 *
 * LogWriter wants to hear "the first k messages are written".  With macro
 * paths a batch spreads over several files, and one of them may fail after
 * lines further down the batch went to another file.  Those lines must not
 * be written twice when the writer tries the rest again, so what became of
 * every message not yet reported is kept (ahead[]): written whole, not at
 * all, or in part, and then the bytes still to go (rest), which the retry
 * writes as they are.  Formatting the line again could give other bytes
 * ($C_* and $P_* macros read the clock, $(uuid) is new each time) and
 * leave a line made of two halves.
 *
 * Files whose path has macros are closed after time-reap idle seconds;
 * reopen (SIGUSR1) closes every file so that the next write creates the
 * file logrotate moved away.  Paths that climb with '..' are refused and
 * their messages dropped, as syslog-ng 3.38 does ("Spurious path").
 *
 * A file that cannot be opened: with a fixed path the batch fails and is
 * tried again after time-reopen (nothing is lost while the operator fixes
 * it).  With macros in the path a lasting error (no such directory, no
 * permission) drops that message with an error line instead, so that one
 * host's impossible path does not stop every other file; syslog-ng, with
 * a queue per file, also ends up dropping them.  Transient errors (disk
 * full, no descriptors) fail the batch as for a fixed path.
 */
#include "file-dest.h"

#include "sluice/internal-log.h"
#include "sluice/strbuf.h"
#include "sluice/threads.h"
#include "sluice/timeutil.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

/* ahead[]: what became of a line not yet reported */
#define AHEAD_NONE 0        /* nothing of it is out */
#define AHEAD_REST 1        /* a part is: the rest waits in FileDest.rest */
#define AHEAD_DONE SIZE_MAX /* the whole line is out */
#define EAGAIN_WAIT_MS 1000 /* a pipe that takes nothing this long counts as failed */
/* A file's buffer above this is given back when a batch used less than a
 * quarter of it, and at housekeeping (once a second): a burst to one file
 * does not keep its memory. */
#define BODY_KEEP (256 * 1024)
/* What a file's buffer starts with: a line or two, so that a destination
 * split ten thousand ways does not hold 40 MB of empty buffers. */
#define FILE_BODY_START 256

/* The files' table hashes each message's path (str_hash_bytes). */
static guint
_path_hash(gconstpointer key)
{
  return str_hash_bytes(key, strlen(key));
}

/* The keys' table points into files: empty it whenever files loses one. */
static void
_forget_keys(FileDest *d)
{
  log_template_keys_clear(d->by_key);
}

static void
_close_fd(FileDest *d, OpenFile *f)
{
  if (f->fd >= 0 && d->kind == FILE_KIND_PROGRAM)
    program_dest_broken(d); /* the pipe is the child's: it goes with it */
  else if (f->fd >= 0 && d->kind != FILE_KIND_STDOUT)
    close(f->fd);
  f->fd = -1;
}

/* program(): the table only borrows the child's pipe; drop the entries
 * without closing it. */
static void
_forget_borrowed(FileDest *d)
{
  GHashTableIter it;
  gpointer v;
  g_hash_table_iter_init(&it, d->files);
  while (g_hash_table_iter_next(&it, NULL, &v))
    ((OpenFile *) v)->fd = -1;
  g_hash_table_remove_all(d->files);
  _forget_keys(d);
  d->last = NULL;
}

static void
_open_file_free(gpointer p)
{
  OpenFile *f = p;
  if (f->fd > STDERR_FILENO)
    close(f->fd);
  g_array_free(f->lines, TRUE);
  g_string_free(f->body, TRUE);
  g_free(f->path);
  g_free(f);
}

static void
_ensure_state(FileDest *d)
{
  if (d->files)
    return;
  d->files = g_hash_table_new_full(_path_hash, g_str_equal, NULL, _open_file_free);
  d->path_buf = g_string_sized_new(256);
  if ((d->kind == FILE_KIND_FILE || d->kind == FILE_KIND_PIPE) && !d->path_is_literal)
    {
      d->by_key = log_template_keys_new(d->path);
    }
  d->rest = g_string_new(NULL);
  d->rest_next = g_string_new(NULL);
  d->lines = g_array_new(FALSE, FALSE, sizeof(FileLine));
  d->order = g_ptr_array_new();
  d->iov = g_array_new(FALSE, FALSE, sizeof(struct iovec));
}

/* Close the least recently used file that this batch has not touched, to
 * make room for another descriptor.  Returns false when there is none. */
static bool
_evict_lru(FileDest *d)
{
  GHashTableIter it;
  gpointer v;
  OpenFile *lru = NULL;
  g_hash_table_iter_init(&it, d->files);
  while (g_hash_table_iter_next(&it, NULL, &v))
    {
      OpenFile *f = v;
      if (f->fd >= 0 && f->lines->len == 0 && (!lru || f->last_used < lru->last_used))
        lru = f;
    }
  if (!lru)
    return false;
  _close_fd(d, lru);
  return true;
}

static int
_open(FileDest *d, OpenFile *f)
{
  if (d->kind == FILE_KIND_STDOUT)
    return STDOUT_FILENO;
  if (d->kind == FILE_KIND_PROGRAM)
    return program_dest_open(d);
  int fd = file_dest_open(d, f->path);
  if ((fd == -EMFILE || fd == -ENFILE) && _evict_lru(d))
    fd = file_dest_open(d, f->path);
  if (fd == -EMFILE || fd == -ENFILE)
    sluice_log(SLUICE_LOG_ERROR, "Error opening file for writing", "filename", f->path, "error",
               "Too many open files", NULL);
  return fd;
}

/* The open file for path, opened when needed; NULL with *err (negative
 * errno) when it cannot be opened. */
static OpenFile *
_lookup(FileDest *d, const char *path, int64_t now, int *err)
{
  OpenFile *f = g_hash_table_lookup(d->files, path);
  bool created = !f;
  if (!f)
    {
      f = g_new0(OpenFile, 1);
      f->path = g_strdup(path);
      f->fd = -1;
      f->lines = g_array_new(FALSE, FALSE, sizeof(guint));
      f->body = g_string_sized_new(FILE_BODY_START);
      g_hash_table_insert(d->files, f->path, f);
    }
  if (f->fd < 0)
    {
      int fd = _open(d, f);
      if (fd < 0)
        {
          if (f->lines->len == 0)
            {
              if (d->last == f)
                d->last = NULL;
              g_hash_table_remove(d->files, path);
              if (!created)
                _forget_keys(d); /* a key may point at it: only a new entry has none */
            }
          *err = fd;
          return NULL;
        }
      f->fd = fd;
    }
  f->last_used = now;
  return f;
}

/* ---- writing ------------------------------------------------------------ */

/* The next slot of a, of elt bytes: g_array_append_val without its call
 * for each of a batch's thousands of lines.  *room is what a holds
 * (GArray does not say): grown by doubling, never shrunk, since a
 * g_array_set_size to 0 keeps the memory. */
static inline void *
_push(GArray *a, guint *room, size_t elt)
{
  if (a->len == *room)
    {
      guint len = a->len;
      g_array_set_size(a, len ? len * 2 : 64);
      *room = a->len;
      a->len = len;
    }
  return a->data + (size_t) a->len++ * elt;
}

/* Wait until fd takes more bytes; false after EAGAIN_WAIT_MS without. */
static bool
_wait_writable(int fd)
{
  return log_writer_wait_fd(fd, POLLOUT, EAGAIN_WAIT_MS);
}

/* Write what is left of f's lines of this batch, in order.  Returns 0 or a
 * negative errno; lines' done counts what went out either way. */
static int
_write_file(FileDest *d, OpenFile *f)
{
  FileLine *lines = (FileLine *) d->lines->data;
  const guint *idx = (const guint *) f->lines->data;
  guint k = 0; /* the first of f's lines not fully written */
  for (;;)
    {
      while (k < f->lines->len && lines[idx[k]].done >= lines[idx[k]].len)
        k++;
      if (k == f->lines->len)
        return 0;
      g_array_set_size(d->iov, 0);
      struct iovec *v = NULL;
      for (guint j = k; j < f->lines->len; j++)
        {
          FileLine *l = &lines[idx[j]];
          if (l->done >= l->len)
            continue;
          char *base = f->body->str + l->offset + l->done;
          size_t len = l->len - l->done;
          /* lines that follow each other in the body go out as one piece:
           * a file's whole batch, when it is the only one */
          if (v && (char *) v->iov_base + v->iov_len == base)
            {
              v->iov_len += len;
              continue;
            }
          if (d->iov->len == IOV_MAX)
            break;
          v = _push(d->iov, &d->iov_room, sizeof(struct iovec));
          v->iov_base = base;
          v->iov_len = len;
        }
      ssize_t w = writev(f->fd, (const struct iovec *) d->iov->data, (int) d->iov->len);
      if (w > 0 && d->kind == FILE_KIND_PROGRAM)
        program_dest_sent(d, (const struct iovec *) d->iov->data, (int) d->iov->len, (size_t) w);
      if (w < 0)
        {
          int e = errno;
          if (e == EINTR || ((e == EAGAIN || e == EWOULDBLOCK) && _wait_writable(f->fd)))
            continue;
          return -e;
        }
      if (w == 0)
        return -EIO;
      /* hand the written bytes to the lines they came from */
      for (guint j = k; w > 0 && j < f->lines->len; j++)
        {
          FileLine *l = &lines[idx[j]];
          size_t take = MIN((size_t) w, l->len - l->done);
          l->done += take;
          w -= (ssize_t) take;
        }
    }
}

static void
_log_write_error(const char *path, int err)
{
  char e[128];
  snprintf(e, sizeof(e), "%s (%d)", strerror(err), err);
  sluice_log(SLUICE_LOG_ERROR, "I/O error occurred while writing", "filename", path, "error", e, NULL);
}

/* Errors that retrying the same path will not cure by itself (as opposed
 * to a full disk or too many open files). */
static bool
_open_error_is_lasting(int err)
{
  switch (-err)
    {
    case ENOENT:
    case ENOTDIR:
    case EISDIR:
    case EACCES:
    case EPERM:
    case ENAMETOOLONG:
    case ELOOP:
    case EROFS:
    case ENXIO:
    case EINVAL:
      return true;
    default:
      return false;
    }
}

static void
_drop(FileDest *d, const char *why, int err)
{
  d->dropped++;
  char e[128] = "";
  if (err)
    snprintf(e, sizeof(e), "%s (%d)", strerror(err), err);
  sluice_log(SLUICE_LOG_ERROR, why, "path", d->path_buf->str, "driver", d->name, "error", e, NULL);
}

/* d->path_buf: the one "path" of a destination without macros in it (a
 * path with macros goes by its key, _file_by_key): the path itself, the
 * command of program() (the table's key; error lines name it), nothing
 * for stdout(). */
static void
_fixed_path(FileDest *d)
{
  g_string_truncate(d->path_buf, 0);
  if (d->kind == FILE_KIND_PROGRAM)
    g_string_append(d->path_buf, d->command);
  else if (d->kind != FILE_KIND_STDOUT)
    g_string_append(d->path_buf, log_template_get_text(d->path));
}

/* Whether d->path_buf, a path made from macros, may be opened; a path
 * that may not drops its message, as syslog-ng does. */
static bool
_check_path(FileDest *d)
{
  const char *why = NULL;
  if (d->path_buf->len == 0 || d->path_buf->str[d->path_buf->len - 1] == '/')
    why = "Path names a directory, message dropped";
  else if (memchr(d->path_buf->str, '\0', d->path_buf->len)
           || file_path_is_spurious_len(d->path_buf->str, d->path_buf->len))
    why = "Spurious path, logfile not created";
  if (!why)
    return true;
  _drop(d, why, 0);
  return false;
}

static inline void
_push_line(FileDest *d, const FileLine *line)
{
  *(FileLine *) _push(d->lines, &d->lines_room, sizeof(FileLine)) = *line;
}

/* The file of msg by its path's key (a path with macros): the whole path
 * is formatted, checked and looked up only for a key not met since the
 * files' table last lost an entry.  NULL: *err says why the file cannot
 * be opened, or is 0 when the path was refused (the message is dropped). */
static OpenFile *
_file_by_key(FileDest *d, const LogMsg *msg, int64_t now, int *err)
{
  OpenFile *f = log_template_keys_find(d->by_key, msg, &d->popts);
  if (f && f->fd >= 0)
    {
      f->last_used = now;
      return f;
    }
  /* new, or closed for room or after an error: by its path, made from
   * the key (the template runs once a message), which error lines name */
  *err = 0;
  g_string_truncate(d->path_buf, 0);
  log_template_keys_text(d->by_key, d->path_buf);
  if (!_check_path(d))
    return NULL;
  f = _lookup(d, d->path_buf->str, now, err);
  if (!f)
    return NULL;
  /* as many keys as files, and more when values split a path several
   * ways (${HOST}${PROGRAM}): emptied when that grows past a bound */
  log_template_keys_add(d->by_key, f, 4 * (size_t) g_hash_table_size(d->files) + 1024);
  return f;
}

/* Format msg's line (items[i]'s) at the end of its file's body, or take
 * the rest of it that an earlier try left unwritten (inlined: a call a
 * line was 1% of a one-file destination's instructions). */
static inline __attribute__((always_inline)) void
_format_line(FileDest *d, const LogMsg *msg, FileLine *line, size_t i)
{
  GString *body = line->file->body;
  line->offset = body->len;
  if (G_UNLIKELY(line->rest))
    {
      g_string_append_len(body, d->rest->str + d->rest_off[i], (gssize) d->rest_len[i]);
      line->len = d->rest_len[i];
      return;
    }
  if (d->example)
    g_string_append_printf(body, "thread_id=%ld message=", (long) syscall(SYS_gettid));
  if (d->tmpl)
    {
      log_template_seq_set(line->local ? line->seq : 0);
      log_template_format(d->tmpl, msg, &d->topts, body);
      log_template_seq_set(0);
    }
  else
    log_format_file_line(msg, &d->topts, body);
  line->len = body->len - line->offset;
  if (d->o.flags & FILE_FLAG_NO_MULTI_LINE)
    log_format_single_line(body->str + line->offset, line->len);
}

/* lines[i] for items[0..limit), each given its file and formatted into
 * it; returns limit (< n when a file cannot be opened: *err says why). */
static size_t
_prepare(FileDest *d, LogQueueItem *items, size_t n, bool resume, int *err)
{
  int64_t now = mono_sec();
  uint32_t seq = d->seq; /* a retry numbers its local messages again */
  for (size_t i = 0; i < n; i++)
    {
      if (i + 1 < n)
        log_msg_prefetch(items[i + 1].msg);
      FileLine line = { .local = (items[i].msg->flags & LF_LOCAL) != 0 };
      seq += line.local;
      line.seq = seq;
      size_t ahead = resume && i < d->ahead_n ? d->ahead[i] : AHEAD_NONE;
      if (ahead == AHEAD_DONE)
        {
          _push_line(d, &line);
          continue;
        }
      OpenFile *f = NULL;
      if (d->by_key)
        {
          f = _file_by_key(d, items[i].msg, now, err);
          if (!f && *err == 0)
            {
              _push_line(d, &line); /* dropped: a refused path */
              continue;
            }
        }
      else if (d->last && d->last->fd >= 0)
        f = d->last; /* one file for every message: nothing to expand or look up */
      else
        {
          _fixed_path(d);
          f = d->last = _lookup(d, d->path_buf->str, now, err);
        }
      if (f)
        f->last_used = now;
      if (!f && !d->path_is_literal && _open_error_is_lasting(*err))
        {
          /* one value that names an impossible path must not hold back
           * every other file of the destination */
          _drop(d, "Message dropped: its file cannot be opened", -*err);
          *err = 0;
          _push_line(d, &line);
          continue;
        }
      if (!f)
        return i;
      line.file = f;
      line.rest = ahead == AHEAD_REST;
      _format_line(d, items[i].msg, &line, i);
      if (f->lines->len == 0)
        g_ptr_array_add(d->order, f);
      *(guint *) _push(f->lines, &f->lines_room, sizeof(guint)) = (guint) i;
      _push_line(d, &line);
    }
  return n;
}

/* Remember what became of items[limit..n) for the retry: the unwritten
 * rest of a line written in part is kept as it is.  A resumed call may
 * have been offered fewer messages than the one before (throttle() hands
 * out what its tokens allow): what is known of those past n is kept. */
static void
_keep_ahead(FileDest *d, LogQueueItem *items, size_t n, size_t limit, bool resume)
{
  size_t old_n = resume ? d->ahead_n : 0;
  size_t total = MAX(n, old_n);
  if (limit == total)
    {
      d->ahead_n = 0;
      g_string_truncate(d->rest, 0);
      return;
    }
  if (d->ahead_cap < total)
    {
      /* g_renew keeps what the arrays hold: the entries past n carry on */
      d->ahead = g_renew(size_t, d->ahead, total);
      d->rest_off = g_renew(size_t, d->rest_off, total);
      d->rest_len = g_renew(size_t, d->rest_len, total);
      d->ahead_msgs = g_renew(const LogMsg *, d->ahead_msgs, total);
      d->ahead_cap = total;
    }
  const FileLine *lines = (const FileLine *) d->lines->data;
  GString *next = d->rest_next;
  g_string_truncate(next, 0);
  /* in place: entry j moves to j - limit, read before it is written */
  for (size_t j = limit; j < total; j++)
    {
      size_t v = AHEAD_NONE;
      const char *rest = NULL;
      size_t len = 0;
      if (j < d->lines->len)
        {
          const FileLine *l = &lines[j];
          if (!l->file || l->done >= l->len)
            v = AHEAD_DONE;
          else if (l->done > 0 || l->rest)
            v = AHEAD_REST, rest = l->file->body->str + l->offset + l->done, len = l->len - l->done;
        }
      else if (j < old_n)
        {
          v = d->ahead[j];
          if (v == AHEAD_REST)
            rest = d->rest->str + d->rest_off[j], len = d->rest_len[j];
        }
      /* which message an entry is about: the queue still holds each of
       * them, so the pointer names it until it is reported */
      d->ahead_msgs[j - limit] = j < n ? items[j].msg : d->ahead_msgs[j];
      d->ahead[j - limit] = v;
      d->rest_off[j - limit] = next->len;
      d->rest_len[j - limit] = len;
      if (len)
        g_string_append_len(next, rest, (gssize) len);
    }
  d->rest_next = d->rest;
  d->rest = next;
  d->ahead_n = total - limit;
}

/* f's lines are done with: its buffer is emptied, and given back when it
 * holds more than BODY_KEEP and little was asked of it. */
static void
_empty_body(OpenFile *f, bool little)
{
  if (little && f->body->allocated_len > BODY_KEEP)
    {
      g_string_free(f->body, TRUE);
      f->body = g_string_sized_new(FILE_BODY_START);
    }
  else
    g_string_truncate(f->body, 0);
}

static long
_write_batch(void *dest, LogQueueItem *items, size_t n)
{
  assert_writer_thread(dest);
  FileDest *d = dest;
  _ensure_state(d);
  if (!d->sigpipe_blocked)
    {
      /* a pipe or stdout whose reader left must give EPIPE, not kill us */
      sigset_t set;
      sigemptyset(&set);
      sigaddset(&set, SIGPIPE);
      pthread_sigmask(SIG_BLOCK, &set, NULL);
      d->sigpipe_blocked = true;
    }
  /* the same messages as those the last call left: what became of them
   * holds, however many come this time */
  bool resume = n > 0 && d->ahead_n > 0 && d->ahead_msgs[0] == items[0].msg;
  g_array_set_size(d->lines, 0);
  g_ptr_array_set_size(d->order, 0);

  int err = 0;
  size_t limit = _prepare(d, items, n, resume, &err);
  for (guint i = 0; i < d->order->len; i++)
    {
      OpenFile *f = g_ptr_array_index(d->order, i);
      int rc = _write_file(d, f);
      if (rc == 0 && d->o.fsync && fsync(f->fd) != 0 && errno != EINVAL)
        rc = -errno;
      if (rc < 0)
        {
          _log_write_error(f->path, -rc);
          if (rc != -EAGAIN)
            _close_fd(d, f);
          if (!err)
            err = rc;
        }
    }
  /* the first message not fully out ends what can be reported */
  const FileLine *lines = (const FileLine *) d->lines->data;
  for (size_t i = 0; i < limit; i++)
    if (lines[i].file && lines[i].done < lines[i].len)
      {
        limit = i;
        break;
      }
  _keep_ahead(d, items, n, limit, resume);
  /* from the lines, not the messages: their headers are cold by now */
  for (size_t i = 0; i < limit; i++)
    d->seq += lines[i].local;
  for (guint i = 0; i < d->order->len; i++)
    {
      OpenFile *f = g_ptr_array_index(d->order, i);
      g_array_set_size(f->lines, 0);
      _empty_body(f, f->body->len < f->body->allocated_len / 4);
    }
  if (limit > 0)
    return (long) limit;
  return err ? err : -EIO;
}

/* ---- housekeeping ------------------------------------------------------- */

static void
_housekeep(void *dest, int64_t now)
{
  assert_writer_thread(dest);
  FileDest *d = dest;
  if (d->kind == FILE_KIND_PROGRAM)
    {
      if (!program_dest_housekeep(d) && d->files)
        _forget_borrowed(d);
      return;
    }
  if (!d->files || d->path_is_literal || d->kind == FILE_KIND_STDOUT)
    return;
  d->last = NULL;
  bool removed = false;
  GHashTableIter it;
  gpointer v;
  g_hash_table_iter_init(&it, d->files);
  while (g_hash_table_iter_next(&it, NULL, &v))
    {
      OpenFile *f = v;
      /* entries closed for room or after an error go too, even with
       * time-reap(0), so the table only holds open files */
      if (f->fd < 0 || (d->time_reap > 0 && now - f->last_used >= d->time_reap))
        {
          g_hash_table_iter_remove(&it);
          removed = true;
        }
      else
        _empty_body(f, true);
    }
  if (removed)
    _forget_keys(d);
}

static void
_reopen(void *dest)
{
  assert_writer_thread(dest);
  FileDest *d = dest;
  if (!d->files || d->kind == FILE_KIND_STDOUT || d->kind == FILE_KIND_PROGRAM)
    return;
  d->last = NULL;
  /* a fixed path that was open is opened again at once, so the new file
   * appears now (as syslog-ng does); one never written stays unmade */
  bool reopen_now = d->path_is_literal && g_hash_table_size(d->files) > 0;
  g_hash_table_remove_all(d->files);
  _forget_keys(d);
  if (reopen_now)
    {
      int err = 0;
      _lookup(d, log_template_get_text(d->path), mono_sec(), &err);
    }
}

static void
_finish(void *dest)
{
  assert_writer_thread(dest);
  FileDest *d = dest;
  d->last = NULL;
  if (d->kind == FILE_KIND_PROGRAM)
    {
      if (d->files)
        _forget_borrowed(d);
      /* a line written in part: the next writer writes it whole */
      bool partial = false;
      for (size_t i = 0; i < d->ahead_n; i++)
        partial |= d->ahead[i] == AHEAD_REST;
      program_dest_finish(d, partial);
      return;
    }
  if (d->files)
    g_hash_table_remove_all(d->files);
  _forget_keys(d);
}

const LogWriterOps file_writer_ops = { _write_batch, _housekeep, _reopen, _finish };

void
file_writer_free(FileDest *d)
{
  if (d->files && d->kind == FILE_KIND_PROGRAM)
    _forget_borrowed(d); /* program_dest_free closes the pipe */
  log_template_keys_free(d->by_key);
  if (d->files)
    g_hash_table_destroy(d->files);
  if (d->path_buf)
    g_string_free(d->path_buf, TRUE);
  if (d->lines)
    g_array_free(d->lines, TRUE);
  if (d->order)
    g_ptr_array_free(d->order, TRUE);
  if (d->iov)
    g_array_free(d->iov, TRUE);
  g_free(d->ahead);
  g_free(d->ahead_msgs);
  g_free(d->rest_off);
  g_free(d->rest_len);
  if (d->rest)
    g_string_free(d->rest, TRUE);
  if (d->rest_next)
    g_string_free(d->rest_next, TRUE);
}
