/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_SYSLOG_INTERNAL_H
#define SLUICE_SYSLOG_INTERNAL_H

/* Internal to src/syslog: the pieces msg-format.c, rfc3164.c, rfc5424.c and
 * syslog-time.c share.  A cursor is a pointer into the message's copy of the
 * line plus the end of the line; scanners advance it only on success unless
 * they say otherwise. */

#include "sluice/msg-format.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What one parse works on. */
typedef struct SyslogParse
{
  LogMsg *msg;
  const MsgFormatOptions *opts;
  const LogStamp *recvd;
  TimeZoneInfo *tz;  /* opts->recv_tz or the local zone */
  const char *begin; /* the message's copy of the line */
  const char *end;
} SyslogParse;

/* Handles of the SD parameters the RFC 3164 parser sets for Cisco. */
typedef struct SyslogHandles
{
  NVHandle cisco_seqid; /* .SDATA.meta.sequenceId */
  NVHandle is_synced;   /* .SDATA.timeQuality.isSynced */
} SyslogHandles;

extern SyslogHandles syslog_handles;

/* ---- shared scanners (msg-format.c) ------------------------------------ */

static inline bool
syslog_is_digit(char c)
{
  return c >= '0' && c <= '9';
}

/* "<digits>" at *p: set msg->pri (modulo 65536, as syslog-ng's arithmetic
 * ends up) and step over it; without '<' the default PRI.  False (cursor
 * unchanged) when a non-digit comes before '>'. */
bool syslog_parse_pri(SyslogParse *sp, const char **p);

/* Skip spaces; a NUL byte counts as one, as it does in syslog-ng. */
void syslog_skip_spaces(const char **p, const char *end);

/* A hostname at *p: the bytes up to a space (not '[', at most 255, an
 * IPv6-looking ':' allowed, only valid characters with MF_CHECK_HOSTNAME).
 * True, with *host and *host_len set and the cursor on the space, when one was
 * found; false and the cursor unchanged otherwise. */
bool syslog_parse_hostname(const char **p, const char *end, uint32_t flags, const char **host, size_t *host_len);

/* Set MESSAGE to [p, end), setting LF_UTF8 under MF_VALIDATE_UTF8. */
void syslog_set_message(SyslogParse *sp, const char *p);

/* ---- the two formats --------------------------------------------------- */

/* Parse an RFC 3164 line; false when the PRI is malformed. */
bool syslog_parse_rfc3164(SyslogParse *sp);

/* Parse an RFC 5424 line (RFC 3164 when it does not start "<PRI>1 ",
 * unless MF_NO_RFC3164_FALLBACK); false when the header is broken. */
bool syslog_parse_rfc5424(SyslogParse *sp);

/* ---- timestamps (syslog-time.c) ---------------------------------------- */

#define SYSLOG_YEAR_UNKNOWN INT32_MIN

/* A timestamp as written: fields may be out of range (mktime-style
 * normalisation happens on conversion). */
typedef struct SyslogTime
{
  int32_t year; /* SYSLOG_YEAR_UNKNOWN for BSD dates */
  int mon;      /* 0-based */
  int mday, hour, min, sec;
  uint32_t usec;
  bool has_offset;
  int32_t gmtoff; /* seconds east, when has_offset */
} SyslogTime;

/* The timestamp of an RFC 3164 line at *p: ISO 8601, BSD ("Oct 11
 * 22:14:15[.frac]"), Cisco PIX/ASA ("Oct 11 2025 22:14:15[:]") or LinkSys
 * ("Oct 11 22:14:15 2025"), and a trailing ':'.  False, cursor unchanged,
 * when there is none. */
bool syslog_scan_rfc3164_time(const char **p, const char *end, SyslogTime *t);

/* An RFC 5424 (RFC 3339) timestamp at *p. */
bool syslog_scan_rfc5424_time(const char **p, const char *end, SyslogTime *t);

/* Turn t into a stamp: a missing year is guessed from recvd as syslog-ng
 * does, a missing offset comes from tz. */
void syslog_time_to_stamp(const SyslogTime *t, TimeZoneInfo *tz, const LogStamp *recvd, LogStamp *out);

#endif
