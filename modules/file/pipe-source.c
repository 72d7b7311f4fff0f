/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pipe("PATH"): a source that reads a named pipe, as syslog-ng 3.38's
 * does, on the core source layer (sluice/logsource.h) and a LogReader.
 *
 * Opening (at start, on the main thread, so that a pipe that cannot be
 * had stops the start as in syslog-ng, unless optional(yes)):
 *
 *  - with create-dirs(yes) the missing parent directories are made
 *    (dir-owner(), dir-group(), dir-perm());
 *  - a missing path is made a FIFO with mkfifo(perm()); something there
 *    that is not a FIFO is refused ("use file()");
 *  - it is opened O_RDWR, as syslog-ng opens it: holding a write end of
 *    our own, the FIFO never reads as ended when a writer closes it, so
 *    writer after writer (each opens, writes, closes) feed one stream, a
 *    line a writer left without its end is finished by the next one, and
 *    the open neither blocks waiting for a writer nor leaves a window in
 *    which a writer's non-blocking open fails with ENXIO (no reader).
 *    Reopening at each end of file would have both those windows;
 *  - owner(), group() and perm() are applied to it at every open, to a
 *    FIFO that was already there too (perm() defaults to the global
 *    perm(), 0600, as in syslog-ng: checked, a 0644 FIFO becomes 0600).
 *
 * Messages: a local source (HOST is this host unless keep-hostname(yes)),
 * TRANSPORT "local+pipe", FILE_NAME the path (syslog-ng sets it for its
 * file readers), and no hostname expected in an RFC 3164 header unless
 * flags(expect-hostname): syslog-ng turns it off for pipe() since 3.2
 * (checked: "<13>Jan  1 00:00:00 h2 prog2: m2" has PROGRAM "h2").
 *
 * A reload hands the descriptor and the framer (the part of a line read
 * so far) to the next configuration's pipe() of the same path or
 * persist-name() (sluice/handover.h), so bytes in the FIFO and writers
 * holding it open see no gap; syslog-ng closes and reopens it.  At stop a
 * line without its end goes out as it is.  A read error (none is
 * expected of a FIFO we also hold open for writing) closes it and it is
 * opened again a second later.
 */
#include "file-dest.h"
#include "file-source.h"
#include "stream-sources.h"

#include "sluice/handover.h"
#include "sluice/internal-log.h"
#include "sluice/logsource.h"
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

#define PIPE_REOPEN_MS 1000

typedef struct PipeSourceOptions
{
  LogSourceOptions src;
  bool optional;
  bool create_dirs;      /* the global create-dirs() unless given */
  char *owner, *group;   /* NULL: the global one; "": leave alone */
  int64_t perm;          /* -2: the global one; -1: leave as created */
  char *dir_owner, *dir_group;
  int64_t dir_perm;
  char *persist_name;    /* the reload handover's key */
  int64_t pad_size;      /* pad-size(): records of this many bytes; 0 = lines */
} PipeSourceOptions;

typedef struct PipeSource
{
  LogSource base;
  PipeSourceOptions o;
  char *path;
  size_t path_len;        /* FILE_NAME of each message, without a strlen each */
  char *key;             /* in the handover registry */
  FilePerm file_perm, dir_perm;
  NVHandle file_name;

  /* on the worker (the reader is made on the main thread at start) */
  Worker *worker;
  LogReader *reader;
  LogSourcePeer peer;
  struct iv_timer reopen;
  bool started;
  bool warned;           /* a truncated message was logged */
} PipeSource;

static void
_log_errno(SluiceLogLevel level, const char *text, const char *path, int err)
{
  char e[128];
  snprintf(e, sizeof(e), "%s (%d)", strerror(err), err);
  sluice_log(level, text, "filename", path, "error", e, NULL);
}

/* The FIFO, made when missing and opened for reading (and writing: see
 * the top), or -1 (logged). */
static int
_open_fifo(PipeSource *s)
{
  if (s->o.create_dirs && file_create_parents(&s->dir_perm, s->path) < 0)
    return -1;
  struct stat st;
  if (stat(s->path, &st) != 0)
    {
      if (errno != ENOENT && errno != ENOTDIR)
        {
          _log_errno(SLUICE_LOG_ERROR, "Error opening file for reading", s->path, errno);
          return -1;
        }
      int mode = s->file_perm.mode >= 0 ? s->file_perm.mode : 0600;
      if (mkfifo(s->path, (mode_t) mode) != 0 && errno != EEXIST)
        {
          _log_errno(SLUICE_LOG_ERROR, "Error creating named pipe, mkfifo() returned an error", s->path, errno);
          return -1;
        }
    }
  else if (!S_ISFIFO(st.st_mode))
    {
      sluice_log(SLUICE_LOG_ERROR, "You are using the pipe() driver, underlying file is not a FIFO, it should be "
                 "used by file()", "filename", s->path, NULL);
      return -1;
    }
  int fd = open(s->path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    {
      _log_errno(SLUICE_LOG_ERROR, "Error opening file for reading", s->path, errno);
      return -1;
    }
  if (fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode))
    {
      /* replaced between the look and the open */
      sluice_log(SLUICE_LOG_ERROR, "You are using the pipe() driver, underlying file is not a FIFO, it should be "
                 "used by file()", "filename", s->path, NULL);
      close(fd);
      return -1;
    }
  file_perm_apply(&s->file_perm, fd, s->path);
  return fd;
}

static void
_deliver(LogMsg *msg, void *user_data)
{
  PipeSource *s = user_data;
  log_msg_set_value(msg, s->file_name, s->path, (ssize_t) s->path_len);
  log_source_post(&s->base, msg, &s->peer);
}

static void
_batch_done(void *user_data)
{
  PipeSource *s = user_data;
  log_source_flush(&s->base);
  log_source_warn_truncated(&s->base, s->reader, &s->warned, "filename", s->path, NULL, NULL);
}

static void _reopen_arm(PipeSource *s);

static void
_closed(LogReader *r, int error, const char *reason, void *user_data)
{
  PipeSource *s = user_data;
  log_source_flush(&s->base);
  sluice_log(SLUICE_LOG_ERROR, "Error reading named pipe, reopening it", "filename", s->path, "error",
             error ? reason : "end of file", NULL);
  log_reader_free(r);
  s->reader = NULL;
  worker_stream_removed(s->worker);
  _reopen_arm(s);
}

static const LogReaderCallbacks pipe_callbacks = { _deliver, _batch_done, _closed, NULL };

static LogReader *
_reader_new(PipeSource *s, int fd)
{
  LogReaderOptions ro = s->base.ro;
  ro.iw_size = s->base.env.flow_control ? (int) s->o.src.log_iw_size : 0;
  return log_reader_new(fd, false, &ro, &pipe_callbacks, s, NULL);
}

static void
_reopen_due(void *cookie)
{
  PipeSource *s = cookie;
  int fd = _open_fifo(s);
  if (fd < 0)
    {
      _reopen_arm(s);
      return;
    }
  s->reader = _reader_new(s, fd);
  if (!s->reader)
    {
      close(fd);
      _reopen_arm(s);
      return;
    }
  worker_stream_added(s->worker);
  log_reader_start(s->reader);
}

static void
_reopen_arm(PipeSource *s)
{
  if (iv_timer_registered(&s->reopen))
    return;
  iv_validate_now();
  s->reopen.expires = iv_now;
  timespec_add_ns(&s->reopen.expires, (int64_t) PIPE_REOPEN_MS * 1000000);
  iv_timer_register(&s->reopen);
}

static void
_start_job(void *arg)
{
  PipeSource *s = arg;
  IV_TIMER_INIT(&s->reopen);
  s->reopen.cookie = s;
  s->reopen.handler = _reopen_due;
  if (s->reader)
    log_reader_start(s->reader);
}

static void
_stop_job(void *arg)
{
  PipeSource *s = arg;
  if (iv_timer_registered(&s->reopen))
    iv_timer_unregister(&s->reopen);
  if (!s->reader)
    return;
  if (handover_active())
    {
      /* a reload: the next configuration's pipe() reads on from here */
      HandoverStream *st = calloc(1, sizeof(*st));
      if (!st)
        abort();
      st->fd = log_reader_detach(s->reader, &st->framer);
      g_strlcpy(st->client, s->path, sizeof(st->client));
      handover_put_stream(s->key, st);
    }
  else
    {
      /* the stream ends here: a line without its end goes out as it is */
      log_reader_flush_partial(s->reader);
      log_reader_free(s->reader);
    }
  s->reader = NULL;
  worker_stream_removed(s->worker);
  log_source_flush(&s->base);
}

static bool
_pipe_start(LogSourceDriver *d, const LogSourceEnv *env, char **error)
{
  PipeSource *s = (PipeSource *) d;
  log_source_begin(&s->base, env);
  HandoverStream *st = handover_active() ? handover_take_stream(s->key) : NULL;
  int fd = st ? st->fd : _open_fifo(s);
  if (fd < 0)
    {
      if (!s->o.optional)
        {
          *error = g_strdup_printf("pipe(): cannot open '%s' (see the error above); optional(yes) would start "
                                   "without it", s->path);
          return false;
        }
      /* as syslog-ng: an optional source that cannot open stays idle */
      sluice_log(SLUICE_LOG_NOTICE, "Optional pipe() source could not be opened, not reading it", "filename",
                 s->path, NULL);
      return true;
    }
  s->reader = _reader_new(s, fd);
  if (!s->reader)
    {
      if (st)
        handover_stream_free(st);
      else
        close(fd);
      *error = g_strdup("pipe(): out of memory");
      return false;
    }
  if (st)
    {
      log_reader_adopt_framer(s->reader, &st->framer);
      free(st); /* its fd and framer are the reader's now */
      sluice_log(SLUICE_LOG_INFO, "Named pipe kept open across the reload", "filename", s->path, NULL);
    }
  s->worker = worker_pool_pick(env->pool);
  worker_stream_added(s->worker);
  worker_post(s->worker, _start_job, s);
  s->started = true;
  return true;
}

static void
_pipe_stop(LogSourceDriver *d)
{
  PipeSource *s = (PipeSource *) d;
  if (!s->started)
    return;
  worker_run(s->worker, _stop_job, s);
  s->started = false;
}

#define OFF(field) offsetof(PipeSourceOptions, field)

/* syslog-ng 3.38's pipe() source options that Sluice has: those of every
 * source, optional(), create-dirs(), the owner/permission set,
 * persist-name() and pad-size(); multi-line-*() are not built and so
 * refused as unknown. */
static const CfgOption pipe_source_options[] = {
  LOG_SOURCE_OPTION_ROWS(PipeSourceOptions, src, 100),
  { .name = "optional", .type = CFG_OPT_BOOL, .offset = OFF(optional) },
  { .name = "create-dirs", .type = CFG_OPT_BOOL, .offset = OFF(create_dirs), .inherit = "create-dirs" },
  { .name = "owner", .type = CFG_OPT_STRING, .offset = OFF(owner), .empty_ok = true },
  { .name = "group", .type = CFG_OPT_STRING, .offset = OFF(group), .empty_ok = true },
  { .name = "perm", .type = CFG_OPT_INT, .offset = OFF(perm), .def_int = -2, .min = -1, .max = 07777 },
  { .name = "dir-owner", .type = CFG_OPT_STRING, .offset = OFF(dir_owner), .empty_ok = true },
  { .name = "dir-group", .type = CFG_OPT_STRING, .offset = OFF(dir_group), .empty_ok = true },
  { .name = "dir-perm", .type = CFG_OPT_INT, .offset = OFF(dir_perm), .def_int = -2, .min = -1, .max = 07777 },
  { .name = "persist-name", .type = CFG_OPT_STRING, .offset = OFF(persist_name) },
  FILE_SOURCE_PAD_SIZE_ROW(PipeSourceOptions, pad_size),
  { 0 },
};

static void
_pipe_free(LogSourceDriver *d)
{
  PipeSource *s = (PipeSource *) d;
  cfg_options_free(pipe_source_options, &s->o);
  log_source_deinit(&s->base);
  g_free(s->path);
  g_free(s->key);
  free(s);
}

static const LogSourceOps pipe_source_ops = { _pipe_start, _pipe_stop, _pipe_free };

static LogSourceDriver *
_pipe_source_new(const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  PipeSource *s = calloc(1, sizeof(*s));
  if (!s)
    abort();
  log_source_init(&s->base, &pipe_source_ops, call);
  cfg_options_defaults(pipe_source_options, &s->o);
  if (!cfg_options_apply_inherit(pipe_source_options, call, &s->o, "pipe()", ctx->global, err)
      || !log_source_resolve(&s->base, &s->o.src, call, ctx, true, "local+pipe", err)
      || !file_source_resolve_pad_size(&s->base, s->o.pad_size, call, "pipe", err))
    {
      _pipe_free(&s->base.super);
      return NULL;
    }
  if (!log_source_has_flag(&s->o.src, "expect-hostname"))
    s->base.ro.parse.flags &= ~(uint32_t) MF_EXPECT_HOSTNAME;
  const CfgValue *arg = &call->args[0];
  s->path = g_strdup(arg->str);
  s->path_len = strlen(s->path);
  if (!s->path[0])
    {
      cfg_error_set(err, &arg->loc, "pipe(): the file name is empty");
      _pipe_free(&s->base.super);
      return NULL;
    }
  if (file_path_is_spurious(s->path))
    {
      cfg_error_set(err, &arg->loc, "pipe(): the path '%s' contains '..'; Sluice, like syslog-ng, refuses it",
                    s->path);
      _pipe_free(&s->base.super);
      return NULL;
    }
  /* owner and group from options {} only for root, as for the pipe()
   * destination (file_perm_inherit) */
  if (ctx->global)
    file_perm_inherit(&s->o.owner, &s->o.group, &s->o.perm, &s->o.dir_owner, &s->o.dir_group, &s->o.dir_perm,
                      ctx->global);
  if (!file_perm_resolve(&s->file_perm, s->o.owner, s->o.group, s->o.perm, call, "owner", "group", err)
      || !file_perm_resolve(&s->dir_perm, s->o.dir_owner, s->o.dir_group, s->o.dir_perm, call, "dir-owner",
                            "dir-group", err))
    {
      _pipe_free(&s->base.super);
      return NULL;
    }
  s->key = g_strdup_printf("pipe:%s", s->o.persist_name ? s->o.persist_name : s->path);
  s->file_name = log_msg_get_value_handle("FILE_NAME", -1);
  g_strlcpy(s->base.super.stats_instance, s->path, sizeof(s->base.super.stats_instance));
  return &s->base.super;
}

const LogDriverFactory pipe_source_factory = {
  .def = { .kind = CFG_OBJ_SOURCE, .name = "pipe", .options = pipe_source_options,
           .struct_size = sizeof(PipeSourceOptions), .min_args = 1, .max_args = 1 },
  .new_source = _pipe_source_new,
};
