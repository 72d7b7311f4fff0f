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
#include <stdbool.h>
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

/* Call fn for each counter of pl, in a stable order (values since their
 * last reset). */
void log_pipeline_foreach_stat(LogPipeline *pl, StatsRowFunc fn, void *user_data);

/* The same walk (fn may be NULL), and then each row pick returns true for
 * (pick sees the row fn saw) counts again from 0: syslog-ng-ctl stats
 * --reset and query --reset.  A stamp row reads 0 until the next message;
 * levels (queued, memory_usage, connections) are left as they are.  No
 * counter is written: see pipeline-stats.c.  The resets survive a reload
 * (log_pipeline_stats_carry). */
typedef bool (*StatsRowPickFunc)(const StatsRow *row, void *user_data);
void log_pipeline_reset_stats(LogPipeline *pl, StatsRowFunc fn, StatsRowPickFunc pick, void *user_data);

/* raw, the value of the row component/id/instance/type, as a reader sees
 * it after the resets (the periodic "Log statistics" line). */
uint64_t log_pipeline_stat_value(LogPipeline *pl, const char *component, const char *id, const char *instance,
                                 const char *type, uint64_t raw);

/* A reload: next takes pl's resets.  And freeing a pipeline. */
void log_pipeline_stats_carry(LogPipeline *pl, LogPipeline *next);
void log_pipeline_stats_free(LogPipeline *pl);

/* syslog-ng's query name of a row: the non-empty parts joined by '.'
 * ("center.received.processed", "dst.file.d_file#0.processed"). */
void stats_row_name(const StatsRow *row, GString *out);

/* A name part (host names, program names and tags come from the network)
 * as text that cannot break a line or a format, the way syslog-ng-ctl
 * writes them: a byte that is not UTF-8 and a control character become
 * \xHH (\n, \r, \t, \b, \f for those five), a backslash \\, and each ASCII
 * character of quoted gets a backslash.  Valid UTF-8 comes out, and two
 * different fields never give the same text. */
void stats_escape_field(GString *out, const char *field, const char *quoted);

/* A CSV field: escaped as above, and in double quotes (with \" inside)
 * when it holds the separator ';' or a double quote, as syslog-ng does. */
void stats_csv_field(GString *out, const char *field);

/* A Prometheus label value (without its quotes), as syslog-ng writes it:
 * backslash, double quote and newline escaped as the text exposition
 * format wants, and a byte that is not UTF-8 as the text \xHH, so the
 * value is valid UTF-8 on one line. */
void stats_prometheus_label_value(GString *out, const char *value);

/* Output formats of the STATS command. */
void stats_format_csv(LogPipeline *pl, GString *out);
void stats_format_prometheus(LogPipeline *pl, GString *out);

#endif
