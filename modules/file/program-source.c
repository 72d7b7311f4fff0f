/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * program("COMMAND"): a source that runs a command and reads what it
 * writes on its standard output, as syslog-ng 3.38's does, on the core
 * source layer (sluice/logsource.h) and a LogReader on one worker.
 *
 *  - The child (sluice/child.h, child_spawn_reader): `/bin/sh -c COMMAND`
 *    in its own process group, stdin and stderr on /dev/null, stdout the
 *    pipe we read; the daemon's environment unless
 *    inherit-environment(no).  syslog-ng 3.38 does the same (checked: its
 *    afprogram_popen puts both on /dev/null).  The first one is started
 *    at start, on the main thread, and a failure to start it (no pipe, no
 *    fork) fails the start, as syslog-ng's init does.
 *  - The end of its output (it exited, or closed its stdout) is the end
 *    of the stream: a last line without its end goes out as it is, its
 *    process group gets SIGTERM (what it left running, or itself when it
 *    only closed its stdout; SIGKILL a second later if it is still
 *    there), and a new one is started.  syslog-ng restarts it at once
 *    (checked: a command that exits at once is restarted about every
 *    10 ms, for ever); Sluice waits, so a command that fails at once
 *    does not spin: one second after a run that lasted at least the
 *    global time-reopen(), else twice the last wait, up to time-reopen()
 *    (1, 2, 4, ... 60 s with the default), and says so in the log.
 *  - A restart happens on the end of its output, not on its exit (as in
 *    syslog-ng): a program that exits leaving a background job holding
 *    its stdout is read on until that job ends too.
 *  - Stop, and a reload (syslog-ng 3.38 has no keep-alive() for a source,
 *    and its deinit kills the program: the next configuration starts its
 *    own): the part of a line read so far goes out, its stdout is closed,
 *    then SIGTERM to its process group and SIGKILL after a second
 *    (child_terminate); syslog-ng sends SIGTERM only.
 *
 * Messages: a local source (HOST is this host unless keep-hostname(yes)),
 * TRANSPORT "local+program".  Reading pauses with flow control like any
 * LogReader's, and the program then blocks on its full pipe.
 */
#include "stream-sources.h"

#include "sluice/child.h"
#include "sluice/internal-log.h"
#include "sluice/logsource.h"
#include "sluice/timeutil.h"

#include <errno.h>
#include <glib.h>
#include <iv.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define STOP_GRACE_MS 1000     /* SIGTERM to SIGKILL, at stop and after its output ended */
#define RESTART_MIN_MS 1000    /* the shortest wait before a new run */
#define REAP_POLL_MS 50        /* how often an ended child is looked for */

typedef struct ProgramSourceOptions
{
  LogSourceOptions src;
  bool inherit_environment;
  char *persist_name;          /* taken as syslog-ng does; a program source keeps nothing under it */
} ProgramSourceOptions;

typedef struct ProgramSource
{
  LogSource base;
  ProgramSourceOptions o;
  char *command;
  int64_t time_reopen_ms;      /* the global time-reopen(): the longest wait */

  /* the main thread's until the first child runs, then the worker's */
  Worker *worker;
  LogReader *reader;           /* NULL between runs */
  LogSourcePeer peer;
  pid_t pid;                   /* the child, 0 once reaped */
  int64_t run_started_ms;      /* CLOCK_MONOTONIC */
  int64_t wait_ms;             /* the last wait before a restart, 0: none yet */
  int64_t restart_at_ms;
  int64_t kill_at_ms;          /* an ended child still there then gets SIGKILL */
  struct iv_timer tick;
  bool started;
  bool warned;                 /* a truncated message was logged */
} ProgramSource;

static void
_deliver(LogMsg *msg, void *user_data)
{
  ProgramSource *s = user_data;
  log_source_post(&s->base, msg, &s->peer);
}

static void
_batch_done(void *user_data)
{
  ProgramSource *s = user_data;
  log_source_flush(&s->base);
  log_source_warn_truncated(&s->base, s->reader, &s->warned, "cmdline", s->command, NULL, NULL);
}

static void _closed(LogReader *r, int error, const char *reason, void *user_data);
static const LogReaderCallbacks program_callbacks = { _deliver, _batch_done, _closed, NULL };

/* Start a child and a reader of its stdout (not started yet); false
 * (logged, *err set) when it cannot. */
static bool
_spawn(ProgramSource *s, int *err)
{
  int fd = -1;
  *err = 0;
  pid_t pid = child_spawn_reader(s->command, s->o.inherit_environment, &fd, err);
  if (pid < 0)
    {
      char e[128];
      snprintf(e, sizeof(e), "%s (%d)", strerror(*err), *err);
      sluice_log(SLUICE_LOG_ERROR, "Error starting source program", "cmdline", s->command, "error", e, NULL);
      return false;
    }
  LogReaderOptions ro = s->base.ro;
  ro.iw_size = s->base.env.flow_control ? (int) s->o.src.log_iw_size : 0;
  s->reader = log_reader_new(fd, false, &ro, &program_callbacks, s, NULL);
  if (!s->reader)
    {
      close(fd);
      child_terminate(pid, 0);
      *err = ENOMEM;
      sluice_log(SLUICE_LOG_ERROR, "Error starting source program", "cmdline", s->command, "error",
                 "out of memory", NULL);
      return false;
    }
  s->pid = pid;
  s->run_started_ms = mono_ms();
  char p[24];
  snprintf(p, sizeof(p), "%ld", (long) pid);
  sluice_log(SLUICE_LOG_INFO, "Starting source program", "cmdline", s->command, "pid", p, NULL);
  return true;
}

static void
_log_exit(ProgramSource *s, pid_t pid, int status)
{
  char p[24], st[24];
  snprintf(p, sizeof(p), "%ld", (long) pid);
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : status;
  snprintf(st, sizeof(st), "%d", code);
  sluice_log(SLUICE_LOG_INFO, "Child program exited", "cmdline", s->command, "pid", p, "status", st, NULL);
}

static void
_tick_arm(ProgramSource *s)
{
  int64_t now = mono_ms();
  /* no new run before the last one is reaped: until then, look for it */
  int64_t at = s->pid > 0 ? now + REAP_POLL_MS : s->restart_at_ms;
  if (iv_timer_registered(&s->tick))
    iv_timer_unregister(&s->tick);
  iv_validate_now();
  s->tick.expires = iv_now;
  timespec_add_ns(&s->tick.expires, (at > now ? at - now : 0) * 1000000);
  iv_timer_register(&s->tick);
}

/* The wait before the next run, from how long the last one lasted. */
static void
_plan_restart(ProgramSource *s, const char *why)
{
  int64_t now = mono_ms();
  int64_t cap = s->time_reopen_ms > RESTART_MIN_MS ? s->time_reopen_ms : RESTART_MIN_MS;
  if (now - s->run_started_ms >= cap || s->wait_ms == 0)
    s->wait_ms = RESTART_MIN_MS;
  else
    s->wait_ms = MIN(s->wait_ms * 2, cap);
  s->restart_at_ms = now + s->wait_ms;
  char w[32];
  snprintf(w, sizeof(w), "%" G_GINT64_FORMAT ".%03d", (gint64) (s->wait_ms / 1000), (int) (s->wait_ms % 1000));
  sluice_log(SLUICE_LOG_NOTICE, why, "cmdline", s->command, "restart_in_seconds", w, NULL);
}

/* On the worker: reap an ended child (SIGKILL once its grace is over),
 * then start the next one when its wait is over. */
static void
_tick(void *cookie)
{
  ProgramSource *s = cookie;
  int64_t now = mono_ms();
  if (s->pid > 0)
    {
      int status = 0;
      if (child_exited(s->pid, &status))
        {
          _log_exit(s, s->pid, status);
          s->pid = 0;
        }
      else if (now >= s->kill_at_ms)
        {
          char p[24];
          snprintf(p, sizeof(p), "%ld", (long) s->pid);
          sluice_log(SLUICE_LOG_WARNING, "Source program still runs after SIGTERM, killing it", "cmdline",
                     s->command, "pid", p, NULL);
          child_terminate(s->pid, 0);
          s->pid = 0;
        }
    }
  if (s->pid == 0 && now >= s->restart_at_ms)
    {
      int err;
      if (_spawn(s, &err))
        {
          worker_stream_added(s->worker);
          log_reader_start(s->reader);
          return;
        }
      s->run_started_ms = now;
      _plan_restart(s, "Source program could not be started, trying again");
    }
  _tick_arm(s);
}

/* The end of its output: the stream ended (the reader flushed a last line
 * without its end); see the top for what follows. */
static void
_closed(LogReader *r, int error, const char *reason, void *user_data)
{
  ProgramSource *s = user_data;
  log_source_flush(&s->base);
  if (error)
    sluice_log(SLUICE_LOG_ERROR, "Error reading the output of the source program", "cmdline", s->command, "error",
               reason, NULL);
  log_reader_free(r);
  s->reader = NULL;
  worker_stream_removed(s->worker);
  if (s->pid > 0)
    {
      int status = 0;
      pid_t pid = s->pid;
      if (child_exited(pid, &status))
        {
          _log_exit(s, pid, status);
          s->pid = 0;
        }
      /* what it left in its group, or itself if it only closed its
       * stdout: as syslog-ng, which kills the group before a restart */
      kill(-pid, SIGTERM);
      s->kill_at_ms = mono_ms() + STOP_GRACE_MS;
    }
  _plan_restart(s, "Source program ended its output, restarting it");
  _tick_arm(s);
}

static void
_start_job(void *arg)
{
  ProgramSource *s = arg;
  IV_TIMER_INIT(&s->tick);
  s->tick.cookie = s;
  s->tick.handler = _tick;
  log_reader_start(s->reader);
}

static void
_stop_job(void *arg)
{
  ProgramSource *s = arg;
  if (iv_timer_registered(&s->tick))
    iv_timer_unregister(&s->tick);
  if (s->reader)
    {
      /* the stream ends here: what was read of a line goes out as it
       * is; freeing the reader closes the program's stdout */
      log_reader_flush_partial(s->reader);
      log_reader_free(s->reader);
      s->reader = NULL;
      worker_stream_removed(s->worker);
    }
  log_source_flush(&s->base);
}

static bool
_program_start(LogSourceDriver *d, const LogSourceEnv *env, char **error)
{
  ProgramSource *s = (ProgramSource *) d;
  log_source_begin(&s->base, env);
  s->time_reopen_ms = (env->global ? env->global->time_reopen : 60) * 1000;
  int err;
  if (!_spawn(s, &err))
    {
      *error = g_strdup_printf("program(): cannot start '%s': %s", s->command, strerror(err));
      return false;
    }
  s->worker = worker_pool_pick(env->pool);
  worker_stream_added(s->worker);
  worker_post(s->worker, _start_job, s);
  s->started = true;
  return true;
}

static void
_program_stop(LogSourceDriver *d)
{
  ProgramSource *s = (ProgramSource *) d;
  if (!s->started)
    return;
  /* the worker lets go of the stdout first (the program may be blocked
   * writing to it), then the group gets SIGTERM, then SIGKILL */
  worker_run(s->worker, _stop_job, s);
  s->started = false;
  pid_t pid = s->pid;
  s->pid = 0;
  if (pid > 0)
    {
      char p[24];
      snprintf(p, sizeof(p), "%ld", (long) pid);
      sluice_log(SLUICE_LOG_INFO, "Sending source program a TERM signal", "cmdline", s->command, "child_pid", p,
                 NULL);
      child_terminate(pid, STOP_GRACE_MS);
    }
}

#define OFF(field) offsetof(ProgramSourceOptions, field)

/* syslog-ng 3.38's program() source options: those of every source,
 * inherit-environment() and persist-name() (it has no keep-alive(): that
 * is the destination's). */
static const CfgOption program_source_options[] = {
  LOG_SOURCE_OPTION_ROWS(ProgramSourceOptions, src, 100),
  { .name = "inherit-environment", .type = CFG_OPT_BOOL, .offset = OFF(inherit_environment), .def_int = 1 },
  { .name = "persist-name", .type = CFG_OPT_STRING, .offset = OFF(persist_name) },
  { 0 },
};

static void
_program_free(LogSourceDriver *d)
{
  ProgramSource *s = (ProgramSource *) d;
  cfg_options_free(program_source_options, &s->o);
  log_source_deinit(&s->base);
  g_free(s->command);
  free(s);
}

static const LogSourceOps program_source_ops = { _program_start, _program_stop, _program_free };

static LogSourceDriver *
_program_source_new(const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  ProgramSource *s = calloc(1, sizeof(*s));
  if (!s)
    abort();
  log_source_init(&s->base, &program_source_ops, call);
  cfg_options_defaults(program_source_options, &s->o);
  if (!cfg_options_apply_inherit(program_source_options, call, &s->o, "program()", ctx->global, err)
      || !log_source_resolve(&s->base, &s->o.src, call, ctx, true, "local+program", err))
    {
      _program_free(&s->base.super);
      return NULL;
    }
  const CfgValue *arg = &call->args[0];
  if (arg->type == CFG_VAL_OP || !arg->str[0])
    {
      cfg_error_set(err, &arg->loc, "program() needs a command, got an empty one");
      _program_free(&s->base.super);
      return NULL;
    }
  s->command = g_strdup(arg->str);
  g_strlcpy(s->base.super.stats_instance, s->command, sizeof(s->base.super.stats_instance));
  return &s->base.super;
}

const LogDriverFactory program_source_factory = {
  .def = { .kind = CFG_OBJ_SOURCE, .name = "program", .options = program_source_options,
           .struct_size = sizeof(ProgramSourceOptions), .min_args = 1, .max_args = 1 },
  .new_source = _program_source_new,
};
