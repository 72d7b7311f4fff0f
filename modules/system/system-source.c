/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * system() and getvirtconsole(), and the module's registration table.
 *
 * syslog-ng 3.38 generates system() as configuration text; on Linux
 * without systemd it is
 *   channel {
 *     source { unix-dgram("/dev/log" so-rcvbuf(8192) flags(syslog-protocol)); };
 *     rewrite { set("${.unix.pid}" value("PID") condition("${.unix.pid}" ne "")); };
 *   };
 *   file("/dev/kmsg" program-override("kernel") flags(kernel)
 *        format("linux-kmsg") keep-timestamp(no));
 * the second only when /dev/kmsg can be read and system(exclude-kmsg(yes))
 * was not asked for.  Under systemd (/run/systemd/system exists) it is
 * systemd-journal() alone, and so it is here (journal-source.c); a build
 * without libsystemd refuses system() there with a clear error.  Without
 * systemd Sluice builds the same two readers: the first is the
 * network module's unix-dgram() driver, made through its factory from a
 * driver call built here (so it has every default and global option that
 * unix-dgram("/dev/log" so-rcvbuf(8192) flags(syslog-protocol)) has), with
 * the rewrite as its own step (log_source_pid_from_sender), the second the file
 * module's file(... format("linux-kmsg")), made the same way; the two
 * are one driver as a LogSourceGroup (sluice/source-group.h).
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
#include "sluice/logsource.h"
#include "sluice/source-group.h"

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

static const char *
_env_or(const char *name, const char *fallback)
{
  const char *v = getenv(name);
  return v && v[0] ? v : fallback;
}

/* syslog-ng's kernel log reader, as its system() expands:
 * file("PATH" program-override("kernel") flags(kernel) format("linux-kmsg")
 * keep-timestamp(no)), made by the file module's factory. */
static bool
_kmsg_add(LogSourceGroup *g, const char *path, const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  CfgNode *file = cfg_call_new("file", path, &call->loc);
  cfg_call_add_option(file, "program-override", CFG_VAL_STRING, "kernel", 0);
  cfg_call_add_option(file, "flags", CFG_VAL_IDENT, "kernel", 0);
  cfg_call_add_option(file, "format", CFG_VAL_STRING, "linux-kmsg", 0);
  cfg_call_add_option(file, "keep-timestamp", CFG_VAL_IDENT, "no", 0);
  return log_source_group_build(g, file_driver_factories, file, ctx, err);
}

/* As sd_booted(): systemd is the init system when this directory exists
 * (SLUICE_RUN_SYSTEMD names another one for tests). */
static bool
_runs_systemd(void)
{
  struct stat st;
  return lstat(_env_or("SLUICE_RUN_SYSTEMD", "/run/systemd/system"), &st) == 0 && S_ISDIR(st.st_mode);
}

static LogSourceDriver *
_system_new(const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  SystemOptions o;
  cfg_options_defaults(system_options, &o);
  if (!cfg_options_apply(system_options, call, &o, "system()", err))
    return NULL;

  const char *devlog = _env_or("SLUICE_DEV_LOG", "/dev/log");
  if (strcmp(devlog, "/dev/log") == 0 && _runs_systemd())
    {
      /* /dev/log is journald's there, and syslog-ng's system() reads the
       * journal instead (binding it would only fail) */
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
  LogSourceGroup *g = log_source_group_new(call);
  CfgNode *dgram = cfg_call_new("unix-dgram", devlog, &call->loc);
  cfg_call_add_option(dgram, "so-rcvbuf", CFG_VAL_NUMBER, "8192", 8192);
  cfg_call_add_option(dgram, "flags", CFG_VAL_IDENT, "syslog-protocol", 0);
  bool ok = log_source_group_build(g, network_driver_factories, dgram, ctx, err);
  if (ok)
    log_source_pid_from_sender(log_source_group_member(g, 0));
  const char *kmsg = _env_or("SLUICE_DEV_KMSG", "/dev/kmsg");
  if (ok && !o.exclude_kmsg)
    {
      /* as syslog-ng: the kernel's log only when it can be read (not in
       * most containers), said once when it cannot */
      if (access(kmsg, R_OK) == 0)
        ok = _kmsg_add(g, kmsg, call, ctx, err);
      else
        sluice_log(SLUICE_LOG_WARNING, "system(): the kernel log cannot be read, kernel messages are not collected",
                   "filename", kmsg, NULL);
    }
  if (!ok)
    {
      log_source_group_driver(g)->ops->free(log_source_group_driver(g));
      return NULL;
    }
  return log_source_group_driver(g);
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
  const LogDriverFactory *file = log_driver_factory_find(file_driver_factories, CFG_OBJ_DESTINATION, "file");
  g_assert(file && file->new_dest);
  const char *path = getenv("SLUICE_DEV_VIRTCONSOLE");
  if (!path || !path[0])
    path = _is_char_device("/dev/tty10") ? "/dev/tty10" : _is_char_device("/dev/ttyva") ? "/dev/ttyva" : "/dev/null";
  CfgNode *node = cfg_call_new("file", path, &call->loc);
  LogDestDriver *d = file->new_dest(node, ctx, err);
  cfg_node_free(node);
  return d;
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
