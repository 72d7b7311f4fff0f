/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A listening socket's accept loop: see include/sluice/acceptor.h. */
#include "sluice/acceptor.h"

#include "sluice/internal-log.h"
#include "sluice/timeutil.h"

#include <errno.h>
#include <glib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void _acceptable(void *cookie);

/* Watch the socket exactly when nothing holds or pauses the acceptor. */
static void
_update(Acceptor *a)
{
  if (!a->started)
    return;
  bool watch = !a->held && !iv_timer_registered(&a->resume);
  iv_fd_set_handler_in(&a->fd, watch ? _acceptable : NULL);
}

static void
_resume(void *cookie)
{
  _update(cookie);
}

static void
_pause(Acceptor *a, int err)
{
  a->pauses++;
  char ms[16];
  snprintf(ms, sizeof(ms), "%d", a->pause_ms);
  sluice_log(SLUICE_LOG_ERROR, "Error accepting new connection, pausing accepts", "local", a->name, "error",
             g_strerror(err), "pause_ms", ms, NULL);
  iv_validate_now();
  a->resume.expires = iv_now;
  timespec_add_ns(&a->resume.expires, (int64_t) a->pause_ms * 1000000);
  iv_timer_register(&a->resume);
  _update(a);
}

static void
_acceptable(void *cookie)
{
  Acceptor *a = cookie;
  a->yielded = false;
  for (int i = 0; i < ACCEPTOR_BATCH && !a->held && !a->yielded; i++)
    {
      struct sockaddr_storage ss;
      socklen_t len = sizeof(ss);
      int fd = accept4(a->fd.fd, (struct sockaddr *) &ss, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0)
        {
          /* nothing waits, or this one connection failed: the next
           * wakeup goes on */
          if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR || errno == ECONNABORTED
              || errno == EPROTO || errno == EPERM)
            return;
          /* EMFILE, ENFILE, ENOBUFS, ENOMEM and anything unexpected:
           * the connection waits in the backlog while accepting rests */
          _pause(a, errno);
          return;
        }
      if (len > sizeof(ss))
        len = 0;
      a->accepted(a->cookie, fd, &ss, len);
    }
}

void
acceptor_init(Acceptor *a, int fd, const char *name, AcceptorFunc accepted, void *cookie)
{
  memset(a, 0, sizeof(*a));
  IV_FD_INIT(&a->fd);
  a->fd.fd = fd;
  a->fd.cookie = a;
  IV_TIMER_INIT(&a->resume);
  a->resume.cookie = a;
  a->resume.handler = _resume;
  a->accepted = accepted;
  a->cookie = cookie;
  a->pause_ms = ACCEPTOR_PAUSE_MS;
  g_strlcpy(a->name, name ? name : "", sizeof(a->name));
}

void
acceptor_start(Acceptor *a)
{
  if (a->started)
    return;
  a->fd.handler_in = a->held ? NULL : _acceptable;
  iv_fd_register(&a->fd);
  a->started = true;
}

void
acceptor_stop(Acceptor *a)
{
  if (!a->started)
    return;
  if (iv_timer_registered(&a->resume))
    iv_timer_unregister(&a->resume);
  iv_fd_unregister(&a->fd);
  a->started = false;
}

void
acceptor_hold(Acceptor *a)
{
  a->held = true;
  _update(a);
}

void
acceptor_release(Acceptor *a)
{
  a->held = false;
  _update(a);
}

void
acceptor_yield(Acceptor *a)
{
  a->yielded = true;
}

bool
acceptor_paused(const Acceptor *a)
{
  return a->started && iv_timer_registered(&a->resume);
}
