/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * usertty(USER): writes each message to the terminal of every login of
 * USER ("*": of every user) that utmp lists, as syslog-ng 3.38's afuser
 * destination does, one line "DATE HOST MESSAGE".
 *
 * A terminal is opened without becoming our controlling one and without
 * blocking.  As in syslog-ng, a terminal that cannot be opened or cannot
 * take the line now (a stopped or scrolled-back console) disables the
 * destination for time-reopen() seconds, said once, and what comes
 * meanwhile is dropped: a stuck terminal never holds up the writer.  With
 * no matching login a message is simply written nowhere.
 *
 * utmp is read here record by record rather than with getutent(), whose
 * state is global to the process and would race between two usertty()
 * writers.
 */
#include "system.h"

#include "sluice/internal-log.h"
#include "sluice/logqueue-disk.h"
#include "sluice/template.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <paths.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <utmp.h>

typedef struct UserTtyDest
{
  LogDestDriver super;
  char *user;
  char *utmp_path;
  LogTemplate *line;
  LogTemplateOptions topts;
  int64_t time_reopen;
  int64_t disabled_until;  /* monotonic microseconds; writer thread's */
} UserTtyDest;

typedef struct UserTtyOptions
{
  int64_t time_reopen;
} UserTtyOptions;

static const CfgOption usertty_options[] = {
  { .name = "time-reopen", .type = CFG_OPT_INT, .offset = offsetof(UserTtyOptions, time_reopen), .def_int = -1,
    .min = 1, .max = INT32_MAX },
  LOG_DEST_PERSIST_NAME_OPTION,
  { .name = NULL },
};

static bool
_user_matches(const char *want, const struct utmp *ut)
{
  if (strcmp(want, "*") == 0)
    return true;
  size_t n = strnlen(ut->ut_user, sizeof(ut->ut_user));
  return strlen(want) == n && memcmp(want, ut->ut_user, n) == 0;
}

/* "/dev/<ut_line>", or false for a line that would leave /dev. */
static bool
_tty_path(const struct utmp *ut, char *out, size_t out_len)
{
  size_t n = strnlen(ut->ut_line, sizeof(ut->ut_line));
  if (n == 0 || memmem(ut->ut_line, n, "..", 2))
    return false;
  snprintf(out, out_len, "/dev/%.*s", (int) n, ut->ut_line);
  return true;
}

int
usertty_write(const char *utmp_path, const char *user, const char *text, size_t len, const char **failed)
{
  *failed = NULL;
  int fd = open(utmp_path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0; /* no utmp: nobody is logged in */
  int written = 0;
  struct utmp ut;
  while (read(fd, &ut, sizeof(ut)) == (ssize_t) sizeof(ut))
    {
      char path[sizeof(ut.ut_line) + 8];
      if (ut.ut_type != USER_PROCESS || !_user_matches(user, &ut) || !_tty_path(&ut, path, sizeof(path)))
        continue;
      int tty = open(path, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
      if (tty < 0)
        {
          *failed = "Opening tty device failed, disabling usertty() for time-reopen seconds";
          break;
        }
      ssize_t w;
      do
        w = write(tty, text, len);
      while (w < 0 && errno == EINTR);
      close(tty);
      if (w != (ssize_t) len)
        {
          *failed = "Writing to the user terminal has blocked for writing, disabling for time-reopen seconds";
          break;
        }
      written++;
    }
  close(fd);
  return *failed ? -1 : written;
}

static long
_usertty_write_batch(void *dest, LogQueueItem *items, size_t n)
{
  UserTtyDest *d = dest;
  GString *buf = g_string_sized_new(256);
  for (size_t i = 0; i < n; i++)
    {
      if (g_get_monotonic_time() < d->disabled_until)
        break; /* the rest of the batch is dropped too */
      g_string_truncate(buf, 0);
      log_template_format(d->line, items[i].msg, &d->topts, buf);
      const char *failed;
      if (usertty_write(d->utmp_path, d->user, buf->str, buf->len, &failed) < 0)
        {
          char secs[24];
          snprintf(secs, sizeof(secs), "%" PRId64, d->time_reopen);
          sluice_log(SLUICE_LOG_NOTICE, failed, "user", d->user, "time_reopen", secs, NULL);
          d->disabled_until = g_get_monotonic_time() + d->time_reopen * G_USEC_PER_SEC;
        }
    }
  g_string_free(buf, TRUE);
  return (long) n;
}

static const LogWriterOps usertty_writer_ops = { _usertty_write_batch, NULL, NULL, NULL };

static bool
_usertty_start(LogDestDriver *d, char **error)
{
  (void) d;
  (void) error;
  return true;
}

static void
_usertty_free(LogDestDriver *dd)
{
  UserTtyDest *d = (UserTtyDest *) dd;
  log_template_unref(d->line);
  g_free(d->user);
  g_free(d->utmp_path);
  free(d);
}

static const LogDestOps usertty_ops = { _usertty_start, _usertty_free };

static LogDestDriver *
_usertty_new(const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  const CfgValue *arg = &call->args[0];
  if (arg->type == CFG_VAL_OP || !arg->str[0])
    {
      cfg_error_set(err, &arg->loc, "usertty() needs a user name or \"*\"");
      return NULL;
    }
  UserTtyDest *d = calloc(1, sizeof(*d));
  if (!d)
    abort();
  d->super.ops = &usertty_ops;
  d->super.writer_ops = &usertty_writer_ops;
  d->super.driver = "usertty";
  d->super.loc = call->loc;
  d->user = g_strdup(arg->str);
  const char *env = getenv("SLUICE_UTMP");
  d->utmp_path = g_strdup(env && env[0] ? env : _PATH_UTMP);
  UserTtyOptions o;
  cfg_options_defaults(usertty_options, &o);
  if (!cfg_options_apply(usertty_options, call, &o, "usertty()", err))
    {
      _usertty_free(&d->super);
      return NULL;
    }
  d->time_reopen = o.time_reopen > 0 ? o.time_reopen : ctx->global ? ctx->global->time_reopen : 60;
  char *error = NULL;
  d->line = log_template_compile("${DATE} ${HOST} ${MESSAGE}\n", &error);
  g_assert(d->line);
  log_template_options_defaults(&d->topts);
  d->topts.on_error = cfg_global_on_error(ctx->global);
  return &d->super;
}

const LogDriverFactory usertty_dest_factory = {
  .def = { .kind = CFG_OBJ_DESTINATION, .name = "usertty", .options = usertty_options,
           .struct_size = sizeof(UserTtyOptions), .min_args = 1, .max_args = 1 },
  .new_dest = _usertty_new,
};
