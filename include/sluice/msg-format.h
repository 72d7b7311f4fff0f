/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_MSG_FORMAT_H
#define SLUICE_MSG_FORMAT_H

/*
 * The syslog header parsers: RFC 3164 as devices really send it, and
 * RFC 5424.  The results match syslog-ng 3.38 field for field (PRI, HOST,
 * PROGRAM, PID, MSGID, MESSAGE, SDATA, LEGACY_MSGHDR, the timestamp), with
 * one deliberate difference: a header that cannot be parsed does not become
 * "Error processing log message: ..." but a message whose MESSAGE is the
 * raw line, with LF_PARSE_ERROR and the tag message.parse_error set.
 *
 * Zero copy: the line is copied once into the message (log_msg_new_raw) and
 * every field is a range of that copy; only unescaped SD values and a
 * no-multi-line rewrite of a shared copy go to the arena.
 *
 * The year of a BSD date is guessed as syslog-ng does (this year, except a
 * December date seen in January and a January date seen in December), not
 * as the nearest year (civil_guess_year): the two differ by a year for
 * dates more than six months away, e.g. "Oct 11" received in March.
 *
 * Two documented departures in time handling (both agree with syslog-ng for
 * the default configuration):
 *  - a zone-less timestamp gets recv_tz's offset in force at that
 *    timestamp; syslog-ng uses the configured zone's offset at "now" (it
 *    uses the offset at the timestamp only when no time-zone() is set);
 *  - "now" for year guessing is the reception time in recv_tz; syslog-ng
 *    reads the process' local time.
 */

#include "sluice/logmsg.h"
#include "sluice/timeutil.h"

#include <stddef.h>
#include <stdint.h>

/* Source flags() that act at parse time.  Names as in syslog-ng. */
enum
{
  MF_NO_PARSE = 1u << 0,                 /* no-parse: the whole line is MESSAGE */
  MF_CHECK_HOSTNAME = 1u << 1,           /* check-hostname: only [A-Za-z0-9-_.:@/] in a hostname */
  MF_SYSLOG_PROTOCOL = 1u << 2,          /* syslog-protocol: RFC 5424 (RFC 3164 if no "<PRI>1 ") */
  MF_ASSUME_UTF8 = 1u << 3,              /* assume-utf8: set LF_UTF8 */
  MF_VALIDATE_UTF8 = 1u << 4,            /* validate-utf8: LF_UTF8 when MESSAGE is valid UTF-8 */
  MF_NO_MULTI_LINE = 1u << 5,            /* no-multi-line: CR, LF and NUL in MESSAGE become spaces */
  MF_EXPECT_HOSTNAME = 1u << 6,          /* expect-hostname: RFC 3164 lines may carry a hostname */
  MF_NO_HOSTNAME = 1u << 7,              /* no-hostname: never read a hostname (wins over expect) */
  MF_STORE_RAW_MESSAGE = 1u << 8,        /* store-raw-message: RAWMSG = the line */
  MF_DONT_STORE_LEGACY_MSGHDR = 1u << 9, /* dont-store-legacy-msghdr: leave LEGACY_MSGHDR unset */
  MF_LOCAL = 1u << 10,                   /* set by local sources: LF_LOCAL, and kernel lines */
  MF_NO_HEADER = 1u << 11,               /* no-header: only PRI is parsed, the rest is MESSAGE */
  MF_NO_RFC3164_FALLBACK = 1u << 12,     /* no-rfc3164-fallback: non-5424 input is an error */
};

/* default_pri when none is configured: user.notice (13) is used. */
#define MF_DEFAULT_PRI_UNSET 0xFFFF

typedef struct MsgFormatOptions
{
  uint32_t flags;                 /* MF_* */
  uint16_t default_pri;           /* PRI for lines without one; MF_DEFAULT_PRI_UNSET = 13 */
  uint32_t sdata_param_value_max; /* SD values are cut to this many bytes */
  TimeZoneInfo *recv_tz;          /* time-zone(): zone-less timestamps; NULL = local */
} MsgFormatOptions;

/* Fill *opts with syslog-ng's defaults for a network source: expect a
 * hostname, store LEGACY_MSGHDR, default_pri unset, SD values up to 65535
 * bytes, the local zone. */
void msg_format_options_defaults(MsgFormatOptions *opts);

/* Parse one syslog line (data[0..len), without framing; trailing '\n' and
 * NUL bytes are dropped as syslog-ng does) into a new writable message.
 *
 * recvd is the reception time (read once per batch by the caller): it is
 * stored as the message's RECVD stamp, is the "now" for guessing the year
 * of BSD dates, and becomes STAMP when the line carries no usable
 * timestamp.  HOST is left unset when the line has no hostname (the source
 * fills it from the peer).
 *
 * Never fails: an unparsable header gives a message whose MESSAGE is the
 * whole line, with LF_PARSE_ERROR and the tag LOG_TAG_PARSE_ERROR_NAME set,
 * PRI syslog.err (43), STAMP = recvd, and msg_format_parse_error_count()
 * goes up by one.  The caller owns the returned reference. */
LogMsg *msg_format_parse(const MsgFormatOptions *opts, const char *data, size_t len, const LogStamp *recvd);

/* How many lines msg_format_parse() found unparsable, over all threads,
 * since the process started. */
uint64_t msg_format_parse_error_count(void);

#endif
