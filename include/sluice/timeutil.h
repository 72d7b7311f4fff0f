/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_TIMEUTIL_H
#define SLUICE_TIMEUTIL_H

/*
 * Time zones and calendar arithmetic without localtime()/mktime() per
 * message.  Civil dates are computed arithmetically (proleptic Gregorian);
 * a zone's UTC offsets over 1900-2200 are tabled from glib's GTimeZone
 * when the zone is first named, and read by a binary search after that
 * (read-only, shared by all threads).
 */

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

typedef struct TimeZoneInfo TimeZoneInfo;

/* Broken-down time, fields as in struct tm but with a full year. */
typedef struct CivilTime
{
  int32_t year; /* e.g. 2026 */
  int8_t mon;   /* 0..11 */
  int8_t mday;  /* 1..31 */
  int8_t hour, min, sec;
  int8_t wday;  /* 0 = Sunday */
  int16_t yday; /* 0..365 */
} CivilTime;

/* A zone from a name as syslog-ng accepts it: NULL, "" or "local" for the
 * local zone, "+hh:mm"/"-hh:mm"/"+hhmm" for a fixed offset, "UTC"/"GMT"/"Z",
 * or an Olson name ("Europe/Budapest").  Returns NULL (and sets *error to a
 * static message when error is not NULL) for a name that is not a zone.
 * The result lives for the process (zones are interned by name). */
TimeZoneInfo *tz_get(const char *name, const char **error);

/* *ts moved on by ns nanoseconds (>= 0), normalized: for deadlines of
 * pthread_cond_timedwait and expiries of ivykis timers. */
void timespec_add_ns(struct timespec *ts, int64_t ns);

/* The monotonic clock (CLOCK_MONOTONIC) in seconds, milliseconds and
 * microseconds: for timeouts, back-offs and expiries, which the wall
 * clock's steps must not move.  The one place the daemon reads it. */
static inline int64_t
mono_sec(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t) ts.tv_sec;
}

static inline int64_t
mono_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static inline int64_t
mono_us(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Whole seconds of CLOCK_MONOTONIC_COARSE (the last tick's time, a few ms
 * old): a load from the vDSO page, where CLOCK_MONOTONIC reads the TSC
 * and costs ~20 ns (3-4% of a plain TCP message's CPU); for per-message
 * expiry checks. */
static inline int64_t
mono_coarse_sec(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return (int64_t) ts.tv_sec;
}

/* *ts = now + ms on CLOCK_MONOTONIC: the deadline of a
 * pthread_cond_timedwait on a condition variable set to that clock. */
static inline void
mono_deadline(struct timespec *ts, int64_t ms)
{
  clock_gettime(CLOCK_MONOTONIC, ts);
  timespec_add_ns(ts, ms * 1000000);
}

/* The local zone (TZ / /etc/localtime at first use). */
TimeZoneInfo *tz_local(void);

/* The zone's name as given (for "local": "local"). */
const char *tz_name(const TimeZoneInfo *tz);

/* Offset from UTC, seconds east, in force at utc_sec. */
int32_t tz_offset_at(TimeZoneInfo *tz, int64_t utc_sec);

/* The UTC time of a wall-clock time in tz; *gmtoff gets the offset used.
 * For a wall time that a DST change skips or repeats, the offset in force
 * just before the change is used. */
int64_t tz_local_to_utc(TimeZoneInfo *tz, int32_t year, int mon, int mday, int hour, int min, int sec,
                        int32_t *gmtoff);
/* The same for a wall time given as seconds since the epoch read as UTC
 * (civil_to_seconds of its fields). */
int64_t tz_wall_to_utc(TimeZoneInfo *tz, int64_t wall, int32_t *gmtoff);

/* Days since 1970-01-01 of a civil date (mon 0..11). */
int64_t civil_to_days(int64_t year, int mon, int mday);

/* Broken-down time of local_sec (seconds since the epoch, already shifted
 * by the zone offset). */
void civil_from_seconds(int64_t local_sec, CivilTime *out);

/* Seconds since the epoch of a civil date and time taken as UTC. */
int64_t civil_to_seconds(int32_t year, int mon, int mday, int hour, int min, int sec);

/* The year to give a date that carries none (BSD timestamps): the one of
 * year-1, year, year+1 that puts mon/mday/hh:mm:ss nearest to now
 * (now_* is the current wall time in the same zone). */
int32_t civil_guess_year(int mon, int mday, int hour, int min, int sec, const CivilTime *now);

/* Days in a month (mon 0..11) of year. */
int civil_days_in_month(int32_t year, int mon);

#endif
