/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_CHILD_H
#define SLUICE_CHILD_H

/*
 * Programs the daemon runs: the program() destination's and source's
 * commands.  As syslog-ng 3.38 does, the command runs as
 * `/bin/sh -c COMMAND` in a process group of its own with one end of a
 * pipe: a destination's program reads it on its stdin (stdout and stderr
 * on /dev/null), a source's writes to it on its stdout (stdin and stderr
 * on /dev/null).  Unlike syslog-ng it starts with SIGPIPE at its default
 * action and no blocked signals (the daemon ignores SIGPIPE and its
 * writer threads block it; neither is the program's business).
 *
 * With -u/-g the program runs as that user and group, as in syslog-ng
 * (which drops its privileges before it starts any destination): the
 * daemon starts destinations as root and drops afterwards, so a child
 * started while still root switches to the target itself before exec.
 */

#include <stdbool.h>
#include <sys/types.h>

/* The user and group programs run as (main thread, before any start);
 * user (may be NULL) gives the supplementary groups, as initgroups(). */
void child_set_credentials(bool set_uid, uid_t uid, bool set_gid, gid_t gid, const char *user);

/* Start /bin/sh -c command with a pipe on its stdin.  Returns the pid and
 * sets *fd (the pipe's write end: non-blocking, close-on-exec), or returns
 * -1 with *err (an errno).  inherit_env false: an empty environment. */
pid_t child_spawn(const char *command, bool inherit_env, int *fd, int *err);

/* The same with a pipe on its stdout: *fd is the read end (non-blocking,
 * close-on-exec). */
pid_t child_spawn_reader(const char *command, bool inherit_env, int *fd, int *err);

/* True when pid has exited (reaped here, *status set as waitpid's). */
bool child_exited(pid_t pid, int *status);

/* Stop pid: SIGTERM to its process group, wait up to grace_ms for it,
 * then SIGKILL the group; reaped either way. */
void child_terminate(pid_t pid, int grace_ms);

#endif
