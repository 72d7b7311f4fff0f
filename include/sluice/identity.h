/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_IDENTITY_H
#define SLUICE_IDENTITY_H

/*
 * Who the daemon says it is.  Run as `sluice` it is Sluice; run through a
 * link named `syslog-ng` (or `syslog-ng-ctl` for sluice-ctl) it takes
 * syslog-ng's identity, so that it can stand in for syslog-ng in place:
 * syslog-ng's default paths (configuration, persist file, pid file,
 * control socket), its start, stop and reload lines word for word (the
 * lines scripts and test frameworks wait for: "syslog-ng starting up",
 * "syslog-ng shutting down"), and PROGRAM "syslog-ng" on the messages of
 * internal().
 */

#include <stdbool.h>

/* From argv[0] (its last path element), once, before anything logs. */
void sluice_identity_set_from_argv0(const char *argv0);

/* True when the daemon stands in for syslog-ng. */
bool sluice_identity_is_syslog_ng(void);

/* "sluice" or "syslog-ng": PROGRAM of internal() messages. */
const char *sluice_identity_program(void);

/* "Sluice" or "syslog-ng": the start and stop lines' subject. */
const char *sluice_identity_name(void);

#endif
