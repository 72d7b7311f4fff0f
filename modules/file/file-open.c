/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Opening what file() and pipe() write to, as syslog-ng 3.38 does (checked
 * with strace): files O_WRONLY|O_APPEND|O_CREAT, created 0600 unless perm()
 * says otherwise; a missing pipe() path is made a FIFO and every FIFO is
 * opened O_RDWR so that opening never waits for, or fails without, a
 * reader; owner, group and mode are applied again at every open (a file
 * logrotate recreated gets them back); create-dirs(yes) makes the missing
 * parents with dir-perm/dir-owner/dir-group; symlink-as() keeps a link at
 * the file opened last.
 */
#include "file-dest.h"

#include "sluice/internal-log.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

bool
file_path_is_spurious(const char *path)
{
  return file_path_is_spurious_len(path, strlen(path));
}

bool
file_path_is_spurious_len(const char *path, size_t len)
{
  /* "../", "/.." or the whole path "..": each is a ".." found from a dot */
  const char *end = path + len;
  for (const char *d = path; (d = memchr(d, '.', (size_t) (end - d))) != NULL; d++)
    if (d + 1 < end && d[1] == '.'
        && ((d + 2 < end && d[2] == '/') || (d > path && d[-1] == '/') || len == 2))
      return true;
  return false;
}

static void
_log_errno(SluiceLogLevel level, const char *text, const char *path, int err)
{
  char e[128];
  snprintf(e, sizeof(e), "%s (%d)", strerror(err), err);
  sluice_log(level, text, "filename", path, "error", e, NULL);
}

/* Owner, group and mode on an open fd (files and FIFOs) or a path (dirs).
 * A failure is logged and is not fatal: the data still gets written. */
void
file_perm_apply(const FilePerm *p, int fd, const char *path)
{
  struct stat st;
  if ((fd >= 0 ? fstat(fd, &st) : stat(path, &st)) != 0)
    return;
  /* file("/dev/console") must not make the device root's and 0600 */
  if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode) && !S_ISDIR(st.st_mode))
    return;
  uid_t uid = p->set_uid ? p->uid : (uid_t) -1;
  gid_t gid = p->set_gid ? p->gid : (gid_t) -1;
  if ((p->set_uid && st.st_uid != p->uid) || (p->set_gid && st.st_gid != p->gid))
    {
      if ((fd >= 0 ? fchown(fd, uid, gid) : chown(path, uid, gid)) != 0)
        _log_errno(SLUICE_LOG_WARNING, "Error setting file ownership", path, errno);
    }
  if (p->mode >= 0 && (st.st_mode & 07777) != (mode_t) p->mode)
    {
      if ((fd >= 0 ? fchmod(fd, (mode_t) p->mode) : chmod(path, (mode_t) p->mode)) != 0)
        _log_errno(SLUICE_LOG_WARNING, "Error setting file permissions", path, errno);
    }
}

/* mkdir -p of path's parent directories; only the ones made here get the
 * dir-* options, as in syslog-ng. */
int
file_create_parents(const FilePerm *dirp, const char *path)
{
  char *dir = g_strdup(path);
  int rc = 0;
  for (char *p = dir + 1; rc == 0 && (p = strchr(p, '/')); p++)
    {
      *p = '\0';
      struct stat st;
      if (dir[0] && stat(dir, &st) != 0)
        {
          int mode = dirp->mode >= 0 ? dirp->mode : 0700;
          if (mkdir(dir, (mode_t) mode) == 0)
            file_perm_apply(dirp, -1, dir);
          else if (errno != EEXIST)
            {
              rc = -errno;
              _log_errno(SLUICE_LOG_ERROR, "Error creating directory", dir, -rc);
            }
        }
      *p = '/';
    }
  g_free(dir);
  return rc;
}

static int
_open_pipe(FileDest *d, const char *path)
{
  struct stat st;
  int rc = stat(path, &st);
  if (rc != 0 && errno == ENOENT)
    {
      int mode = d->file_perm.mode >= 0 ? d->file_perm.mode : 0600;
      if (mkfifo(path, (mode_t) mode) != 0 && errno != EEXIST)
        {
          int e = errno;
          _log_errno(SLUICE_LOG_ERROR, "Error creating named pipe", path, e);
          return -e;
        }
    }
  else if (rc == 0 && S_ISREG(st.st_mode))
    {
      /* pipe("/dev/stdout") with stdout sent to a file: append to it
       * like file() would, rather than write over it from the start */
      sluice_log(SLUICE_LOG_WARNING, "pipe() writes to something that is not a named pipe; file() is meant for "
                 "regular files", "filename", path, NULL);
      return open(path, O_WRONLY | O_APPEND | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    }
  return open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
}

/* overwrite-if-older(N): a file last written more than N seconds ago is
 * emptied before use (for names like "${WEEKDAY}.log" that come round
 * again), as syslog-ng does. */
static void
_overwrite_if_older(FileDest *d, int fd, const char *path)
{
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0)
    return;
  if ((int64_t) time(NULL) - (int64_t) st.st_mtime <= d->o.overwrite_if_older)
    return;
  char n[32];
  snprintf(n, sizeof(n), "%" G_GINT64_FORMAT, (gint64) d->o.overwrite_if_older);
  sluice_log(SLUICE_LOG_NOTICE, "Destination file is older than overwrite-if-older(), overwriting", "filename",
             path, "overwrite_if_older", n, NULL);
  if (ftruncate(fd, 0) != 0)
    _log_errno(SLUICE_LOG_ERROR, "Error truncating file", path, errno);
}

/* symlink-as(): point the link at path when it points elsewhere.  The new
 * link is made beside it and renamed over it, so a reader never finds the
 * link missing; something at that name that is not a symlink is left
 * alone. */
static void
_update_symlink(FileDest *d, const char *path)
{
  const char *link = d->o.symlink_as;
  char target[PATH_MAX];
  ssize_t k = readlink(link, target, sizeof(target) - 1);
  if (k >= 0)
    {
      target[k] = '\0';
      if (strcmp(target, path) == 0)
        return;
    }
  else if (errno != ENOENT)
    {
      _log_errno(SLUICE_LOG_ERROR, "symlink-as() names something that is not a symlink; leaving it alone", link,
                 errno);
      return;
    }
  if (d->o.create_dirs && file_create_parents(&d->dir_perm, link) < 0)
    return;
  char *tmp = g_strdup_printf("%s.sluice-%ld", link, (long) getpid());
  unlink(tmp);
  if (symlink(path, tmp) != 0 || rename(tmp, link) != 0)
    {
      _log_errno(SLUICE_LOG_ERROR, "Error creating symlink", link, errno);
      unlink(tmp);
    }
  g_free(tmp);
}

int
file_dest_open(FileDest *d, const char *path)
{
  int fd;
  if (d->o.create_dirs && (fd = file_create_parents(&d->dir_perm, path)) < 0)
    return fd;
  if (d->kind == FILE_KIND_PIPE)
    fd = _open_pipe(d, path);
  else
    {
      int mode = d->file_perm.mode >= 0 ? d->file_perm.mode : 0600;
      fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOCTTY | O_NONBLOCK | O_CLOEXEC, (mode_t) mode);
    }
  if (fd < 0)
    {
      int e = errno;
      if (e == EMFILE || e == ENFILE)
        return -e; /* the writer makes room and tries again; it logs */
      _log_errno(SLUICE_LOG_ERROR, "Error opening file for writing", path, e);
      return -e;
    }
  file_perm_apply(&d->file_perm, fd, path);
  if (d->kind == FILE_KIND_FILE && d->o.overwrite_if_older > 0)
    _overwrite_if_older(d, fd, path);
  if (d->o.symlink_as)
    _update_symlink(d, path);
  return fd;
}
