/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * systemd-journal(): reads the systemd journal with libsystemd's
 * sd-journal, as syslog-ng 3.38's driver of that name does (system() is
 * this driver on a systemd host).
 *
 * Threads: the journal is opened and positioned on the main thread at
 * start (so an error stops the start), then handed to one I/O worker for
 * good: its inotify descriptor (sd_journal_get_fd) is polled on that
 * worker's ivykis loop, and each wakeup runs sd_journal_process() and reads
 * up to log-fetch-limit() entries; when more are waiting an iv_task reads
 * on after the loop's other work.  No thread of its own, no busy loop.
 * With flags(flow-control) a window of log-iw-size() slots stops reading
 * until destinations have written; without it a congested destination
 * queue pauses reading (the journal keeps the entries, so nothing is
 * dropped either way).
 *
 * Position: the cursor of the last entry handed on.  It is kept
 *  - across a reload in a table of this process, under the cursor file's
 *    name: the new source goes on after the entry the old one stopped at;
 *  - across restarts in the cursor file (cursor-file(), a Sluice option;
 *    Sluice has no persist file yet), written at stop and at most once a
 *    second while reading, so after a crash up to a second of entries is
 *    read again; none is lost.
 * Without a saved position the journal is read from its start with
 * read-old-records(yes) (syslog-ng's default: measured, syslog-ng 3.38
 * logs the entries already there the first time) or from its end.
 */
#include "journal.h"
#include "system.h"

#include "sluice-config.h"
#include "sluice/internal-log.h"
#include "sluice/pipeline.h"
#include "sluice/timeutil.h"

#include <errno.h>
#include <fcntl.h>
#include <iv.h>
#include <iv_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-journal.h>
#include <time.h>
#include <unistd.h>

typedef struct JournalOptions
{
  char *prefix;
  int64_t max_field_size;
  char *ns;
  int64_t log_fetch_limit;
  int default_facility;
  int default_level;       /* index into cfg_level_names */
  char *time_zone;
  bool read_old_records;
  bool keep_hostname;
  bool use_fqdn;
  int64_t log_iw_size;
  char **tags;
  char *program_override;
  char *host_override;
  char *directory;         /* Sluice: read the journal files of a directory */
  char *cursor_file;       /* Sluice: where the position is kept */
} JournalOptions;

#define OFF(f) offsetof(JournalOptions, f)
static const CfgOption journal_options[] = {
  { .name = "prefix", .type = CFG_OPT_STRING, .offset = OFF(prefix), .def_str = ".journald.", .empty_ok = true },
  { .name = "max-field-size", .type = CFG_OPT_INT, .offset = OFF(max_field_size), .def_int = 65536, .min = 1,
    .max = INT32_MAX },
  { .name = "namespace", .type = CFG_OPT_STRING, .offset = OFF(ns), .def_str = "*" },
  { .name = "log-fetch-limit", .type = CFG_OPT_INT, .offset = OFF(log_fetch_limit), .def_int = 10, .min = 1,
    .max = 100000 },
  { .name = "default-facility", .type = CFG_OPT_ENUM, .offset = OFF(default_facility), .def_int = 16,
    .names = cfg_facility_names },
  { .name = "default-level", .type = CFG_OPT_ENUM, .offset = OFF(default_level), .def_int = 5, .names = cfg_level_names },
  { .name = "default-priority", .type = CFG_OPT_ENUM, .offset = OFF(default_level), .def_int = 5,
    .names = cfg_level_names },
  { .name = "default-severity", .type = CFG_OPT_ENUM, .offset = OFF(default_level), .def_int = 5,
    .names = cfg_level_names },
  { .name = "time-zone", .type = CFG_OPT_STRING, .offset = OFF(time_zone), .check = cfg_check_time_zone },
  { .name = "read-old-records", .type = CFG_OPT_BOOL, .offset = OFF(read_old_records), .def_int = 1 },
  { .name = "keep-hostname", .type = CFG_OPT_BOOL, .offset = OFF(keep_hostname), .inherit = "keep-hostname" },
  { .name = "use-fqdn", .type = CFG_OPT_BOOL, .offset = OFF(use_fqdn), .inherit = "use-fqdn" },
  { .name = "log-iw-size", .type = CFG_OPT_INT, .offset = OFF(log_iw_size), .def_int = 100, .min = 1,
    .max = INT32_MAX },
  { .name = "tags", .type = CFG_OPT_STRING_LIST, .offset = OFF(tags) },
  { .name = "program-override", .type = CFG_OPT_STRING, .offset = OFF(program_override) },
  { .name = "host-override", .type = CFG_OPT_STRING, .offset = OFF(host_override) },
  { .name = "directory", .type = CFG_OPT_STRING, .offset = OFF(directory) },
  { .name = "cursor-file", .type = CFG_OPT_STRING, .offset = OFF(cursor_file) },
  { .name = NULL },
};
#undef OFF

#define JOURNAL_SAVE_NS 1000000000L      /* write the cursor file at most once a second */
#define JOURNAL_BACKOFF_NS 1000000L      /* a congestion pause, as the stream reader's */
#define JOURNAL_POLL_NS 250000000L       /* files inotify cannot watch: look this often */

typedef struct JournalSource
{
  LogSource base;          /* the driver, env and host logic (local) */
  JournalOptions o;
  JournalMapOptions map;
  TimeZoneInfo *tz;
  char *cursor_path;

  /* running: the worker's once handed over */
  LogSourcePeer peer;      /* HOST_FROM: this host */
  sd_journal *j;
  Worker *worker;
  LogSourceWindow flow;    /* with flow control */
  LogWindow *window;       /* flow.window, NULL without */
  struct iv_fd fd;
  struct iv_task task;
  struct iv_timer backoff;
  struct iv_timer save;
  struct iv_timer poll;
  int throttled_ms;
  char *skip_cursor;   /* the saved entry, read again by the first next() */
  char *cursor;        /* of the last entry handed on (malloc, sd-journal's) */
  bool cursor_dirty;
  bool read_error_said;
  bool save_error_said;
  bool started;
  bool registered;
} JournalSource;

/* ---- positions kept for the life of the process (reloads) ----------------- */

static GMutex positions_lock;
static GHashTable *positions; /* cursor file path -> cursor */

static char *
_position_get(const char *key)
{
  g_mutex_lock(&positions_lock);
  char *c = positions ? g_strdup(g_hash_table_lookup(positions, key)) : NULL;
  g_mutex_unlock(&positions_lock);
  return c;
}

static void
_position_put(const char *key, const char *cursor)
{
  g_mutex_lock(&positions_lock);
  if (!positions)
    positions = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  g_hash_table_insert(positions, g_strdup(key), g_strdup(cursor));
  g_mutex_unlock(&positions_lock);
}

/* The cursor files of the running sources (main thread only): two sources
 * saving their positions in one file would each start from the other's.
 * syslog-ng 3.38 allows one systemd-journal() per configuration; Sluice
 * allows one per cursor file. */
static GHashTable *cursor_files_in_use;

static bool
_cursor_file_claim(const char *path)
{
  if (!cursor_files_in_use)
    cursor_files_in_use = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  if (g_hash_table_contains(cursor_files_in_use, path))
    return false;
  g_hash_table_add(cursor_files_in_use, g_strdup(path));
  return true;
}

static void
_cursor_file_release(const char *path)
{
  if (cursor_files_in_use)
    g_hash_table_remove(cursor_files_in_use, path);
  if (cursor_files_in_use && g_hash_table_size(cursor_files_in_use) == 0)
    {
      g_hash_table_destroy(cursor_files_in_use);
      cursor_files_in_use = NULL;
    }
}

/* ---- the cursor file --------------------------------------------------------- */

static char *
_cursor_file_read(const char *path)
{
  char *text = NULL;
  if (!g_file_get_contents(path, &text, NULL, NULL))
    return NULL;
  g_strstrip(text);
  if (!text[0])
    {
      g_free(text);
      return NULL;
    }
  return text;
}

/* Write through a temporary file and rename, so a crash leaves the old
 * cursor or the new one, never half of one. */
static bool
_cursor_file_write(const char *path, const char *cursor, char **error)
{
  char *tmp = g_strdup_printf("%s.tmp", path);
  bool ok = false;
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd >= 0)
    {
      size_t len = strlen(cursor);
      ok = write(fd, cursor, len) == (ssize_t) len && write(fd, "\n", 1) == 1;
      ok = close(fd) == 0 && ok;
      ok = ok && rename(tmp, path) == 0;
    }
  if (!ok)
    {
      *error = g_strdup(strerror(errno));
      unlink(tmp);
    }
  g_free(tmp);
  return ok;
}

static void
_save_cursor(JournalSource *s)
{
  if (!s->cursor || !s->cursor_dirty)
    return;
  s->cursor_dirty = false;
  _position_put(s->cursor_path, s->cursor);
  char *error = NULL;
  if (_cursor_file_write(s->cursor_path, s->cursor, &error))
    {
      s->save_error_said = false;
      return;
    }
  /* once until it works again, not every second */
  if (!s->save_error_said)
    sluice_log(SLUICE_LOG_ERROR, "systemd-journal(): cannot save the journal position, a restart reads again "
               "from the last one saved", "filename", s->cursor_path, "error", error, NULL);
  s->save_error_said = true;
  g_free(error);
}

/* ---- reading (on the worker) ---------------------------------------------- */

static void
_stamp_now(LogStamp *st)
{
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  st->sec = ts.tv_sec;
  st->usec = (uint32_t) (ts.tv_nsec / 1000);
  st->gmtoff = tz_offset_at(tz_local(), st->sec);
}

static void
_timer_in(struct iv_timer *t, long ns)
{
  if (iv_timer_registered(t))
    return;
  iv_validate_now();
  t->expires = iv_now;
  timespec_add_ns(&t->expires, ns);
  iv_timer_register(t);
}

static void
_deliver_entry(JournalSource *s, const LogStamp *now)
{
  LogMsg *msg = log_msg_new(1024);
  msg->stamps[LM_TS_RECVD] = *now;
  msg->flags |= LF_LOCAL;
  journal_msg_begin(msg, &s->map);
  const void *data;
  size_t len;
  sd_journal_restart_data(s->j);
  while (sd_journal_enumerate_data(s->j, &data, &len) > 0)
    journal_msg_add_field(msg, &s->map, data, len);
  journal_msg_finish(msg, &s->map);
  uint64_t usec;
  if (sd_journal_get_realtime_usec(s->j, &usec) >= 0)
    journal_msg_set_time(msg, &s->map, usec);
  else
    msg->stamps[LM_TS_STAMP] = *now;

  /* syslog-ng's host logic for a local source (sluice/logsource.h):
   * _HOSTNAME only stays with keep-hostname(yes), and an empty one never */
  log_msg_set_value(msg, LM_V_SOURCE, s->base.env.name, -1);
  if (s->window)
    log_msg_ack_begin(msg, s->window);
  log_source_post(&s->base, msg, &s->peer);
}

static bool
_window_full(JournalSource *s)
{
  return s->window && !log_window_has_room(s->window);
}

static void
_read_entries(JournalSource *s)
{
  if (iv_timer_registered(&s->backoff) || _window_full(s))
    return; /* the backoff's end or the window's wakeup reads on */
  LogStamp now;
  _stamp_now(&now);
  int n = 0, rc = 0;
  while (n < s->o.log_fetch_limit && !_window_full(s))
    {
      rc = sd_journal_next(s->j);
      if (rc <= 0)
        break;
      if (s->skip_cursor)
        {
          /* the saved entry itself was handed on before; if it is gone
           * (rotated away), this one is the next and is read */
          bool same = sd_journal_test_cursor(s->j, s->skip_cursor) > 0;
          free(s->skip_cursor);
          s->skip_cursor = NULL;
          if (same)
            continue;
        }
      _deliver_entry(s, &now);
      n++;
    }
  if (rc < 0 && !s->read_error_said)
    {
      s->read_error_said = true;
      sluice_log(SLUICE_LOG_ERROR, "systemd-journal(): error reading the journal", "error", strerror(-rc), NULL);
    }
  if (n > 0)
    {
      char *c = NULL;
      if (sd_journal_get_cursor(s->j, &c) >= 0)
        {
          free(s->cursor);
          s->cursor = c;
          s->cursor_dirty = true;
          _timer_in(&s->save, JOURNAL_SAVE_NS);
        }
      log_pipeline_flush(s->base.env.pipeline);
    }
  if (log_queue_congestion_take())
    {
      _timer_in(&s->backoff, JOURNAL_BACKOFF_NS);
      return;
    }
  s->throttled_ms = 0;
  if (rc > 0 && !_window_full(s) && !iv_task_registered(&s->task))
    iv_task_register(&s->task);
}

static void
_task_run(void *cookie)
{
  _read_entries(cookie);
}

static void
_readable(void *cookie)
{
  JournalSource *s = cookie;
  int rc = sd_journal_process(s->j);
  if (rc < 0 && !s->read_error_said)
    {
      s->read_error_said = true;
      sluice_log(SLUICE_LOG_ERROR, "systemd-journal(): error watching the journal", "error", strerror(-rc), NULL);
    }
  _read_entries(s);
}

static void
_poll_due(void *cookie)
{
  JournalSource *s = cookie;
  _readable(s);
  _timer_in(&s->poll, JOURNAL_POLL_NS);
}

static void
_backoff_done(void *cookie)
{
  JournalSource *s = cookie;
  s->throttled_ms++;
  if (log_queue_congestion_persists() && s->throttled_ms < 2000)
    {
      _timer_in(&s->backoff, JOURNAL_BACKOFF_NS);
      return;
    }
  s->throttled_ms = 0;
  _read_entries(s);
}

static void
_save_due(void *cookie)
{
  _save_cursor(cookie);
}

static void
_resume(void *cookie)
{
  JournalSource *s = cookie;
  if (!iv_task_registered(&s->task))
    iv_task_register(&s->task);
}

static void
_start_job(void *arg)
{
  JournalSource *s = arg;
  IV_FD_INIT(&s->fd);
  s->fd.fd = sd_journal_get_fd(s->j);
  s->fd.cookie = s;
  s->fd.handler_in = _readable;
  iv_fd_register(&s->fd);
  IV_TASK_INIT(&s->task);
  s->task.cookie = s;
  s->task.handler = _task_run;
  if (s->base.env.flow_control)
    {
      log_source_window_init(&s->flow, (int) s->o.log_iw_size, _resume, s);
      s->window = s->flow.window;
    }
  IV_TIMER_INIT(&s->backoff);
  s->backoff.cookie = s;
  s->backoff.handler = _backoff_done;
  IV_TIMER_INIT(&s->save);
  s->save.cookie = s;
  s->save.handler = _save_due;
  IV_TIMER_INIT(&s->poll);
  s->poll.cookie = s;
  s->poll.handler = _poll_due;
  /* a journal on a file system inotify cannot watch has to be looked at */
  if (sd_journal_reliable_fd(s->j) == 0)
    _timer_in(&s->poll, JOURNAL_POLL_NS);
  s->registered = true;
  iv_task_register(&s->task); /* what is there already */
}

static void
_stop_job(void *arg)
{
  JournalSource *s = arg;
  if (!s->registered)
    return;
  log_source_window_deinit(&s->flow);
  s->window = NULL;
  iv_fd_unregister(&s->fd);
  if (iv_task_registered(&s->task))
    iv_task_unregister(&s->task);
  struct iv_timer *timers[] = { &s->backoff, &s->save, &s->poll };
  for (size_t i = 0; i < G_N_ELEMENTS(timers); i++)
    if (iv_timer_registered(timers[i]))
      iv_timer_unregister(timers[i]);
  log_pipeline_flush(s->base.env.pipeline);
  s->registered = false;
}

/* ---- start and stop (main thread) ------------------------------------------- */

static bool
_open_journal(JournalSource *s, char **error)
{
  int rc;
  const char *what;
  if (s->o.directory)
    {
      what = s->o.directory;
      rc = sd_journal_open_directory(&s->j, s->o.directory, 0);
    }
  else if (strcmp(s->o.ns, "*") == 0)
    {
      what = "all namespaces";
      rc = sd_journal_open_namespace(&s->j, NULL, SD_JOURNAL_LOCAL_ONLY | SD_JOURNAL_ALL_NAMESPACES);
    }
  else if (s->o.ns[0] == '+')
    {
      /* journalctl's "+NAME": that namespace and the default one */
      what = s->o.ns + 1;
      rc = sd_journal_open_namespace(&s->j, s->o.ns + 1, SD_JOURNAL_LOCAL_ONLY | SD_JOURNAL_INCLUDE_DEFAULT_NAMESPACE);
    }
  else
    {
      what = s->o.ns;
      rc = sd_journal_open_namespace(&s->j, s->o.ns, SD_JOURNAL_LOCAL_ONLY);
    }
  if (rc < 0)
    {
      *error = g_strdup_printf("systemd-journal(): cannot open the journal (%s): %s", what, strerror(-rc));
      s->j = NULL;
      return false;
    }
  return true;
}

/* Where reading begins: after the saved entry, else the start or the end
 * of the journal (see the top of the file). */
static bool
_position(JournalSource *s, char **error)
{
  char *cursor = _position_get(s->cursor_path);
  if (!cursor)
    cursor = _cursor_file_read(s->cursor_path);
  if (cursor)
    {
      int rc = sd_journal_seek_cursor(s->j, cursor);
      if (rc >= 0)
        {
          s->skip_cursor = strdup(cursor);
          s->cursor = strdup(cursor);
          g_free(cursor);
          return s->skip_cursor && s->cursor;
        }
      sluice_log(SLUICE_LOG_WARNING, "systemd-journal(): the saved journal position is not valid, starting over",
                 "filename", s->cursor_path, "error", strerror(-rc), NULL);
      g_free(cursor);
    }
  int rc;
  if (s->o.read_old_records)
    rc = sd_journal_seek_head(s->j);
  else
    {
      /* past the last entry there is now: only the ones written after it */
      rc = sd_journal_seek_tail(s->j);
      if (rc >= 0)
        rc = sd_journal_previous(s->j);
    }
  if (rc < 0)
    {
      *error = g_strdup_printf("systemd-journal(): cannot position the journal: %s", strerror(-rc));
      return false;
    }
  return true;
}

static bool
_journal_start(LogSourceDriver *d, const LogSourceEnv *env, char **error)
{
  JournalSource *s = (JournalSource *) d;
  log_source_begin(&s->base, env);
  s->read_error_said = false;
  if (!_cursor_file_claim(s->cursor_path))
    {
      *error = g_strdup_printf("systemd-journal(): another systemd-journal() source keeps its position in %s; "
                               "give each one its own cursor-file() (syslog-ng 3.38 allows only one)",
                               s->cursor_path);
      return false;
    }
  /* as disk-buffer() makes its directory: the state directory may not
   * exist yet on a first start */
  char *dir = g_path_get_dirname(s->cursor_path);
  if (g_mkdir_with_parents(dir, 0700) != 0)
    sluice_log(SLUICE_LOG_WARNING, "systemd-journal(): cannot make the directory of the cursor file, the position "
               "is not kept across restarts", "dir", dir, "error", strerror(errno), NULL);
  g_free(dir);
  if (!_open_journal(s, error))
    {
      _cursor_file_release(s->cursor_path);
      return false;
    }
  if (!_position(s, error))
    {
      sd_journal_close(s->j);
      s->j = NULL;
      _cursor_file_release(s->cursor_path);
      return false;
    }
  int fd = sd_journal_get_fd(s->j);
  if (fd < 0)
    {
      *error = g_strdup_printf("systemd-journal(): cannot watch the journal: %s", strerror(-fd));
      sd_journal_close(s->j);
      s->j = NULL;
      free(s->skip_cursor);
      free(s->cursor);
      s->skip_cursor = s->cursor = NULL;
      _cursor_file_release(s->cursor_path);
      return false;
    }
  s->worker = worker_pool_pick(env->pool);
  worker_stream_added(s->worker);
  worker_post(s->worker, _start_job, s);
  s->started = true;
  return true;
}

static void
_journal_stop(LogSourceDriver *d)
{
  JournalSource *s = (JournalSource *) d;
  if (!s->started)
    return;
  worker_run(s->worker, _stop_job, s);
  worker_stream_removed(s->worker);
  /* the reload's new source (or the next run) goes on from here */
  if (s->cursor)
    _position_put(s->cursor_path, s->cursor);
  _save_cursor(s);
  sd_journal_close(s->j);
  s->j = NULL;
  free(s->cursor);
  s->cursor = NULL;
  free(s->skip_cursor);
  s->skip_cursor = NULL;
  _cursor_file_release(s->cursor_path);
  s->started = false;
}

static void
_journal_free(LogSourceDriver *d)
{
  JournalSource *s = (JournalSource *) d;
  cfg_options_free(journal_options, &s->o);
  log_source_deinit(&s->base);
  g_free(s->cursor_path);
  free(s);
}

static const LogSourceOps journal_ops = { _journal_start, _journal_stop, _journal_free };

/* The default cursor file: one per journal read, in Sluice's state
 * directory ("systemd-journal.all.cursor" for every namespace). */
static char *
_default_cursor_path(const JournalOptions *o)
{
  const char *what = o->directory ? o->directory : strcmp(o->ns, "*") == 0 ? "all" : o->ns;
  char *name = g_strdup_printf("systemd-journal.%s%s.cursor", o->directory ? "dir" : "", what);
  for (char *p = name; *p; p++)
    if (*p == '/' || *p == ' ')
      *p = '_';
  char *path = g_build_filename(SLUICE_STATEDIR, name, NULL);
  g_free(name);
  return path;
}

static LogSourceDriver *
_journal_new(const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  JournalSource *s = calloc(1, sizeof(*s));
  if (!s)
    abort();
  log_source_init(&s->base, &journal_ops, call);
  cfg_options_defaults(journal_options, &s->o);
  if (!cfg_options_apply_inherit(journal_options, call, &s->o, "systemd-journal()", ctx->global, err))
    {
      _journal_free(&s->base.super);
      return NULL;
    }
  if (s->o.directory && cfg_option_given(call, "namespace"))
    {
      cfg_error_set(err, &call->loc, "systemd-journal(): directory() and namespace() cannot be used together");
      _journal_free(&s->base.super);
      return NULL;
    }
  /* its own table (syslog-ng's names for this source), the core's host
   * logic: the options it shares with every source go through resolve */
  LogSourceOptions so;
  log_source_options_defaults(&so, ctx->global);
  so.log_iw_size = s->o.log_iw_size;
  so.log_fetch_limit = s->o.log_fetch_limit;
  so.host_override = s->o.host_override;
  so.program_override = s->o.program_override;
  so.keep_hostname = s->o.keep_hostname;
  so.use_fqdn = s->o.use_fqdn;
  so.tags = s->o.tags;
  if (!log_source_resolve(&s->base, &so, call, ctx, true, "local+journal", err))
    {
      _journal_free(&s->base.super);
      return NULL;
    }
  s->tz = s->o.time_zone ? tz_get(s->o.time_zone, NULL) : NULL;
  uint16_t pri = (uint16_t) (s->o.default_facility * 8 + cfg_level_codes[s->o.default_level]);
  if (!journal_map_options_init(&s->map, s->o.prefix, (size_t) s->o.max_field_size, pri, s->tz))
    {
      cfg_error_set(err, &call->loc, "systemd-journal(): no room for more value names");
      _journal_free(&s->base.super);
      return NULL;
    }
  s->cursor_path = s->o.cursor_file ? g_strdup(s->o.cursor_file) : _default_cursor_path(&s->o);
  return &s->base.super;
}

LogSourceDriver *
journal_source_new_default(const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  CfgNode node;
  memset(&node, 0, sizeof(node));
  node.kind = CFG_NODE_CALL;
  node.name = (char *) "systemd-journal";
  node.loc = call->loc;
  LogSourceDriver *d = _journal_new(&node, ctx, err);
  /* tests: the journal files of a directory instead of the host's journal,
   * as SLUICE_DEV_LOG moves /dev/log */
  const char *dir = getenv("SLUICE_JOURNAL_DIRECTORY");
  if (d && dir && dir[0])
    {
      JournalSource *s = (JournalSource *) d;
      g_free(s->o.directory);
      s->o.directory = g_strdup(dir);
      g_free(s->cursor_path);
      const char *cursor = getenv("SLUICE_JOURNAL_CURSOR_FILE");
      s->cursor_path = cursor && cursor[0] ? g_strdup(cursor) : _default_cursor_path(&s->o);
    }
  return d;
}

const LogDriverFactory journal_source_factory = {
  { .kind = CFG_OBJ_SOURCE, .name = "systemd-journal", .options = journal_options,
    .struct_size = sizeof(JournalOptions), .min_args = 0, .max_args = 0 },
  _journal_new,
  NULL,
  NULL,
};
