/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * msg_format_parse(): from a syslog line to a LogMsg.  See
 * include/sluice/msg-format.h for the contract; the RFC 3164 and RFC 5424
 * header parsers live in rfc3164.c and rfc5424.c, timestamps in
 * syslog-time.c.  This file holds the entry point, what both formats
 * share (PRI, hostname, MESSAGE) and the parse-error rule.
 */
#include "syslog-internal.h"

#include <glib.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#define PRI_SYSLOG_ERR 43 /* syslog.err, what syslog-ng gives its parse errors */
#define PRI_USER_NOTICE 13

SyslogHandles syslog_handles;
static LogTagId parse_error_tag;
static pthread_once_t init_once = PTHREAD_ONCE_INIT;

/* Parse errors are the exception, so one shared counter costs nothing on
 * the normal path; it is not worth per-thread slots. */
static atomic_uint_fast64_t parse_errors;

/* Characters check-hostname allows. */
static bool valid_host_char[256];

static void
_init(void)
{
  syslog_handles.cisco_seqid = log_msg_get_value_handle(".SDATA.meta.sequenceId", -1);
  syslog_handles.is_synced = log_msg_get_value_handle(".SDATA.timeQuality.isSynced", -1);
  parse_error_tag = log_tags_get_by_name(LOG_TAG_PARSE_ERROR_NAME);
  for (int c = 0; c < 256; c++)
    valid_host_char[c] = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
                         c == '_' || c == '.' || c == ':' || c == '@' || c == '/';
}

void
msg_format_options_defaults(MsgFormatOptions *opts)
{
  memset(opts, 0, sizeof(*opts));
  opts->flags = MF_EXPECT_HOSTNAME;
  opts->default_pri = MF_DEFAULT_PRI_UNSET;
  opts->sdata_param_value_max = 65535;
  opts->recv_tz = NULL;
}

uint64_t
msg_format_parse_error_count(void)
{
  return atomic_load_explicit(&parse_errors, memory_order_relaxed);
}

/* ---- shared scanners --------------------------------------------------- */

static uint16_t
_default_pri(const MsgFormatOptions *opts)
{
  return opts->default_pri != MF_DEFAULT_PRI_UNSET ? opts->default_pri : PRI_USER_NOTICE;
}

bool
syslog_parse_pri(SyslogParse *sp, const char **p)
{
  const char *s = *p;
  const char *end = sp->end;

  if (s < end && *s == '<')
    {
      /* Unsigned arithmetic: "<99999999999999>" wraps instead of
       * overflowing, and the low 16 bits are what syslog-ng ends up with. */
      uint32_t pri = 0;
      for (s++; s < end && *s != '>'; s++)
        {
          if (!syslog_is_digit(*s))
            return false;
          pri = pri * 10 + (uint32_t) (*s - '0');
        }
      sp->msg->pri = (uint16_t) pri;
      if (s < end)
        s++;
    }
  else
    sp->msg->pri = _default_pri(sp->opts);
  *p = s;
  return true;
}

void
syslog_skip_spaces(const char **p, const char *end)
{
  const char *s = *p;
  while (s < end && (*s == ' ' || *s == '\0'))
    s++;
  *p = s;
}

static inline bool
_is_xdigit(unsigned char c)
{
  return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
}

bool
syslog_parse_hostname(const char **p, const char *end, uint32_t flags, const char **host, size_t *host_len)
{
  const char *s = *p;
  const char *limit = end - s > 255 ? s + 255 : end;
  bool check = (flags & MF_CHECK_HOSTNAME) != 0;
  /* ':' ends the hostname unless everything so far could be an IPv6
   * address: at most 8 groups of at most 4 hex digits. */
  int groups = 0, digits = 0;
  bool ipv6 = true;

  for (; s < limit && *s != ' ' && *s != '['; s++)
    {
      unsigned char c = (unsigned char) *s;
      if (ipv6)
        {
          if (c == ':')
            {
              digits = 0;
              ipv6 = ++groups < 8;
            }
          else if (_is_xdigit(c))
            ipv6 = ++digits <= 4;
          else
            ipv6 = false;
        }
      if ((c == ':' && !ipv6) || (check && !valid_host_char[c]))
        break;
    }
  if (s >= end || *s != ' ')
    return false;
  *host = *p;
  *host_len = (size_t) (s - *p);
  *p = s;
  return true;
}

void
syslog_set_message(SyslogParse *sp, const char *p)
{
  size_t len = (size_t) (sp->end - p);
  log_msg_set_value_ref(sp->msg, LM_V_MESSAGE, p, len);
  if ((sp->opts->flags & MF_VALIDATE_UTF8) && g_utf8_validate(p, (gssize) len, NULL))
    sp->msg->flags |= LF_UTF8;
}

/* ---- after parsing ----------------------------------------------------- */

/* no-multi-line: CR, LF and NUL in MESSAGE become spaces.  MESSAGE usually
 * points into the message's own copy of the line, which may be rewritten,
 * unless RAWMSG shares that copy. */
static void
_flatten_message(LogMsg *msg, bool copy_first)
{
  size_t len;
  const char *value = log_msg_get_value(msg, LM_V_MESSAGE, &len);
  const char *nl = NULL;

  for (size_t i = 0; i < len && !nl; i++)
    if (value[i] == '\r' || value[i] == '\n' || value[i] == '\0')
      nl = value + i;
  if (!nl)
    return;

  char *text = (char *) value;
  if (copy_first)
    {
      text = log_msg_alloc(msg, len);
      memcpy(text, value, len);
      log_msg_set_value_ref(msg, LM_V_MESSAGE, text, len);
    }
  for (size_t i = (size_t) (nl - value); i < len; i++)
    if (text[i] == '\r' || text[i] == '\n' || text[i] == '\0')
      text[i] = ' ';
}

/* The deliberate departure from syslog-ng: keep the line, mark it. */
static void
_mark_parse_error(SyslogParse *sp)
{
  LogMsg *msg = sp->msg;

  /* drop whatever the parser had set before it gave up, except RAWMSG */
  LogMsgStr raw = msg->builtin[LM_V_RAWMSG];
  memset(msg->builtin, 0, sizeof(msg->builtin));
  msg->builtin[LM_V_RAWMSG] = raw;
  log_msg_clear_nv(msg);
  msg->flags &= ~(uint32_t) LF_RFC5424;

  msg->pri = PRI_SYSLOG_ERR;
  msg->stamps[LM_TS_STAMP] = *sp->recvd;
  log_msg_set_value_ref(msg, LM_V_MESSAGE, sp->begin, (size_t) (sp->end - sp->begin));
  msg->flags |= LF_PARSE_ERROR;
  log_msg_set_tag(msg, parse_error_tag);
  atomic_fetch_add_explicit(&parse_errors, 1, memory_order_relaxed);
}

/* ---- entry point ------------------------------------------------------- */

LogMsg *
msg_format_parse(const MsgFormatOptions *opts, const char *data, size_t len, const LogStamp *recvd)
{
  pthread_once(&init_once, _init);

  while (len > 0 && (data[len - 1] == '\n' || data[len - 1] == '\0'))
    len--;

  const char *raw;
  LogMsg *msg = log_msg_new_raw(data, len, &raw);
  uint32_t flags = opts->flags;

  msg->stamps[LM_TS_RECVD] = *recvd;
  msg->stamps[LM_TS_STAMP] = *recvd;
  if (flags & MF_STORE_RAW_MESSAGE)
    log_msg_set_value_ref(msg, LM_V_RAWMSG, raw, len);
  if (flags & MF_LOCAL)
    msg->flags |= LF_LOCAL;
  if (flags & MF_ASSUME_UTF8)
    msg->flags |= LF_UTF8;

  if (flags & MF_NO_PARSE)
    {
      log_msg_set_value_ref(msg, LM_V_MESSAGE, raw, len);
      msg->pri = _default_pri(opts);
    }
  else
    {
      SyslogParse sp = {
        .msg = msg,
        .opts = opts,
        .recvd = recvd,
        .tz = opts->recv_tz ? opts->recv_tz : tz_local(),
        .begin = raw,
        .end = raw + len,
      };
      /* the SD parameters in the order of the line (syslog-ng's initial_parse) */
      msg->flags |= LF_SDATA_IN_ORDER;
      bool ok = (flags & MF_SYSLOG_PROTOCOL) ? syslog_parse_rfc5424(&sp) : syslog_parse_rfc3164(&sp);
      msg->flags &= ~(uint32_t) LF_SDATA_IN_ORDER;
      if (!ok)
        _mark_parse_error(&sp);
    }

  if (flags & MF_NO_MULTI_LINE)
    _flatten_message(msg, (flags & MF_STORE_RAW_MESSAGE) != 0);
  return msg;
}
