/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Built-in macros: names as syslog-ng 3.38 spells them, values as it
 * formats them (checked by tests/oracle/template-oracle.py). */
#include "template-internal.h"

#include "sluice/hostname.h"
#include "sluice/strrepr.h"
#include "sluice/uniqid.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

typedef struct MacroName
{
  const char *name;
  LogMacro id;
} MacroName;

static const MacroName date_macros[] = {
  { "DATE", M_DATE },
  { "FULLDATE", M_FULLDATE },
  { "ISODATE", M_ISODATE },
  { "STAMP", M_STAMP },
  { "UNIXTIME", M_UNIXTIME },
  { "YEAR", M_YEAR },
  { "YEAR_DAY", M_YEAR_DAY },
  { "MONTH", M_MONTH },
  { "MONTH_WEEK", M_MONTH_WEEK },
  { "MONTH_ABBREV", M_MONTH_ABBREV },
  { "MONTH_NAME", M_MONTH_NAME },
  { "DAY", M_DAY },
  { "HOUR", M_HOUR },
  { "HOUR12", M_HOUR12 },
  { "MIN", M_MIN },
  { "SEC", M_SEC },
  { "USEC", M_USEC },
  { "MSEC", M_MSEC },
  { "AMPM", M_AMPM },
  { "WEEKDAY", M_WEEK_DAY_ABBREV },
  { "WEEK_DAY_ABBREV", M_WEEK_DAY_ABBREV },
  { "WEEK_DAY_NAME", M_WEEK_DAY_NAME },
  { "WEEK_DAY", M_WEEK_DAY },
  { "WEEK", M_WEEK },
  { "ISOWEEK", M_ISOWEEK },
  { "TZOFFSET", M_TZOFFSET },
  { "TZ", M_TZOFFSET },
};

static const MacroName other_macros[] = {
  { "FACILITY", M_FACILITY },
  { "FACILITY_NUM", M_FACILITY_NUM },
  { "LEVEL", M_SEVERITY },
  { "PRIORITY", M_SEVERITY },
  { "SEVERITY", M_SEVERITY },
  { "LEVEL_NUM", M_SEVERITY_NUM },
  { "SEVERITY_NUM", M_SEVERITY_NUM },
  { "TAG", M_TAG },
  { "TAGS", M_TAGS },
  { "BSDTAG", M_BSDTAG },
  { "PRI", M_PRI },
  { "MSGHDR", M_MSGHDR },
  { "SDATA", M_SDATA },
  { "SOURCEIP", M_SOURCEIP },
  { "SEQNUM", M_SEQNUM },
  { "RCPTID", M_RCPTID },
  { "HOSTID", M_HOSTID },
  { "UNIQID", M_UNIQID },
  { "LOGHOST", M_LOGHOST },
  { "HOST", M_HOST },
  { "FULLHOST", M_FULLHOST },
  { "FULLHOST_FROM", M_FULLHOST_FROM },
};

static const char *const facility_names[24] = {
  "kern",     "user", "mail",   "daemon",  "auth",         "syslog", "lpr",    "news",
  "uucp",     "cron", "authpriv", "ftp",   "ntp",          "security", "console", "solaris-cron",
  "local0",   "local1", "local2", "local3", "local4",      "local5", "local6", "local7",
};

static const char *const severity_names[8] = { "emerg", "alert", "crit", "err", "warning", "notice", "info", "debug" };

static LogMacro
_find(const MacroName *table, size_t n, const char *name, size_t len)
{
  for (size_t i = 0; i < n; i++)
    if (strlen(table[i].name) == len && memcmp(table[i].name, name, len) == 0)
      return table[i].id;
  return M_NONE;
}

LogMacro
log_macro_lookup(const char *name, size_t len, int *stamp)
{
  *stamp = LM_TS_STAMP;
  LogMacro m = _find(other_macros, G_N_ELEMENTS(other_macros), name, len);
  if (m != M_NONE)
    return m;
  if (len > 2 && name[1] == '_')
    {
      static const char prefixes[] = "SRPC";
      const char *p = strchr(prefixes, name[0]);
      if (p && name[0])
        {
          static const int stamps[] = { LM_TS_STAMP, LM_TS_RECVD, LM_TS_PROCESSED, LM_TS_MAX };
          *stamp = stamps[p - prefixes];
          name += 2;
          len -= 2;
        }
    }
  return _find(date_macros, G_N_ELEMENTS(date_macros), name, len);
}

/* ---- non-date macros ---------------------------------------------------- */

void
log_macro_append_msghdr(const LogMsg *msg, GString *out)
{
  const LogMsgStr *legacy = &msg->builtin[LM_V_LEGACY_MSGHDR];
  if (legacy->len)
    {
      str_append(out, legacy->ptr, legacy->len);
      return;
    }
  const LogMsgStr *prog = &msg->builtin[LM_V_PROGRAM];
  if (!prog->len)
    return;
  str_append(out, prog->ptr, prog->len);
  const LogMsgStr *pid = &msg->builtin[LM_V_PID];
  if (pid->len)
    {
      g_string_append_c(out, '[');
      str_append(out, pid->ptr, pid->len);
      g_string_append_c(out, ']');
    }
  str_append(out, ": ", 2);
}

typedef struct TagsOut
{
  GString *out;
  bool first;
} TagsOut;

static void
_append_tag(LogTagId id, const char *name, void *user_data)
{
  TagsOut *t = user_data;
  if (!t->first)
    g_string_append_c(t->out, ',');
  t->first = false;
  /* a list, as syslog-ng 3.38 writes $TAGS: "with space","a,b" quoted */
  str_append_repr(t->out, name, strlen(name), ",");
}

static void
_append_tags(const LogMsg *msg, GString *out)
{
  TagsOut t = { out, true };
  log_msg_foreach_tag(msg, _append_tag, &t);
}

static void
_append_sourceip(const LogMsg *msg, GString *out)
{
  char buf[INET6_ADDRSTRLEN];
  if (msg->saddr.family == AF_INET || msg->saddr.family == AF_INET6)
    {
      if (inet_ntop(msg->saddr.family, msg->saddr.addr, buf, sizeof(buf)))
        g_string_append(out, buf);
    }
  else
    g_string_append(out, "127.0.0.1"); /* local and internal messages, as in syslog-ng 3.38 */
}

const char *
log_macro_host(LogMacro m, const LogMsg *msg, size_t *len)
{
  if (m == M_FULLHOST_FROM)
    {
      *len = msg->builtin[LM_V_HOST_FROM].len;
      return msg->builtin[LM_V_HOST_FROM].ptr;
    }
  const char *h = msg->builtin[LM_V_HOST].ptr;
  size_t n = msg->builtin[LM_V_HOST].len;
  if (m == M_HOST && (msg->flags & LF_CHAINED_HOSTNAME) && n)
    {
      /* a chain ("h1/relay", or "group@h1" from a local source) gives
       * its first host, as in syslog-ng; any other HOST is whole, '/'
       * and all */
      const char *at = memchr(h, '@', n);
      if (at)
        {
          n -= (size_t) (at + 1 - h);
          h = at + 1;
        }
      const char *slash = n ? memchr(h, '/', n) : NULL;
      if (slash)
        n = (size_t) (slash - h);
    }
  *len = n;
  return h;
}

static void
_expand_other(LogMacro m, const LogMsg *msg, GString *out)
{
  int fac = log_msg_facility(msg), sev = log_msg_severity(msg);
  switch (m)
    {
    case M_FACILITY:
      if (fac < 24)
        str_append(out, facility_names[fac], strlen(facility_names[fac]));
      else
        g_string_append_printf(out, "%x", fac); /* syslog-ng 3.38 writes unnamed ones in hex */
      break;
    case M_FACILITY_NUM:
      fmt_append_uint(out, (uint64_t) fac, 0);
      break;
    case M_SEVERITY:
      str_append(out, severity_names[sev], strlen(severity_names[sev]));
      break;
    case M_SEVERITY_NUM:
      fmt_append_uint(out, (uint64_t) sev, 0);
      break;
    case M_TAG:
      g_string_append_printf(out, "%02x", msg->pri);
      break;
    case M_BSDTAG:
      g_string_append_c(out, (char) ('0' + sev));
      g_string_append_c(out, (char) ('A' + fac));
      break;
    case M_PRI:
      fmt_append_uint(out, msg->pri, 0);
      break;
    case M_TAGS:
      _append_tags(msg, out);
      break;
    case M_MSGHDR:
      log_macro_append_msghdr(msg, out);
      break;
    case M_SDATA:
      log_format_sdata_seq(msg, log_template_seq_get(), out);
      break;
    case M_SOURCEIP:
      _append_sourceip(msg, out);
      break;
    case M_SEQNUM:
      {
        uint32_t seq = log_template_seq_get();
        if (!seq)
          seq = msg->seqnum;
        if (seq)
          fmt_append_uint(out, seq, 0);
        break;
      }
    case M_RCPTID:
      if (msg->rcptid)
        fmt_append_uint(out, msg->rcptid, 0);
      break;
    case M_HOSTID:
      g_string_append_printf(out, "%08x", uniqid_host_id());
      break;
    case M_UNIQID:
      /* syslog-ng's form: HOSTID@RCPTID in hex, 8 and 16 digits */
      if (msg->rcptid)
        g_string_append_printf(out, "%08x@%016" PRIx64, uniqid_host_id(), msg->rcptid);
      break;
    case M_LOGHOST:
      /* the short name unless use-fqdn(yes), which is not ours yet */
      g_string_append(out, sluice_hostname(false));
      break;
    case M_HOST:
    case M_FULLHOST:
    case M_FULLHOST_FROM:
      {
        size_t len;
        const char *h = log_macro_host(m, msg, &len);
        str_append(out, h, len);
      }
      break;
    default:
      break;
    }
}

/* ---- date macros -------------------------------------------------------- */

static int
_iso_weeks_in_year(int64_t y)
{
  int64_t p = (y + y / 4 - y / 100 + y / 400) % 7;
  int64_t q = ((y - 1) + (y - 1) / 4 - (y - 1) / 100 + (y - 1) / 400) % 7;
  return 52 + (p == 4 || q == 3);
}

static int
_iso_week(const CivilTime *t)
{
  int wday = t->wday == 0 ? 7 : t->wday;
  int w = (t->yday + 1 - wday + 10) / 7;
  if (w < 1)
    return _iso_weeks_in_year(t->year - 1);
  if (w > _iso_weeks_in_year(t->year))
    return 1;
  return w;
}

static void
_expand_date(LogMacro m, const LogStamp *stamp, const LogTemplateOptions *opts, GString *out)
{
  DateSecond *d = date_second_get(stamp, opts);
  const CivilTime *t = &d->tm;
  switch (m)
    {
    case M_DATE:
      date_append_stamp(d, stamp->usec, LTZ_FORMAT_RFC3164, opts->frac_digits, out);
      break;
    case M_FULLDATE:
      date_append_stamp(d, stamp->usec, LTZ_FORMAT_FULL, opts->frac_digits, out);
      break;
    case M_ISODATE:
      date_append_stamp(d, stamp->usec, LTZ_FORMAT_RFC3339, opts->frac_digits, out);
      break;
    case M_STAMP:
      date_append_stamp(d, stamp->usec, opts->ts_format, opts->frac_digits, out);
      break;
    case M_UNIXTIME:
      date_append_stamp(d, stamp->usec, LTZ_FORMAT_UNIX, opts->frac_digits, out);
      break;
    case M_YEAR:
      fmt_append_uint(out, (uint64_t) (t->year < 0 ? 0 : t->year), 4);
      break;
    case M_YEAR_DAY:
      fmt_append_uint(out, (uint64_t) t->yday + 1, 3);
      break;
    case M_MONTH:
      fmt_append_uint(out, (uint64_t) t->mon + 1, 2);
      break;
    case M_MONTH_WEEK:
      fmt_append_uint(out, (uint64_t) (t->mday / 7 + (t->wday > 0 && t->mday % 7 >= t->wday)), 0);
      break;
    case M_MONTH_ABBREV:
      g_string_append(out, month_abbrev[t->mon]);
      break;
    case M_MONTH_NAME:
      g_string_append(out, month_name[t->mon]);
      break;
    case M_DAY:
      fmt_append_uint(out, (uint64_t) t->mday, 2);
      break;
    case M_HOUR:
      fmt_append_uint(out, (uint64_t) t->hour, 2);
      break;
    case M_HOUR12:
      fmt_append_uint(out, (uint64_t) (t->hour % 12 == 0 ? 12 : t->hour % 12), 2);
      break;
    case M_MIN:
      fmt_append_uint(out, (uint64_t) t->min, 2);
      break;
    case M_SEC:
      fmt_append_uint(out, (uint64_t) t->sec, 2);
      break;
    case M_USEC:
      fmt_append_uint(out, stamp->usec, 6);
      break;
    case M_MSEC:
      fmt_append_uint(out, stamp->usec / 1000, 3);
      break;
    case M_AMPM:
      g_string_append(out, t->hour < 12 ? "AM" : "PM");
      break;
    case M_WEEK_DAY_ABBREV:
      g_string_append(out, wday_abbrev[t->wday]);
      break;
    case M_WEEK_DAY_NAME:
      g_string_append(out, wday_name[t->wday]);
      break;
    case M_WEEK_DAY:
      fmt_append_uint(out, (uint64_t) t->wday + 1, 0);
      break;
    case M_WEEK:
      fmt_append_uint(out, (uint64_t) ((t->yday + 7 - (t->wday + 6) % 7) / 7), 2);
      break;
    case M_ISOWEEK:
      fmt_append_uint(out, (uint64_t) _iso_week(t), 2);
      break;
    case M_TZOFFSET:
      g_string_append_len(out, date_second_tzofs(d), 6);
      break;
    default:
      break;
    }
}

void
log_macro_expand(LogMacro m, int stamp, const LogMsg *msg, const LogTemplateOptions *opts, GString *out)
{
  if (m > M_DATE_LAST)
    {
      _expand_other(m, msg, out);
      return;
    }
  /* P_: syslog-ng 3.38 writes the current time, as C_, while the
   * processed stamp is unset, and nothing sets it there or here */
  const LogStamp *ps = &msg->stamps[LM_TS_PROCESSED];
  bool processed_unset = stamp == LM_TS_PROCESSED && ps->sec == 0 && ps->usec == 0;
  if (stamp < LM_TS_MAX && !processed_unset)
    {
      _expand_date(m, &msg->stamps[stamp], opts, out);
      return;
    }
  /* C_ (and an unset P_): the current time, in the local zone unless
   * send_tz says otherwise; the coarse clock is a vDSO read, not a syscall */
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  LogStamp now = { .sec = ts.tv_sec, .usec = (uint32_t) (ts.tv_nsec / 1000) };
  now.gmtoff = tz_offset_at(tz_local(), now.sec);
  _expand_date(m, &now, opts, out);
}
