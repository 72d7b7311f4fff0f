/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_JOURNAL_H
#define SLUICE_JOURNAL_H

/*
 * systemd-journal(): the systemd journal read with libsystemd's sd-journal
 * (built only with the meson feature 'journal'; SLUICE_HAVE_JOURNAL).
 *
 * journal-fields.c turns one journal entry into a message exactly as
 * syslog-ng 3.38's journal reader does (checked against it):
 *   - every field KEY=VALUE becomes the value PREFIX + KEY (prefix()
 *     defaults to ".journald."), the value cut at its first NUL byte and at
 *     max-field-size() bytes;
 *   - MESSAGE is MESSAGE, _HOSTNAME is HOST, _PID is PID;
 *   - PRIORITY replaces the severity and SYSLOG_FACILITY the facility of
 *     default-facility()/default-level() (local0.notice), read as atoi()
 *     reads them;
 *   - PROGRAM is SYSLOG_IDENTIFIER, or _COMM when that is missing or empty;
 *   - the time is the entry's __REALTIME_TIMESTAMP (when journald stored
 *     it; syslog-ng 3.38 does not use _SOURCE_REALTIME_TIMESTAMP) in the
 *     zone of time-zone(), else the local one.
 * journal-source.c is the driver.
 */

#include "sluice/driver.h"
#include "sluice/logmsg.h"
#include "sluice/timeutil.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How entries become messages (fixed at configuration time). */
typedef struct JournalMapOptions
{
  const char *prefix;     /* not owned */
  size_t prefix_len;
  size_t max_field_size;  /* >= 1 */
  uint16_t default_pri;   /* facility * 8 + severity */
  TimeZoneInfo *tz;       /* time-zone(), or NULL for the local zone */
  NVHandle ident;         /* PREFIX + "SYSLOG_IDENTIFIER" */
  NVHandle comm;          /* PREFIX + "_COMM" */
} JournalMapOptions;

/* Fill o for prefix (kept, not copied); false when the registry has no
 * room for the two names PROGRAM is read from. */
bool journal_map_options_init(JournalMapOptions *o, const char *prefix, size_t max_field_size, uint16_t default_pri,
                              TimeZoneInfo *tz);

/* Start a message for one entry: the default priority.  msg is fresh. */
void journal_msg_begin(LogMsg *msg, const JournalMapOptions *o);

/* Add one field as sd_journal_enumerate_data() hands it: "KEY=VALUE"
 * (len bytes, not NUL-terminated, VALUE may hold any byte).  Data without
 * '=' or with an empty KEY is ignored. */
void journal_msg_add_field(LogMsg *msg, const JournalMapOptions *o, const void *data, size_t len);

/* After the last field: PROGRAM from SYSLOG_IDENTIFIER or _COMM. */
void journal_msg_finish(LogMsg *msg, const JournalMapOptions *o);

/* The message's time from the entry's realtime stamp (microseconds since
 * the epoch). */
void journal_msg_set_time(LogMsg *msg, const JournalMapOptions *o, uint64_t realtime_usec);

/* The systemd-journal() factory (registered by system-source.c). */
extern const LogDriverFactory journal_source_factory;

/* system() on a systemd host: systemd-journal() with its defaults, located
 * at call.  NULL with *err when it cannot be built. */
LogSourceDriver *journal_source_new_default(const CfgNode *call, const LogDriverContext *ctx, CfgError *err);

#endif
