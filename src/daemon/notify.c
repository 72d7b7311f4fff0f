/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sd_notify without libsystemd: see notify.h. */
#include "notify.h"

#include <errno.h>
#include <stddef.h>
#include <glib.h>
#include <iv.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static struct
{
  int fd;
  struct sockaddr_un sa;
  socklen_t sa_len;
  bool active;
  int64_t watchdog_usec;
  struct iv_timer watchdog;
} the_notify = { .fd = -1 };

static void
_on_watchdog(void *cookie)
{
  notify_send("WATCHDOG=1");
  /* half the period, so that one late tick does not trip systemd */
  int64_t half = the_notify.watchdog_usec / 2;
  the_notify.watchdog.expires.tv_sec += half / 1000000;
  the_notify.watchdog.expires.tv_nsec += (long) (half % 1000000) * 1000;
  if (the_notify.watchdog.expires.tv_nsec >= 1000000000)
    {
      the_notify.watchdog.expires.tv_sec++;
      the_notify.watchdog.expires.tv_nsec -= 1000000000;
    }
  iv_timer_register(&the_notify.watchdog);
}

static int64_t
_watchdog_usec(void)
{
  const char *usec = getenv("WATCHDOG_USEC");
  const char *wpid = getenv("WATCHDOG_PID");
  if (!usec)
    return 0;
  if (wpid && strtol(wpid, NULL, 10) != (long) getpid())
    return 0; /* meant for another process (our parent) */
  char *end;
  long long v = strtoll(usec, &end, 10);
  return *end == '\0' && v > 0 ? v : 0;
}

void
notify_start(void)
{
  const char *path = getenv("NOTIFY_SOCKET");
  if (!path || !path[0] || (path[0] != '/' && path[0] != '@'))
    return;
  size_t len = strlen(path);
  if (len >= sizeof(the_notify.sa.sun_path))
    return;
  the_notify.fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (the_notify.fd < 0)
    return;
  memset(&the_notify.sa, 0, sizeof(the_notify.sa));
  the_notify.sa.sun_family = AF_UNIX;
  memcpy(the_notify.sa.sun_path, path, len);
  if (path[0] == '@')
    the_notify.sa.sun_path[0] = '\0'; /* abstract: the length says where it ends */
  the_notify.sa_len = (socklen_t) (offsetof(struct sockaddr_un, sun_path) + len);
  the_notify.active = true;

  the_notify.watchdog_usec = _watchdog_usec();
  if (the_notify.watchdog_usec > 0)
    {
      IV_TIMER_INIT(&the_notify.watchdog);
      iv_validate_now();
      the_notify.watchdog.expires = iv_now;
      the_notify.watchdog.handler = _on_watchdog;
      _on_watchdog(NULL);
    }
}

bool
notify_send(const char *state)
{
  if (!the_notify.active)
    return false;
  ssize_t n;
  do
    n = sendto(the_notify.fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *) &the_notify.sa,
               the_notify.sa_len);
  while (n < 0 && errno == EINTR);
  return n >= 0;
}

void
notify_stop(void)
{
  if (!the_notify.active)
    return;
  if (the_notify.watchdog_usec > 0 && iv_timer_registered(&the_notify.watchdog))
    iv_timer_unregister(&the_notify.watchdog);
  close(the_notify.fd);
  the_notify.fd = -1;
  the_notify.active = false;
}
