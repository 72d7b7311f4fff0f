/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Owners, permissions and missing directories of what the file module
 * creates, shared by the destinations (file(), pipe()) and the pipe()
 * source: resolved at configuration time (file-options.c), applied at
 * every open (file-open.c).
 */
#ifndef SLUICE_FILE_PERM_H
#define SLUICE_FILE_PERM_H

#include "sluice/cfg-options.h"
#include "sluice/cfg-tree.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* One owner/permission set: for files or for directories. */
typedef struct FilePerm
{
  uid_t uid;
  gid_t gid;
  bool set_uid, set_gid;
  int mode;              /* -1: leave as created */
} FilePerm;

/* Fill p from owner and group (names or numbers; NULL or "": leave alone)
 * and mode.  A user or group that does not exist is left alone with an
 * error logged in syslog-ng 3.38's words ("Error resolving user"), as
 * syslog-ng does: the configuration stands.  Returns true (err is for
 * checks that may refuse later). */
bool file_perm_resolve(FilePerm *p, const char *owner, const char *group, int64_t mode, const CfgNode *call,
                       const char *owner_opt, const char *group_opt, CfgError *err);

/* What the driver call left unset of its owner/permission options comes
 * from options {}: perm and dir_perm at -2, and, for root only (syslog-ng
 * run by another user does not try to give files away), owner, group,
 * dir_owner and dir_group at NULL. */
void file_perm_inherit(char **owner, char **group, int64_t *perm, char **dir_owner, char **dir_group,
                       int64_t *dir_perm, const CfgGlobalOptions *g);

/* Owner, group and mode on an open fd (files and FIFOs) or, with fd -1,
 * a path (dirs); failures are logged, not fatal. */
void file_perm_apply(const FilePerm *p, int fd, const char *path);

/* mkdir -p of path's parent directories, the ones made here with dir;
 * 0 or a negative errno (logged). */
int file_create_parents(const FilePerm *dir, const char *path);

#endif
