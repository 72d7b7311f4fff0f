/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * date-parser(): the conversions, what a format leaves out, zones,
 * guess-timezone, time-stamp(), and configuration errors.  Expected values
 * are syslog-ng 3.38's for the same input where it and Sluice agree
 * (tests/functional/processing compares the two); the suite runs with
 * TZ=UTC (tests/meson.build).
 */
#include "../parser-test.h"

#include "timestamp/timestamp.h"

static const LogDriverFactory *F = &date_parser_factory;

/* Parse text with a date-parser built from args; true when it took it,
 * with the stamp it set in *out. */
static bool
_parse_at(const char *args, const char *text, int64_t recvd, int which, LogStamp *out)
{
  char *conf = g_strdup_printf("parser p { date-parser(%s); };", args);
  LogProcessor *p = pt_new(F, conf);
  g_free(conf);
  LogMsg *msg = pt_msg_text(text, -1);
  msg->stamps[LM_TS_RECVD].sec = recvd;
  bool ok = pt_run(p, &msg);
  *out = msg->stamps[which];
  log_msg_unref(msg);
  pt_free(p);
  return ok;
}

static bool
_parse(const char *args, const char *text, LogStamp *out)
{
  return _parse_at(args, text, PT_RECVD_SEC, LM_TS_STAMP, out);
}

#define assert_stamp(args, text, want_sec, want_usec, want_off)                                                  \
  do                                                                                                          \
    {                                                                                                         \
      LogStamp s_;                                                                                            \
      cr_assert(_parse((args), (text), &s_), "%s did not take '%s'", (args), (text));                           \
      cr_assert(s_.sec == (want_sec) && s_.usec == (want_usec) && s_.gmtoff == (want_off),                    \
                "%s on '%s': %lld.%06u %+d, want %lld.%06u %+d", (args), (text), (long long) s_.sec, s_.usec, \
                s_.gmtoff, (long long) (want_sec), (unsigned) (want_usec), (int) (want_off));                 \
    }                                                                                                         \
  while (0)

#define assert_refused(args, text)                                                                            \
  do                                                                                                          \
    {                                                                                                         \
      LogStamp s_;                                                                                            \
      cr_assert_not(_parse((args), (text), &s_), "%s took '%s'", (args), (text));                              \
    }                                                                                                         \
  while (0)

#define T0 1763805600 /* 2025-11-22T10:00:00Z, also the reception time */

Test(date_parser, default_format_and_offsets)
{
  assert_stamp("", "2025-11-22T10:00:00+01:00", T0 - 3600, 0, 3600);
  assert_stamp("", "2025-11-22T10:00:00Z", T0, 0, 0);
  assert_stamp("", "2025-11-22T10:00:00+0530", T0 - 19800, 0, 19800);
  assert_stamp("", "2025-11-22T10:00:00+05", T0 - 18000, 0, 18000);
  assert_stamp("", "2025-11-22T10:00:00-00:30", T0 + 1800, 0, -1800);
  assert_refused("", "2025-11-22T10:00:00");
  assert_refused("", "2025-11-22T10:00:00+01:00 trailing");
  assert_refused("", "2025-11-22T10:00:00+1");
  assert_refused("", "2025-11-22T10:00:00+01:");
  assert_refused("", "2025-11-22T10:00:00+0199");
  assert_refused("", " 2025-11-22T10:00:00Z");
  assert_refused("", "");
}

Test(date_parser, zone_names)
{
  const char *fmt = "format('%F %T %Z')";
  assert_stamp(fmt, "2025-11-22 10:00:00 GMT", T0, 0, 0);
  assert_stamp(fmt, "2025-11-22 10:00:00 UT", T0, 0, 0);
  assert_stamp(fmt, "2025-11-22 10:00:00 Z", T0, 0, 0);
  assert_stamp(fmt, "2025-11-22 10:00:00 EST", T0 + 5 * 3600, 0, -5 * 3600);
  assert_stamp(fmt, "2025-11-22 10:00:00 PDT", T0 + 7 * 3600, 0, -7 * 3600);
  assert_stamp(fmt, "2025-11-22 10:00:00 A", T0 + 3600, 0, -3600);
  assert_stamp(fmt, "2025-11-22 10:00:00 M", T0 + 12 * 3600, 0, -12 * 3600);
  assert_stamp(fmt, "2025-11-22 10:00:00 N", T0 - 3600, 0, 3600);
  assert_stamp(fmt, "2025-11-22 10:00:00 Y", T0 - 12 * 3600, 0, 12 * 3600);
  assert_stamp(fmt, "2025-11-22 10:00:00 utc", T0, 0, 0); /* the local zone's own name, any case */
  assert_stamp(fmt, "2025-11-22 10:00:00", T0, 0, 0);     /* %Z may take nothing */
  assert_refused(fmt, "2025-11-22 10:00:00 UTC");         /* UT, then a C nothing takes */
  assert_refused(fmt, "2025-11-22 10:00:00 J");
  assert_refused(fmt, "2025-11-22 10:00:00 CET");
  assert_refused(fmt, "2025-11-22 10:00:00 Europe/Budapest");
  assert_stamp("format('%FT%T%zx')", "2025-11-22T10:00:00Zx", T0, 0, 0);
  assert_refused("format('%F %T %z')", "2025-11-22 10:00:00");
}

Test(date_parser, epoch_and_fractions)
{
  assert_stamp("format('%s')", "1763805600", T0, 0, 0);
  assert_stamp("format('%s.%f')", "1763805600.5", T0, 500000, 0);
  assert_stamp("format('%s.%f')", "1763805600.1234567891", T0, 123456, 0);
  assert_refused("format('%s.%f')", "1763805600.");
  assert_refused("format('%s')", "-1");
  assert_refused("format('%s')", "+1763805600");
  assert_refused("format('%s')", "99999999999999999999999");
  assert_refused("format('%s')", "9223372036854775000"); /* would overflow the calendar */
  assert_stamp("format('%s')", "99999999999", 99999999999LL, 0, 0);
  /* %s is the local wall clock; a %z after it reinterprets that */
  assert_stamp("format('%s%z')", "1763805600+0100", T0 - 3600, 0, 3600);
  /* and time-zone() does not apply to it */
  assert_stamp("format('%s') time-zone('+02:00')", "1763805600", T0, 0, 0);
}

Test(date_parser, conversions)
{
  assert_stamp("format('%d/%b/%Y:%H:%M:%S %z')", "22/Nov/2025:10:00:00 -0800", T0 + 8 * 3600, 0, -8 * 3600);
  assert_stamp("format('%a, %d %b %Y %T %z')", "Sat, 22 Nov 2025 10:00:00 +0100", T0 - 3600, 0, 3600);
  assert_stamp("format('%D %r')", "11/22/25 01:02:03 PM", T0 + 3 * 3600 + 123, 0, 0);
  assert_stamp("format('%D %r')", "11/22/25 12:02:03 AM", T0 - 10 * 3600 + 123, 0, 0);
  assert_stamp("format('%j %Y %H')", "326 2025 13", T0 + 3 * 3600, 0, 0);
  assert_stamp("format('%Y%m%d%H%M%S')", "20251122100000", T0, 0, 0);
  assert_stamp("format('%e-%B-%y %I%p')", "22-November-25 10am", T0, 0, 0);
  assert_stamp("format('%c')", "Sat Nov 22 10:00:00 2025", T0, 0, 0);
  assert_stamp("format('%F%n%T%%')", "2025-11-22 \t 10:00:00%", T0, 0, 0);
  assert_stamp("format('%C%y-%m-%d %k:%M')", "2025-11-22  10:00", T0, 0, 0);
  assert_stamp("format('%F %T')", "2025-7-1 2:03:04", 1751335384, 0, 0);
  assert_stamp("format('%b %d %H:%M:%S')", "NOVEMBER 22 10:00:00", T0, 0, 0);
  assert_stamp("format('%b %d %H:%M:%S')", "nov 22 10:00:00", T0, 0, 0);
  assert_stamp("format('%A %F %R')", "saturday 2025-11-22 10:00", T0, 0, 0);
  assert_stamp("format('%y')", "69", -31536000, 0, 0);        /* 1969 */
  assert_stamp("format('%y')", "68", 3092601600LL, 0, 0);     /* 2068 */
  assert_stamp("format('%Ey %OH')", "25 10", 1735725600, 0, 0); /* modifiers are skipped */
  assert_refused("format('%F %T')", "2025-11-22 25:00:00");
  assert_refused("format('%F %T')", "2025-13-01 00:00:00");
  assert_refused("format('%F %T')", "2025-00-01 00:00:00");
  assert_refused("format('%F %T')", "2025-01-32 00:00:00");
  assert_refused("format('%F %T')", "2025-01-01 00:00:62");
  assert_refused("format('%F %T')", "12345-01-01 00:00:00");
  assert_refused("format('%p')", "XM");
}

Test(date_parser, normalisation)
{
  assert_stamp("format('%F %T')", "2025-02-30 10:00:00", 1740909600, 0, 0); /* March 2 */
  assert_stamp("format('%F %T')", "2025-11-22 10:00:60", T0 + 60, 0, 0);
  assert_stamp("format('%F %T')", "2025-02-29 00:00:61", 1740787261, 0, 0); /* March 1 00:01:01 */
}

Test(date_parser, what_a_format_leaves_out)
{
  LogStamp s;
  /* no year: this year, but December seen in January is last year's and
   * January seen in December next year's */
  assert_stamp("format('%b %d %H:%M:%S')", "Oct 11 22:14:15", 1760220855, 0, 0);
  assert_stamp("format('%b %d %H:%M:%S')", "Jan  1 00:00:01", 1735689601, 0, 0);
  int64_t jan5_2026 = 1767571200;
  cr_assert(_parse_at("format('%b %d %H:%M:%S')", "Dec 31 23:59:59", jan5_2026, LM_TS_STAMP, &s));
  cr_assert_eq(s.sec, 1767225599); /* 2025-12-31T23:59:59 */
  int64_t dec20_2025 = 1766188800;
  cr_assert(_parse_at("format('%b %d %H:%M:%S')", "Jan  2 00:00:00", dec20_2025, LM_TS_STAMP, &s));
  cr_assert_eq(s.sec, 1767312000); /* 2026-01-02 */
  /* no date: the reception day; no time: midnight; a year alone: Jan 1 */
  assert_stamp("format('%H:%M:%S')", "12:34:56", T0 + 2 * 3600 + 34 * 60 + 56, 0, 0);
  assert_stamp("format('%H')", "13", T0 + 3 * 3600, 0, 0);
  assert_stamp("format('%F')", "2025-11-22", T0 - 10 * 3600, 0, 0);
  assert_stamp("format('%Y')", "2025", 1735689600, 0, 0);
  assert_stamp("format('%m/%d')", "11/22", T0 - 10 * 3600, 0, 0);
}

Test(date_parser, zones_lists_and_template)
{
  assert_stamp("time-zone('Asia/Kolkata') format('%F %T')", "2025-11-22 10:00:00", T0 - 19800, 0, 19800);
  /* the zone's offset at that time (syslog-ng 3.38: the offset now) */
  assert_stamp("time-zone('Europe/Budapest') format('%F %T')", "2025-07-01 10:00:00", 1751356800, 0, 7200);
  assert_stamp("time-zone('Europe/Budapest') format('%F %T')", "2025-11-22 10:00:00", T0 - 3600, 0, 3600);
  assert_stamp("time-zone('+03:00') format('%F %T %z')", "2025-11-22 10:00:00 Z", T0, 0, 0);
  const char *list = "format('%F %T' '%b %e %Y %T' '%s')";
  assert_stamp(list, "Nov 22 2025 10:00:00", T0, 0, 0);
  assert_stamp(list, "1763805600", T0, 0, 0);
  assert_refused(list, "yesterday");
  LogStamp s;
  cr_assert(_parse("template('${MSG}Z') format('%FT%T%z')", "2025-11-22T10:00:00", &s));
  cr_assert_eq(s.sec, T0);
}

Test(date_parser, time_stamp_recvd)
{
  LogProcessor *p = pt_new(F, "parser p { date-parser(time-stamp(recvd) format('%F %T')); };");
  LogMsg *msg = pt_msg_text("2025-01-01 00:00:00", -1);
  msg->stamps[LM_TS_STAMP].sec = 42;
  cr_assert(pt_run(p, &msg));
  cr_assert_eq(msg->stamps[LM_TS_RECVD].sec, 1735689600);
  cr_assert_eq(msg->stamps[LM_TS_STAMP].sec, 42);
  log_msg_unref(msg);
  pt_free(p);
}

Test(date_parser, guess_timezone)
{
  const char *args = "flags(guess-timezone) format('%F %T')";
  assert_stamp(args, "2025-11-22 13:00:20", T0 + 20, 0, 3 * 3600);
  assert_stamp(args, "2025-11-22 07:29:31", T0 - 29, 0, -(2 * 3600 + 30 * 60));
  assert_stamp(args, "2025-11-22 15:45:00", T0, 0, 5 * 3600 + 45 * 60);
  /* more than 30 seconds from a quarter: not now anywhere, the zone decides */
  assert_stamp(args, "2025-11-22 13:00:40", T0 + 3 * 3600 + 40, 0, 0);
  /* an offset no zone has */
  assert_stamp(args, "2025-11-21 10:00:00", T0 - 86400, 0, 0);
  /* a zone in the input wins */
  assert_stamp("flags(guess-timezone) format('%F %T %z')", "2025-11-22 13:00:00 +01:00", T0 + 2 * 3600, 0, 3600);
}

Test(date_parser, no_match_leaves_the_message_alone)
{
  LogProcessor *p = pt_new(F, "parser p { date-parser(); };");
  LogMsg *msg = pt_msg_text("not a date", -1);
  LogMsg *before = msg;
  LogStamp stamp = msg->stamps[LM_TS_STAMP];
  cr_assert_not(pt_run(p, &msg));
  cr_assert_eq(msg, before);
  cr_assert_eq(msg->stamps[LM_TS_STAMP].sec, stamp.sec);
  log_msg_unref(msg);

  LogMsg *orig = pt_msg_text("2025-11-22T10:00:00+01:00", -1);
  msg = log_msg_ref(orig);
  cr_assert(pt_run(p, &msg));
  cr_assert_neq(msg, orig, "a shared message is copied");
  cr_assert_eq(orig->stamps[LM_TS_STAMP].sec, PT_RECVD_SEC);
  log_msg_unref(msg);
  log_msg_unref(orig);
  pt_free(p);
}

Test(date_parser, any_bytes_against_every_conversion)
{
  LogProcessor *p = pt_new(F, "parser p { date-parser(format('%c' '%D %r %Z' '%j %C%y %z' '%s.%f' '%e%B%k%l%p'"
                              " '%a%A%h%n%t%x%X%R%T%w%u%%')); };");
  GRand *r = g_rand_new_with_seed(7);
  static const char alphabet[] = "0123456789 +-:./%ZAPMJanNovSatESTGMTUT\t\xff";
  for (int i = 0; i < 20000; i++)
    {
      char buf[40];
      int n = g_rand_int_range(r, 0, sizeof(buf));
      for (int j = 0; j < n; j++)
        buf[j] = alphabet[g_rand_int_range(r, 0, sizeof(alphabet) - 1)];
      LogMsg *msg = pt_msg_text(buf, n);
      pt_run(p, &msg);
      log_msg_unref(msg);
    }
  g_rand_free(r);
  pt_free(p);
}

Test(date_parser, configuration_errors)
{
  pt_assert_error(F, "parser p { date-parser(format('%U %Y')); };", "week-number");
  pt_assert_error(F, "parser p { date-parser(format('%Q')); };", "conversion");
  pt_assert_error(F, "parser p { date-parser(format('%F %')); };", "lone '%'");
  pt_assert_error(F, "parser p { date-parser(time-zone('Nowhere/Nothing')); };", "time zone");
  pt_assert_error(F, "parser p { date-parser(time-stamp(processed)); };", "processed");
  pt_assert_error(F, "parser p { date-parser(flags(foo)); };", "foo");
  pt_assert_error(F, "parser p { date-parser(value('x')); };", "value");
  pt_assert_error(F, "parser p { date-parser(template('$(nosuch)')); };", "bad template");
}
