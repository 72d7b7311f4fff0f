/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_DATE_SCAN_H
#define SLUICE_DATE_SCAN_H

/*
 * The strptime() of date-parser(): the C locale's conversions as
 * syslog-ng 3.38's date-parser() takes them (checked against it), with its
 * extensions %f (fraction of a second) and a %z / %Z that take offsets,
 * "Z", "GMT", "UT", the North American zone names and the military
 * letters.  No locale, no allocation, no libc time call: it only fills
 * DateFields; date-parser.c turns them into a time.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a scan found; a field is meaningful only when its has_ flag is set. */
typedef struct DateFields
{
  bool has_year, has_mon, has_mday, has_yday, has_hour, has_gmtoff;
  int32_t year;    /* full year */
  int mon;         /* 0..11 */
  int mday;        /* 1..31 */
  int yday;        /* 0..365 */
  int hour, min, sec;
  int century;     /* %C, -1 when not given */
  int year2;       /* %y, -1 when not given */
  int pm;          /* %p: -1 none, 0 AM, 1 PM */
  bool hour12;     /* the hour came from %I / %l */
  uint32_t usec;
  int32_t gmtoff;  /* seconds east */
  bool has_epoch;  /* %s: epoch holds it */
  int64_t epoch;
} DateFields;

/* Read the local zone's abbreviations, once per process (call at
 * configuration time: tzset() is not for the workers). */
void date_scan_init(void);

/* Check a format at configuration time: NULL when every conversion is
 * one date_scan knows, else a static message naming what is not. */
const char *date_format_check(const char *format);

/* Scan input[0..len) against format; true only when the whole input is
 * taken, with *out filled. */
bool date_scan(const char *format, const char *input, size_t len, DateFields *out);

#endif
