/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RFC 3164 as devices really send it, parsed the way syslog-ng 3.38 does:
 *
 *   [<PRI>][seq: ][*|.][TIMESTAMP[:] ][HOSTNAME ][PROGRAM[[PID]][:] ]MESSAGE
 *
 * Without a timestamp no hostname is looked for: the line is taken to start
 * with the tag (or, on a local source with facility kern, to be a kernel
 * line).  After a timestamp the first word is a hostname when a space ends
 * it (not '[', and ':' only inside something IPv6-like), so "host prog:"
 * gives HOST=host but "prog:" gives PROGRAM=prog; "last message repeated"
 * has neither; AIX's "Message forwarded from HOST:" names the host.
 */
#include "syslog-internal.h"

#include <stddef.h>
#include <string.h>

static const char aix_forwarded[] = "Message forwarded from ";
static const char last_repeated[] = "last message repeated";

/* Cisco's "123: " sequence number in front of the timestamp; stored as
 * .SDATA.meta.sequenceId (possibly empty, as in "<189>: ..."). */
static void
_parse_cisco_seqid(SyslogParse *sp, const char **p)
{
  const char *s = *p;
  const char *end = sp->end;

  while (s < end && *s != ':')
    {
      if (!syslog_is_digit(*s))
        return;
      s++;
    }
  if (end - s < 2 || s[1] != ' ')
    return;
  log_msg_set_value_ref(sp->msg, syslog_handles.cisco_seqid, *p, (size_t) (s - *p));
  *p = s + 1;
}

/* Cisco marks the clock as unsynchronised ('*') or synchronised ('.') in
 * front of the timestamp, whether or not a timestamp follows. */
static void
_parse_cisco_sync_mark(SyslogParse *sp, const char **p)
{
  const char *s = *p;

  if (s >= sp->end)
    return;
  if (*s == '*')
    log_msg_set_value_ref(sp->msg, syslog_handles.is_synced, "0", 1);
  else if (*s == '.')
    log_msg_set_value_ref(sp->msg, syslog_handles.is_synced, "1", 1);
  else
    return;
  *p = s + 1;
}

/* "program[pid]: ", "program: " or "program ": PROGRAM, PID and the tag as
 * received (LEGACY_MSGHDR, for ${MSGHDR}).  PROGRAM is set even when empty;
 * an unterminated "[pid" at the end of the line gives no PID. */
static void
_parse_program(SyslogParse *sp, const char **p)
{
  const char *start = *p;
  const char *s = start;
  const char *end = sp->end;

  while (s < end && *s != ' ' && *s != '[' && *s != ':')
    s++;
  log_msg_set_value_ref(sp->msg, LM_V_PROGRAM, start, (size_t) (s - start));
  if (s < end && *s == '[')
    {
      const char *pid = s + 1;
      while (s < end && *s != ' ' && *s != ']' && *s != ':')
        s++;
      if (s < end)
        log_msg_set_value_ref(sp->msg, LM_V_PID, pid, (size_t) (s - pid));
      if (s < end && *s == ']')
        s++;
    }
  if (s < end && *s == ':')
    s++;
  if (s < end && *s == ' ')
    s++;
  if (!(sp->opts->flags & MF_DONT_STORE_LEGACY_MSGHDR))
    log_msg_set_value_ref(sp->msg, LM_V_LEGACY_MSGHDR, start, (size_t) (s - start));
  *p = s;
}

static inline bool
_starts_with(const char *s, const char *end, const char *prefix, size_t prefix_len)
{
  return (size_t) (end - s) >= prefix_len && memcmp(s, prefix, prefix_len) == 0;
}

/* What follows a timestamp: [AIX forward | hostname] program. */
static void
_parse_after_timestamp(SyslogParse *sp, const char **p)
{
  const char *s = *p;
  const char *end = sp->end;
  const char *host = NULL;
  size_t host_len = 0;
  uint32_t flags = sp->opts->flags;

  syslog_skip_spaces(&s, end);
  if (_starts_with(s, end, aix_forwarded, sizeof(aix_forwarded) - 1))
    {
      s += sizeof(aix_forwarded) - 1;
      host = s;
      while (s < end && *s != ':' && *s != '\0')
        s++;
      host_len = (size_t) (s - host);
      while (s < end && (*s == ' ' || *s == ':' || *s == '\0'))
        s++;
    }

  /* syslog-ng wants at least one byte after "last message repeated" */
  bool repeated = end - s > (ptrdiff_t) sizeof(last_repeated) - 1 &&
                  memcmp(s, last_repeated, sizeof(last_repeated) - 1) == 0;
  if (!repeated)
    {
      if (!host && (flags & MF_EXPECT_HOSTNAME) && !(flags & MF_NO_HOSTNAME))
        {
          syslog_parse_hostname(&s, end, flags, &host, &host_len);
          syslog_skip_spaces(&s, end);
        }
      _parse_program(sp, &s);
    }
  if (host)
    log_msg_set_value_ref(sp->msg, LM_V_HOST, host, host_len);
  *p = s;
}

bool
syslog_parse_rfc3164(SyslogParse *sp)
{
  const char *s = sp->begin;
  const char *end = sp->end;
  LogMsg *msg = sp->msg;

  if (!syslog_parse_pri(sp, &s))
    return false;

  if (!(sp->opts->flags & MF_NO_HEADER))
    {
      SyslogTime t;

      _parse_cisco_seqid(sp, &s);
      syslog_skip_spaces(&s, end);
      _parse_cisco_sync_mark(sp, &s);
      if (syslog_scan_rfc3164_time(&s, end, &t))
        {
          syslog_time_to_stamp(&t, sp->tz, sp->recvd, &msg->stamps[LM_TS_STAMP]);
          _parse_after_timestamp(sp, &s);
        }
      else if ((msg->pri & 0x3f8) == 0 && (sp->opts->flags & MF_LOCAL))
        log_msg_set_value_ref(msg, LM_V_PROGRAM, "kernel", 6); /* a local kernel line */
      else
        _parse_program(sp, &s);
    }
  syslog_set_message(sp, s);
  return true;
}
