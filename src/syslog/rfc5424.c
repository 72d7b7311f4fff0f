/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RFC 5424, parsed the way syslog-ng 3.38 does:
 *
 *   <PRI>1 TIMESTAMP HOSTNAME APP-NAME PROCID MSGID STRUCTURED-DATA [SP MSG]
 *
 * Each field is separated by exactly one space and "-" is the NILVALUE
 * (the field stays unset).  APP-NAME, PROCID and MSGID are cut to 48, 128
 * and 32 bytes.  A line that does not start with "<PRI>1 " is handed to the
 * RFC 3164 parser; any other deviation (a missing field, broken structured
 * data, no space before MSG) makes the whole line a parse error.
 *
 * Structured data becomes name-value pairs ".SDATA.<SD-ID>.<PARAM>", and
 * an element without parameters ".SDATA.<SD-ID>" with an empty value.
 * Length limits are syslog-ng's: an SD-ID of more than 248 bytes, or an
 * SD-ID and PARAM-NAME of more than 255 together, is an error; a pair whose
 * name comes out longer than 255 bytes is parsed but not stored.
 * Inside a value, \" \\ and \] lose their backslash; any other backslash is
 * kept; an unescaped ']' is an error.  Values without a backslash are
 * zero-copy ranges of the line; the others are unescaped into the arena.
 */
#include "syslog-internal.h"

#include <string.h>

#define SD_PREFIX ".SDATA."
#define SD_PREFIX_LEN 7
#define SD_ID_MAX 248   /* longer SD-IDs are an error */
#define SD_NAME_MAX 255 /* longer ".SDATA.id.param" names are dropped */

static const char utf8_bom[] = "\xEF\xBB\xBF";

/* "1 " after the PRI: digits up to a space whose value is 1 (so "01" is
 * fine; the arithmetic wraps like syslog-ng's). */
static bool
_parse_version(const char **p, const char *end)
{
  const char *s = *p;
  uint32_t version = 0;

  for (; s < end && *s != ' '; s++)
    {
      if (!syslog_is_digit(*s))
        return false;
      version = version * 10 + (uint32_t) (*s - '0');
    }
  if (version != 1)
    return false;
  *p = s;
  return true;
}

static bool
_skip_space(const char **p, const char *end)
{
  if (*p >= end || **p != ' ')
    return false;
  (*p)++;
  return true;
}

/* APP-NAME, PROCID or MSGID, up to the next space (which must exist). */
static bool
_parse_column(SyslogParse *sp, const char **p, NVHandle handle, size_t max_len)
{
  const char *s = *p;
  const char *space = memchr(s, ' ', (size_t) (sp->end - s));

  if (!space)
    return false;
  size_t len = (size_t) (space - s);
  if (len != 1 || s[0] != '-')
    log_msg_set_value_ref(sp->msg, handle, s, len > max_len ? max_len : len);
  *p = space + 1;
  return true;
}

/* ---- structured data --------------------------------------------------- */

/* Interning a ".SDATA.id.param" name takes the registry's lock; a small
 * per-thread memo of recent names avoids it for the names a source keeps
 * sending.  Handles are never freed, so a remembered one stays valid. */
#define SD_MEMO_SLOTS 64
#define SD_MEMO_NAME 80

typedef struct SdMemoSlot
{
  uint32_t len;
  NVHandle handle;
  char name[SD_MEMO_NAME];
} SdMemoSlot;

static _Thread_local SdMemoSlot sd_memo[SD_MEMO_SLOTS];

static NVHandle
_sd_handle(const char *name, size_t len)
{
  if (len > SD_MEMO_NAME)
    return log_msg_get_value_handle(name, (ssize_t) len);
  /* a cheap hash of the length, the SD-ID's start and the name's end (a
   * byte-wise hash would cost more than the lock it saves); every name is
   * at least 8 bytes: ".SDATA." and one more */
  uint64_t tail, head = 0;
  memcpy(&tail, name + len - 8, 8);
  if (len >= SD_PREFIX_LEN + 8)
    memcpy(&head, name + SD_PREFIX_LEN, 8);
  uint64_t hash = (tail * 0x9E3779B97F4A7C15u) ^ (head * 0xC2B2AE3D27D4EB4Fu) ^ len;
  SdMemoSlot *slot = &sd_memo[(hash >> 32) % SD_MEMO_SLOTS];
  if (slot->len != len || memcmp(slot->name, name, len) != 0)
    {
      slot->handle = log_msg_get_value_handle(name, (ssize_t) len);
      slot->len = (uint32_t) len;
      memcpy(slot->name, name, len);
    }
  return slot->handle;
}

/* SD-NAME characters: US-ASCII except '=', ' ', ']' and '"' (control
 * characters pass, as in syslog-ng). */
static inline bool
_is_sd_name_char(char c)
{
  unsigned char u = (unsigned char) c;
  return u < 128 && c != '=' && c != ' ' && c != ']' && c != '"';
}

/* A quoted PARAM-VALUE at *p (on the opening quote). */
static bool
_parse_sd_value(SyslogParse *sp, const char **p, NVHandle handle)
{
  const char *s = *p;
  const char *end = sp->end;
  bool escaped = false;

  if (s >= end || *s != '"')
    return false;
  const char *value = ++s;
  while (s < end && *s != '"')
    {
      if (*s == '\\')
        {
          escaped = true;
          s = end - s > 1 ? s + 2 : end;
          continue;
        }
      if (*s == ']')
        return false;
      s++;
    }
  if (s >= end)
    return false;

  *p = s + 1;
  if (handle == LM_V_NONE)
    return true; /* a name too long to store */

  size_t raw_len = (size_t) (s - value);
  size_t max = sp->opts->sdata_param_value_max;
  if (!escaped)
    log_msg_set_value_ref(sp->msg, handle, value, raw_len < max ? raw_len : max);
  else
    {
      char *out = log_msg_alloc(sp->msg, raw_len);
      size_t len = 0;
      bool quote = false;
      for (const char *r = value; r < s; r++)
        {
          if (!quote && *r == '\\')
            {
              quote = true;
              continue;
            }
          if (quote && *r != '"' && *r != ']' && *r != '\\' && len < max)
            out[len++] = '\\';
          if (len < max)
            out[len++] = *r;
          quote = false;
        }
      log_msg_set_value_ref(sp->msg, handle, out, len);
    }
  return true;
}

/* One SD-ELEMENT after its '['; the cursor ends on the closing ']'. */
static bool
_parse_sd_element(SyslogParse *sp, const char **p)
{
  const char *s = *p;
  const char *end = sp->end;
  char name[SD_PREFIX_LEN + SD_ID_MAX + 1 + SD_NAME_MAX];
  size_t id_len = 0;

  memcpy(name, SD_PREFIX, SD_PREFIX_LEN);
  if (s >= end || !_is_sd_name_char(*s))
    return false;
  for (; s < end && *s != ' ' && *s != ']'; s++)
    {
      if (id_len >= SD_ID_MAX || !_is_sd_name_char(*s))
        return false;
      name[SD_PREFIX_LEN + id_len++] = *s;
    }
  size_t id_end = SD_PREFIX_LEN + id_len;
  if (s < end && *s == ']')
    log_msg_set_value_ref(sp->msg, _sd_handle(name, id_end), "", 0);
  name[id_end] = '.';

  while (s < end && *s != ']')
    {
      if (!_skip_space(&s, end) || s >= end || !_is_sd_name_char(*s))
        return false;
      size_t name_len = id_end + 1;
      for (; s < end && *s != '='; s++)
        {
          if (id_len + (name_len - id_end - 1) >= SD_NAME_MAX || !_is_sd_name_char(*s))
            return false;
          name[name_len++] = *s;
        }
      if (s >= end)
        return false;
      s++; /* '=' */
      NVHandle handle = name_len <= SD_NAME_MAX ? _sd_handle(name, name_len) : LM_V_NONE;
      if (!_parse_sd_value(sp, &s, handle))
        return false;
    }
  if (s >= end)
    return false;
  *p = s;
  return true;
}

/* STRUCTURED-DATA: "-", one or more "[...]", or (as syslog-ng lets pass)
 * nothing at all when the next byte is neither. */
static bool
_parse_sd(SyslogParse *sp, const char **p)
{
  const char *s = *p;
  const char *end = sp->end;

  if (s < end && *s == '-')
    s++;
  else if (s < end && *s == '[')
    {
      s++;
      do
        {
          if (!_parse_sd_element(sp, &s))
            return false;
          s++; /* ']' */
          if (s < end && *s == '[')
            s++;
          else
            break;
        }
      while (s < end);
    }
  *p = s;
  return true;
}

/* [SP MSG]; a UTF-8 BOM is dropped and sets LF_UTF8. */
static bool
_parse_message(SyslogParse *sp, const char *s)
{
  const char *end = sp->end;

  if (s == end)
    return true;
  if (!_skip_space(&s, end))
    return false;
  if (end - s >= 3 && memcmp(s, utf8_bom, 3) == 0)
    {
      sp->msg->flags |= LF_UTF8;
      log_msg_set_value_ref(sp->msg, LM_V_MESSAGE, s + 3, (size_t) (end - s - 3));
    }
  else
    syslog_set_message(sp, s);
  return true;
}

/* ---- the header -------------------------------------------------------- */

static bool
_parse_timestamp(SyslogParse *sp, const char **p)
{
  SyslogTime t;

  if (*p < sp->end && **p == '-')
    {
      (*p)++; /* NILVALUE: STAMP stays the reception time */
      return true;
    }
  if (!syslog_scan_rfc5424_time(p, sp->end, &t))
    return false;
  syslog_time_to_stamp(&t, sp->tz, sp->recvd, &sp->msg->stamps[LM_TS_STAMP]);
  return true;
}

static bool
_parse_hostname(SyslogParse *sp, const char **p)
{
  const char *host;
  size_t host_len;

  if (!syslog_parse_hostname(p, sp->end, sp->opts->flags, &host, &host_len))
    return false;
  if (host_len != 1 || host[0] != '-')
    log_msg_set_value_ref(sp->msg, LM_V_HOST, host, host_len);
  return _skip_space(p, sp->end);
}

bool
syslog_parse_rfc5424(SyslogParse *sp)
{
  const char *s = sp->begin;
  const char *end = sp->end;

  if (!syslog_parse_pri(sp, &s) || !_parse_version(&s, end))
    return (sp->opts->flags & MF_NO_RFC3164_FALLBACK) ? false : syslog_parse_rfc3164(sp);

  if (!_skip_space(&s, end) || !_parse_timestamp(sp, &s) || !_skip_space(&s, end) || !_parse_hostname(sp, &s) ||
      !_parse_column(sp, &s, LM_V_PROGRAM, 48) || !_parse_column(sp, &s, LM_V_PID, 128) ||
      !_parse_column(sp, &s, LM_V_MSGID, 32) || !_parse_sd(sp, &s) || !_parse_message(sp, s))
    return false;
  sp->msg->flags |= LF_RFC5424;
  return true;
}
