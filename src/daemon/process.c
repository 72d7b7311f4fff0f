/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Background start and chroot: see process.h. */
#include "process.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
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
