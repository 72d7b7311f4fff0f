/* SPDX-License-Identifier: GPL-2.0-or-later */
/* -u/-g: see privs.h.  Capabilities are set with the raw capget/capset
 * system calls (no libcap). */
#include "privs.h"

#include <errno.h>
#include <glib.h>
#include <grp.h>
#include <linux/capability.h>
#include <pwd.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* A decimal id, or false. */
static bool
_parse_id(const char *s, unsigned long *out)
{
  char *end;
  errno = 0;
  unsigned long v = strtoul(s, &end, 10);
  if (!*s || *end || errno || v > (unsigned long) UINT32_MAX - 1)
    return false;
  *out = v;
  return true;
}

bool
privs_resolve(const char *user, const char *group, PrivsTarget *t, char **error)
{
  memset(t, 0, sizeof(*t));
  if (!user && !group)
    return true;
  if (geteuid() != 0)
    {
      *error = g_strdup("-u/-g need the daemon to start as root");
      return false;
    }
  unsigned long id;
  if (user)
    {
      struct passwd *pw = getpwnam(user);
      if (pw)
        {
          t->uid = pw->pw_uid;
          t->user = g_strdup(pw->pw_name);
          if (!group)
            {
              /* the user's own group, as syslog-ng does without -g */
              t->gid = pw->pw_gid;
              t->set_gid = true;
            }
        }
      else if (_parse_id(user, &id))
        t->uid = (uid_t) id;
      else
        {
          *error = g_strdup_printf("-u: no such user; user='%s'", user);
          return false;
        }
      t->set_uid = true;
    }
  if (group)
    {
      struct group *gr = getgrnam(group);
      if (gr)
        t->gid = gr->gr_gid;
      else if (_parse_id(group, &id))
        t->gid = (gid_t) id;
      else
        {
          *error = g_strdup_printf("-g: no such group; group='%s'", group);
          privs_target_clear(t);
          return false;
        }
      t->set_gid = true;
    }
  return true;
}

static bool
_keep_bind_cap(char **error)
{
  struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
  struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
  memset(data, 0, sizeof(data));
  data[CAP_TO_INDEX(CAP_NET_BIND_SERVICE)].effective |= CAP_TO_MASK(CAP_NET_BIND_SERVICE);
  data[CAP_TO_INDEX(CAP_NET_BIND_SERVICE)].permitted |= CAP_TO_MASK(CAP_NET_BIND_SERVICE);
  if (syscall(SYS_capset, &hdr, data) != 0)
    {
      *error = g_strdup_printf("cannot keep CAP_NET_BIND_SERVICE; error='%s'", strerror(errno));
      return false;
    }
  return true;
}

bool
privs_drop(const PrivsTarget *t, char **error)
{
  if (!t->set_uid && !t->set_gid)
    return true;
  if (t->set_gid)
    {
      /* supplementary groups: the user's (initgroups) or only the group */
      int rc = t->user ? initgroups(t->user, t->gid) : setgroups(1, &t->gid);
      if (rc != 0 || setgid(t->gid) != 0)
        {
          *error = g_strdup_printf("cannot change to group %lu; error='%s'", (unsigned long) t->gid, strerror(errno));
          return false;
        }
    }
  if (!t->set_uid)
    return true;
  /* only this (the main) thread keeps its permitted set across setuid();
   * glibc changes the ids of every thread */
  if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) != 0)
    {
      *error = g_strdup_printf("cannot keep capabilities; error='%s'", strerror(errno));
      return false;
    }
  if (setuid(t->uid) != 0)
    {
      *error = g_strdup_printf("cannot change to user %lu; error='%s'", (unsigned long) t->uid, strerror(errno));
      return false;
    }
  prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0);
  /* setuid() must be final: no way back to root */
  if (setuid(0) == 0)
    {
      *error = g_strdup("still able to become root after dropping privileges");
      return false;
    }
  return _keep_bind_cap(error);
}

void
privs_target_clear(PrivsTarget *t)
{
  g_free(t->user);
  t->user = NULL;
}
