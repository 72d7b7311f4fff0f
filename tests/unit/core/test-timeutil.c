/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "sluice/timeutil.h"

#include <criterion/criterion.h>
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
