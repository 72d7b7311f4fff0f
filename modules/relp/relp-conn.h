/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_RELP_CONN_H
#define SLUICE_RELP_CONN_H

/* RELP server connections (relp-conn.c), for the listener (relp-source.c). */

#include "relp.h"

typedef struct RelpConn RelpConn;

/* A connection accepted on fd (non-blocking; it closes it), with the
 * max-connections() slot taken for it, read on the least busy worker, TLS
 * when s has tls(), converting each message with encoding() when s has it.
 * Any thread.  False when no TLS session or converter could be made
 * (logged): fd and the slot are still the caller's. */
bool relp_conn_add(RelpSource *s, int fd, const LogAddr *peer, const char *client, const char *peer_ip);

/* The last stop round (log_source_conns_close_all), on c's worker: send
 * serverclose and free c. */
void relp_conn_stop(LogSourceConn *c, void *arg);

#endif
