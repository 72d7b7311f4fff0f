/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_PERIODIC_H
#define SLUICE_PERIODIC_H

/*
 * The running configuration's timers on the main thread: the "Log
 * statistics" event every stats(freq()) seconds and the "-- MARK --"
 * message into internal() every mark-freq() seconds, as syslog-ng has
 * them.  0 turns either off.
 */

#include "sluice/cfg-options.h"
#include "sluice/pipeline.h"

typedef struct Periodic Periodic;

/* Start the timers for pl (main thread, inside the ivykis loop). */
Periodic *periodic_start(LogPipeline *pl, const CfgGlobalOptions *global);

/* Stop them and free p (NULL is fine). */
void periodic_stop(Periodic *p);

/* Log the statistics now (also used at shutdown). */
void periodic_log_stats(LogPipeline *pl);

#endif
