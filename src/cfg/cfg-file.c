/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Files that a configuration names and Sluice reads while building it (an
 * in-list() file, dns-cache-hosts(), TLS keys and certificates, the text
 * CONFIG GET shows): regular files only.  Each is opened without blocking
 * and checked on the open descriptor, so a FIFO without a writer cannot
 * hang --syntax-only or a reload, /dev/zero cannot be read forever, and a
 * path cannot be swapped for a device between a check and the read.
 */
#include "sluice/cfg-tree.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <sys/stat.h>
#include <unistd.h>

const char *
cfg_file_kind(unsigned int mode)
{
  if (S_ISDIR(mode))
    return "a directory";
  if (S_ISCHR(mode))
    return "a character device";
  if (S_ISBLK(mode))
    return "a block device";
  if (S_ISFIFO(mode))
    return "a FIFO";
  if (S_ISSOCK(mode))
    return "a socket";
  return "not a regular file";
}

/* The regular file at path opened for reading, or -1 with *error. */
static int
_open_regular(const char *path, struct stat *st, char **error)
{
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0)
    {
      *error = g_strdup(g_strerror(errno));
      return -1;
    }
  if (fstat(fd, st) != 0)
    {
      *error = g_strdup(g_strerror(errno));
      close(fd);
      return -1;
    }
  if (!S_ISREG(st->st_mode))
    {
      *error = g_strdup_printf("it is %s, not a regular file", cfg_file_kind(st->st_mode));
      close(fd);
      return -1;
    }
  return fd;
}

bool
cfg_file_check_regular(const char *path, char **error)
{
  struct stat st;
  int fd = _open_regular(path, &st, error);
  if (fd < 0)
    return false;
  close(fd);
  return true;
}

char *
cfg_fd_read(int fd, size_t max, size_t hint, size_t *len, char **error)
{
  GString *buf = g_string_sized_new(hint < max ? hint + 1 : max + 1);
  *error = NULL;
  for (;;)
    {
      /* read up to one byte past max: that byte tells a full file from a long one */
      size_t want = max + 1 - buf->len < 65536 ? max + 1 - buf->len : 65536;
      size_t at = buf->len;
      g_string_set_size(buf, at + want);
      ssize_t n = read(fd, buf->str + at, want);
      g_string_set_size(buf, at + (n > 0 ? (size_t) n : 0));
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0 || buf->len > max)
        {
          if (n < 0)
            *error = g_strdup(g_strerror(errno));
          g_string_free(buf, TRUE);
          return NULL;
        }
      if (n == 0)
        break;
    }
  *len = buf->len;
  return g_string_free(buf, FALSE);
}

char *
cfg_file_read(const char *path, size_t max, size_t *len, char **error)
{
  struct stat st;
  int fd = _open_regular(path, &st, error);
  if (fd < 0)
    return NULL;
  char *text = cfg_fd_read(fd, max, (size_t) st.st_size, len, error);
  close(fd);
  if (!text && !*error)
    *error = g_strdup_printf("it is larger than %zu bytes", max);
  return text;
}
