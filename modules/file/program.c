/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * program("command"): a destination that writes its lines to the stdin of
 * a program it keeps running, as syslog-ng 3.38's does.  The writing is
 * file-writer.c's (the pipe is the destination's one "file"); this file
 * owns the child:
 *
 *  - it starts once, at start (`/bin/sh -c command` in its own process
 *    group, stdout and stderr on /dev/null: sluice/child.h), not per
 *    message;
 *  - when it exits (seen about once a second by housekeep) or the pipe
 *    breaks (EPIPE on a write), it is reaped, logged ("Child program
 *    exited, restarting") and started again after time-reopen() seconds;
 *    the messages wait in the queue meanwhile.  A line the dead child got
 *    only part of is written whole to the new one.  Exit status 127 (the
 *    shell found no such command) stops the destination until a reload,
 *    as syslog-ng does;
 *  - at stop its stdin is closed and it gets up to a second to finish the
 *    input, then SIGTERM to its process group, then SIGKILL;
 *  - on a reload with keep-alive(yes) the pipe and the pid go into the
 *    handover registry under the persist-name() or the command, and the
 *    new configuration's program() with the same key writes on to the
 *    same process; otherwise the old one is stopped and a new one started.
 *
 * Differences from syslog-ng 3.38: syslog-ng restarts a program that
 * exited at once; Sluice waits time-reopen() (a program that fails at
 * start does not spin).  At stop syslog-ng sends SIGTERM at once (a
 * program may lose what is still in the pipe); Sluice closes its stdin
 * first and waits up to a second.
 */
#include "file-dest.h"

#include "sluice/child.h"
#include "sluice/handover.h"
#include "sluice/internal-log.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define STOP_GRACE_MS 1000

static int64_t
_mono_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static char *
_key(const FileDest *d)
{
  return g_strdup_printf("program:%s", d->o.persist_name ? d->o.persist_name : d->command);
}

static bool
_spawn(FileDest *d)
{
  int fd = -1, err = 0;
  pid_t pid = child_spawn(d->command, d->o.inherit_environment, &fd, &err);
  if (pid < 0)
    {
      char e[128];
      snprintf(e, sizeof(e), "%s (%d)", strerror(err), err);
      sluice_log(SLUICE_LOG_ERROR, "Error starting destination program", "cmdline", d->command, "error", e, NULL);
      d->restart_at_ms = _mono_ms() + d->super.time_reopen * 1000;
      return false;
    }
  char p[24];
  snprintf(p, sizeof(p), "%ld", (long) pid);
  sluice_log(SLUICE_LOG_INFO, "Starting destination program", "cmdline", d->command, "pid", p, NULL);
  d->child_pid = pid;
  d->child_fd = fd;
  d->child_gen++;
  return true;
}

bool
program_dest_start(FileDest *d, char **error)
{
  (void) error;
  if (handover_active())
    {
      char *key = _key(d);
      pid_t pid = 0;
      int fd = handover_take_child(key, &pid);
      g_free(key);
      if (fd >= 0)
        {
          d->child_fd = fd;
          d->child_pid = pid;
          d->child_gen++;
          char p[24];
          snprintf(p, sizeof(p), "%ld", (long) pid);
          sluice_log(SLUICE_LOG_NOTICE, "Destination program kept across the reload", "cmdline", d->command, "pid",
                     p, NULL);
          return true;
        }
    }
  /* not being able to start is not fatal: the writer tries again */
  _spawn(d);
  return true;
}

/* The child is gone (reaped or about to be): close our end. */
static void
_forget(FileDest *d)
{
  if (d->child_fd >= 0)
    close(d->child_fd);
  d->child_fd = -1;
  d->child_pid = 0;
  d->restart_at_ms = _mono_ms() + d->super.time_reopen * 1000;
}

static void
_log_exit(FileDest *d, int status)
{
  char st[24];
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : status;
  snprintf(st, sizeof(st), "%d", code);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
    {
      d->child_given_up = true;
      sluice_log(SLUICE_LOG_ERROR, "Child program exited with command not found, stopping the destination.",
                 "cmdline", d->command, "status", st, NULL);
      return;
    }
  sluice_log(SLUICE_LOG_NOTICE, "Child program exited, restarting", "cmdline", d->command, "status", st, NULL);
}

int
program_dest_open(FileDest *d)
{
  if (d->child_fd >= 0)
    return d->child_fd;
  if (d->child_given_up)
    return -ECHILD;
  if (_mono_ms() < d->restart_at_ms)
    return -ECHILD; /* not a lasting error: the batch waits time-reopen() */
  if (!_spawn(d))
    return -ECHILD;
  return d->child_fd;
}

void
program_dest_broken(FileDest *d)
{
  pid_t pid = d->child_pid;
  if (d->child_fd >= 0)
    close(d->child_fd);
  d->child_fd = -1;
  if (pid > 0)
    {
      /* it is likely exiting: give it a moment before making sure */
      int status = 0;
      bool gone = false;
      for (int i = 0; i < 20 && !(gone = child_exited(pid, &status)); i++)
        {
          struct timespec ts = { 0, 5 * 1000 * 1000 };
          nanosleep(&ts, NULL);
        }
      if (!gone)
        {
          /* it closed its stdin but runs on: it cannot get our lines */
          child_terminate(pid, STOP_GRACE_MS);
          status = 0;
        }
      _log_exit(d, status);
    }
  _forget(d);
}

bool
program_dest_housekeep(FileDest *d)
{
  int status = 0;
  if (d->child_pid > 0 && child_exited(d->child_pid, &status))
    {
      _log_exit(d, status);
      _forget(d);
      return false;
    }
  if (d->child_pid == 0 && !d->child_given_up && _mono_ms() >= d->restart_at_ms)
    _spawn(d); /* kept running even while no message comes */
  return d->child_pid > 0;
}

static void
_stop_child(FileDest *d)
{
  if (d->child_fd >= 0)
    close(d->child_fd);
  d->child_fd = -1;
  pid_t pid = d->child_pid;
  d->child_pid = 0;
  if (pid <= 0)
    return;
  /* end of input first: a filter may finish what is in the pipe */
  int status;
  for (int waited = 0; waited < STOP_GRACE_MS; waited += 10)
    {
      if (child_exited(pid, &status))
        {
          kill(-pid, SIGTERM); /* anything it left in its group */
          return;
        }
      struct timespec ts = { 0, 10 * 1000 * 1000 };
      nanosleep(&ts, NULL);
    }
  char p[24];
  snprintf(p, sizeof(p), "%ld", (long) pid);
  sluice_log(SLUICE_LOG_INFO, "Sending destination program a TERM signal", "cmdline", d->command, "pid", p, NULL);
  child_terminate(pid, STOP_GRACE_MS);
}

void
program_dest_finish(FileDest *d)
{
  if (d->child_pid > 0 && d->child_fd >= 0 && d->o.keep_alive && handover_active())
    {
      int status;
      if (!child_exited(d->child_pid, &status))
        {
          char *key = _key(d);
          handover_put_child(key, d->child_fd, d->child_pid);
          g_free(key);
          d->child_fd = -1;
          d->child_pid = 0;
          return;
        }
      d->child_pid = 0;
    }
  _stop_child(d);
}

void
program_dest_free(FileDest *d)
{
  _stop_child(d);
  g_free(d->command);
}
