/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_HANDOVER_H
#define SLUICE_HANDOVER_H

/*
 * The reload handover (docs/architecture.md, "Reload and the handover"): what the running
 * configuration's sources hold open is passed to the new configuration by
 * name instead of being closed, so a reload refuses no connection, resets
 * no sender and loses no byte a sender has written.
 *
 *  - Listening and datagram sockets are put here when their source stops
 *    during a reload and taken by the new source that binds the same
 *    address (the key: "stream:" or "dgram:" and the configured address).
 *    Pending connections wait in the kernel's backlog meanwhile, datagrams
 *    in the socket's receive buffer.  The sockets of one so-reuseport()
 *    group share a key: each new source takes one back.
 *  - Live stream connections are put here with their framer (the bytes of a
 *    message read only in part, and the framing state), under the key of
 *    the listener that accepted them; the new source with that key reads
 *    them on.  A connection keeps the framing and the transport (TLS) it
 *    started with.
 *  - A program() destination's running program with keep-alive(yes): the
 *    pipe to its stdin and its pid, under the destination's key; the new
 *    destination with that key writes on.  A program nobody takes is
 *    stopped (SIGTERM to its process group) by handover_end().
 *
 * The main loop brackets a reload with handover_begin() and handover_end();
 * outside that window sources close what they hold, as at shutdown.
 * handover_end() closes whatever the new configuration did not take (its
 * sources no longer exist) and says so in the internal log.
 *
 * Put and take are thread-safe (connections are put from their I/O
 * workers); begin and end run on the main thread.
 */

#include "sluice/framing.h"
#include "sluice/logmsg.h"
#include "sluice/transport.h"

#include <stdbool.h>
#include <sys/types.h>

/* A stream connection on its way from an old source to a new one. */
typedef struct HandoverStream
{
  int fd;
  LogFramer framer; /* owned: the next reader adopts it */
  LogAddr peer;
  char client[160]; /* the peer as the source names it in log lines */
  LogTransport *transport; /* owned, NULL for plain bytes: a TLS session
                            * goes on with its keys and buffered records */
} HandoverStream;

void handover_begin(void);
void handover_end(void);

/* True between handover_begin() and handover_end(). */
bool handover_active(void);

/* A listening or datagram socket; unix_path (may be NULL) is the socket
 * file to remove when nobody takes fd; name (may be NULL) is the
 * persist-name() of the source that had it. */
void handover_put_socket(const char *key, int fd, const char *unix_path, const char *name);

/* A socket put under key, or -1: the one put under name if name is not
 * NULL and there is one, else the newest not taken yet (sources stop in
 * the reverse of their order in the file and start in order, so each of a
 * so-reuseport() group takes back its own socket). */
int handover_take_socket(const char *key, const char *name);

/* Takes st (allocated with malloc) and everything it owns. */
void handover_put_stream(const char *key, HandoverStream *st);

/* One stream connection put under key (the caller owns it now), or NULL
 * when there is none left. */
HandoverStream *handover_take_stream(const char *key);

/* A running program (fd: the pipe to its stdin). */
void handover_put_child(const char *key, int fd, pid_t pid);

/* The pipe of the program put under key with *pid, or -1. */
int handover_take_child(const char *key, pid_t *pid);

/* Close a stream connection nobody can read on: its fd and framer. */
void handover_stream_free(HandoverStream *st);

#endif
