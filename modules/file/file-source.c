/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * file("PATH"): a source that follows one file, as syslog-ng 3.38's does,
 * on the core source layer (sluice/logsource.h).  The following, rotation
 * and positions are file-follow.c's; this is the driver around one
 * FileFollower.  wildcard-source.c is the one around many.
 */
#include "file-source.h"

#include "file-follow.h"
#include "kmsg.h"

#include <glib.h>
#include <inttypes.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>

typedef struct FileOptions
{
  FileSourceOptions follow;
} FileOptions;

typedef struct FileSource
{
  LogSource base;
  FileOptions o;
  char *path;
  FileFollower *follower; /* while started */
  LogSourceDriver *kmsg;  /* format("linux-kmsg"): the kernel log's reader does the work */
} FileSource;

static bool
_file_start(LogSourceDriver *d, const LogSourceEnv *env, char **error)
{
  FileSource *s = (FileSource *) d;
  if (s->kmsg)
    return s->kmsg->ops->start(s->kmsg, env, error);
  struct stat st;
  if (stat(s->path, &st) == 0 && S_ISFIFO(st.st_mode))
    {
      /* syslog-ng 3.38 refuses to start with these words */
      *error = g_strdup_printf("You are using the file() driver, underlying file is a FIFO, it should be used by "
                               "pipe(); filename='%s'", s->path);
      return false;
    }
  log_source_begin(&s->base, env);
  FileFollowOptions fo = { .iw_size = (int) s->o.follow.src.log_iw_size,
                           .follow_freq_ms = s->o.follow.follow_freq_ms,
                           .inotify = true };
  s->follower = file_follower_new(&s->base, s->path, &fo, env->persist);
  file_follower_start(s->follower, worker_pool_pick(env->pool));
  return true;
}

static void
_file_stop(LogSourceDriver *d)
{
  FileSource *s = (FileSource *) d;
  if (s->kmsg)
    s->kmsg->ops->stop(s->kmsg);
  if (!s->follower)
    return;
  file_follower_stop(s->follower);
  file_follower_free(s->follower);
  s->follower = NULL;
}

const char *
file_source_check_follow_freq(const CfgOption *opt, const void *field)
{
  (void) opt;
  const char *text = *(char *const *) field;
  char *end;
  double v = text ? g_ascii_strtod(text, &end) : 0;
  if (text && (!text[0] || *end || !(v >= 0 && v <= 86400)))
    return "follow-freq() takes a number of seconds, not negative (a fraction such as 0.5 too)";
  return NULL;
}

const char *
file_source_check_format(const CfgOption *opt, const void *field)
{
  const char *v = *(char *const *) field;
  if (!v || strcmp(v, "syslog") == 0 || strcmp(v, "linux-kmsg") == 0)
    return NULL;
  return "file() reads format('syslog') and format('linux-kmsg') (the kernel's /dev/kmsg) in Sluice";
}

static const CfgOption file_source_options[] = {
  FILE_SOURCE_OPTION_ROWS(FileOptions, follow),
  { 0 },
};

bool
file_source_options_resolve(LogSource *s, FileSourceOptions *o, const CfgNode *call, const LogDriverContext *ctx,
                            CfgError *err)
{
  if (!log_source_resolve(s, &o->src, call, ctx, true, "local+file", err)
      || !log_multi_line_resolve(&o->multi_line, &call->loc, &s->ro.multi_line, err)
      || !file_source_resolve_pad_size(s, o->pad_size, call, call->name, err))
    return false;
  /* As syslog-ng 3.38, seconds with a fraction (0.1: every 100 ms).  Its
   * follow-freq(0) waits for the file descriptor to be readable, which a
   * regular file always is: Sluice reads on inotify's word then, and looks
   * every second besides (where inotify cannot be had, only that). */
  o->follow_freq_ms = o->follow_freq ? (int64_t) (g_ascii_strtod(o->follow_freq, NULL) * 1000 + 0.5) : 1000;
  if (o->follow_freq_ms <= 0)
    o->follow_freq_ms = 1000;
  return true;
}

/* Where the call names option name (the call itself when it does not). */
static const CfgLocation *
_option_loc(const CfgNode *call, const char *name)
{
  for (size_t i = 0; i < call->n_children; i++)
    if (cfg_name_equal(call->children[i]->name, name))
      return &call->children[i]->loc;
  return &call->loc;
}

bool
file_source_resolve_pad_size(LogSource *s, int64_t pad_size, const CfgNode *call, const char *what,
                             CfgError *err)
{
  s->ro.record_size = 0;
  if (pad_size <= 0)
    return true;
  if ((uint64_t) pad_size > s->ro.log_msg_size)
    {
      /* syslog-ng 3.38 refuses it when the source starts: "Buffer is too
       * small to hold the number of bytes required for a record, please
       * make sure log-msg-size() is greater than equal to record-size" */
      cfg_error_set(err, _option_loc(call, "pad-size"),
                    "%s(): pad-size(%" PRId64 ") is larger than log-msg-size(%zu): a record must fit in a "
                    "message; make log-msg-size() at least pad-size()",
                    what, pad_size, s->ro.log_msg_size);
      return false;
    }
  if (s->ro.multi_line)
    {
      cfg_error_set(err, _option_loc(call, "pad-size"),
                    "%s(): pad-size() cannot be used with multi-line-mode(): pad-size() reads records of a "
                    "fixed size, multi-line-mode() joins lines",
                    what);
      return false;
    }
  s->ro.record_size = (size_t) pad_size;
  return true;
}

void
file_source_options_deinit(LogSource *s)
{
  if (s->ro.multi_line)
    log_multi_line_options_unref(s->ro.multi_line);
  s->ro.multi_line = NULL;
  log_source_deinit(s);
}

static void
_file_free(LogSourceDriver *d)
{
  FileSource *s = (FileSource *) d;
  if (s->kmsg)
    s->kmsg->ops->free(s->kmsg); /* before the options its strings point into */
  cfg_options_free(file_source_options, &s->o);
  file_source_options_deinit(&s->base);
  g_free(s->path);
  free(s);
}

static const LogSourceOps file_source_ops = { _file_start, _file_stop, _file_free };

bool
file_source_is_kmsg(const FileSourceOptions *o)
{
  return o->format && strcmp(o->format, "linux-kmsg") == 0;
}

/* file(PATH format("linux-kmsg")): the kernel's log, read by kmsg-source.c
 * with file()'s source options (which stay s's). */
static bool
_kmsg_new(FileSource *s, const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  static const char *const framing_options[] = { "multi-line-mode", "multi-line-prefix", "multi-line-garbage",
                                                 "multi-line-suffix", "multi-line-timeout", "pad-size" };
  for (size_t i = 0; i < G_N_ELEMENTS(framing_options); i++)
    if (cfg_option_given(call, framing_options[i]))
      {
        cfg_error_set(err, &call->loc,
                      "file(): %s() does not go with format('linux-kmsg'): the kernel's records are whole",
                      framing_options[i]);
        return false;
      }
  s->kmsg = kmsg_source_new(call, ctx, call->args[0].str, &s->o.follow.src, err);
  return s->kmsg != NULL;
}

static LogSourceDriver *
_file_source_new(const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  if (!call->args[0].str[0])
    {
      cfg_error_set(err, &call->args[0].loc, "file(): the file name is empty");
      return NULL;
    }
  FileSource *s = calloc(1, sizeof(*s));
  if (!s)
    abort();
  log_source_init(&s->base, &file_source_ops, call);
  cfg_options_defaults(file_source_options, &s->o);
  bool ok = cfg_options_apply_inherit(file_source_options, call, &s->o, "file()", ctx->global, err);
  if (ok && file_source_is_kmsg(&s->o.follow))
    ok = _kmsg_new(s, call, ctx, err);
  else if (ok)
    ok = file_source_options_resolve(&s->base, &s->o.follow, call, ctx, err);
  if (!ok)
    {
      _file_free(&s->base.super);
      return NULL;
    }
  s->path = g_strdup(call->args[0].str);
  g_strlcpy(s->base.super.stats_instance, s->path, sizeof(s->base.super.stats_instance));
  return &s->base.super;
}

const LogDriverFactory file_source_factory = {
  .def = { .kind = CFG_OBJ_SOURCE, .name = "file", .options = file_source_options,
           .struct_size = sizeof(FileOptions), .min_args = 1, .max_args = 1 },
  .new_source = _file_source_new,
};
