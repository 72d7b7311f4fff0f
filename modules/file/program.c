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
 *    the messages wait in the queue meanwhile.  What it left unread in
 *    its pipe (kept in a ring of the bytes last sent) goes to the next
 *    child first, so only what it had read and not acted on is lost.  Exit status 127 (the
 *    shell found no such command) stops the destination until a reload,
 *    as syslog-ng does;
 *  - at stop its stdin is closed and it gets up to a second to finish the
 *    input, then SIGTERM to its process group, then SIGKILL;
 *  - on a reload with keep-alive(yes) the pipe and the pid go into the
 *    handover registry under the persist-name() or the command, and the
 *    new configuration's program() with the same key writes on to the
 *    same process (unless a line went to it only in part: the new writer
 *    writes that line whole, so a new process gets it, as a network
 *    destination does with a half-sent message); otherwise the old one is
 *    stopped and a new one started.
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
#include "sluice/timeutil.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define STOP_GRACE_MS 1000

static char *
_key(const FileDest *d)
{
  return g_strdup_printf("program:%s", d->o.persist_name ? d->o.persist_name : d->command);
}

/* ---- what the child was sent ---------------------------------------- */

static void
_ring_reset(FileDest *d)
{
  int cap = fcntl(d->child_fd, F_GETPIPE_SZ);
  size_t want = cap > 65536 ? (size_t) cap : 65536;
  if (d->sent_cap < want)
    {
      d->sent = g_realloc(d->sent, want);
      d->sent_cap = want;
    }
  d->sent_len = d->sent_end = 0;
}

void
program_dest_sent(FileDest *d, const struct iovec *iov, int n, size_t bytes)
{
  for (int i = 0; i < n && bytes > 0; i++)
    {
      const char *p = iov[i].iov_base;
      size_t len = MIN(iov[i].iov_len, bytes);
      bytes -= len;
      if (len > d->sent_cap)
        {
          p += len - d->sent_cap;
          len = d->sent_cap;
        }
      while (len > 0)
        {
          size_t k = MIN(len, d->sent_cap - d->sent_end);
          memcpy(d->sent + d->sent_end, p, k);
          d->sent_end = (d->sent_end + k) % d->sent_cap;
          d->sent_len = MIN(d->sent_len + k, d->sent_cap);
          p += k;
          len -= k;
        }
    }
}

/* The byte k (1 = the newest) back from the end of what was sent. */
static char
_sent_back(const FileDest *d, size_t k)
{
  return d->sent[(d->sent_end + d->sent_cap - k) % d->sent_cap];
}

/* The child is dead and nothing else reads its pipe: the bytes still in
 * the pipe never reached it.  They are the newest of what was sent, and
 * go to the next child first: the pipe is one stream across restarts, so
 * a program that appends what it reads somewhere (cat >> file) continues
 * byte for byte, even inside a line the dead one read only part of (the
 * writer, likewise, goes on with the rest of a line it wrote only part
 * of). */
static void
_salvage(FileDest *d)
{
  int unread = 0;
  if (d->child_fd < 0 || ioctl(d->child_fd, FIONREAD, &unread) != 0 || unread <= 0)
    return;
  size_t back = MIN((size_t) unread, d->sent_len);
  if (back < (size_t) unread)
    sluice_log(SLUICE_LOG_ERROR, "The program's pipe held more than was kept; some of it is lost", "cmdline",
               d->command, NULL);
  GString *bytes = g_string_sized_new(back + d->resend->len);
  size_t n = 0;
  for (size_t k = back; k > 0; k--)
    {
      char c = _sent_back(d, k);
      g_string_append_c(bytes, c);
      n += c == '\n';
    }
  g_string_append_len(bytes, d->resend->str, (gssize) d->resend->len);
  g_string_free(d->resend, TRUE);
  d->resend = bytes;
  char nl[24];
  snprintf(nl, sizeof(nl), "%zu", n);
  sluice_log(SLUICE_LOG_NOTICE, "Lines the program did not read go to its next run", "cmdline", d->command, "lines",
             nl, NULL);
}

/* Give the new child what its predecessor did not read. */
static bool
_flush_resend(FileDest *d)
{
  size_t done = 0;
  while (done < d->resend->len)
    {
      ssize_t w = write(d->child_fd, d->resend->str + done, d->resend->len - done);
      if (w > 0)
        {
          struct iovec v = { d->resend->str + done, (size_t) w };
          program_dest_sent(d, &v, 1, (size_t) w);
          done += (size_t) w;
        }
      else if (w < 0 && errno == EINTR)
        continue;
      else if (!(w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && log_writer_wait_fd(d->child_fd, POLLOUT, 1000)))
        break;
    }
  g_string_erase(d->resend, 0, (gssize) done);
  return d->resend->len == 0;
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
      d->restart_at_ms = mono_ms() + d->super.time_reopen * 1000;
      return false;
    }
  char p[24];
  snprintf(p, sizeof(p), "%ld", (long) pid);
  sluice_log(SLUICE_LOG_INFO, "Starting destination program", "cmdline", d->command, "pid", p, NULL);
  d->child_pid = pid;
  d->child_fd = fd;
  _ring_reset(d);
  if (d->resend->len > 0 && !_flush_resend(d))
    {
      program_dest_broken(d);
      return false;
    }
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
          _ring_reset(d);
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
  d->restart_at_ms = mono_ms() + d->super.time_reopen * 1000;
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
  if (mono_ms() < d->restart_at_ms)
    return -ECHILD; /* not a lasting error: the batch waits time-reopen() */
  if (!_spawn(d))
    return -ECHILD;
  return d->child_fd;
}

void
program_dest_broken(FileDest *d)
{
  pid_t pid = d->child_pid;
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
      else
        kill(-pid, SIGKILL); /* nothing it left in its group reads on */
      _log_exit(d, status);
    }
  _salvage(d);
  _forget(d);
}

bool
program_dest_housekeep(FileDest *d)
{
  int status = 0;
  if (d->child_pid > 0 && child_exited(d->child_pid, &status))
    {
      /* what it left in its group (dash keeps the shell as the parent of
       * the command) must not go on reading what is meant for the next */
      kill(-d->child_pid, SIGKILL);
      struct timespec ts = { 0, 20 * 1000 * 1000 };
      nanosleep(&ts, NULL);
      _log_exit(d, status);
      _salvage(d);
      _forget(d);
      return false;
    }
  if (d->child_pid == 0 && !d->child_given_up && mono_ms() >= d->restart_at_ms)
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
program_dest_finish(FileDest *d, bool partial)
{
  if (partial && d->child_pid > 0 && d->o.keep_alive && handover_active())
    sluice_log(SLUICE_LOG_NOTICE, "The program got part of a line; a new one gets it whole after the reload",
               "cmdline", d->command, NULL);
  else if (d->child_pid > 0 && d->child_fd >= 0 && d->o.keep_alive && handover_active())
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
  g_free(d->sent);
  if (d->resend)
    g_string_free(d->resend, TRUE);
}
