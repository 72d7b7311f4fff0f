/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Timestamps in syslog headers.
 *
 * The shapes are recognised the way syslog-ng 3.38 does it: a cheap check
 * of separator positions picks the format, then the fields are scanned with
 * fixed widths.  A fixed-width field may start with spaces ("Oct  1"), which
 * count towards its width.  Field values are not range-checked; like
 * mktime(), the conversion lets "Feb 30" become March 2.
 */
#include "syslog-internal.h"

#include <string.h>

/* ---- scanning ---------------------------------------------------------- */

/* A field of exactly width characters: leading spaces, then digits. */
static bool
_scan_int(const char **p, const char *end, int width, int *out)
{
  const char *s = *p;
  int value = 0;

  while (width > 0 && s < end && *s == ' ')
    {
      s++;
      width--;
    }
  while (width > 0 && s < end && syslog_is_digit(*s))
    {
      value = value * 10 + (*s - '0');
      s++;
      width--;
    }
  if (width != 0)
    return false;
  *out = value;
  *p = s;
  return true;
}

/* _scan_int's two-character field where the caller knows both are there
 * (the separators around it are checked): "12", " 7", or "  " (0). */
static inline bool
_two(const char *s, int *out)
{
  unsigned hi = (unsigned char) s[0] - '0', lo = (unsigned char) s[1] - '0';
  if (lo <= 9)
    {
      if (hi <= 9)
        *out = (int) (hi * 10 + lo);
      else if (s[0] == ' ')
        *out = (int) lo;
      else
        return false;
      return true;
    }
  if (s[0] == ' ' && s[1] == ' ')
    {
      *out = 0;
      return true;
    }
  return false;
}

static bool
_expect(const char **p, const char *end, char c)
{
  if (*p >= end || **p != c)
    return false;
  (*p)++;
  return true;
}

static inline char
_lower(char c)
{
  return (c >= 'A' && c <= 'Z') ? (char) (c + 32) : c;
}

/* "Jan".."Dec": syslog-ng 3.38 wants the first letter in upper case and
 * takes the other two in any case ("MAR" is March, "mar" is not).  The
 * three letters as one number (the last two lowered) pick the month. */
#define MONTH_KEY(a, b, c) \
  (((uint32_t) (unsigned char) (a) << 16) | ((uint32_t) (unsigned char) (b) << 8) | (unsigned char) (c))

static bool
_scan_month(const char **p, const char *end, int *mon)
{
  if (end - *p < 3)
    return false;
  int m;
  switch (MONTH_KEY((*p)[0], _lower((*p)[1]), _lower((*p)[2])))
    {
    case MONTH_KEY('J', 'a', 'n'):
      m = 0;
      break;
    case MONTH_KEY('F', 'e', 'b'):
      m = 1;
      break;
    case MONTH_KEY('M', 'a', 'r'):
      m = 2;
      break;
    case MONTH_KEY('A', 'p', 'r'):
      m = 3;
      break;
    case MONTH_KEY('M', 'a', 'y'):
      m = 4;
      break;
    case MONTH_KEY('J', 'u', 'n'):
      m = 5;
      break;
    case MONTH_KEY('J', 'u', 'l'):
      m = 6;
      break;
    case MONTH_KEY('A', 'u', 'g'):
      m = 7;
      break;
    case MONTH_KEY('S', 'e', 'p'):
      m = 8;
      break;
    case MONTH_KEY('O', 'c', 't'):
      m = 9;
      break;
    case MONTH_KEY('N', 'o', 'v'):
      m = 10;
      break;
    case MONTH_KEY('D', 'e', 'c'):
      m = 11;
      break;
    default:
      return false;
    }
  *mon = m;
  *p += 3;
  return true;
}

/* "HH:MM:SS" */
static bool
_scan_hms(const char **p, const char *end, SyslogTime *t)
{
  return _scan_int(p, end, 2, &t->hour) && _expect(p, end, ':') && _scan_int(p, end, 2, &t->min) &&
         _expect(p, end, ':') && _scan_int(p, end, 2, &t->sec);
}

/* ".frac" or ",frac" (Aruba): microseconds from the first six digits, the
 * rest skipped. */
static uint32_t
_scan_usec(const char **p, const char *end)
{
  const char *s = *p;
  uint32_t frac = 0;
  uint32_t scale = 1000000;

  if (s >= end || (*s != '.' && *s != ','))
    return 0;
  s++;
  while (s < end && scale > 1 && syslog_is_digit(*s))
    {
      frac = frac * 10 + (uint32_t) (*s - '0');
      scale /= 10;
      s++;
    }
  while (s < end && syslog_is_digit(*s))
    s++;
  *p = s;
  return frac * scale;
}

/* ---- ISO 8601 / RFC 3339 ------------------------------------------------ */

static bool
_looks_iso(const char *s, const char *end)
{
  return end - s >= 19 && s[4] == '-' && s[7] == '-' && (s[10] == 'T' || s[10] == ' ') && s[13] == ':' &&
         s[16] == ':';
}

/* "+hh:mm" not followed by a digit. */
static bool
_scan_iso_offset(const char **p, const char *end, int32_t *gmtoff)
{
  const char *s = *p;

  if (end - s < 6 || (s[0] != '+' && s[0] != '-') || !syslog_is_digit(s[1]) || !syslog_is_digit(s[2]) ||
      s[3] != ':' || !syslog_is_digit(s[4]) || !syslog_is_digit(s[5]) || (end - s > 6 && syslog_is_digit(s[6])))
    return false;
  int32_t off = ((s[1] - '0') * 10 + (s[2] - '0')) * 3600 + ((s[4] - '0') * 10 + (s[5] - '0')) * 60;
  *gmtoff = s[0] == '-' ? -off : off;
  *p = s + 6;
  return true;
}

static bool
_scan_iso(const char **p, const char *end, SyslogTime *t)
{
  const char *s = *p;

  if (!_scan_int(&s, end, 4, &t->year) || !_expect(&s, end, '-') || !_scan_int(&s, end, 2, &t->mon) ||
      !_expect(&s, end, '-') || !_scan_int(&s, end, 2, &t->mday) ||
      !(_expect(&s, end, 'T') || _expect(&s, end, ' ')) || !_scan_hms(&s, end, t))
    return false;
  t->mon -= 1;
  t->usec = _scan_usec(&s, end);
  t->has_offset = false;
  if (s < end && *s == 'Z')
    {
      t->has_offset = true;
      t->gmtoff = 0;
      s++;
    }
  else if (_scan_iso_offset(&s, end, &t->gmtoff))
    t->has_offset = true;
  *p = s;
  return true;
}

/* ---- BSD and its variants ---------------------------------------------- */

static inline bool
_digits4(const char *s)
{
  return syslog_is_digit(s[0]) && syslog_is_digit(s[1]) && syslog_is_digit(s[2]) && syslog_is_digit(s[3]);
}

static inline bool
_is_c_space(char c)
{
  return c == ' ' || (c >= '\t' && c <= '\r');
}

/* Cisco PIX/ASA: "MMM DD YYYY HH:MM:SS" followed by ':' or ' '. */
static bool
_looks_pix(const char *s, const char *end)
{
  return end - s >= 21 && s[3] == ' ' && s[6] == ' ' && s[11] == ' ' && s[14] == ':' && s[17] == ':' &&
         (s[20] == ':' || s[20] == ' ') && _digits4(s + 7);
}

/* LinkSys: "MMM DD HH:MM:SS YYYY" followed by white space. */
static bool
_looks_linksys(const char *s, const char *end)
{
  return end - s >= 21 && s[3] == ' ' && s[6] == ' ' && s[9] == ':' && s[12] == ':' && s[15] == ' ' &&
         _digits4(s + 16) && _is_c_space(s[20]);
}

/* RFC 3164: "MMM DD HH:MM:SS" */
static bool
_looks_bsd(const char *s, const char *end)
{
  return end - s >= 15 && s[3] == ' ' && s[6] == ' ' && s[9] == ':' && s[12] == ':';
}

static bool
_scan_bsd(const char **p, const char *end, SyslogTime *t)
{
  const char *s = *p;

  t->year = SYSLOG_YEAR_UNKNOWN;
  t->usec = 0;
  t->has_offset = false;
  if (_looks_pix(s, end))
    {
      if (!_scan_month(&s, end, &t->mon) || !_expect(&s, end, ' ') || !_scan_int(&s, end, 2, &t->mday) ||
          !_expect(&s, end, ' ') || !_scan_int(&s, end, 4, &t->year) || !_expect(&s, end, ' ') ||
          !_scan_hms(&s, end, t))
        return false;
      _expect(&s, end, ':');
    }
  else if (_looks_linksys(s, end))
    {
      if (!_scan_month(&s, end, &t->mon) || !_expect(&s, end, ' ') || !_scan_int(&s, end, 2, &t->mday) ||
          !_expect(&s, end, ' ') || !_scan_hms(&s, end, t) || !_expect(&s, end, ' ') ||
          !_scan_int(&s, end, 4, &t->year))
        return false;
    }
  else if (_looks_bsd(s, end))
    {
      /* "MMM DD HH:MM:SS", its separators checked: the fields in place */
      if (!_scan_month(&s, end, &t->mon) || !_two(s + 1, &t->mday) || !_two(s + 4, &t->hour) ||
          !_two(s + 7, &t->min) || !_two(s + 10, &t->sec))
        return false;
      s += 12;
      t->usec = _scan_usec(&s, end);
    }
  else
    return false;
  *p = s;
  return true;
}

bool
syslog_scan_rfc3164_time(const char **p, const char *end, SyslogTime *t)
{
  const char *s = *p;

  if (_looks_iso(s, end))
    {
      if (!_scan_iso(&s, end, t))
        return false;
    }
  else if (!_scan_bsd(&s, end, t))
    return false;
  /* Cisco ends the timestamp with ':'; skipping it keeps it from looking
   * like part of an IPv6 hostname */
  _expect(&s, end, ':');
  *p = s;
  return true;
}

bool
syslog_scan_rfc5424_time(const char **p, const char *end, SyslogTime *t)
{
  return _scan_iso(p, end, t);
}

/* ---- conversion -------------------------------------------------------- */

/*
 * Per-thread memo of the zone arithmetic, so that a message costs no
 * civil_from_seconds() and no zone lookup in the common case.  It is exact
 * because every UTC offset in use since 1980 is a multiple of 15 minutes
 * and changes only on a UTC quarter hour: then the local date at "now"
 * depends only on now's 15-minute bucket, and the offset tz_wall_to_utc() picks for a wall time
 * only on the wall time's 15-minute bucket.  Older wall times skip the memo.
 */
#define QUARTER 900
#define MEMO_FROM 315532800 /* 1980-01-01 */
#define OFFSET_SLOTS 4

typedef struct TimeMemo
{
  /* year guessing: the local year and month at the reception time */
  TimeZoneInfo *now_tz;
  int64_t now_quarter;
  int32_t now_year;
  int now_mon;
  /* days since the epoch of the first of a month */
  int32_t month_year;
  int month_mon;
  int64_t month_days;
  /* zone offsets of zone-less wall times, by wall-time quarter */
  struct
  {
    TimeZoneInfo *tz;
    int64_t quarter;
    int32_t gmtoff;
  } offsets[OFFSET_SLOTS];
} TimeMemo;

static _Thread_local TimeMemo memo = { .month_mon = -1 };

static inline int64_t
_quarter(int64_t sec)
{
  return sec >= 0 ? sec / QUARTER : -((-sec + QUARTER - 1) / QUARTER);
}

/* syslog-ng's rule, not "the nearest year": the current year, except a
 * December date seen in January (last year) and a January date seen in
 * December (next year). */
static int32_t
_guess_year(int mon, TimeZoneInfo *tz, const LogStamp *recvd)
{
  int64_t q = _quarter(recvd->sec);
  if (memo.now_tz != tz || memo.now_quarter != q)
    {
      CivilTime now;
      civil_from_seconds(recvd->sec + tz_offset_at(tz, recvd->sec), &now);
      memo.now_tz = tz;
      memo.now_quarter = q;
      memo.now_year = now.year;
      memo.now_mon = now.mon;
    }
  if (mon == 11 && memo.now_mon == 0)
    return memo.now_year - 1;
  if (mon == 0 && memo.now_mon == 11)
    return memo.now_year + 1;
  return memo.now_year;
}

/* Seconds since the epoch of a wall time taken as UTC; mon is 0..11, the
 * other fields may be out of range. */
static int64_t
_wall_seconds(int32_t year, int mon, const SyslogTime *t)
{
  if (memo.month_year != year || memo.month_mon != mon)
    {
      memo.month_year = year;
      memo.month_mon = mon;
      memo.month_days = civil_to_days(year, mon, 1);
    }
  return (memo.month_days + t->mday - 1) * 86400 + (int64_t) t->hour * 3600 + t->min * 60 + t->sec;
}

static int32_t
_zone_offset(TimeZoneInfo *tz, int64_t wall)
{
  if (wall < MEMO_FROM)
    {
      int32_t gmtoff;
      tz_wall_to_utc(tz, wall, &gmtoff);
      return gmtoff;
    }
  int64_t q = wall / QUARTER;
  unsigned slot = (unsigned) q % OFFSET_SLOTS;
  if (memo.offsets[slot].tz != tz || memo.offsets[slot].quarter != q)
    {
      tz_wall_to_utc(tz, wall, &memo.offsets[slot].gmtoff);
      memo.offsets[slot].tz = tz;
      memo.offsets[slot].quarter = q;
    }
  return memo.offsets[slot].gmtoff;
}

void
syslog_time_to_stamp(const SyslogTime *t, TimeZoneInfo *tz, const LogStamp *recvd, LogStamp *out)
{
  int32_t year = t->year;
  int mon = t->mon;

  if (year == SYSLOG_YEAR_UNKNOWN)
    year = _guess_year(mon, tz, recvd);
  /* an ISO month of 00 or 13..99 rolls into the neighbouring years */
  if (mon < 0 || mon > 11)
    {
      int shift = mon < 0 ? -1 : mon / 12;
      year += shift;
      mon -= shift * 12;
    }
  int64_t wall = _wall_seconds(year, mon, t);
  out->usec = t->usec;
  out->gmtoff = t->has_offset ? t->gmtoff : _zone_offset(tz, wall);
  out->sec = wall - out->gmtoff;
}
