/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_ACCEPTOR_H
#define SLUICE_ACCEPTOR_H

/*
 * The accept loop of a listening stream socket, for every listener of the
 * daemon: network() and syslog() stream sources, relp(), the control
 * socket and the stats exporter.
 *
 * ivykis polls level-triggered: a listening socket with a connection in
 * its backlog stays readable.  When accept() fails for want of resources
 * (EMFILE: this process is out of descriptors; ENFILE: the system is;
 * ENOBUFS, ENOMEM), trying again at once fails again, and the loop would
 * spin at full CPU, logging each failure.  So on such an error the
 * acceptor stops watching its socket for a pause (ACCEPTOR_PAUSE_MS) and
 * logs one line per pause; the connections wait in the kernel's backlog
 * (the kernel drops SYNs past it, and clients retry) until descriptors
 * are free again.  Errors about one connection (the peer gave up:
 * ECONNABORTED, EPROTO; a firewall: EPERM) end the wakeup and nothing
 * more.
 *
 * The owner may also hold the acceptor (stop accepting, without a log
 * line) while it is at a connection cap of its own, and release it when a
 * connection closes.
 *
 * An acceptor lives on one ivykis thread: start, stop, hold and release
 * it there; its callback runs there.
 */

#include <iv.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

/* How long accepting rests after running out of descriptors. */
#define ACCEPTOR_PAUSE_MS 1000
/* Connections accepted per wakeup before other work on the thread runs. */
#define ACCEPTOR_BATCH 64

/* Takes the accepted fd (non-blocking, close-on-exec) and the peer's
 * address (len 0 when the kernel gave none). */
typedef void (*AcceptorFunc)(void *cookie, int fd, const struct sockaddr_storage *peer, socklen_t len);

typedef struct Acceptor
{
  struct iv_fd fd;
  struct iv_timer resume;
  AcceptorFunc accepted;
  void *cookie;
  char name[160];      /* the listener, for the log: an address or a path */
  int pause_ms;        /* ACCEPTOR_PAUSE_MS; tests may shorten it */
  bool started;
  bool held;           /* acceptor_hold() */
  bool yielded;        /* acceptor_yield() in this wakeup */
  uint64_t pauses;     /* times it ran out of descriptors */
} Acceptor;

/* Set a up for the listening socket fd (non-blocking).  Nothing is
 * registered until acceptor_start(). */
void acceptor_init(Acceptor *a, int fd, const char *name, AcceptorFunc accepted, void *cookie);

/* Start and stop accepting, on the thread that is to accept.  Stop leaves
 * the socket open (its owner closes it or hands it over). */
void acceptor_start(Acceptor *a);
void acceptor_stop(Acceptor *a);

/* Stop watching the socket until acceptor_release() (a connection cap is
 * reached); a held acceptor that also pauses waits for both. */
void acceptor_hold(Acceptor *a);
void acceptor_release(Acceptor *a);

/* From the callback: accept no more in this wakeup (the next one goes on),
 * so that the thread's other descriptors are served in between. */
void acceptor_yield(Acceptor *a);

/* True while it rests after running out of descriptors. */
bool acceptor_paused(const Acceptor *a);

#endif
