/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Timestamps in RFC 3164 headers: the shapes syslog-ng 3.38 accepts, year
 * guessing, fractions and zones. */
#include "syslog-test.h"
#include "syslog/syslog-internal.h"

#include <stdio.h>

static LogMsg *
parse_at(const char *line, int64_t now)
{
  MsgFormatOptions opts;
  msg_format_options_defaults(&opts);
  return parse_opts_at(&opts, line, strlen(line), now);
}

static LogMsg *
parse_tz(const char *line, const char *zone)
{
  MsgFormatOptions opts;
  msg_format_options_defaults(&opts);
  opts.recv_tz = tz_get(zone, NULL);
  cr_assert_not_null(opts.recv_tz);
  return parse_opts_at(&opts, line, strlen(line), TEST_NOW);
}

Test(syslog_time, bsd_fraction_with_dot_or_comma)
{
  LogMsg *m1 = parse("<13>Oct 11 22:14:15.123 host prog: m");
  assert_stamp(m1, OCT11_221415_2025, 123000, 0);
  LogMsg *m2 = parse("<13>Oct 11 22:14:15,5 host prog: m");
  assert_stamp(m2, OCT11_221415_2025, 500000, 0);
  LogMsg *m3 = parse("<13>Oct 11 22:14:15.123456789 host prog: m");
  assert_stamp(m3, OCT11_221415_2025, 123456, 0);
  assert_value(m3, LM_V_HOST, "host");
  LogMsg *m4 = parse("<13>Oct 11 22:14:15. host prog: m");
  assert_stamp(m4, OCT11_221415_2025, 0, 0);
  assert_value(m4, LM_V_HOST, "host");
  log_msg_unref(m1);
  log_msg_unref(m2);
  log_msg_unref(m3);
  log_msg_unref(m4);
}

Test(syslog_time, month_names_and_padded_day)
{
  /* first letter upper case, the others any case */
  LogMsg *m1 = parse("<13>OCT 11 22:14:15 host prog: m");
  assert_stamp(m1, OCT11_221415_2025, 0, 0);
  LogMsg *m1b = parse("<13>oct 11 22:14:15 host prog: m");
  assert_stamp_is_recvd(m1b);
  assert_value(m1b, LM_V_PROGRAM, "oct");
  log_msg_unref(m1b);
  LogMsg *m2 = parse("<13>Mar  2 10:00:00 host prog: m");
  assert_stamp(m2, 1740909600, 0, 0);
  /* a shape match with a bad month is no timestamp */
  LogMsg *m3 = parse("<13>Foo 11 22:14:15 host prog: m");
  assert_value(m3, LM_V_PROGRAM, "Foo");
  assert_stamp_is_recvd(m3);
  log_msg_unref(m1);
  log_msg_unref(m2);
  log_msg_unref(m3);
}

Test(syslog_time, year_is_guessed_like_syslog_ng)
{
  /* December seen in January: last year */
  LogMsg *m1 = parse_at("<13>Dec 31 23:59:59 host prog: m", 1735689610); /* 2025-01-01 00:00:10 */
  assert_stamp(m1, 1735689599, 0, 0);
  /* January seen in December: next year */
  LogMsg *m2 = parse_at("<13>Jan  1 00:00:10 host prog: m", 1735689540); /* 2024-12-31 23:59:00 */
  assert_stamp(m2, 1735689610, 0, 0);
  /* otherwise this year, even when another year would be nearer */
  LogMsg *m3 = parse_at("<13>Dec 20 10:00:00 host prog: m", 1749945600); /* 2025-06-15 */
  assert_stamp(m3, 1766224800, 0, 0);
  LogMsg *m4 = parse_at("<13>Feb 28 00:00:00 host prog: m", 1764547200); /* 2025-12-01 */
  assert_stamp(m4, 1740700800, 0, 0);
  log_msg_unref(m1);
  log_msg_unref(m2);
  log_msg_unref(m3);
  log_msg_unref(m4);
}

Test(syslog_time, year_guess_uses_the_receiving_zone)
{
  /* 2024-12-31 23:30 UTC is already January 2025 in +02:00, so a June date
   * is June 2025 there (in UTC it would have been June 2024) */
  MsgFormatOptions opts;
  msg_format_options_defaults(&opts);
  opts.recv_tz = tz_get("+02:00", NULL);
  const char *line = "<13>Jun  1 12:00:00 host prog: m";
  LogMsg *m1 = parse_opts_at(&opts, line, strlen(line), 1735687800);
  assert_stamp(m1, 1748779200 - 7200, 0, 7200);
  LogMsg *m2 = parse_at(line, 1735687800);
  assert_stamp(m2, 1748779200 - 365 * 86400, 0, 0);
  log_msg_unref(m1);
  log_msg_unref(m2);
}

Test(syslog_time, iso_in_the_bsd_position)
{
  LogMsg *m1 = parse("<13>2025-03-10T11:00:00.5+02:00 host prog: m");
  assert_stamp(m1, 1741604400 - 7200, 500000, 7200);
  assert_value(m1, LM_V_HOST, "host");
  LogMsg *m2 = parse("<13>2025-03-10 11:00:00 host prog: m");
  assert_stamp(m2, 1741604400, 0, 0);
  LogMsg *m3 = parse("<13>2025-03-10T11:00:00Z: host prog: m");
  assert_stamp(m3, 1741604400, 0, 0);
  assert_value(m3, LM_V_HOST, "host");
  LogMsg *m4 = parse("<13>2025-03-10T11:00:00-03:30 host prog: m");
  assert_stamp(m4, 1741604400 + 12600, 0, -12600);
  /* looks like ISO but is not: no timestamp, and no BSD attempt either */
  LogMsg *m5 = parse("<13>2025-03-1xT11:00:00 host prog: m");
  assert_stamp_is_recvd(m5);
  assert_value(m5, LM_V_PROGRAM, "2025-03-1xT11");
  log_msg_unref(m1);
  log_msg_unref(m2);
  log_msg_unref(m3);
  log_msg_unref(m4);
  log_msg_unref(m5);
}

Test(syslog_time, cisco_pix_and_linksys_years)
{
  LogMsg *m1 = parse("<166>Jun 21 2024 08:15:00: %ASA-6-302013: Built outbound");
  assert_stamp(m1, 1718957700, 0, 0);
  assert_unset(m1, LM_V_HOST);
  assert_value(m1, LM_V_PROGRAM, "%ASA-6-302013");
  LogMsg *m2 = parse("<166>Jun 21 2024 08:15:00 fw01 : %ASA-6-302013: Built");
  assert_stamp(m2, 1718957700, 0, 0);
  assert_value(m2, LM_V_HOST, "fw01");
  LogMsg *m3 = parse("<13>Jun 21 08:15:00 2024 host prog: m");
  assert_stamp(m3, 1718957700, 0, 0);
  assert_value(m3, LM_V_HOST, "host");
  /* a year after a fraction is not LinkSys: it becomes the hostname */
  LogMsg *m4 = parse("<13>Oct 11 22:14:15.123 2025 CET host prog: m");
  assert_stamp(m4, OCT11_221415_2025, 123000, 0);
  assert_value(m4, LM_V_HOST, "2025");
  assert_value(m4, LM_V_PROGRAM, "CET");
  log_msg_unref(m1);
  log_msg_unref(m2);
  log_msg_unref(m3);
  log_msg_unref(m4);
}

Test(syslog_time, zone_less_timestamps_take_the_receiving_zone)
{
  LogMsg *m1 = parse_tz("<13>Oct 11 22:14:15 host prog: m", "+02:00");
  assert_stamp(m1, OCT11_221415_2025 - 7200, 0, 7200);
  LogMsg *m2 = parse_tz("<13>2025-03-10T11:00:00 host prog: m", "Europe/Budapest");
  assert_stamp(m2, 1741604400 - 3600, 0, 3600);
  /* summer time: the offset in force at that timestamp */
  LogMsg *m3 = parse_tz("<13>Jul  1 12:00:00 host prog: m", "Europe/Budapest");
  assert_stamp(m3, 1751371200 - 7200, 0, 7200);
  /* an explicit offset wins */
  LogMsg *m4 = parse_tz("<13>2025-03-10T11:00:00Z host prog: m", "+02:00");
  assert_stamp(m4, 1741604400, 0, 0);
  log_msg_unref(m1);
  log_msg_unref(m2);
  log_msg_unref(m3);
  log_msg_unref(m4);
}

Test(syslog_time, truncated_timestamps_are_no_timestamps)
{
  const char *lines[] = {
    "<13>Oct", "<13>Oct 11", "<13>Oct 11 22:14:1", "<13>2025-03-10T11:00:0", "<13>Oct 11 22:1a:15 h p: m",
  };
  for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
    {
      LogMsg *msg = parse(lines[i]);
      assert_stamp_is_recvd(msg);
      cr_assert_eq(msg->flags & LF_PARSE_ERROR, 0);
      log_msg_unref(msg);
    }
  /* exactly a BSD date and nothing after it */
  LogMsg *msg = parse("<13>Oct 11 22:14:15");
  assert_stamp(msg, OCT11_221415_2025, 0, 0);
  assert_value(msg, LM_V_PROGRAM, "");
  assert_value(msg, LM_V_MESSAGE, "");
  log_msg_unref(msg);
}

/* The per-thread memo of zone offsets must give what tz_local_to_utc()
 * gives, also across DST changes and when zones and times alternate. */
Test(syslog_time, memoised_offsets_match_tz_local_to_utc)
{
  TimeZoneInfo *zones[] = { tz_get("Europe/Budapest", NULL), tz_get("America/St_Johns", NULL), tz_get("UTC", NULL) };
  static const struct
  {
    const char *mon;
    int mon0, mday;
  } days[] = { { "Mar", 2, 30 }, { "Oct", 9, 26 }, { "Nov", 10, 2 }, { "Mar", 2, 9 } };

  for (size_t d = 0; d < sizeof(days) / sizeof(days[0]); d++)
    for (int minute = 0; minute < 5 * 60; minute += 7)
      for (size_t z = 0; z < sizeof(zones) / sizeof(zones[0]); z++)
        {
          char line[64];
          int hour = minute / 60, min = minute % 60, sec = (minute * 13) % 60;
          snprintf(line, sizeof(line), "<13>%s %2d %02d:%02d:%02d host p: m", days[d].mon, days[d].mday, hour, min, sec);
          MsgFormatOptions opts;
          msg_format_options_defaults(&opts);
          opts.recv_tz = zones[z];
          LogMsg *msg = parse_opts_at(&opts, line, strlen(line), TEST_NOW);
          int32_t gmtoff;
          int64_t utc = tz_local_to_utc(zones[z], 2025, days[d].mon0, days[d].mday, hour, min, sec, &gmtoff);
          assert_stamp(msg, utc, 0, gmtoff);
          log_msg_unref(msg);
        }
}

Test(syslog_time, old_timestamps_bypass_the_memo)
{
  MsgFormatOptions opts;
  msg_format_options_defaults(&opts);
  opts.recv_tz = tz_get("Europe/Budapest", NULL);
  const char *lines[] = { "<13>1975-06-01T12:00:00 host p: m", "<13>1899-06-01T12:00:00 host p: m" };
  int32_t years[] = { 1975, 1899 };
  for (int i = 0; i < 2; i++)
    {
      LogMsg *msg = parse_opts_at(&opts, lines[i], strlen(lines[i]), TEST_NOW);
      int32_t gmtoff;
      int64_t utc = tz_local_to_utc(opts.recv_tz, years[i], 5, 1, 12, 0, 0, &gmtoff);
      assert_stamp(msg, utc, 0, gmtoff);
      log_msg_unref(msg);
    }
}

/* _scan_int's rule for a two-character field: leading spaces, then digits,
 * exactly two characters in all ("07", " 7", "  "). */
static bool
field_model(const char *s, int *out)
{
  int i = 0, v = 0;
  while (i < 2 && s[i] == ' ')
    i++;
  while (i < 2 && s[i] >= '0' && s[i] <= '9')
    v = v * 10 + (s[i++] - '0');
  *out = v;
  return i == 2;
}

/* The BSD shape reads its fields in place: every pair of characters in
 * each field position gives what the scanner of other shapes gives. */
Test(syslog_time, bsd_fields_in_place_follow_the_field_rule)
{
  static const char alphabet[] = " 0159a:+-\t";
  static const int at[] = { 4, 7, 10, 13 }; /* mday, hour, min, sec */
  for (size_t f = 0; f < 4; f++)
    for (size_t i = 0; alphabet[i]; i++)
      for (size_t j = 0; alphabet[j]; j++)
        {
          char line[] = "Jan 11 12:34:56 host";
          line[at[f]] = alphabet[i];
          line[at[f] + 1] = alphabet[j];
          const char *p = line;
          SyslogTime t;
          int want;
          bool ok = field_model(line + at[f], &want);
          cr_assert_eq(syslog_scan_rfc3164_time(&p, line + strlen(line), &t), ok, "\"%s\"", line);
          if (!ok)
            continue;
          int got[] = { t.mday, t.hour, t.min, t.sec };
          int plain[] = { 11, 12, 34, 56 };
          for (size_t k = 0; k < 4; k++)
            cr_assert_eq(got[k], k == f ? want : plain[k], "\"%s\" field %zu", line, k);
          cr_assert_eq(t.mon, 0);
          cr_assert_eq(p, line + 15, "\"%s\"", line);
        }
}

/* Every month by name: the first letter as written, the others in any case. */
Test(syslog_time, every_month_name_in_each_case)
{
  static const char *names[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                 "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
  for (int m = 0; m < 12; m++)
    for (int form = 0; form < 4; form++)
      {
        char line[] = "Xxx 11 12:34:56 host";
        for (int k = 0; k < 3; k++)
          {
            char c = names[m][k];
            if (form == 1 && k > 0)
              c = (char) (c - 32); /* "JAN" */
            if (form == 2 && k == 2)
              c = (char) (c - 32); /* "JaN" */
            if (form == 3 && k == 0)
              c = (char) (c + 32); /* "jan": refused */
            line[k] = c;
          }
        const char *p = line;
        SyslogTime t;
        bool ok = syslog_scan_rfc3164_time(&p, line + strlen(line), &t);
        cr_assert_eq(ok, form != 3, "\"%s\"", line);
        if (ok)
          cr_assert_eq(t.mon, m, "\"%s\"", line);
      }
}
