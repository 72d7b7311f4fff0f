/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_STATS_DYN_H
#define SLUICE_STATS_DYN_H

/*
 * The counters of stats-level 2 and 3, whose rows depend on what the
 * messages say (syslog-ng's "dynamic" counters):
 *
 *   level 2: src.host;;HOST                    processed, stamp (state d)
 *            (stamp: when the row was last counted)
 *   level 3: src.host;SLOT;HOST, src.sender;;HOST_FROM, src.sender;SLOT;HOST_FROM,
 *            src.program;;PROGRAM              processed, stamp (state d)
 *            src.facility;;0..23|other, src.severity;;0..7, tag;NAME;;
 *                                              processed (state a)
 *
 * SLOT is the source driver ("s_net#0").  Each I/O worker counts in its
 * own table under its own lock (never contended but by a reader), so
 * there is no shared write per message; a read merges the tables.  A row
 * not updated for stats-lifetime seconds is dropped, and no new row is
 * made beyond stats-max-dynamics rows (counted per table).  Only the
 * pipeline calls this, and only at level 2 and above.
 */

#include "pipeline-stats.h"

#include "sluice/logmsg.h"

#include <glib.h>
#include <stdint.h>

typedef struct StatsDyn StatsDyn;

/* Tables for n_workers workers plus one for every other thread; carried
 * (may be NULL) holds the rows of the configuration this one replaces
 * (stats_dyn_take_totals), which go on counting from their values. */
StatsDyn *stats_dyn_new(int n_workers, int level, int64_t max_dynamics, int64_t lifetime, GHashTable *carried);
void stats_dyn_free(StatsDyn *d);

/* Count msg, read by the source driver slot_id ("s_net#0"), on worker w
 * (-1: not a worker). */
void stats_dyn_count(StatsDyn *d, int w, const char *slot_id, const LogMsg *msg);

/* Every row, sorted; rows older than the lifetime (now: wall-clock
 * seconds) are dropped first. */
void stats_dyn_foreach(StatsDyn *d, int64_t now, StatsRowFunc fn, void *user_data);

/* The merged rows, for the next configuration (stats_dyn_new's carried);
 * the caller owns the table.  d counts on. */
GHashTable *stats_dyn_take_totals(StatsDyn *d);

#endif
