/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * wildcard-file(base-dir() filename-pattern() ...): every file of a
 * directory (tree) whose name matches, each followed by its own
 * FileFollower (file-follow.c) as file() follows one.
 *
 * Scanning.  One worker looks at the directory every follow-freq()
 * seconds (with recursive(yes) at every directory under it, symbolic
 * links not followed into, as syslog-ng 3.38 does): a regular file whose
 * name matches filename-pattern() and not exclude-pattern() (glob
 * patterns, * and ?) gets a follower, on the least busy worker, and is
 * read from its start (or from its kept position).  A file deleted or
 * renamed to a name that does not match is read to its end and let go;
 * one replaced under its name (rename-and-create) is followed into the
 * new file.  At most max-files() files are followed at once; the others
 * wait for a place (a warning says so once).  The files of one source are
 * spread over the workers, each of which reads its files in turn
 * (log-fetch-limit() reads each), so a fast file does not starve the
 * others.
 *
 * monitor-method(auto) and (inotify) also watch each followed file with
 * inotify (one instance per worker), so a write is read at once rather
 * than at the next follow-freq() look; poll only looks.  New files are
 * found by the scan every follow-freq().  A rotated file whose new name
 * also matches is followed again from its start (as in syslog-ng 3.38).
 */
#include "file-follow.h"
#include "file-source.h"

#include "sluice/glob.h"
#include "sluice/internal-log.h"
#include "sluice/timeutil.h"

#include <dirent.h>
#include <errno.h>
#include <glib.h>
#include <iv.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define WILDCARD_MAX_DEPTH 32

static const char *const monitor_methods[] = { "auto", "poll", "inotify", NULL };
enum
{
  MONITOR_AUTO,
  MONITOR_POLL,
  MONITOR_INOTIFY,
};

typedef struct WildcardOptions
{
  FileSourceOptions follow;
  char *base_dir;
  char *filename_pattern;
  char *exclude_pattern;
  bool recursive;
  int64_t max_files;
  int monitor_method;
} WildcardOptions;

typedef struct WildcardSource
{
  LogSource base;
  WildcardOptions o;
  Glob pattern;
  Glob exclude;            /* text NULL: none */

  Worker *scan_worker;
  struct iv_timer scan;    /* on scan_worker */
  bool scanning;           /* the timer runs */
  GMutex lock;             /* followers: the scan adds, the stop walks */
  GHashTable *followers;   /* path -> FileFollower */
  bool max_said;
  bool dir_said;           /* base-dir() could not be read */
} WildcardSource;

static void _scan_arm(WildcardSource *s);

static bool
_matches(WildcardSource *s, const char *name)
{
  size_t len = strlen(name);
  return glob_match(&s->pattern, name, len) && !(s->exclude.text && glob_match(&s->exclude, name, len));
}

static void
_add(WildcardSource *s, const char *path)
{
  if (g_hash_table_contains(s->followers, path))
    return;
  if ((int64_t) g_hash_table_size(s->followers) >= s->o.max_files)
    {
      if (!s->max_said)
        {
          char max[24];
          snprintf(max, sizeof(max), "%lld", (long long) s->o.max_files);
          sluice_log(SLUICE_LOG_WARNING, "wildcard-file(): max-files() reached, more files wait until one is let go",
                     "base_dir", s->o.base_dir, "max_files", max, "filename", path, NULL);
          s->max_said = true;
        }
      return;
    }
  FileFollowOptions fo = { .iw_size = (int) s->o.follow.src.log_iw_size,
                           .follow_freq_ms = s->o.follow.follow_freq_ms,
                           .end_when_gone = true,
                           .inotify = s->o.monitor_method != MONITOR_POLL };
  FileFollower *f = file_follower_new(&s->base, path, &fo, s->base.env.persist);
  g_mutex_lock(&s->lock);
  g_hash_table_insert(s->followers, g_strdup(path), f);
  g_mutex_unlock(&s->lock);
  file_follower_start(f, worker_pool_pick(s->base.env.pool));
}

/* One directory; dirs holds the device and inode of each one on the way
 * down (a bind mount looping back is not walked twice). */
static void
_scan_dir(WildcardSource *s, const char *dir, int depth, GHashTable *dirs)
{
  DIR *d = opendir(dir);
  if (!d)
    {
      if (depth == 0 && !s->dir_said)
        {
          sluice_log(SLUICE_LOG_ERROR, "wildcard-file(): cannot read base-dir(), looking again every follow-freq()",
                     "base_dir", dir, "error", strerror(errno), NULL);
          s->dir_said = true;
        }
      return;
    }
  if (depth == 0)
    s->dir_said = false;
  struct dirent *e;
  while ((e = readdir(d)) != NULL)
    {
      if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
        continue;
      char *path = g_build_filename(dir, e->d_name, NULL);
      struct stat st;
      if (lstat(path, &st) == 0)
        {
          if (S_ISDIR(st.st_mode) && s->o.recursive && depth < WILDCARD_MAX_DEPTH)
            {
              char *id = g_strdup_printf("%llu:%llu", (unsigned long long) st.st_dev, (unsigned long long) st.st_ino);
              if (g_hash_table_add(dirs, id))
                _scan_dir(s, path, depth + 1, dirs);
            }
          else if ((S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) && _matches(s, e->d_name))
            _add(s, path);
        }
      g_free(path);
    }
  closedir(d);
}

/* Followers whose file went away and was read to its end go. */
static void
_reap(WildcardSource *s)
{
  GHashTableIter it;
  gpointer key, value;
  g_mutex_lock(&s->lock);
  g_hash_table_iter_init(&it, s->followers);
  while (g_hash_table_iter_next(&it, &key, &value))
    if (file_follower_finished(value))
      {
        g_hash_table_iter_remove(&it); /* frees it */
        s->max_said = false;
      }
  g_mutex_unlock(&s->lock);
}

static void
_scan_due(void *cookie)
{
  WildcardSource *s = cookie;
  _reap(s);
  GHashTable *dirs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  _scan_dir(s, s->o.base_dir, 0, dirs);
  g_hash_table_destroy(dirs);
  _scan_arm(s);
}

static void
_scan_arm(WildcardSource *s)
{
  iv_validate_now();
  s->scan.expires = iv_now;
  timespec_add_ns(&s->scan.expires, s->o.follow.follow_freq_ms * 1000000);
  iv_timer_register(&s->scan);
}

static void
_scan_start_job(void *arg)
{
  WildcardSource *s = arg;
  IV_TIMER_INIT(&s->scan);
  s->scan.cookie = s;
  s->scan.handler = _scan_due;
  s->scanning = true;
  _scan_due(s);
}

static void
_scan_stop_job(void *arg)
{
  WildcardSource *s = arg;
  if (!s->scanning)
    return;
  if (iv_timer_registered(&s->scan))
    iv_timer_unregister(&s->scan);
  s->scanning = false;
}

/* On every worker: its followers stop (the scan no longer adds any). */
static void
_followers_stop_job(void *arg)
{
  WildcardSource *s = arg;
  GHashTableIter it;
  gpointer value;
  g_mutex_lock(&s->lock);
  g_hash_table_iter_init(&it, s->followers);
  while (g_hash_table_iter_next(&it, NULL, &value))
    file_follower_stop_if_here(value);
  g_mutex_unlock(&s->lock);
}

static bool
_wildcard_start(LogSourceDriver *d, const LogSourceEnv *env, char **error)
{
  WildcardSource *s = (WildcardSource *) d;
  log_source_begin(&s->base, env);
  s->scan_worker = worker_pool_pick(env->pool);
  worker_post(s->scan_worker, _scan_start_job, s);
  return true;
}

static void
_wildcard_stop(LogSourceDriver *d)
{
  WildcardSource *s = (WildcardSource *) d;
  if (!s->scan_worker)
    return;
  worker_run(s->scan_worker, _scan_stop_job, s);
  worker_pool_run_everywhere(s->base.env.pool, _followers_stop_job, s);
  g_hash_table_remove_all(s->followers);
  s->scan_worker = NULL;
}

#define OFF(field) offsetof(WildcardOptions, field)

static const CfgOption wildcard_options[] = {
  FILE_SOURCE_OPTION_ROWS(WildcardOptions, follow),
  { .name = "base-dir", .type = CFG_OPT_STRING, .offset = OFF(base_dir) },
  { .name = "filename-pattern", .type = CFG_OPT_STRING, .offset = OFF(filename_pattern) },
  { .name = "exclude-pattern", .type = CFG_OPT_STRING, .offset = OFF(exclude_pattern) },
  { .name = "recursive", .type = CFG_OPT_BOOL, .offset = OFF(recursive) },
  { .name = "max-files", .type = CFG_OPT_INT, .offset = OFF(max_files), .def_int = 100, .min = 1, .max = 10000000 },
  { .name = "monitor-method", .type = CFG_OPT_ENUM, .offset = OFF(monitor_method), .names = monitor_methods },
  { 0 },
};

static void
_wildcard_free(LogSourceDriver *d)
{
  WildcardSource *s = (WildcardSource *) d;
  cfg_options_free(wildcard_options, &s->o);
  file_source_options_deinit(&s->base);
  glob_clear(&s->pattern);
  glob_clear(&s->exclude);
  if (s->followers)
    g_hash_table_destroy(s->followers);
  g_mutex_clear(&s->lock);
  free(s);
}

static const LogSourceOps wildcard_ops = { _wildcard_start, _wildcard_stop, _wildcard_free };

static LogSourceDriver *
_wildcard_new(const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  WildcardSource *s = calloc(1, sizeof(*s));
  if (!s)
    abort();
  log_source_init(&s->base, &wildcard_ops, call);
  g_mutex_init(&s->lock);
  s->followers = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify) file_follower_free);
  cfg_options_defaults(wildcard_options, &s->o);
  if (!cfg_options_apply_inherit(wildcard_options, call, &s->o, "wildcard-file()", ctx->global, err)
      || !file_source_options_resolve(&s->base, &s->o.follow, call, ctx, err))
    {
      _wildcard_free(&s->base.super);
      return NULL;
    }
  /* syslog-ng 3.38 requires both */
  if (!s->o.base_dir || !s->o.base_dir[0] || !s->o.filename_pattern || !s->o.filename_pattern[0])
    {
      cfg_error_set(err, &call->loc, "wildcard-file(): %s() is required",
                    !s->o.base_dir || !s->o.base_dir[0] ? "base-dir" : "filename-pattern");
      _wildcard_free(&s->base.super);
      return NULL;
    }
  if (file_source_is_kmsg(&s->o.follow))
    {
      cfg_error_set(err, &call->loc,
                    "wildcard-file(): format('linux-kmsg') is for the kernel's log: read it with "
                    "file(\"/dev/kmsg\" format(\"linux-kmsg\"))");
      _wildcard_free(&s->base.super);
      return NULL;
    }
  if (strchr(s->o.filename_pattern, '/'))
    {
      cfg_error_set(err, &call->loc, "wildcard-file(): filename-pattern() matches file names, it cannot hold a '/'");
      _wildcard_free(&s->base.super);
      return NULL;
    }
  s->pattern = glob_new(s->o.filename_pattern);
  if (s->o.exclude_pattern && s->o.exclude_pattern[0])
    s->exclude = glob_new(s->o.exclude_pattern);
  g_strlcpy(s->base.super.stats_instance, s->o.base_dir, sizeof(s->base.super.stats_instance));
  return &s->base.super;
}

const LogDriverFactory wildcard_file_source_factory = {
  .def = { .kind = CFG_OBJ_SOURCE, .name = "wildcard-file", .options = wildcard_options,
           .struct_size = sizeof(WildcardOptions), .min_args = 0, .max_args = 0 },
  .new_source = _wildcard_new,
};
