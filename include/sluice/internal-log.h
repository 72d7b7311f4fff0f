/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_INTERNAL_LOG_H
#define SLUICE_INTERNAL_LOG_H

/*
 * Sluice's own events, in syslog-ng's style:
 *   Error opening file for writing; filename='/var/log/x', error='Permission denied (13)'
 * A text, then key='value' pairs.  Each event goes to the sink (the
 * internal() source, once the daemon has one) and, when enabled, to stderr
 * (foreground runs).  Thread-safe; meant for events, not per-message use.
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

/* Copy events to stderr (on by default) and include levels up to max. */
void sluice_log_set_stderr(bool on, SluiceLogLevel max);

/* Log text with key/value string pairs, ended by NULL:
 *   sluice_log(SLUICE_LOG_ERROR, "Error opening file", "filename", path, NULL);
 * A NULL value prints as ''. */
void sluice_log(SluiceLogLevel level, const char *text, ...) __attribute__((sentinel));

#endif
