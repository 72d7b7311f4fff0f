/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_TRANSPORT_H
#define SLUICE_TRANSPORT_H

/*
 * LogTransport: how a stream reader gets its bytes when a plain read(2) on
 * the fd is not enough (TLS).  The reader still owns and polls the fd; the
 * transport only turns "the fd is ready" into bytes, so it never blocks:
 * a TLS handshake or record that needs more round trips answers "again"
 * and says which readiness (in or out) it waits for.  A connection that
 * also answers its peer (RELP's rsp frames) writes through it too.
 *
 * A transport belongs to one connection.  It lives as long as the
 * connection, not as long as the source that made it: a reload hands it
 * over with the connection (sluice/handover.h), so it copies whatever it
 * needs for log lines.  All calls run on the thread that owns the
 * connection at the time.
 */

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct LogTransport LogTransport;

typedef struct LogTransportOps
{
  /* Up to len bytes into buf.  Returns the count (>0), 0 at the end of
   * the stream, -EAGAIN when nothing can be had now (*want_write: the
   * transport waits for the fd to take bytes, not to have them), or
   * another negative errno when the stream is broken (the transport has
   * logged why). */
  ssize_t (*read)(LogTransport *t, char *buf, size_t len, bool *want_write);
  /* True when bytes are buffered inside the transport: the fd will not
   * say so, the reader must come back on its own. */
  bool (*pending)(LogTransport *t);
  /* Release everything but the fd (which stays the reader's). */
  void (*free)(LogTransport *t);
  /* Up to len bytes from buf onto the stream, as send(2) on a
   * non-blocking fd: the count taken (>0), -EAGAIN when none can go now
   * (*want_read: the transport waits for the fd to have bytes, not to take
   * them; call again with at least the same bytes), or another negative
   * errno when the stream is broken (logged).  NULL: a read-only
   * transport. */
  ssize_t (*write)(LogTransport *t, const char *buf, size_t len, bool *want_read);
} LogTransportOps;

struct LogTransport
{
  const LogTransportOps *ops;
};

static inline void
log_transport_free(LogTransport *t)
{
  if (t)
    t->ops->free(t);
}

#endif
