/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_INTERNAL_LOG_H
#define SLUICE_INTERNAL_LOG_H

/*
 * Sluice's own events, in syslog-ng's style:
 *   Error opening file for writing; filename='/var/log/x', error='Permission denied (13)'
 * A text, then key='value' pairs.  Each event goes to the sink (the
 * internal() source, once the daemon has one) and, when enabled, to stderr
 * (foreground runs).  Thread-safe; meant for events, not per-message use.
 *
 * Repeats are rate-limited, per message and place in the code (text, file
 * and line): past SLUICE_LOG_RATE_LIMIT of them within one second of the
 * clock, the rest of that second's are dropped before they are formatted,
 * and one line says how many went ("1234 similar messages suppressed;
 * text='...', location='file:line'"), at their level, when that place
 * logs again in a later second or when sluice_log_flush_suppressed()
 * finds the second over.  A peer that makes the daemon log on every
 * packet costs a few lines a second, not the disk.
 */

#include <stdbool.h>

typedef enum
{
  SLUICE_LOG_ERROR = 3,
  SLUICE_LOG_WARNING = 4,
  SLUICE_LOG_NOTICE = 5,
  SLUICE_LOG_INFO = 6,
  SLUICE_LOG_DEBUG = 7,
} SluiceLogLevel;

/* Receives each formatted event (line without newline); may run on any thread. */
typedef void (*SluiceLogSink)(SluiceLogLevel level, const char *line, void *user_data);

/* Where events go besides stderr (NULL: nowhere). */
void sluice_log_set_sink(SluiceLogSink sink, void *user_data);

/* Copy events to stderr (on by default) and include levels up to max
 * (raised by the switches below). */
void sluice_log_set_stderr(bool on, SluiceLogLevel max);

/* syslog-ng's three switches (-v, -d, --trace; syslog-ng-ctl verbose,
 * debug, trace query and set them at run time).  verbose adds INFO events
 * to stderr; debug or trace adds DEBUG events to stderr and to the sink
 * (without either, DEBUG events go nowhere: Sluice has no finer level, so
 * trace means what debug means).  Each is kept and reported on its own. */
typedef enum
{
  SLUICE_LOG_SWITCH_VERBOSE,
  SLUICE_LOG_SWITCH_DEBUG,
  SLUICE_LOG_SWITCH_TRACE,
} SluiceLogSwitch;

bool sluice_log_switch_get(SluiceLogSwitch which);
/* True when the switch changed. */
bool sluice_log_switch_set(SluiceLogSwitch which, bool on);

/* Log text with key/value string pairs, ended by NULL:
 *   sluice_log(SLUICE_LOG_ERROR, "Error opening file", "filename", path, NULL);
 * A NULL value prints as ''.  The text and the place of the call are the
 * key of the rate limit. */
#define sluice_log(level, ...) sluice_log_at(__FILE__, __LINE__, (level), __VA_ARGS__)
void sluice_log_at(const char *file, int line, SluiceLogLevel level, const char *text, ...)
  __attribute__((sentinel));

/* Events per place and second before the rest are suppressed. */
#define SLUICE_LOG_RATE_LIMIT 20

/* Change the limit (0: none; tests). */
void sluice_log_set_rate_limit(unsigned per_second);

/* Say how many were suppressed, for the places whose second is over (all
 * of them with all, e.g. at exit).  The main loop calls it every second. */
void sluice_log_flush_suppressed(bool all);

#endif
