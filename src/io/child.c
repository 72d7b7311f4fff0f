/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Programs the daemon runs: see include/sluice/child.h.
 *
 * The fork happens in a threaded process, so the child only makes system
 * calls that are safe there (no malloc, no locks) until it execs:
 * everything it needs (argv, the group list) is ready before the fork. */
#include "sluice/child.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <grp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define MAX_GROUPS 256

static struct
{
  bool set_uid, set_gid;
  uid_t uid;
  gid_t gid;
  gid_t groups[MAX_GROUPS];
  int n_groups;
} creds;

void
child_set_credentials(bool set_uid, uid_t uid, bool set_gid, gid_t gid, const char *user)
{
  creds.set_uid = set_uid;
  creds.uid = uid;
  creds.set_gid = set_gid;
  creds.gid = gid;
  creds.n_groups = 1;
  creds.groups[0] = gid;
  if (user && set_gid)
    {
      int n = MAX_GROUPS;
      if (getgrouplist(user, gid, creds.groups, &n) < 0)
        {
          creds.n_groups = 1;
          creds.groups[0] = gid;
        }
      else
        creds.n_groups = n;
    }
}

/* In the child, before exec: only async-signal-safe calls from here. */

/* Nothing of the daemon's but the pipe: a descriptor opened without
 * close-on-exec (a listener, a connection) must not live on in the
 * program after the daemon has closed it. */
static void
_close_others(long max_fd)
{
#ifdef SYS_close_range
  if (syscall(SYS_close_range, 3U, ~0U, 0U) == 0)
    return;
#endif
  for (long fd = 3; fd < max_fd; fd++)
    close((int) fd);
}

static void
_child_setup(int in, int out, int devnull, long max_fd)
{
  setpgid(0, 0);
  dup2(in, STDIN_FILENO);
  dup2(out, STDOUT_FILENO);
  dup2(devnull, STDERR_FILENO);
  _close_others(max_fd);
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; sig++)
    if (sig != SIGKILL && sig != SIGSTOP)
      sigaction(sig, &sa, NULL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  if (geteuid() == 0)
    {
      if (creds.set_gid && (setgroups((size_t) creds.n_groups, creds.groups) != 0 || setgid(creds.gid) != 0))
        _exit(126);
      if (creds.set_uid && setuid(creds.uid) != 0)
        _exit(126);
    }
}

/* The child's stdin (to_child) or stdout (!to_child) is a pipe, the
 * other two /dev/null; *fd is the daemon's end. */
static pid_t
_spawn(const char *command, bool inherit_env, bool to_child, int *fd, int *err)
{
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0)
    {
      *err = errno;
      return -1;
    }
  int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
  if (devnull < 0)
    {
      *err = errno;
      close(p[0]);
      close(p[1]);
      return -1;
    }
  /* the child's end and ours */
  int theirs = to_child ? p[0] : p[1];
  int ours = to_child ? p[1] : p[0];
  char *argv[] = { "/bin/sh", "-c", (char *) command, NULL };
  char *no_env[] = { NULL };
  char **envp = inherit_env ? environ : no_env;
  long max_fd = sysconf(_SC_OPEN_MAX);
  if (max_fd < 0 || max_fd > (1L << 20))
    max_fd = 1L << 20;
  pid_t pid = fork();
  if (pid == 0)
    {
      _child_setup(to_child ? theirs : devnull, to_child ? devnull : theirs, devnull, max_fd);
      execve("/bin/sh", argv, envp);
      _exit(127);
    }
  int e = errno;
  close(theirs);
  close(devnull);
  if (pid < 0)
    {
      close(ours);
      *err = e;
      return -1;
    }
  /* the parent too, so a kill between fork and the child's own call
   * reaches the right group */
  setpgid(pid, pid);
  fcntl(ours, F_SETFL, fcntl(ours, F_GETFL) | O_NONBLOCK);
  *fd = ours;
  return pid;
}

pid_t
child_spawn(const char *command, bool inherit_env, int *fd, int *err)
{
  return _spawn(command, inherit_env, true, fd, err);
}

pid_t
child_spawn_reader(const char *command, bool inherit_env, int *fd, int *err)
{
  return _spawn(command, inherit_env, false, fd, err);
}

bool
child_exited(pid_t pid, int *status)
{
  int st = 0;
  pid_t r;
  while ((r = waitpid(pid, &st, WNOHANG)) < 0 && errno == EINTR)
    ;
  if (r == pid || (r < 0 && errno == ECHILD))
    {
      *status = r == pid ? st : 0;
      return true;
    }
  return false;
}

void
child_terminate(pid_t pid, int grace_ms)
{
  if (pid <= 0)
    return;
  int status;
  if (child_exited(pid, &status))
    {
      kill(-pid, SIGTERM); /* what the shell left running in its group */
      return;
    }
  kill(-pid, SIGTERM);
  kill(pid, SIGTERM);
  for (int waited = 0; waited < grace_ms; waited += 10)
    {
      if (child_exited(pid, &status))
        return;
      struct timespec ts = { 0, 10 * 1000 * 1000 };
      nanosleep(&ts, NULL);
    }
  kill(-pid, SIGKILL);
  kill(pid, SIGKILL);
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
    ;
}
