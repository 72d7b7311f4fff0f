/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_PRIVS_H
#define SLUICE_PRIVS_H

/*
 * -u USER / -g GROUP: the daemon starts as root, binds its sockets and
 * opens its files, and then runs as USER:GROUP.  The main thread (which
 * binds every listener, also on a reload) keeps CAP_NET_BIND_SERVICE, so
 * that a reload can bind a port below 1024 again; every other thread
 * keeps no capability.  Files opened later (a reload, a new macro path,
 * a reopen) are opened with USER's and GROUP's rights.
 */

#include <stdbool.h>
#include <sys/types.h>

typedef struct PrivsTarget
{
  uid_t uid;
  gid_t gid;
  bool set_uid, set_gid;
  char *user; /* for initgroups(), NULL with a numeric -u */
} PrivsTarget;

/* Resolve names or numbers before anything starts; false with *error
 * (g_free) for an unknown user or group, or when not running as root. */
bool privs_resolve(const char *user, const char *group, PrivsTarget *t, char **error);

/* Switch to the target (main thread, after binding).  False with *error
 * when any step fails: the caller must stop, not run as root by mistake. */
bool privs_drop(const PrivsTarget *t, char **error);

void privs_target_clear(PrivsTarget *t);

#endif
