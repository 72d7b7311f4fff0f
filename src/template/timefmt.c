/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Dates for templates without localtime/strftime per message.
 *
 * Each thread keeps a small direct-mapped cache of seconds keyed by (UTC
 * second, offset shown).  A miss does the civil arithmetic; the BSD, ISO,
 * offset and unix forms of that second are made when first asked for, and
 * after that a hit only copies them and appends the fraction.  Messages mostly arrive in time
 * order, so a few slots catch nearly everything, including a mix of zones.
 */
#include "template-internal.h"

#include <string.h>
#include <time.h>

#define DATE_SLOTS 8

const char *const month_abbrev[12] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                       "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
const char *const month_name[12] = { "January", "February", "March",     "April",   "May",      "June",
                                     "July",    "August",   "September", "October", "November", "December" };
const char *const wday_abbrev[7] = { "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };
const char *const wday_name[7] = { "Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday" };

static _Thread_local DateSecond date_cache[DATE_SLOTS];

static void
_put2(char *p, int v)
{
  p[0] = (char) ('0' + v / 10);
  p[1] = (char) ('0' + v % 10);
}

void
fmt_append_uint(GString *out, uint64_t n, int width)
{
  char buf[24];
  int i = sizeof(buf);
  do
    {
      buf[--i] = (char) ('0' + n % 10);
      n /= 10;
    }
  while (n);
  while ((int) sizeof(buf) - i < width)
    buf[--i] = '0';
  g_string_append_len(out, buf + i, (gssize) sizeof(buf) - i);
}

enum
{
  DATE_FORM_BSD = 1,
  DATE_FORM_ISO = 2,
  DATE_FORM_TZOFS = 4,
  DATE_FORM_UNIX = 8,
};

static const char *
_bsd(DateSecond *d)
{
  if (d->rendered & DATE_FORM_BSD)
    return d->bsd;
  const CivilTime *t = &d->tm;
  memcpy(d->bsd, month_abbrev[t->mon], 3);
  d->bsd[3] = ' ';
  if (t->mday < 10)
    {
      d->bsd[4] = ' ';
      d->bsd[5] = (char) ('0' + t->mday);
    }
  else
    _put2(d->bsd + 4, t->mday);
  d->bsd[6] = ' ';
  _put2(d->bsd + 7, t->hour);
  d->bsd[9] = ':';
  _put2(d->bsd + 10, t->min);
  d->bsd[12] = ':';
  _put2(d->bsd + 13, t->sec);
  d->bsd[15] = '\0';
  d->rendered |= DATE_FORM_BSD;
  return d->bsd;
}

static const char *
_iso(DateSecond *d)
{
  if (d->rendered & DATE_FORM_ISO)
    return d->iso;
  const CivilTime *t = &d->tm;
  /* years outside 0..9999 do not fit ISO 8601's four digits: clamp, as
   * such dates only come from garbage input */
  int y = t->year < 0 ? 0 : t->year > 9999 ? 9999 : t->year;
  _put2(d->iso, y / 100);
  _put2(d->iso + 2, y % 100);
  d->iso[4] = '-';
  _put2(d->iso + 5, t->mon + 1);
  d->iso[7] = '-';
  _put2(d->iso + 8, t->mday);
  d->iso[10] = 'T';
  _put2(d->iso + 11, t->hour);
  d->iso[13] = ':';
  _put2(d->iso + 14, t->min);
  d->iso[16] = ':';
  _put2(d->iso + 17, t->sec);
  d->iso[19] = '\0';
  d->rendered |= DATE_FORM_ISO;
  return d->iso;
}

const char *
date_second_tzofs(DateSecond *d)
{
  if (d->rendered & DATE_FORM_TZOFS)
    return d->tzofs;
  int32_t a = d->gmtoff < 0 ? -d->gmtoff : d->gmtoff;
  d->tzofs[0] = d->gmtoff < 0 ? '-' : '+';
  _put2(d->tzofs + 1, (a / 3600) % 100);
  d->tzofs[3] = ':';
  _put2(d->tzofs + 4, a % 3600 / 60);
  d->tzofs[6] = '\0';
  d->rendered |= DATE_FORM_TZOFS;
  return d->tzofs;
}

static const char *
_unix(DateSecond *d)
{
  if (d->rendered & DATE_FORM_UNIX)
    return d->unix_;
  char buf[24];
  int i = sizeof(buf);
  uint64_t u = d->sec < 0 ? 0 - (uint64_t) d->sec : (uint64_t) d->sec;
  do
    {
      buf[--i] = (char) ('0' + u % 10);
      u /= 10;
    }
  while (u);
  if (d->sec < 0)
    buf[--i] = '-';
  d->unix_len = (uint8_t) (sizeof(buf) - i);
  memcpy(d->unix_, buf + i, d->unix_len);
  d->rendered |= DATE_FORM_UNIX;
  return d->unix_;
}

DateSecond *
date_second_get(const LogStamp *stamp, const LogTemplateOptions *opts)
{
  int32_t gmtoff = opts && opts->send_tz ? tz_offset_at(opts->send_tz, stamp->sec) : stamp->gmtoff;
  uint64_t h = (uint64_t) stamp->sec * 0x9E3779B97F4A7C15ull + (uint64_t) (int64_t) gmtoff;
  DateSecond *d = &date_cache[(h >> 59) & (DATE_SLOTS - 1)];
  if (!d->valid || d->sec != stamp->sec || d->gmtoff != gmtoff)
    {
      d->sec = stamp->sec;
      d->gmtoff = gmtoff;
      d->valid = true;
      d->rendered = 0;
      civil_from_seconds(stamp->sec + gmtoff, &d->tm);
    }
  return d;
}

void
date_append_frac(uint32_t usec, int frac_digits, GString *out)
{
  if (frac_digits <= 0)
    return;
  if (frac_digits > 6)
    frac_digits = 6;
  char buf[8];
  buf[0] = '.';
  uint32_t u = usec % 1000000;
  for (int i = 6; i >= 1; i--)
    {
      buf[i] = (char) ('0' + u % 10);
      u /= 10;
    }
  str_append(out, buf, (size_t) frac_digits + 1);
}

void
date_append_stamp(DateSecond *d, uint32_t usec, LogTimestampFormat fmt, int frac_digits, GString *out)
{
  switch (fmt)
    {
    case LTZ_FORMAT_RFC3339:
      str_append(out, _iso(d), 19);
      date_append_frac(usec, frac_digits, out);
      str_append(out, date_second_tzofs(d), 6);
      break;
    case LTZ_FORMAT_FULL:
      fmt_append_uint(out, (uint64_t) (d->tm.year < 0 ? 0 : d->tm.year), 0);
      g_string_append_c(out, ' ');
      /* fall through */
    case LTZ_FORMAT_RFC3164:
      str_append(out, _bsd(d), 15);
      date_append_frac(usec, frac_digits, out);
      break;
    case LTZ_FORMAT_UNIX:
      {
        const char *u = _unix(d); /* sets unix_len */
        g_string_append_len(out, u, d->unix_len);
      }
      date_append_frac(usec, frac_digits, out);
      break;
    }
}
