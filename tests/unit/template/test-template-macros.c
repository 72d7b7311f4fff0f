/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Macros beyond the oracle corpus: the R_/S_/P_/C_ stamps, the message
 * fields sources set (SEQNUM, RCPTID, TAGS, SOURCEIP), the date cache
 * against strftime over many seconds and zones, and output-format edges
 * (MSGHDR without PROGRAM, SD name escaping, frame lengths).
 */
#include "template-test.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static LogMsg *
sample(void)
{
  /* STAMP 2025-03-10 11:58:01 UTC, received at TEST_NOW.250000 */
  return test_parse("<38>Mar 10 11:58:01 web01 sshd[2345]: hello world");
}

Test(template_macros, stamp_prefixes)
{
  LogMsg *msg = sample();
  msg->stamps[LM_TS_PROCESSED] = (LogStamp) { .sec = TEST_NOW + 3600 * 24 * 40, .usec = 7, .gmtoff = 3600 };
  assert_format("$DATE|$S_DATE|$R_DATE|$P_DATE", msg, NULL, "Mar 10 11:58:01|Mar 10 11:58:01|Mar 10 12:00:00|Apr 19 13:00:00");
  assert_format("$R_USEC|$R_MSEC|$P_USEC|${R_ISODATE}|$P_TZ", msg, NULL,
                "250000|250|000007|2025-03-10T12:00:00+00:00|+01:00");
  assert_format("$R_YEAR-$R_MONTH-$R_DAY $R_HOUR:$R_MIN:$R_SEC $R_WEEKDAY $R_UNIXTIME", msg, NULL,
                "2025-03-10 12:00:00 Mon 1741608000");
  LogTemplateOptions o;
  log_template_options_defaults(&o);
  o.frac_digits = 3;
  assert_format("$R_STAMP|$R_UNIXTIME", msg, &o, "Mar 10 12:00:00.250|1741608000.250");
  log_msg_unref(msg);
}

Test(template_macros, current_time)
{
  LogMsg *msg = sample();
  /* the clock the macro reads: time() is the coarse one, which may still
   * say the last second when CLOCK_REALTIME has moved on */
  time_t before = (time_t) (g_get_real_time() / G_USEC_PER_SEC);
  char *got = test_format("$C_UNIXTIME", msg, NULL);
  time_t after = (time_t) (g_get_real_time() / G_USEC_PER_SEC);
  long long now = atoll(got);
  cr_assert(now >= before && now <= after, "C_UNIXTIME %s not in [%lld, %lld]", got, (long long) before,
            (long long) after);
  g_free(got);
  struct tm tm;
  time_t t = time(NULL);
  gmtime_r(&t, &tm); /* TZ=UTC in the test environment */
  char expect[16];
  snprintf(expect, sizeof(expect), "%04d", tm.tm_year + 1900);
  got = test_format("$C_YEAR", msg, NULL);
  cr_assert_str_eq(got, expect);
  g_free(got);
  log_msg_unref(msg);
}

Test(template_macros, source_fields)
{
  LogMsg *msg = sample();
  assert_format("[$SEQNUM][$RCPTID][$TAGS]", msg, NULL, "[][][]");
  msg->seqnum = 42;
  msg->rcptid = 1234567890123ull;
  log_msg_set_tag(msg, log_tags_get_by_name(".source.s_net"));
  log_msg_set_tag(msg, log_tags_get_by_name("second"));
  log_msg_set_value(msg, LM_V_TRANSPORT, "rfc3164+tcp", -1);
  log_msg_set_value(msg, LM_V_SOURCE, "s_net", -1);
  assert_format("[$SEQNUM][$RCPTID][$TAGS][$TRANSPORT][$SOURCE]", msg, NULL,
                "[42][1234567890123][.source.s_net,second][rfc3164+tcp][s_net]");
  msg->saddr.family = AF_INET6;
  inet_pton(AF_INET6, "2001:db8::1", msg->saddr.addr);
  assert_format("$SOURCEIP", msg, NULL, "2001:db8::1");
  /* a message with no IP peer (stdin, unix sockets, internal): 127.0.0.1,
   * as syslog-ng 3.38 says */
  msg->saddr.family = 0;
  assert_format("[$SOURCEIP]", msg, NULL, "[127.0.0.1]");
  msg->saddr.family = AF_UNIX;
  assert_format("[$SOURCEIP]", msg, NULL, "[127.0.0.1]");
  char host[256] = "";
  gethostname(host, sizeof(host));
  char *dot = strchr(host, '.');
  if (dot)
    *dot = '\0';
  assert_format("$LOGHOST", msg, NULL, host);
  /* chain-hostnames: HOST is the first of the chain, FULLHOST all of it
   * (syslog-ng 3.38: "H=h1 F=h1/127.0.0.1"); the file line has it all.
   * A '/' in a HOST that is not a chain stays (a path "${HOST}/x"). */
  log_msg_set_value(msg, LM_V_HOST, "h1/127.0.0.1", -1);
  assert_format("H=$HOST F=$FULLHOST", msg, NULL, "H=h1/127.0.0.1 F=h1/127.0.0.1");
  msg->flags |= LF_CHAINED_HOSTNAME;
  assert_format("H=$HOST F=$FULLHOST H=${HOST}", msg, NULL, "H=h1 F=h1/127.0.0.1 H=h1");
  log_msg_set_value(msg, LM_V_HOST, "s_local@h2", -1);
  assert_format("$HOST|$FULLHOST", msg, NULL, "h2|s_local@h2");
  log_msg_set_value(msg, LM_V_HOST, "", 0);
  assert_format("[$HOST]", msg, NULL, "[]");
  log_msg_unref(msg);
}

Test(template_macros, priority_macros)
{
  LogMsg *msg = sample();
  msg->pri = 191; /* local7.debug */
  assert_format("$PRI $FACILITY $FACILITY_NUM $LEVEL $LEVEL_NUM $SEVERITY_NUM $TAG $BSDTAG", msg, NULL,
                "191 local7 23 debug 7 7 bf 7X");
  msg->pri = 0;
  assert_format("$PRI $FACILITY $PRIORITY $TAG $BSDTAG", msg, NULL, "0 kern emerg 00 0A");
  /* facilities without a name: hex, as syslog-ng 3.38 writes them */
  msg->pri = 250;
  assert_format("$FACILITY $FACILITY_NUM", msg, NULL, "1f 31");
  log_msg_unref(msg);
}

Test(template_macros, msghdr)
{
  LogMsg *msg = sample();
  assert_format("[$MSGHDR]", msg, NULL, "[sshd[2345]: ]");
  log_msg_unset_value(msg, LM_V_LEGACY_MSGHDR);
  assert_format("[$MSGHDR]", msg, NULL, "[sshd[2345]: ]");
  log_msg_unset_value(msg, LM_V_PID);
  assert_format("[$MSGHDR]", msg, NULL, "[sshd: ]");
  log_msg_unset_value(msg, LM_V_PROGRAM);
  log_msg_set_value(msg, LM_V_PID, "1", -1);
  assert_format("[$MSGHDR]", msg, NULL, "[]");
  log_msg_set_value(msg, LM_V_LEGACY_MSGHDR, "raw:", -1);
  assert_format("[$MSGHDR]", msg, NULL, "[raw:]");
  log_msg_unref(msg);
}

/* ---- dates against strftime ------------------------------------------------ */

static void
check_second(int64_t sec, int32_t gmtoff)
{
  LogMsg *msg = sample();
  msg->stamps[LM_TS_STAMP] = (LogStamp) { .sec = sec, .usec = 654321, .gmtoff = gmtoff };
  time_t shifted = (time_t) (sec + gmtoff);
  struct tm tm;
  gmtime_r(&shifted, &tm);
  char expect[256], ofs[16];
  int a = gmtoff < 0 ? -gmtoff : gmtoff;
  snprintf(ofs, sizeof(ofs), "%c%02d:%02d", gmtoff < 0 ? '-' : '+', a / 3600, a % 3600 / 60);
  char part[160];
  strftime(part, sizeof(part), "%Y-%m-%dT%H:%M:%S|%b %e %H:%M:%S|%Y %b %e %H:%M:%S|%Y|%m|%B|%b|%d|%H|%I|%M|%S|%p|%a|%A|%W|%V|%j",
           &tm);
  snprintf(expect, sizeof(expect), "%s|%s|%lld|%d|%d", part, ofs, (long long) sec, tm.tm_wday + 1,
           (tm.tm_mday / 7) + (tm.tm_wday > 0 && tm.tm_mday % 7 >= tm.tm_wday));
  /* ISODATE carries the offset at its end, the rest here */
  char *got = test_format("${ISODATE}|$DATE|$FULLDATE|$YEAR|$MONTH|$MONTH_NAME|$MONTH_ABBREV|$DAY|$HOUR|$HOUR12|$MIN|"
                          "$SEC|$AMPM|$WEEKDAY|$WEEK_DAY_NAME|$WEEK|$ISOWEEK|$YEAR_DAY|$TZOFFSET|$UNIXTIME|$WEEK_DAY|"
                          "$MONTH_WEEK",
                          msg, NULL);
  char *want = g_strdup(expect);
  /* strftime has no ISO offset: splice it after the ISO date */
  char *bar = strchr(want, '|');
  char *fixed = g_strdup_printf("%.*s%s%s", (int) (bar - want), want, ofs, bar);
  cr_assert_str_eq(got, fixed, "sec %lld gmtoff %d", (long long) sec, gmtoff);
  g_free(fixed);
  g_free(want);
  g_free(got);
  log_msg_unref(msg);
}

Test(template_macros, dates_match_strftime)
{
  static const int32_t offsets[] = { 0, 3600, -18000, 19800, -34200, 45900, 50400 };
  /* every day of 2024-2028 at a pseudo-random time, in several offsets:
   * covers leap years, ISO week 53 and year boundaries */
  uint64_t x = 88172645463325252ull;
  for (int64_t day = 0; day < 5 * 366; day++)
    {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      int64_t sec = 1704067200 + day * 86400 + (int64_t) (x % 86400);
      check_second(sec, offsets[day % G_N_ELEMENTS(offsets)]);
    }
  check_second(0, 0);
  check_second(951782400, 0); /* 2000-02-29 */
  check_second(4102444799, 0); /* 2099-12-31 23:59:59 */
}

Test(template_macros, ts_format_frac_zone_matrix)
{
  LogMsg *msg = sample();
  msg->stamps[LM_TS_STAMP] = (LogStamp) { .sec = 1741607881, .usec = 987654, .gmtoff = 0 };
  static const struct
  {
    LogTimestampFormat fmt;
    int frac;
    const char *tz;
    const char *expect;
  } m[] = {
    { LTZ_FORMAT_RFC3164, 0, NULL, "Mar 10 11:58:01" },
    { LTZ_FORMAT_RFC3164, 1, "+05:45", "Mar 10 17:43:01.9" },
    { LTZ_FORMAT_RFC3339, 0, NULL, "2025-03-10T11:58:01+00:00" },
    { LTZ_FORMAT_RFC3339, 6, "Europe/Budapest", "2025-03-10T12:58:01.987654+01:00" },
    { LTZ_FORMAT_RFC3339, 2, "America/New_York", "2025-03-10T07:58:01.98-04:00" },
    { LTZ_FORMAT_FULL, 3, "Asia/Tokyo", "2025 Mar 10 20:58:01.987" },
    { LTZ_FORMAT_UNIX, 0, "Asia/Tokyo", "1741607881" },
    { LTZ_FORMAT_UNIX, 5, NULL, "1741607881.98765" },
    { LTZ_FORMAT_RFC3339, 4, "-00:30", "2025-03-10T11:28:01.9876-00:30" },
  };
  for (size_t i = 0; i < G_N_ELEMENTS(m); i++)
    {
      LogTemplateOptions o;
      log_template_options_defaults(&o);
      o.ts_format = m[i].fmt;
      o.frac_digits = m[i].frac;
      o.send_tz = m[i].tz ? tz_get(m[i].tz, NULL) : NULL;
      assert_format("$STAMP", msg, &o, m[i].expect);
      GString *line = g_string_new(NULL);
      log_format_file_line(msg, &o, line);
      char *want = g_strdup_printf("%s web01 sshd[2345]: hello world\n", m[i].expect);
      cr_assert_str_eq(line->str, want);
      g_free(want);
      g_string_free(line, TRUE);
    }
  log_msg_unref(msg);
}

Test(template_macros, dst_change_in_send_zone)
{
  LogMsg *msg = sample();
  LogTemplateOptions o;
  log_template_options_defaults(&o);
  o.send_tz = tz_get("Europe/Budapest", NULL);
  o.ts_format = LTZ_FORMAT_RFC3339;
  /* 2025-03-30 00:59:59 and 01:00:00 UTC: CET ends at 02:00 local */
  msg->stamps[LM_TS_STAMP] = (LogStamp) { .sec = 1743296399, .usec = 0, .gmtoff = 0 };
  assert_format("$STAMP", msg, &o, "2025-03-30T01:59:59+01:00");
  msg->stamps[LM_TS_STAMP].sec++;
  assert_format("$STAMP", msg, &o, "2025-03-30T03:00:00+02:00");
  /* and back: the cache must not keep the old second's rendering */
  msg->stamps[LM_TS_STAMP].sec--;
  assert_format("$STAMP", msg, &o, "2025-03-30T01:59:59+01:00");
  log_msg_unref(msg);
}

/* ---- output-format edges ---------------------------------------------------- */

Test(template_macros, rfc5424_frame_edges)
{
  LogMsg *msg = log_msg_new(256);
  msg->pri = 13;
  msg->stamps[LM_TS_STAMP] = (LogStamp) { .sec = 1741607881, .usec = 0, .gmtoff = 0 };
  GString *out = g_string_new(NULL);
  log_format_rfc5424_frame(msg, NULL, out);
  cr_assert_str_eq(out->str, "43 <13>1 2025-03-10T11:58:01+00:00 - - - - - \n");

  /* names that SD cannot carry are %-escaped, values are \-escaped */
  log_msg_set_value_by_name(msg, ".SDATA.a b.c=d", "x]\"\\y", -1);
  log_msg_set_value_by_name(msg, ".SDATA.plain", "ignored: element only", -1);
  msg->flags |= LF_UTF8;
  log_msg_set_value(msg, LM_V_MESSAGE, "m", -1);
  g_string_truncate(out, 0);
  log_format_rfc5424_frame(msg, NULL, out);
  const char *body = "<13>1 2025-03-10T11:58:01+00:00 - - - - [a%20b c%3Dd=\"x\\]\\\"\\\\y\"][plain] \xEF\xBB\xBFm\n";
  char *want = g_strdup_printf("%zu %s", strlen(body), body);
  cr_assert_str_eq(out->str, want);
  g_free(want);

  /* a body of 10+ bytes per digit: the length prefix grows without gaps */
  GString *big = g_string_new(NULL);
  for (int i = 0; i < 2000; i++)
    g_string_append_c(big, (char) ('a' + i % 26));
  log_msg_set_value(msg, LM_V_MESSAGE, big->str, (ssize_t) big->len);
  g_string_assign(out, "prefix");
  log_format_rfc5424_frame(msg, NULL, out);
  cr_assert(g_str_has_prefix(out->str, "prefix"));
  char *sp = strchr(out->str + 6, ' ');
  size_t n = strtoul(out->str + 6, NULL, 10);
  cr_assert_eq(n, strlen(sp + 1), "LEN %zu, body %zu", n, strlen(sp + 1));
  cr_assert(g_str_has_suffix(out->str, "xyz\n") || g_str_has_suffix(out->str, "\n"));
  g_string_free(big, TRUE);
  g_string_free(out, TRUE);
  log_msg_unref(msg);
}

Test(template_macros, rfc3164_line_and_file_line_append)
{
  LogMsg *msg = sample();
  GString *out = g_string_new("x");
  log_format_rfc3164_line(msg, NULL, out);
  log_format_file_line(msg, NULL, out);
  cr_assert_str_eq(out->str, "x<38>Mar 10 11:58:01 web01 sshd[2345]: hello world\n"
                             "Mar 10 11:58:01 web01 sshd[2345]: hello world\n");
  g_string_free(out, TRUE);
  log_msg_unref(msg);
}
