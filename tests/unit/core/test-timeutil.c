/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "sluice/timeutil.h"

#include <criterion/criterion.h>
#include <glib.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>

Test(timeutil, civil_roundtrip_matches_gmtime)
{
  /* every ~5 days from 1900 to 2200, compared with the C library */
  for (int64_t t = -2208988800LL; t < 7258118400LL; t += 86400 * 5 + 3607)
    {
      time_t tt = (time_t) t;
      struct tm tm;
      gmtime_r(&tt, &tm);
      CivilTime c;
      civil_from_seconds(t, &c);
      cr_assert_eq(c.year, tm.tm_year + 1900, "t=%lld", (long long) t);
      cr_assert_eq(c.mon, tm.tm_mon);
      cr_assert_eq(c.mday, tm.tm_mday);
      cr_assert_eq(c.hour, tm.tm_hour);
      cr_assert_eq(c.min, tm.tm_min);
      cr_assert_eq(c.sec, tm.tm_sec);
      cr_assert_eq(c.wday, tm.tm_wday);
      cr_assert_eq(c.yday, tm.tm_yday);
      cr_assert_eq(civil_to_seconds(c.year, c.mon, c.mday, c.hour, c.min, c.sec), t);
    }
}

/* Every day from year 1 to 9999 (at a different second of each), against
 * the C library and against civil_to_days, which counts the other way by
 * another method. */
Test(timeutil, civil_every_day_of_ten_millennia)
{
  const int64_t first = -62135596800LL, last = 253402300799LL; /* 0001-01-01 .. 9999-12-31 */
  int64_t day = 0;
  for (int64_t t = first; t <= last; t += 86400, day++)
    {
      int64_t at = t + (day * 7919) % 86400;
      time_t tt = (time_t) at;
      struct tm tm;
      cr_assert_not_null(gmtime_r(&tt, &tm));
      CivilTime c;
      civil_from_seconds(at, &c);
      if (c.year != tm.tm_year + 1900 || c.mon != tm.tm_mon || c.mday != tm.tm_mday || c.yday != tm.tm_yday
          || c.wday != tm.tm_wday || c.hour != tm.tm_hour || c.min != tm.tm_min || c.sec != tm.tm_sec)
        cr_assert_fail("t=%lld: %d-%d-%d yday %d wday %d, libc %d-%d-%d yday %d wday %d", (long long) at, c.year,
                 c.mon, c.mday, c.yday, c.wday, tm.tm_year + 1900, tm.tm_mon, tm.tm_mday, tm.tm_yday, tm.tm_wday);
      cr_assert_eq(civil_to_days(c.year, c.mon, c.mday), t / 86400 - (t < 0 && t % 86400 ? 1 : 0));
    }
}

/* Far from the present (garbage dates): around where the unsigned fast
 * path ends, and out to years of nine digits. */
Test(timeutil, civil_far_dates_match_gmtime)
{
  const int64_t points[] = { 1262278080000LL, 10000000000000LL, 60000000000000000LL };
  for (size_t i = 0; i < sizeof(points) / sizeof(points[0]); i++)
    for (int sign = -1; sign <= 1; sign += 2)
      for (int64_t k = -3 * 86400; k <= 3 * 86400; k += 86400 / 4 + 1)
        {
          int64_t t = sign * points[i] + k;
          time_t tt = (time_t) t;
          struct tm tm;
          cr_assert_not_null(gmtime_r(&tt, &tm));
          CivilTime c;
          civil_from_seconds(t, &c);
          cr_assert_eq(c.year, (int64_t) tm.tm_year + 1900, "t=%lld", (long long) t);
          cr_assert_eq(c.mon, tm.tm_mon, "t=%lld", (long long) t);
          cr_assert_eq(c.mday, tm.tm_mday, "t=%lld", (long long) t);
          cr_assert_eq(c.hour, tm.tm_hour, "t=%lld", (long long) t);
          cr_assert_eq(c.sec, tm.tm_sec, "t=%lld", (long long) t);
          cr_assert_eq(c.wday, tm.tm_wday, "t=%lld", (long long) t);
          cr_assert_eq(c.yday, tm.tm_yday, "t=%lld", (long long) t);
        }
  /* the ends of int64: no overflow (the sanitizer build checks), the year
   * held to int32, the time of day still right */
  CivilTime c;
  civil_from_seconds(INT64_MIN, &c);
  cr_assert_eq(c.year, INT32_MIN);
  cr_assert_eq(c.hour * 3600 + c.min * 60 + c.sec, (int) (INT64_MIN % 86400 + 86400));
  civil_from_seconds(INT64_MAX, &c);
  cr_assert_eq(c.year, INT32_MAX);
  cr_assert_eq(c.hour * 3600 + c.min * 60 + c.sec, (int) (INT64_MAX % 86400));
}

Test(timeutil, days_in_month_handles_leap_years)
{
  cr_assert_eq(civil_days_in_month(2024, 1), 29);
  cr_assert_eq(civil_days_in_month(2100, 1), 28);
  cr_assert_eq(civil_days_in_month(2000, 1), 29);
  cr_assert_eq(civil_days_in_month(2026, 11), 31);
  cr_assert_eq(civil_days_in_month(2026, 12), 0);
}

Test(timeutil, guess_year_picks_nearest)
{
  CivilTime now = { .year = 2026, .mon = 0, .mday = 2, .hour = 10 };
  cr_assert_eq(civil_guess_year(11, 31, 23, 0, 0, &now), 2025); /* Dec 31 seen on Jan 2 */
  cr_assert_eq(civil_guess_year(0, 1, 0, 0, 0, &now), 2026);
  now = (CivilTime) { .year = 2026, .mon = 11, .mday = 31, .hour = 23 };
  cr_assert_eq(civil_guess_year(0, 1, 0, 0, 5, &now), 2027); /* clock of the sender ahead */
  now = (CivilTime) { .year = 2026, .mon = 1, .mday = 1 };
  cr_assert_eq(civil_guess_year(10, 1, 0, 0, 0, &now), 2025); /* November seen in February */
  cr_assert_eq(civil_guess_year(4, 1, 0, 0, 0, &now), 2026);
}

Test(timeutil, fixed_offsets_and_utc)
{
  const char *err = NULL;
  TimeZoneInfo *tz = tz_get("+05:30", &err);
  cr_assert_not_null(tz);
  cr_assert_eq(tz_offset_at(tz, 0), 5 * 3600 + 1800);
  cr_assert_eq(tz_offset_at(tz_get("-0800", NULL), 1000), -8 * 3600);
  cr_assert_eq(tz_offset_at(tz_get("UTC", NULL), 1000), 0);
  cr_assert_null(tz_get("Not/AZone", &err));
  cr_assert_str_eq(err, "unknown time zone");
  cr_assert_null(tz_get("+9x", NULL));
}

Test(timeutil, olson_zone_offsets_follow_dst)
{
  TimeZoneInfo *tz = tz_get("Europe/Budapest", NULL);
  cr_assert_not_null(tz);
  /* 2026-01-15 12:00 UTC: CET; 2026-07-15 12:00 UTC: CEST */
  cr_assert_eq(tz_offset_at(tz, civil_to_seconds(2026, 0, 15, 12, 0, 0)), 3600);
  cr_assert_eq(tz_offset_at(tz, civil_to_seconds(2026, 6, 15, 12, 0, 0)), 7200);
  /* DST starts 2026-03-29 01:00 UTC: the cache must not hide the change */
  int64_t change = civil_to_seconds(2026, 2, 29, 1, 0, 0);
  cr_assert_eq(tz_offset_at(tz, change - 1), 3600);
  cr_assert_eq(tz_offset_at(tz, change), 7200);
  cr_assert_eq(tz_offset_at(tz, change - 1), 3600);
}

Test(timeutil, local_to_utc_in_zone)
{
  TimeZoneInfo *tz = tz_get("America/New_York", NULL);
  int32_t off;
  int64_t t = tz_local_to_utc(tz, 2026, 6, 4, 12, 0, 0, &off);
  cr_assert_eq(off, -4 * 3600);
  cr_assert_eq(t, civil_to_seconds(2026, 6, 4, 16, 0, 0));
  t = tz_local_to_utc(tz, 2026, 11, 25, 8, 30, 0, &off);
  cr_assert_eq(off, -5 * 3600);
  cr_assert_eq(t, civil_to_seconds(2026, 11, 25, 13, 30, 0));

  /* a zone of one offset all along (its shortcut), inside the table, at
   * its ends and outside it, against what each offset lookup says */
  TimeZoneInfo *one = tz_get("Etc/GMT-3", NULL);
  cr_assert_not_null(one);
  const int64_t walls[] = { 0, 1764000000, -2208988800LL, -2208988800LL + 86401, 7258118400LL - 86401,
                            7258118400LL, -9000000000LL, 9000000000LL };
  for (size_t i = 0; i < sizeof(walls) / sizeof(walls[0]); i++)
    {
      cr_assert_eq(tz_wall_to_utc(one, walls[i], &off), walls[i] - 3 * 3600, "wall %lld", (long long) walls[i]);
      cr_assert_eq(off, 3 * 3600);
      cr_assert_eq(tz_offset_at(one, walls[i]), 3 * 3600);
    }
}

Test(timeutil, local_zone_agrees_with_libc)
{
  setenv("TZ", "Australia/Adelaide", 1);
  tzset();
  TimeZoneInfo *tz = tz_get("Australia/Adelaide", NULL);
  for (int64_t t = 1700000000; t < 1700000000 + 400LL * 86400; t += 86400 + 1234)
    {
      time_t tt = (time_t) t;
      struct tm tm;
      localtime_r(&tt, &tm);
      cr_assert_eq(tz_offset_at(tz, t), tm.tm_gmtoff, "t=%lld", (long long) t);
    }
}

/* The offset table agrees with GTimeZone's own lookup at every second
 * where an offset changes (found by stepping six hours and halving), on
 * both sides of it, at times that jump about, and outside the tabled
 * years; Lord Howe changes by half an hour, Kathmandu sits at +05:45. */
Test(timeutil, zone_table_agrees_with_glib)
{
  const char *names[] = { "Europe/Budapest", "America/New_York", "Australia/Lord_Howe", "Asia/Kathmandu",
                          "America/Sao_Paulo", "Africa/Casablanca", "Etc/UTC", "Pacific/Apia" };
  for (size_t z = 0; z < G_N_ELEMENTS(names); z++)
    {
      TimeZoneInfo *tz = tz_get(names[z], NULL);
      GTimeZone *g = g_time_zone_new_identifier(names[z]);
      cr_assert(tz && g, "%s", names[z]);
      int changes = 0;
      int32_t prev = g_time_zone_get_offset(g, g_time_zone_find_interval(g, G_TIME_TYPE_UNIVERSAL, -2208988800LL));
      for (int64_t t = -2208988800LL; t < 7258118400LL; t += 6 * 3600)
        {
          int32_t want = g_time_zone_get_offset(g, g_time_zone_find_interval(g, G_TIME_TYPE_UNIVERSAL, t));
          if (want == prev)
            continue;
          int64_t lo = t - 6 * 3600, hi = t; /* prev at lo, want at hi */
          while (hi - lo > 1)
            {
              int64_t mid = lo + (hi - lo) / 2;
              if (g_time_zone_get_offset(g, g_time_zone_find_interval(g, G_TIME_TYPE_UNIVERSAL, mid)) == prev)
                lo = mid;
              else
                hi = mid;
            }
          cr_assert_eq(tz_offset_at(tz, lo), prev, "%s at %lld", names[z], (long long) lo);
          cr_assert_eq(tz_offset_at(tz, hi), want, "%s at %lld", names[z], (long long) hi);
          prev = want;
          changes++;
        }
      if (strcmp(names[z], "Etc/UTC") != 0)
        cr_assert_geq(changes, 2, "%s", names[z]);
      uint64_t x = 88172645463325252ULL;
      for (int i = 0; i < 20000; i++)
        {
          x ^= x << 13;
          x ^= x >> 7;
          x ^= x << 17;
          /* 1800 to 2300: outside the table too */
          int64_t t = -5364662400LL + (int64_t) (x % 15778800000ULL);
          int32_t want = g_time_zone_get_offset(g, g_time_zone_find_interval(g, G_TIME_TYPE_UNIVERSAL, t));
          cr_assert_eq(tz_offset_at(tz, t), want, "%s at %lld", names[z], (long long) t);
        }
      g_time_zone_unref(g);
    }
}
