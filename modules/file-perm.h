/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Owners, permissions and missing directories of the files a destination
 * creates, and the checks of a path made from macros: implemented in the
 * file module (file-options.c resolves at configuration time, file-open.c
 * applies at every open) and shared with every module that writes files
 * by path (file(), pipe(), the pipe() source, logstore()).
 */
#ifndef SLUICE_FILE_PERM_H
#define SLUICE_FILE_PERM_H

#include "sluice/cfg-options.h"
#include "sluice/cfg-tree.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* The option rows of a destination that opens paths made from macros,
 * for a table whose OFF(field) names a struct with these fields:
 * create_dirs, owner, group, perm, dir_owner, dir_group, dir_perm,
 * time_reap, local_time_zone. */
#define PATH_OPTIONS \
  { .name = "create-dirs", .type = CFG_OPT_BOOL, .offset = OFF(create_dirs), .inherit = "create-dirs" }, \
  { .name = "owner", .type = CFG_OPT_STRING, .offset = OFF(owner), .empty_ok = true }, \
  { .name = "group", .type = CFG_OPT_STRING, .offset = OFF(group), .empty_ok = true }, \
  { .name = "perm", .type = CFG_OPT_INT, .offset = OFF(perm), .def_int = -2, .min = -1, .max = 07777 }, \
  { .name = "dir-owner", .type = CFG_OPT_STRING, .offset = OFF(dir_owner), .empty_ok = true }, \
  { .name = "dir-group", .type = CFG_OPT_STRING, .offset = OFF(dir_group), .empty_ok = true }, \
  { .name = "dir-perm", .type = CFG_OPT_INT, .offset = OFF(dir_perm), .def_int = -2, .min = -1, \
    .max = 07777 }, \
  { .name = "time-reap", .type = CFG_OPT_INT, .offset = OFF(time_reap), .def_int = -1, .min = 0, \
    .max = INT32_MAX }, \
  { .name = "local-time-zone", .type = CFG_OPT_STRING, .offset = OFF(local_time_zone),                    \
    .inherit = "local-time-zone" }

/* True when path would climb out of its directory the way syslog-ng 3.38
 * refuses: "../" or "/.." anywhere, or the whole path "..". */
bool file_path_is_spurious(const char *path);
/* The same for path[0..len) (no NUL in it), in one pass over its dots. */
bool file_path_is_spurious_len(const char *path, size_t len);

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
