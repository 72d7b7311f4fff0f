/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * date_scan(): strptime() as date-parser() needs it (date-scan.h).
 *
 * Rules, as syslog-ng 3.38 applies them (each checked against it):
 *  - whitespace in the format (and %n, %t) takes any run of whitespace in
 *    the input, none included; other format characters must match exactly;
 *  - a number takes at most as many digits as its largest value has and
 *    must be in range: %m 1-12, %d/%e 1-31, %H/%k 0-23, %I/%l 1-12,
 *    %M 0-59, %S 0-61, %j 1-366, %Y up to 4 digits, %y and %C 0-99;
 *    out-of-month days (Feb 30) and second 60/61 carry over later, as
 *    mktime() would;
 *  - month and weekday names in full or abbreviated, any case;
 *  - %z needs a zone, %Z takes one when there is one; names are the
 *    ones of RFC 822, the local zone's own (any case: "utc" where the
 *    local zone is UTC, as in syslog-ng) and the military letters, taken
 *    as prefixes;
 *  - %s is the seconds since the epoch, broken down in the local zone (a
 *    later %z changes the offset, not the wall clock).
 * %U, %W, %V, %G and %g are refused at configuration time: they build a
 * date from a week number, which Sluice does not do.
 */
#include "date-scan.h"

#include <glib.h>
#include <pthread.h>
#include <string.h>
#include <strings.h>
#include <time.h>

typedef struct Cursor
{
  const char *p;
  const char *end;
} Cursor;

static const char *const month_names[] = { "January", "February", "March",     "April",   "May",      "June",
                                           "July",    "August",   "September", "October", "November", "December" };
static const char *const day_names[] = { "Sunday",   "Monday", "Tuesday", "Wednesday",
                                         "Thursday", "Friday", "Saturday" };

static bool
_is_space(char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static bool
_is_digit(char c)
{
  return c >= '0' && c <= '9';
}

static void
_skip_spaces(Cursor *c)
{
  while (c->p < c->end && _is_space(*c->p))
    c->p++;
}

/* A number of at most as many digits as max has, in [min, max]. */
static bool
_number(Cursor *c, int min, int max, int *out)
{
  if (c->p >= c->end || !_is_digit(*c->p))
    return false;
  int v = 0;
  int room = max;
  do
    {
      v = v * 10 + (*c->p++ - '0');
      room /= 10;
    }
  while (v * 10 <= max && room && c->p < c->end && _is_digit(*c->p));
  if (v < min || v > max)
    return false;
  *out = v;
  return true;
}

/* One of names (12 months or 7 days), in full or by its first three
 * letters, any case; returns its index or -1. */
static int
_name(Cursor *c, const char *const *names, int n)
{
  size_t left = (size_t) (c->end - c->p);
  for (int i = 0; i < n; i++)
    {
      size_t full = strlen(names[i]);
      if (left >= full && strncasecmp(c->p, names[i], full) == 0)
        {
          c->p += full;
          return i;
        }
    }
  for (int i = 0; i < n; i++)
    if (left >= 3 && strncasecmp(c->p, names[i], 3) == 0)
      {
        c->p += 3;
        return i;
      }
  return -1;
}

/* The local zone's own abbreviations (tzname: "CET" and "CEST"), any
 * case, with their offsets; read once at configuration time. */
static struct
{
  char name[16];
  int32_t gmtoff;
} local_names[2];

static pthread_once_t local_names_once = PTHREAD_ONCE_INIT;

static void
_read_local_names(void)
{
  tzset();
  for (int i = 0; i < 2; i++)
    {
      g_strlcpy(local_names[i].name, i && !daylight ? "" : tzname[i], sizeof(local_names[i].name));
      /* the summer offset is an hour ahead wherever tzname has one */
      local_names[i].gmtoff = (int32_t) -timezone + (i ? 3600 : 0);
    }
}

void
date_scan_init(void)
{
  /* once: a reload builds its parsers while the workers scan with these */
  pthread_once(&local_names_once, _read_local_names);
}

/* A zone name at w (left bytes) and its offset in hours: RFC 822's and
 * the military letters (J is not one).  A name is taken as a prefix, as
 * syslog-ng takes it: "Zx" is Z and "x", and "UTC" is UT and a "C" that
 * the format then has to take (syslog-ng 3.38 refuses "UTC" that way). */
static size_t
_zone_name(const char *w, size_t left, int *hours, int32_t *seconds)
{
  *seconds = 0;
  static const struct
  {
    const char *name;
    int hours;
  } names[] = {
    { "GMT", 0 },  { "EST", -5 }, { "EDT", -4 }, { "CST", -6 }, { "CDT", -5 }, { "MST", -7 },
    { "MDT", -6 }, { "PST", -8 }, { "PDT", -7 }, { "UT", 0 },
  };
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
    {
      size_t len = strlen(names[i].name);
      if (left >= len && memcmp(w, names[i].name, len) == 0)
        {
          *hours = names[i].hours;
          return len;
        }
    }
  for (int i = 0; i < 2; i++)
    {
      size_t len = strlen(local_names[i].name);
      if (len && left >= len && strncasecmp(w, local_names[i].name, len) == 0)
        {
          *hours = 0;
          *seconds = local_names[i].gmtoff;
          return len;
        }
    }
  if (left < 1)
    return 0;
  char l = w[0];
  if (l == 'Z')
    *hours = 0;
  else if (l >= 'A' && l <= 'I')
    *hours = -(l - 'A' + 1);
  else if (l >= 'K' && l <= 'M')
    *hours = -(l - 'K' + 10);
  else if (l >= 'N' && l <= 'Y')
    *hours = l - 'N' + 1;
  else
    return 0;
  return 1;
}

/* %z (mandatory) or %Z: "+hh", "+hhmm", "+hh:mm" or a name. */
static bool
_zone(Cursor *c, bool mandatory, DateFields *f)
{
  Cursor save = *c;
  _skip_spaces(c);
  if (c->p < c->end && (*c->p == '+' || *c->p == '-'))
    {
      bool neg = *c->p++ == '-';
      if (c->end - c->p < 2 || !_is_digit(c->p[0]) || !_is_digit(c->p[1]))
        return false;
      int hh = (c->p[0] - '0') * 10 + (c->p[1] - '0');
      int mm = 0;
      c->p += 2;
      bool colon = c->p < c->end && *c->p == ':';
      if (colon)
        c->p++;
      if (c->end - c->p >= 2 && _is_digit(c->p[0]) && _is_digit(c->p[1]))
        {
          mm = (c->p[0] - '0') * 10 + (c->p[1] - '0');
          c->p += 2;
          if (mm > 59)
            return false;
        }
      else if (colon)
        return false;
      f->gmtoff = (neg ? -1 : 1) * (hh * 3600 + mm * 60);
      f->has_gmtoff = true;
      return true;
    }
  int hours;
  int32_t seconds;
  size_t taken = _zone_name(c->p, (size_t) (c->end - c->p), &hours, &seconds);
  if (taken)
    {
      c->p += taken;
      f->gmtoff = hours * 3600 + seconds;
      f->has_gmtoff = true;
      return true;
    }
  *c = save;
  return !mandatory;
}

/* %f: at least one digit; the first six are the microseconds. */
static bool
_fraction(Cursor *c, DateFields *f)
{
  if (c->p >= c->end || !_is_digit(*c->p))
    return false;
  uint32_t usec = 0;
  int digits = 0;
  for (; c->p < c->end && _is_digit(*c->p); c->p++)
    if (digits < 6)
      {
        usec = usec * 10 + (uint32_t) (*c->p - '0');
        digits++;
      }
  for (; digits < 6; digits++)
    usec *= 10;
  f->usec = usec;
  return true;
}

/* %s: digits only (no sign), up to 10^15 (year 31 million): beyond that
 * the calendar arithmetic would overflow, and syslog-ng's dates are
 * nonsense long before. */
#define DATE_EPOCH_MAX 1000000000000000LL

static bool
_epoch(Cursor *c, DateFields *f)
{
  if (c->p >= c->end || !_is_digit(*c->p))
    return false;
  int64_t v = 0;
  for (; c->p < c->end && _is_digit(*c->p); c->p++)
    {
      if (v > DATE_EPOCH_MAX / 10)
        return false;
      v = v * 10 + (*c->p - '0');
    }
  f->epoch = v;
  f->has_epoch = true;
  return true;
}

static bool _scan(const char *fmt, Cursor *c, DateFields *f, int depth);

static bool
_conversion(char conv, Cursor *c, DateFields *f, int depth)
{
  int v;
  switch (conv)
    {
    case '%':
      return c->p < c->end && *c->p++ == '%';
    case 'n':
    case 't':
      _skip_spaces(c);
      return true;
    case 'a':
    case 'A':
      return _name(c, day_names, 7) >= 0; /* the date decides the day, as in syslog-ng */
    case 'b':
    case 'B':
    case 'h':
      if ((v = _name(c, month_names, 12)) < 0)
        return false;
      f->mon = v;
      f->has_mon = true;
      return true;
    case 'c':
      return _scan("%a %b %e %H:%M:%S %Y", c, f, depth + 1);
    case 'D':
    case 'x':
      return _scan("%m/%d/%y", c, f, depth + 1);
    case 'F':
      return _scan("%Y-%m-%d", c, f, depth + 1);
    case 'r':
      return _scan("%I:%M:%S %p", c, f, depth + 1);
    case 'R':
      return _scan("%H:%M", c, f, depth + 1);
    case 'T':
    case 'X':
      return _scan("%H:%M:%S", c, f, depth + 1);
    case 'C':
      return _number(c, 0, 99, &f->century);
    case 'y':
      return _number(c, 0, 99, &f->year2);
    case 'Y':
      if (!_number(c, 0, 9999, &v))
        return false;
      f->year = v;
      f->has_year = true;
      f->century = f->year2 = -1;
      return true;
    case 'm':
      if (!_number(c, 1, 12, &v))
        return false;
      f->mon = v - 1;
      f->has_mon = true;
      return true;
    case 'e':
      _skip_spaces(c);
      /* fall through */
    case 'd':
      if (!_number(c, 1, 31, &f->mday))
        return false;
      f->has_mday = true;
      return true;
    case 'j':
      if (!_number(c, 1, 366, &v))
        return false;
      f->yday = v - 1;
      f->has_yday = true;
      return true;
    case 'k':
      _skip_spaces(c);
      /* fall through */
    case 'H':
      f->hour12 = false;
      f->has_hour = true;
      return _number(c, 0, 23, &f->hour);
    case 'l':
      _skip_spaces(c);
      /* fall through */
    case 'I':
      f->hour12 = true;
      f->has_hour = true;
      return _number(c, 1, 12, &f->hour);
    case 'M':
      return _number(c, 0, 59, &f->min);
    case 'S':
      return _number(c, 0, 61, &f->sec);
    case 'p':
      if (c->end - c->p < 2)
        return false;
      if (strncasecmp(c->p, "AM", 2) == 0)
        f->pm = 0;
      else if (strncasecmp(c->p, "PM", 2) == 0)
        f->pm = 1;
      else
        return false;
      c->p += 2;
      return true;
    case 'w':
      return _number(c, 0, 6, &v);
    case 'u':
      return _number(c, 1, 7, &v);
    case 'f':
      return _fraction(c, f);
    case 's':
      return _epoch(c, f);
    case 'z':
      return _zone(c, true, f);
    case 'Z':
      return _zone(c, false, f);
    default:
      return false;
    }
}

static bool
_scan(const char *fmt, Cursor *c, DateFields *f, int depth)
{
  if (depth > 2)
    return false;
  for (const char *q = fmt; *q; q++)
    {
      if (_is_space(*q))
        {
          _skip_spaces(c);
          continue;
        }
      if (*q != '%')
        {
          if (c->p >= c->end || *c->p != *q)
            return false;
          c->p++;
          continue;
        }
      q++;
      if (*q == 'E' || *q == 'O')
        q++;
      if (!*q || !_conversion(*q, c, f, depth))
        return false;
    }
  return true;
}

const char *
date_format_check(const char *format)
{
  for (const char *q = format; *q; q++)
    {
      if (*q != '%')
        continue;
      q++;
      if (*q == 'E' || *q == 'O')
        q++;
      if (!*q)
        return "ends in a lone '%'";
      if (strchr("UWVGg", *q))
        return "uses a week-number conversion (%U, %W, %V, %G, %g), which Sluice does not support";
      if (!strchr("%ntaAbBhcDxFrRTXCyYmedjkHlIMSpwufszZ", *q))
        return "uses a conversion date-parser() does not have";
    }
  return NULL;
}

bool
date_scan(const char *format, const char *input, size_t len, DateFields *out)
{
  memset(out, 0, sizeof(*out));
  out->century = out->year2 = out->pm = -1;
  Cursor c = { input, input + len };
  if (!_scan(format, &c, out, 0) || c.p != c.end)
    return false;
  if (out->year2 >= 0 || out->century >= 0)
    {
      int y2 = out->year2 >= 0 ? out->year2 : 0;
      out->year = out->century >= 0 ? out->century * 100 + y2 : (y2 < 69 ? 2000 + y2 : 1900 + y2);
      out->has_year = true;
    }
  if (out->hour12)
    out->hour = out->hour % 12 + (out->pm == 1 ? 12 : 0);
  return true;
}
