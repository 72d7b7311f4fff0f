/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * system() and getvirtconsole(), and the module's registration table.
 *
 * syslog-ng 3.38 generates system() as configuration text; on Linux
 * without systemd it is
 *   unix-dgram("/dev/log" so-rcvbuf(8192));
 *   file("/dev/kmsg" program-override("kernel") flags(kernel)
 *        format("linux-kmsg") keep-timestamp(no));
 * the second only when /dev/kmsg can be read and system(exclude-kmsg(yes))
 * was not asked for.  Under systemd (/run/systemd/system exists) it is
 * systemd-journal() alone, and so it is here (journal-source.c); a build
 * without libsystemd refuses system() there with a clear error.  Without
 * systemd Sluice builds the same two readers: the first is the
 * network module's unix-dgram() driver, made through its factory from a
 * driver call built here (so it has every default and global option that
 * unix-dgram("/dev/log" so-rcvbuf(8192)) has), the second the file
 * module's file(... format("linux-kmsg")), made the same way.
 *
 * getvirtconsole() is syslog-ng's SCL script turned into a driver: file()
 * of /dev/tty10 when that is a character device, else /dev/ttyva, else
 * /dev/null.
 */
#include "modules.h"
#include "system.h"
#ifdef SLUICE_HAVE_JOURNAL
#include "journal.h"
#endif

#include "sluice/internal-log.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct SystemOptions
{
  bool exclude_kmsg;
} SystemOptions;

static const CfgOption system_options[] = {
  { .name = "exclude-kmsg", .type = CFG_OPT_BOOL, .offset = offsetof(SystemOptions, exclude_kmsg) },
  { .name = NULL },
};

typedef struct SystemSource
{
  LogSourceDriver super;
  LogSourceDriver *devlog; /* unix-dgram(), the network module's */
  LogSourceDriver *kmsg;   /* file(format("linux-kmsg")), the file module's; NULL: not read */
  bool devlog_started;
} SystemSource;

static const char *
_env_or(const char *name, const char *fallback)
{
  const char *v = getenv(name);
  return v && v[0] ? v : fallback;
}

/* The factory another module registers under name. */
static const LogDriverFactory *
_factory(const LogDriverFactory *const *list, CfgObjectKind kind, const char *name)
{
  /* file() is both a source and a destination: the kind tells them apart */
  for (size_t i = 0; list[i]; i++)
    if (list[i]->def.kind == kind && strcmp(list[i]->def.name, name) == 0)
      return list[i];
  return NULL;
}

/* A driver call name("arg") located where the user's call is. */
static void
_synth_call(CfgNode *node, CfgValue *arg, const char *name, const char *path, const CfgNode *call)
{
  memset(node, 0, sizeof(*node));
  memset(arg, 0, sizeof(*arg));
  arg->type = CFG_VAL_STRING;
  arg->str = (char *) path;
  arg->loc = call->loc;
  node->kind = CFG_NODE_CALL;
  node->name = (char *) name;
  node->args = arg;
  node->n_args = 1;
  node->loc = call->loc;
}

/* syslog-ng's kernel log reader, as its system() expands:
 * file("PATH" program-override("kernel") flags(kernel) format("linux-kmsg")
 * keep-timestamp(no)), made by the file module's factory. */
static LogSourceDriver *
_kmsg_new(const char *path, const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  static const struct
  {
    const char *name, *value;
    CfgValueType type;
  } opts[] = {
    { "program-override", "kernel", CFG_VAL_STRING },
    { "flags", "kernel", CFG_VAL_IDENT },
    { "format", "linux-kmsg", CFG_VAL_STRING },
    { "keep-timestamp", "no", CFG_VAL_IDENT },
  };
  enum { N = G_N_ELEMENTS(opts) };
  const LogDriverFactory *file = _factory(file_driver_factories, CFG_OBJ_SOURCE, "file");
  g_assert(file && file->new_source);
  CfgNode node, children[N];
  CfgValue arg, values[N];
  CfgNode *child_ptrs[N];
  _synth_call(&node, &arg, "file", path, call);
  for (size_t i = 0; i < N; i++)
    {
      _synth_call(&children[i], &values[i], opts[i].name, opts[i].value, call);
      values[i].type = opts[i].type;
      child_ptrs[i] = &children[i];
    }
  node.children = child_ptrs;
  node.n_children = N;
  return file->new_source(&node, ctx, err);
}

/* As sd_booted(): systemd is the init system when this directory exists
 * (SLUICE_RUN_SYSTEMD names another one for tests). */
static bool
_runs_systemd(void)
{
  struct stat st;
  return lstat(_env_or("SLUICE_RUN_SYSTEMD", "/run/systemd/system"), &st) == 0 && S_ISDIR(st.st_mode);
}

static bool
_system_start(LogSourceDriver *d, const LogSourceEnv *env, char **error)
{
  SystemSource *s = (SystemSource *) d;
  if (!s->devlog->ops->start(s->devlog, env, error))
    return false;
  s->devlog_started = true;
  if (s->kmsg && !s->kmsg->ops->start(s->kmsg, env, error))
    {
      s->devlog->ops->stop(s->devlog);
      s->devlog_started = false;
      return false;
    }
  return true;
}

static void
_system_stop(LogSourceDriver *d)
{
  SystemSource *s = (SystemSource *) d;
  if (s->devlog_started)
    s->devlog->ops->stop(s->devlog);
  s->devlog_started = false;
  if (s->kmsg)
    s->kmsg->ops->stop(s->kmsg);
}

static void
_system_free(LogSourceDriver *d)
{
  SystemSource *s = (SystemSource *) d;
  if (s->devlog)
    s->devlog->ops->free(s->devlog);
  if (s->kmsg)
    s->kmsg->ops->free(s->kmsg);
  free(s);
}

static const LogSourceOps system_ops = { _system_start, _system_stop, _system_free };

static LogSourceDriver *
_system_new(const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  const LogDriverFactory *dgram = _factory(network_driver_factories, CFG_OBJ_SOURCE, "unix-dgram");
  g_assert(dgram && dgram->new_source);
  SystemSource *s = calloc(1, sizeof(*s));
  if (!s)
    abort();
  s->super.ops = &system_ops;
  s->super.driver = "system";
  s->super.loc = call->loc;

  SystemOptions o;
  cfg_options_defaults(system_options, &o);
  if (!cfg_options_apply(system_options, call, &o, "system()", err))
    {
      _system_free(&s->super);
      return NULL;
    }

  const char *devlog = _env_or("SLUICE_DEV_LOG", "/dev/log");
  if (strcmp(devlog, "/dev/log") == 0 && _runs_systemd())
    {
      /* /dev/log is journald's there, and syslog-ng's system() reads the
       * journal instead (binding it would only fail) */
      _system_free(&s->super);
#ifdef SLUICE_HAVE_JOURNAL
      return journal_source_new_default(call, ctx, err);
#else
      cfg_error_set(err, &call->loc,
                    "system(): this host runs systemd, where syslog-ng's system() reads the journal "
                    "(systemd-journal()), and this Sluice was built without libsystemd (meson -Djournal); use "
                    "unix-dgram(\"/run/systemd/journal/syslog\") with ForwardToSyslog=yes in journald.conf instead");
      return NULL;
#endif
    }
  CfgNode node, rcvbuf;
  CfgValue arg, size;
  _synth_call(&node, &arg, "unix-dgram", devlog, call);
  _synth_call(&rcvbuf, &size, "so-rcvbuf", "8192", call);
  size.type = CFG_VAL_NUMBER;
  size.num = 8192;
  CfgNode *children[] = { &rcvbuf };
  node.children = children;
  node.n_children = 1;
  s->devlog = dgram->new_source(&node, ctx, err);
  if (!s->devlog)
    {
      _system_free(&s->super);
      return NULL;
    }
  const char *kmsg = _env_or("SLUICE_DEV_KMSG", "/dev/kmsg");
  if (o.exclude_kmsg)
    return &s->super;
  /* as syslog-ng: the kernel's log only when it can be read (not in most
   * containers), said once when it cannot */
  if (access(kmsg, R_OK) != 0)
    {
      sluice_log(SLUICE_LOG_WARNING, "system(): the kernel log cannot be read, kernel messages are not collected",
                 "filename", kmsg, NULL);
      return &s->super;
    }
  s->kmsg = _kmsg_new(kmsg, call, ctx, err);
  if (!s->kmsg)
    {
      _system_free(&s->super);
      return NULL;
    }
  return &s->super;
}

/* ---- getvirtconsole() ------------------------------------------------------ */

static bool
_is_char_device(const char *path)
{
  struct stat st;
  return stat(path, &st) == 0 && S_ISCHR(st.st_mode);
}

static LogDestDriver *
_virtconsole_new(const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  const LogDriverFactory *file = _factory(file_driver_factories, CFG_OBJ_DESTINATION, "file");
  g_assert(file && file->new_dest);
  const char *path = getenv("SLUICE_DEV_VIRTCONSOLE");
  if (!path || !path[0])
    path = _is_char_device("/dev/tty10") ? "/dev/tty10" : _is_char_device("/dev/ttyva") ? "/dev/ttyva" : "/dev/null";
  CfgNode node;
  CfgValue arg;
  _synth_call(&node, &arg, "file", path, call);
  return file->new_dest(&node, ctx, err);
}

/* ---- registration ----------------------------------------------------------- */


static const LogDriverFactory system_factory = {
  { .kind = CFG_OBJ_SOURCE, .name = "system", .options = system_options, .struct_size = sizeof(SystemOptions),
    .min_args = 0, .max_args = 0 },
  _system_new,
  NULL,
};

static const LogDriverFactory virtconsole_factory = {
  { .kind = CFG_OBJ_DESTINATION, .name = "getvirtconsole", .options = NULL, .struct_size = 0,
    .min_args = 0, .max_args = 0 },
  NULL,
  _virtconsole_new,
};

const LogDriverFactory *const system_driver_factories[] = {
  &system_factory,
  &virtconsole_factory,
  &usertty_dest_factory,
#ifdef SLUICE_HAVE_JOURNAL
  &journal_source_factory,
#endif
  NULL,
};
