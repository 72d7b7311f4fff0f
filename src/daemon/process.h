/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_PROCESS_H
#define SLUICE_PROCESS_H

/*
 * How the daemon process starts (syslog-ng's --process-mode, -F, -C):
 *
 *  - foreground (-F): stays attached to the terminal;
 *  - background: forks, and the parent exits 0 at once;
 *  - safe-background (the default without -F): forks, and the parent
 *    waits until the child has started (sources bound, pid file written,
 *    privileges dropped) or failed, and exits with the child's status, so
 *    an init script or an operator sees a configuration that cannot start.
 *    The child's errors until then still reach the terminal.
 *
 * --chroot DIR: the daemon changes its root to DIR before it reads the
 * configuration, so the configuration, the pid file, the control socket
 * and every path the configuration names are inside DIR, and a reload
 * reads the file again there.  -u/-g are resolved before (from the host's
 * user database).
 */

#include <stdbool.h>

typedef enum ProcessMode
{
  PROCESS_FOREGROUND,
  PROCESS_BACKGROUND,
  PROCESS_SAFE_BACKGROUND,
} ProcessMode;

/* "foreground", "background" or "safe-background"; false for other names. */
bool process_mode_parse(const char *name, ProcessMode *out);

/* Before any thread starts: go to the background as mode says.  Returns
 * in the daemon's process only (the parent exits here); false with errno
 * when fork or setsid fails. */
bool process_detach(ProcessMode mode);

/* The daemon runs (status 0) or could not start (non-zero): a
 * safe-background parent exits with it; stdio goes to /dev/null once
 * running in the background.  Once only; nothing without a parent waiting. */
void process_startup_done(int status);

/* chroot(dir) and chdir("/"); false with errno. */
bool process_chroot(const char *dir);

/* The descriptor limit, at start: the soft RLIMIT_NOFILE goes up to the
 * hard one (a daemon's connections are its descriptors; nothing here uses
 * select()), and with min > 0 (--fd-limit, syslog-ng's minimum) both go up
 * to at least min (above the hard limit that takes CAP_SYS_RESOURCE; a
 * failure is logged and the hard limit kept).  Never lowers a limit.
 * Returns the soft limit in force. */
long process_raise_fd_limit(long min);

/* The descriptors this process has open now (/proc/self/fd), or -1. */
long process_open_fds(void);

#endif
