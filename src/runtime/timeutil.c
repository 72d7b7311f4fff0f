/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Time zones and calendar arithmetic: see include/sluice/timeutil.h. */
#include "sluice/timeutil.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>

/* The UTC seconds over which a zone's offsets are tabled: 1900-01-01 to
 * 2200-01-01.  A time outside asks GTimeZone each time (only garbage
 * dates are out there). */
#define TZ_TABLE_FROM INT64_C(-2208988800)
#define TZ_TABLE_TO INT64_C(7258118400)

/* From from (UTC seconds) until the next span's from, offset is in force. */
typedef struct TzSpan
{
  int64_t from;
  int32_t offset;
} TzSpan;

struct TimeZoneInfo
{
  char *name;
  GTimeZone *gtz;       /* NULL for a fixed offset */
  int32_t fixed_offset; /* when gtz is NULL */
  TzSpan *spans;        /* gtz's offsets over the table's years, by from; */
  size_t n_spans;       /* read-only once the zone is made */
};

static GMutex zones_lock;
static GHashTable *zones; /* name -> TimeZoneInfo*, never freed */

/* ---- civil arithmetic (days from civil / civil from days, Gregorian) ---- */

static int64_t
_floor_div(int64_t a, int64_t b)
{
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

int64_t
civil_to_days(int64_t year, int mon, int mday)
{
  /* shift the year to start in March so the leap day is the last one */
  int64_t y = year - (mon < 2);
  int64_t era = _floor_div(y, 400);
  int64_t yoe = y - era * 400;
  int m = mon + 1;
  int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + mday - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

static bool
_is_leap(int64_t y)
{
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

int
civil_days_in_month(int32_t year, int mon)
{
  static const int days[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
  if (mon < 0 || mon > 11)
    return 0;
  return days[mon] + (mon == 1 && _is_leap(year));
}

/* Days since 1970-01-01 (day 0) of the 400-year eras the fast path adds
 * to keep every number unsigned: 100 eras (146097 days each, a whole
 * number of weeks) reach from about 38,000 BC. */
#define CIVIL_SHIFT_ERAS 100
#define CIVIL_SHIFT_SEC ((int64_t) CIVIL_SHIFT_ERAS * 146097 * 86400)

/* From a day count (days_1970 + 719468 + the shift), 0 being 0000-03-01
 * less the shift, in the years that start in March (so that the leap day
 * ends one).  Neri and Schneider's calendar arithmetic ("Euclidean affine
 * functions and their application to calendar algorithms", 2022): each
 * division is by a constant or a power of two, in 32 or 64 bits, with no
 * correction steps.  z stays below 2^30 (the shift is 100 eras, and the
 * caller keeps the rest within one more). */
static void
_civil_from_shifted(uint32_t z, CivilTime *out)
{
  uint32_t n1 = 4 * z + 3;
  uint32_t century = n1 / 146097;
  uint32_t n2 = (n1 % 146097) | 3; /* 4 * (day of the century) + 3 */
  uint64_t p2 = (uint64_t) 2939745 * n2;
  uint32_t yoc = (uint32_t) (p2 >> 32);                  /* year of the century */
  uint32_t doy = (uint32_t) p2 / 2939745 / 4;             /* from March 1st */
  uint32_t n3 = 2141 * doy + 197913;
  uint32_t m = n3 >> 16;                                  /* 3..14 */
  uint32_t d = (n3 & 0xffff) / 2141 + 1;
  bool jan_feb = doy >= 306;
  /* the March year's leap day is that of its number (100 eras are whole
   * leap cycles) */
  bool leap = (yoc & 3) == 0 && (yoc != 0 || (century & 3) == 0);
  int64_t y = (int64_t) (100 * (uint64_t) century + yoc) - (int64_t) CIVIL_SHIFT_ERAS * 400 + jan_feb;
  out->year = (int32_t) y;
  out->mon = (int8_t) ((jan_feb ? m - 12 : m) - 1);
  out->mday = (int8_t) d;
  out->yday = (int16_t) (jan_feb ? doy - 306 : doy + 59 + leap);
}

void
civil_from_seconds(int64_t local_sec, CivilTime *out)
{
  uint64_t days; /* since 1970-01-01, plus the shift */
  uint32_t rem;  /* seconds into the day */
  int64_t eras = 0;
  if (local_sec > -CIVIL_SHIFT_SEC && local_sec < CIVIL_SHIFT_SEC)
    {
      uint64_t s = (uint64_t) (local_sec + CIVIL_SHIFT_SEC);
      days = s / 86400;
      rem = (uint32_t) (s - days * 86400);
    }
  else
    {
      /* garbage dates: whole eras aside, the rest as above (no product
       * that could pass INT64_MIN) */
      int64_t d = local_sec / 86400, r = local_sec % 86400;
      if (r < 0)
        {
          r += 86400;
          d--;
        }
      rem = (uint32_t) r;
      eras = _floor_div(d, 146097);
      days = (uint64_t) (d - eras * 146097) + (uint64_t) CIVIL_SHIFT_ERAS * 146097;
    }
  out->hour = (int8_t) (rem / 3600);
  out->min = (int8_t) (rem % 3600 / 60);
  out->sec = (int8_t) (rem % 60);
  out->wday = (int8_t) ((days + 4) % 7); /* 1970-01-01 was a Thursday */
  _civil_from_shifted((uint32_t) (days + 719468), out);
  int64_t year = out->year + eras * 400;
  out->year = year < INT32_MIN ? INT32_MIN : year > INT32_MAX ? INT32_MAX : (int32_t) year;
}

int64_t
civil_to_seconds(int32_t year, int mon, int mday, int hour, int min, int sec)
{
  return civil_to_days(year, mon, mday) * 86400 + hour * 3600 + min * 60 + sec;
}

int32_t
civil_guess_year(int mon, int mday, int hour, int min, int sec, const CivilTime *now)
{
  int64_t now_s = civil_to_seconds(now->year, now->mon, now->mday, now->hour, now->min, now->sec);
  int32_t best = now->year;
  int64_t best_dist = INT64_MAX;
  for (int32_t y = now->year - 1; y <= now->year + 1; y++)
    {
      int64_t d = civil_to_seconds(y, mon, mday, hour, min, sec) - now_s;
      if (d < 0)
        d = -d;
      if (d < best_dist)
        {
          best_dist = d;
          best = y;
        }
    }
  return best;
}

/* ---- zones ------------------------------------------------------------- */

static bool
_parse_fixed_offset(const char *s, int32_t *offset)
{
  if ((s[0] != '+' && s[0] != '-') || !g_ascii_isdigit(s[1]) || !g_ascii_isdigit(s[2]))
    return false;
  int h = (s[1] - '0') * 10 + (s[2] - '0');
  const char *p = s + 3;
  if (*p == ':')
    p++;
  int m = 0;
  if (*p)
    {
      if (!g_ascii_isdigit(p[0]) || !g_ascii_isdigit(p[1]) || p[2])
        return false;
      m = (p[0] - '0') * 10 + (p[1] - '0');
    }
  if (h > 24 || m > 59)
    return false;
  *offset = (s[0] == '-' ? -1 : 1) * (h * 3600 + m * 60);
  return true;
}

static gint
_interval_at(GTimeZone *gtz, int64_t utc_sec)
{
  return g_time_zone_find_interval(gtz, G_TIME_TYPE_UNIVERSAL, utc_sec);
}

/* The first second after t (whose interval is idx) in another interval,
 * or TZ_TABLE_TO: an interval is a run of seconds, and runs come in
 * order, so a doubling step finds one past the end and halving finds it. */
static int64_t
_interval_end(GTimeZone *gtz, int64_t t, gint idx)
{
  int64_t step = 3600, lo = t;
  int64_t hi = t + step;
  while (hi < TZ_TABLE_TO && _interval_at(gtz, hi) == idx)
    {
      lo = hi;
      step *= 2;
      hi = t + step;
    }
  if (hi >= TZ_TABLE_TO)
    {
      if (_interval_at(gtz, TZ_TABLE_TO) == idx)
        return TZ_TABLE_TO;
      hi = TZ_TABLE_TO;
    }
  while (hi - lo > 1)
    {
      int64_t mid = lo + (hi - lo) / 2;
      if (_interval_at(gtz, mid) == idx)
        lo = mid;
      else
        hi = mid;
    }
  return hi;
}

/* The zone's offsets over the table's years, once: a message's offset is
 * then a binary search of a few hundred spans at most (one for UTC), the
 * same for every time of the years however the times jump about.
 * GTimeZone's own lookup walks its transitions one by one. */
static void
_table_spans(TimeZoneInfo *tz)
{
  GArray *spans = g_array_new(FALSE, FALSE, sizeof(TzSpan));
  int64_t t = TZ_TABLE_FROM;
  while (t < TZ_TABLE_TO)
    {
      gint idx = _interval_at(tz->gtz, t);
      TzSpan span = { .from = t, .offset = idx >= 0 ? g_time_zone_get_offset(tz->gtz, idx) : 0 };
      /* intervals that differ in name only make one span */
      if (!spans->len || g_array_index(spans, TzSpan, spans->len - 1).offset != span.offset)
        g_array_append_val(spans, span);
      t = _interval_end(tz->gtz, t, idx);
    }
  tz->n_spans = spans->len;
  tz->spans = (TzSpan *) (void *) g_array_free(spans, FALSE);
}

static TimeZoneInfo *
_zone_new(const char *name, const char **error)
{
  TimeZoneInfo *tz = g_new0(TimeZoneInfo, 1);
  int32_t fixed;

  if (!name || !*name || strcmp(name, "local") == 0)
    tz->gtz = g_time_zone_new_local();
  else if (strcmp(name, "UTC") == 0 || strcmp(name, "GMT") == 0 || strcmp(name, "Z") == 0)
    tz->fixed_offset = 0;
  else if (_parse_fixed_offset(name, &fixed))
    tz->fixed_offset = fixed;
  else
    {
      tz->gtz = g_time_zone_new_identifier(name);
      if (!tz->gtz)
        {
          g_free(tz);
          if (error)
            *error = "unknown time zone";
          return NULL;
        }
    }
  if (tz->gtz)
    _table_spans(tz);
  tz->name = g_strdup(name && *name ? name : "local");
  return tz;
}

TimeZoneInfo *
tz_get(const char *name, const char **error)
{
  const char *key = name && *name ? name : "local";
  g_mutex_lock(&zones_lock);
  if (!zones)
    zones = g_hash_table_new(g_str_hash, g_str_equal);
  TimeZoneInfo *tz = g_hash_table_lookup(zones, key);
  if (!tz)
    {
      tz = _zone_new(key, error);
      if (tz)
        g_hash_table_insert(zones, tz->name, tz);
    }
  g_mutex_unlock(&zones_lock);
  return tz;
}

TimeZoneInfo *
tz_local(void)
{
  static TimeZoneInfo *local;
  TimeZoneInfo *tz = __atomic_load_n(&local, __ATOMIC_ACQUIRE);
  if (!tz)
    {
      tz = tz_get("local", NULL);
      __atomic_store_n(&local, tz, __ATOMIC_RELEASE);
    }
  return tz;
}

const char *
tz_name(const TimeZoneInfo *tz)
{
  return tz->name;
}

int32_t
tz_offset_at(TimeZoneInfo *tz, int64_t utc_sec)
{
  if (!tz->gtz)
    return tz->fixed_offset;
  if (utc_sec < TZ_TABLE_FROM || utc_sec >= TZ_TABLE_TO)
    {
      gint interval = _interval_at(tz->gtz, utc_sec);
      return interval >= 0 ? g_time_zone_get_offset(tz->gtz, interval) : 0;
    }
  /* the last span that starts at or before utc_sec (spans[0] starts at
   * the table's start; a zone that keeps one offset has only that) */
  size_t lo = 0, hi = tz->n_spans;
  while (hi - lo > 1)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (tz->spans[mid].from <= utc_sec)
        lo = mid;
      else
        hi = mid;
    }
  return tz->spans[lo].offset;
}

int64_t
tz_wall_to_utc(TimeZoneInfo *tz, int64_t wall, int32_t *gmtoff)
{
  int32_t off;
  if (!tz->gtz)
    off = tz->fixed_offset;
  else if (tz->n_spans == 1 && wall > TZ_TABLE_FROM + 86400 && wall < TZ_TABLE_TO - 86400)
    off = tz->spans[0].offset; /* one offset over the whole table (UTC) */
  else
    {
      /* Two rounds of fixed-point iteration: the offset at the guessed
       * UTC time.  In a skipped or repeated hour this settles on one of
       * the two offsets around the change. */
      off = tz_offset_at(tz, wall - tz_offset_at(tz, wall));
      off = tz_offset_at(tz, wall - off);
    }
  if (gmtoff)
    *gmtoff = off;
  return wall - off;
}

int64_t
tz_local_to_utc(TimeZoneInfo *tz, int32_t year, int mon, int mday, int hour, int min, int sec,
                int32_t *gmtoff)
{
  return tz_wall_to_utc(tz, civil_to_seconds(year, mon, mday, hour, min, sec), gmtoff);
}

void
timespec_add_ns(struct timespec *ts, int64_t ns)
{
  ts->tv_sec += (time_t) (ns / 1000000000L);
  ts->tv_nsec += (long) (ns % 1000000000L);
  if (ts->tv_nsec >= 1000000000L)
    {
      ts->tv_sec++;
      ts->tv_nsec -= 1000000000L;
    }
}
