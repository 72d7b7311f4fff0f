/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Background start and chroot: see process.h. */
#include "process.h"

#include "sluice/internal-log.h"

#include <dirent.h>
#include <glib.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static int startup_fd = -1; /* the safe-background parent waits on this */
static bool detached;

bool
process_mode_parse(const char *name, ProcessMode *out)
{
  static const char *const names[] = { "foreground", "background", "safe-background" };
  for (int i = 0; i < 3; i++)
    if (strcmp(name, names[i]) == 0)
      {
        *out = (ProcessMode) i;
        return true;
      }
  return false;
}

/* The parent's half: exit with what the child says (a status byte), or,
 * when it dies without saying, with its exit status. */
static void
_wait_for_child(pid_t child, int fd)
{
  unsigned char status;
  ssize_t n;
  while ((n = read(fd, &status, 1)) < 0 && errno == EINTR)
    ;
  if (n == 1)
    _exit(status);
  int ws = 0;
  while (waitpid(child, &ws, 0) < 0 && errno == EINTR)
    ;
  _exit(WIFEXITED(ws) && WEXITSTATUS(ws) != 0 ? WEXITSTATUS(ws) : 1);
}

bool
process_detach(ProcessMode mode)
{
  if (mode == PROCESS_FOREGROUND)
    return true;
  int fds[2] = { -1, -1 };
  if (mode == PROCESS_SAFE_BACKGROUND && pipe2(fds, O_CLOEXEC) < 0)
    return false;
  pid_t pid = fork();
  if (pid < 0)
    return false;
  if (pid > 0)
    {
      if (mode == PROCESS_BACKGROUND)
        _exit(0);
      close(fds[1]);
      _wait_for_child(pid, fds[0]);
    }
  if (fds[0] >= 0)
    close(fds[0]);
  startup_fd = fds[1];
  detached = true;
  if (setsid() < 0 || chdir("/") < 0)
    return false;
  if (mode == PROCESS_BACKGROUND)
    process_startup_done(0);
  return true;
}

void
process_startup_done(int status)
{
  if (!detached)
    return;
  if (status == 0)
    {
      /* from now on the daemon speaks through its log only */
      int null = open("/dev/null", O_RDWR | O_CLOEXEC);
      if (null >= 0)
        {
          dup2(null, STDIN_FILENO);
          dup2(null, STDOUT_FILENO);
          dup2(null, STDERR_FILENO);
          if (null > STDERR_FILENO)
            close(null);
        }
    }
  if (startup_fd >= 0)
    {
      unsigned char b = (unsigned char) (status & 0xff);
      ssize_t n;
      while ((n = write(startup_fd, &b, 1)) < 0 && errno == EINTR)
        ;
      close(startup_fd);
      startup_fd = -1;
    }
  detached = false;
}

bool
process_chroot(const char *dir)
{
  return chroot(dir) == 0 && chdir("/") == 0;
}

long
process_raise_fd_limit(long min)
{
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
    return -1;
  struct rlimit want = rl;
  if (min > 0 && rl.rlim_max != RLIM_INFINITY && (rlim_t) min > rl.rlim_max)
    want.rlim_max = (rlim_t) min;
  want.rlim_cur = want.rlim_max;
  if (want.rlim_cur != rl.rlim_cur || want.rlim_max != rl.rlim_max)
    {
      if (setrlimit(RLIMIT_NOFILE, &want) < 0)
        {
          char lim[32];
          snprintf(lim, sizeof(lim), "%ld", min > 0 ? min : (long) want.rlim_max);
          sluice_log(SLUICE_LOG_WARNING, "Error setting file number limit", "limit", lim, "error", g_strerror(errno),
                     NULL);
          /* without the privilege for more, the hard limit still is ours */
          want.rlim_max = rl.rlim_max;
          want.rlim_cur = rl.rlim_max;
          if (want.rlim_cur != rl.rlim_cur)
            setrlimit(RLIMIT_NOFILE, &want);
        }
    }
  if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
    return -1;
  return rl.rlim_cur == RLIM_INFINITY ? (long) INT32_MAX : (long) rl.rlim_cur;
}

long
process_open_fds(void)
{
  DIR *d = opendir("/proc/self/fd");
  if (!d)
    return -1;
  long n = 0;
  struct dirent *e;
  while ((e = readdir(d)))
    if (e->d_name[0] != '.')
      n++;
  closedir(d);
  return n - 1; /* the directory's own descriptor */
}
