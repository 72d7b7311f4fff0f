/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A listening socket's accept loop: see include/sluice/acceptor.h. */
#include "sluice/acceptor.h"

#include "sluice/internal-log.h"
#include "sluice/timeutil.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static void _acceptable(void *cookie);

/* Watch the socket exactly when the acceptor does not rest. */
static void
_update(Acceptor *a)
{
  if (!a->started)
    return;
  iv_fd_set_handler_in(&a->fd, iv_timer_registered(&a->resume) ? NULL : _acceptable);
}

static void
_resume(void *cookie)
{
  Acceptor *a = cookie;
  _update(a);
  /* the parked connection is tried even when nothing new waits (the
   * socket is not readable then) */
  if (a->parked_fd >= 0)
    _acceptable(a);
}

/* Rest ACCEPTOR_RETRY_MS; say so at most once per ACCEPTOR_LOG_MS. */
static void
_pause(Acceptor *a, const char *error)
{
  a->pauses++;
  a->unlogged++;
  /* logged_ms starts at 0: the first failure is always said */
  int64_t now = mono_ms();
  if (now - a->logged_ms >= ACCEPTOR_LOG_MS)
    {
      char ms[16], failures[24];
      snprintf(ms, sizeof(ms), "%d", a->retry_ms);
      snprintf(failures, sizeof(failures), "%llu", (unsigned long long) a->unlogged);
      sluice_log(SLUICE_LOG_ERROR, "Error accepting new connection, pausing accepts", "local", a->name, "error",
                 error, "pause_ms", ms, "failures", failures, NULL);
      a->logged_ms = now;
      a->unlogged = 0;
    }
  iv_validate_now();
  a->resume.expires = iv_now;
  timespec_add_ns(&a->resume.expires, (int64_t) a->retry_ms * 1000000);
  iv_timer_register(&a->resume);
  _update(a);
}

static void
_pause_reserve(Acceptor *a, int keep)
{
  char why[128];
  snprintf(why, sizeof(why), "Too few file descriptors left: the last %d are kept for the daemon's own work", keep);
  _pause(a, why);
}

int
acceptor_reserve(long limit)
{
  return (int) CLAMP(limit / 32, 16, 1024);
}

/* Connections parked by every acceptor (see acceptor.h): at most a
 * quarter of the reserve, so that parking leaves the daemon most of it. */
static int parked_total;

static void
_unpark_count(Acceptor *a)
{
  a->parked_fd = -1;
  g_atomic_int_add(&parked_total, -1);
}

/* The parked connection, as fd, to the owner. */
static void
_hand_over(Acceptor *a, int fd)
{
  _unpark_count(a);
  a->unparked++;
  a->accepted(a->cookie, fd, &a->parked_peer, a->parked_len);
}

/* Hand the parked connection over when it can have a descriptor below
 * first_kept: under its own number, or under the lowest free one (dup)
 * once connections below it have closed.  True when none stays parked. */
static bool
_unpark(Acceptor *a, int first_kept)
{
  int fd = a->parked_fd;
  if (fd < 0)
    return true;
  if (fd >= first_kept)
    {
      int low = fcntl(fd, F_DUPFD_CLOEXEC, 0);
      if (low < 0)
        return false;
      if (low >= first_kept)
        {
          close(low);
          return false;
        }
      close(fd);
      fd = low;
    }
  _hand_over(a, fd);
  return true;
}

/* Park fd (accepted into the reserve) if the bound allows, else close it. */
static void
_park_or_close(Acceptor *a, int fd, const struct sockaddr_storage *ss, socklen_t len, int keep)
{
  int bound = MAX(keep / 4, 1);
  if (g_atomic_int_add(&parked_total, 1) < bound)
    {
      a->parked_fd = fd;
      a->parked_peer = *ss;
      a->parked_len = len;
      return;
    }
  g_atomic_int_add(&parked_total, -1);
  close(fd);
  a->refused++;
}

/* How many descriptors a keeps free, and the lowest one a connection
 * may have (G_MAXINT: no bound). */
static int
_kept(const Acceptor *a, int *first_kept)
{
  struct rlimit rl;
  *first_kept = G_MAXINT;
  if (a->keep == ACCEPTOR_KEEP_NONE || getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY
      || rl.rlim_cur > G_MAXINT)
    return 0;
  int keep = acceptor_reserve((long) rl.rlim_cur);
  if (a->keep == ACCEPTOR_KEEP_HALF)
    keep /= 2;
  *first_kept = (int) rl.rlim_cur - keep;
  return keep;
}

static void
_acceptable(void *cookie)
{
  Acceptor *a = cookie;
  a->yielded = false;
  int first_kept;
  int keep = _kept(a, &first_kept);
  if (!_unpark(a, first_kept))
    {
      _pause_reserve(a, keep);
      return;
    }
  /* a callback may stop the acceptor: nothing more is taken then */
  for (int i = 0; i < ACCEPTOR_BATCH && a->started && !a->yielded; i++)
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
          _pause(a, g_strerror(errno));
          return;
        }
      if (len > sizeof(ss))
        len = 0;
      if (fd >= first_kept)
        {
          _park_or_close(a, fd, &ss, len, keep);
          _pause_reserve(a, keep);
          return;
        }
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
  a->retry_ms = ACCEPTOR_RETRY_MS;
  a->parked_fd = -1;
  g_strlcpy(a->name, name ? name : "", sizeof(a->name));
}

void
acceptor_start(Acceptor *a)
{
  if (a->started)
    return;
  a->fd.handler_in = _acceptable;
  iv_fd_register(&a->fd);
  a->started = true;
}

void
acceptor_stop(Acceptor *a)
{
  if (a->parked_fd >= 0)
    {
      /* the peer sees its connection end, unread */
      close(a->parked_fd);
      _unpark_count(a);
      a->refused++;
    }
  if (!a->started)
    return;
  if (iv_timer_registered(&a->resume))
    iv_timer_unregister(&a->resume);
  iv_fd_unregister(&a->fd);
  a->started = false;
}

void
acceptor_hand_over_parked(Acceptor *a)
{
  if (a->parked_fd >= 0)
    _hand_over(a, a->parked_fd);
}

void
acceptor_yield(Acceptor *a)
{
  a->yielded = true;
}
