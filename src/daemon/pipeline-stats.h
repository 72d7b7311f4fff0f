/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_PIPELINE_STATS_H
#define SLUICE_PIPELINE_STATS_H

/*
 * The counters of a running pipeline as syslog-ng's stats rows: component
 * ("source", "destination", "dst.file", "center"), id ("s_net",
 * "d_file#0"), instance (may be ""), type ("processed", "dropped", ...)
 * and value.  Read on the main thread while workers count; every value is
 * a sum of relaxed loads, so a row may lag the messages in flight but
 * never counts one twice.
 */

#include "sluice/pipeline.h"

#include <glib.h>
#include <stdint.h>

typedef struct StatsRow
{
  const char *component;
  const char *id;
  const char *instance;
  const char *type;
  uint64_t value;
  char state; /* 'a' (active) or 'd' (dynamic: stats-level 2 and 3); 0 means 'a' */
} StatsRow;

typedef void (*StatsRowFunc)(const StatsRow *row, void *user_data);

/* Call fn for each counter of pl, in a stable order. */
void log_pipeline_foreach_stat(LogPipeline *pl, StatsRowFunc fn, void *user_data);

/* syslog-ng's query name of a row: the non-empty parts joined by '.'
 * ("center.received.processed", "dst.file.d_file#0.processed"). */
void stats_row_name(const StatsRow *row, GString *out);

/* Output formats of the STATS command. */
void stats_format_csv(LogPipeline *pl, GString *out);
void stats_format_prometheus(LogPipeline *pl, GString *out);

#endif
