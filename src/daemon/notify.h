/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_NOTIFY_H
#define SLUICE_NOTIFY_H

/*
 * systemd's readiness protocol (sd_notify(3)) without libsystemd: one
 * datagram per state change to the unix socket named by $NOTIFY_SOCKET
 * ("@name" is the abstract namespace).  Without $NOTIFY_SOCKET every call
 * does nothing.  Main thread only.
 */

#include <stdbool.h>

/* Read $NOTIFY_SOCKET and $WATCHDOG_USEC (honoured only when $WATCHDOG_PID
 * is unset or ours) and, with a watchdog, start sending WATCHDOG=1 every
 * half period on this thread's ivykis loop. */
void notify_start(void);

/* Send state ("READY=1\nSTATUS=Running", ...); false when it could not
 * be sent (no socket, or an error). */
bool notify_send(const char *state);

/* Stop the watchdog timer and forget the socket. */
void notify_stop(void);

#endif
