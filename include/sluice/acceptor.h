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
 * acceptor stops watching its socket for ACCEPTOR_RETRY_MS and then tries
 * again: one accept() per try, nothing like a spin, and a descriptor
 * freed by a closing connection is taken within that time.  (A pause of
 * a second drained a backlog of peers that had gone away a few dozen
 * connections a second: each batch of them was accepted at once, failed
 * the next accept(), and closed a moment later, while the acceptor
 * rested.)  It logs one line per ACCEPTOR_LOG_MS at most, with the
 * number of failed tries since the last; the connections wait in the
 * kernel's backlog (the kernel drops SYNs past it, and clients retry)
 * until descriptors are free again.  Errors about one connection (the
 * peer gave up: ECONNABORTED, EPROTO; a firewall: EPERM) end the wakeup
 * and nothing more.
 *
 * Peers must not take the descriptors the daemon needs for its own work
 * (opening a destination's file, a disk buffer, a reload's listeners):
 * a file destination that cannot open its file waits time-reopen() (60 s)
 * before trying again, and a RELP peer waits for its answer as long.  So
 * a connection that is given one of the last acceptor_reserve() free
 * descriptors is not served under it, and accepting rests as when out of
 * descriptors.  Such a connection is parked, unread: its peer may well
 * have sent its messages and closed already (a syslog client that only
 * writes cannot tell a connection closed unread from one served), and
 * the descriptors below the reserve come back as the connections of
 * peers gone are closed.  At each try the parked connection is moved to
 * the lowest free descriptor (dup) and handed over once that is below the
 * reserve; until then nothing more is accepted.  One connection per
 * acceptor, and a quarter of the reserve for all of them together, may
 * be parked; one past that bound is closed at once (the peer sees the
 * connection end and connects again later), and so is a parked one when
 * its acceptor stops, unless its owner takes it first
 * (acceptor_hand_over_parked: a source about to stop reads its
 * connections to their end or hands them to the next configuration).
 * The control socket and the stats exporter (16 connections at most)
 * keep half as many free, so that an operator can still look in while
 * the sources are at the limit.  accept() gives the lowest free
 * descriptor, so one numbered limit - reserve or above means fewer than
 * reserve are left.
 *
 * A connection cap is the owner's: a source's max-connections() closes
 * the connection past it with syslog-ng's line (log_source_conns_admit),
 * the exporter closes its oldest client.
 *
 * An acceptor lives on one ivykis thread: start and stop it there; its
 * callback runs there.
 */

#include <iv.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

/* How long accepting rests after running out of descriptors, and how
 * often it logs that while it lasts. */
#define ACCEPTOR_RETRY_MS 50
#define ACCEPTOR_LOG_MS 1000
/* Descriptors kept free, out of a limit of limit: 1/32 of it, at least 16
 * and at most 1024 (under `ulimit -n 1024`, 32; under systemd's 65536,
 * 1024). */
int acceptor_reserve(long limit);

typedef enum AcceptorKeep
{
  ACCEPTOR_KEEP_RESERVE, /* a source's listener (the default) */
  ACCEPTOR_KEEP_HALF,    /* the control socket, the stats exporter */
  ACCEPTOR_KEEP_NONE,    /* may take the last descriptor */
} AcceptorKeep;

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
  int retry_ms;        /* ACCEPTOR_RETRY_MS; tests may change it */
  AcceptorKeep keep;   /* ACCEPTOR_KEEP_RESERVE unless its owner says */
  int64_t logged_ms;   /* mono_ms() of the last "pausing accepts" line */
  bool started;
  bool yielded;        /* acceptor_yield() in this wakeup */
  uint64_t pauses;     /* accept() failures for want of resources, and
                        * tries that met the reserve */
  uint64_t refused;    /* connections closed for the reserve */
  uint64_t unparked;   /* parked connections handed over */
  uint64_t unlogged;   /* pauses since the last line */
  int parked_fd;       /* -1, or the connection parked for the reserve */
  socklen_t parked_len;
  struct sockaddr_storage parked_peer;
} Acceptor;

/* Set a up for the listening socket fd (non-blocking).  Nothing is
 * registered until acceptor_start(). */
void acceptor_init(Acceptor *a, int fd, const char *name, AcceptorFunc accepted, void *cookie);

/* Start and stop accepting, on the thread that is to accept.  Stop leaves
 * the socket open (its owner closes it or hands it over). */
void acceptor_start(Acceptor *a);
void acceptor_stop(Acceptor *a);

/* The parked connection, if any, goes to the callback now, under whatever
 * descriptor it has: for an owner about to stop, that reads its
 * connections to their end or hands them over (acceptor_stop would close
 * it unread). */
void acceptor_hand_over_parked(Acceptor *a);

/* From the callback: accept no more in this wakeup (the next one goes on),
 * so that the thread's other descriptors are served in between. */
void acceptor_yield(Acceptor *a);

#endif
