/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Time zones and calendar arithmetic: see include/sluice/timeutil.h. */
#include "sluice/timeutil.h"

#include <glib.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define TZ_BUCKET 900 /* seconds: offsets change only on quarter hours */

struct TimeZoneInfo
{
  char *name;
  GTimeZone *gtz;       /* NULL for a fixed offset */
  int32_t fixed_offset; /* when gtz is NULL */
  /* cache: (bucket << 24) | (offset + 2^23), 0 when empty */
  atomic_uint_fast64_t cache;
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

void
civil_from_seconds(int64_t local_sec, CivilTime *out)
{
  int64_t days = _floor_div(local_sec, 86400);
  int64_t rem = local_sec - days * 86400;
  out->hour = (int8_t) (rem / 3600);
  out->min = (int8_t) (rem % 3600 / 60);
  out->sec = (int8_t) (rem % 60);
  out->wday = (int8_t) ((days % 7 + 11) % 7); /* 1970-01-01 was a Thursday */

  int64_t z = days + 719468;
  int64_t era = _floor_div(z, 146097);
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t y = yoe + era * 400;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  int d = (int) (doy - (153 * mp + 2) / 5 + 1);
  int m = (int) (mp < 10 ? mp + 3 : mp - 9);
  y += (m <= 2);
  out->year = (int32_t) y;
  out->mon = (int8_t) (m - 1);
  out->mday = (int8_t) d;
  out->yday = (int16_t) (days - civil_to_days(y, 0, 1));
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

  uint64_t bucket = (uint64_t) _floor_div(utc_sec, TZ_BUCKET) & ((UINT64_C(1) << 40) - 1);
  uint64_t cached = atomic_load_explicit(&tz->cache, memory_order_relaxed);
  if (cached && (cached >> 24) == bucket)
    return (int32_t) (cached & 0xffffff) - (1 << 23);

  gint interval = g_time_zone_find_interval(tz->gtz, G_TIME_TYPE_UNIVERSAL, utc_sec);
  int32_t offset = interval >= 0 ? g_time_zone_get_offset(tz->gtz, interval) : 0;
  atomic_store_explicit(&tz->cache, (bucket << 24) | (uint64_t) (offset + (1 << 23)), memory_order_relaxed);
  return offset;
}

int64_t
tz_local_to_utc(TimeZoneInfo *tz, int32_t year, int mon, int mday, int hour, int min, int sec,
                int32_t *gmtoff)
{
  int64_t wall = civil_to_seconds(year, mon, mday, hour, min, sec);
  /* Two rounds of fixed-point iteration: the offset at the guessed UTC
   * time.  In a skipped or repeated hour this settles on one of the two
   * offsets around the change. */
  int32_t off = tz_offset_at(tz, wall - tz_offset_at(tz, wall));
  off = tz_offset_at(tz, wall - off);
  if (gmtoff)
    *gmtoff = off;
  return wall - off;
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
