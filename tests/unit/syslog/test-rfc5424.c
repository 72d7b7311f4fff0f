/* SPDX-License-Identifier: GPL-2.0-or-later */
/* RFC 5424 (flags(syslog-protocol)) as syslog-ng 3.38 parses it. */
#include "syslog-test.h"

#include <stdio.h>
#include <stdlib.h>

#define P5424(line) parse_flags((line), MF_SYSLOG_PROTOCOL)

Test(rfc5424, rfc_example_1_bom_and_nil_procid)
{
  LogMsg *msg = P5424("<34>1 2003-10-11T22:14:15.003Z mymachine.example.com su - ID47 - "
                      "\xEF\xBB\xBF'su root' failed for lonvick on /dev/pts/8");
  cr_assert_eq(msg->pri, 34);
  assert_value(msg, LM_V_HOST, "mymachine.example.com");
  assert_value(msg, LM_V_PROGRAM, "su");
  assert_unset(msg, LM_V_PID);
  assert_value(msg, LM_V_MSGID, "ID47");
  assert_value(msg, LM_V_MESSAGE, "'su root' failed for lonvick on /dev/pts/8");
  assert_unset(msg, LM_V_LEGACY_MSGHDR);
  assert_stamp(msg, 1065910455, 3000, 0);
  cr_assert(msg->flags & LF_UTF8);
  cr_assert(msg->flags & LF_RFC5424);
  cr_assert_eq(msg->sdata_count, 0);
  log_msg_unref(msg);
}

Test(rfc5424, rfc_example_2_offset_and_microseconds)
{
  LogMsg *msg = P5424("<165>1 2003-08-24T05:14:15.000003-07:00 192.0.2.1 myproc 8710 - - %% It's time to make the "
                      "do-nuts.");
  assert_value(msg, LM_V_HOST, "192.0.2.1");
  assert_value(msg, LM_V_PROGRAM, "myproc");
  assert_value(msg, LM_V_PID, "8710");
  assert_unset(msg, LM_V_MSGID);
  assert_value(msg, LM_V_MESSAGE, "%% It's time to make the do-nuts.");
  assert_stamp(msg, 1061702055 + 7 * 3600, 3, -7 * 3600);
  cr_assert_eq(msg->flags & LF_UTF8, 0);
  log_msg_unref(msg);
}

Test(rfc5424, rfc_example_3_structured_data)
{
  LogMsg *msg = P5424("<165>1 2003-10-11T22:14:15.003Z mymachine.example.com evntslog - ID47 [exampleSDID@32473 "
                      "iut=\"3\" eventSource=\"Application\" eventID=\"1011\"] \xEF\xBB\xBF"
                      "An application event log entry...");
  assert_sd(msg, ".SDATA.exampleSDID@32473.iut", "3");
  assert_sd(msg, ".SDATA.exampleSDID@32473.eventSource", "Application");
  assert_sd(msg, ".SDATA.exampleSDID@32473.eventID", "1011");
  cr_assert_eq(msg->sdata_count, 3);
  assert_value(msg, LM_V_MESSAGE, "An application event log entry...");
  log_msg_unref(msg);
}

Test(rfc5424, rfc_example_4_two_elements_and_no_message)
{
  LogMsg *msg = P5424("<165>1 2003-10-11T22:14:15.003Z mymachine.example.com evntslog - ID47 [exampleSDID@32473 "
                      "iut=\"3\" eventSource=\"Application\" eventID=\"1011\"][examplePriority@32473 class=\"high\"]");
  assert_sd(msg, ".SDATA.examplePriority@32473.class", "high");
  cr_assert_eq(msg->sdata_count, 4);
  assert_unset(msg, LM_V_MESSAGE);
  cr_assert_eq(msg->flags & LF_PARSE_ERROR, 0);
  log_msg_unref(msg);
}

Test(rfc5424, sd_values_are_unescaped)
{
  LogMsg *msg = P5424("<13>1 2025-03-10T11:00:00Z h a - - [x q=\"a\\\"b\\\\c\\]d\\ne\" plain=\"v\"] m");
  assert_sd(msg, ".SDATA.x.q", "a\"b\\c]d\\ne");
  assert_sd(msg, ".SDATA.x.plain", "v");
  log_msg_unref(msg);
}

Test(rfc5424, sd_element_without_params_and_repeated_elements)
{
  LogMsg *msg = P5424("<13>1 2025-03-10T11:00:00Z h a - - [flag][a x=\"1\"][a x=\"2\" y=\"\"] m");
  NVHandle flag = log_msg_get_value_handle(".SDATA.flag", -1);
  cr_assert(log_msg_is_value_set(msg, flag));
  assert_sd(msg, ".SDATA.flag", "");
  assert_sd(msg, ".SDATA.a.x", "2");
  assert_sd(msg, ".SDATA.a.y", "");
  cr_assert_eq(msg->sdata_count, 3);
  /* pairs keep the order in which they were first set */
  cr_assert_eq(msg->nv[0].handle, flag);
  cr_assert_eq(msg->nv[1].handle, log_msg_get_value_handle(".SDATA.a.x", -1));
  log_msg_unref(msg);
}

Test(rfc5424, sd_value_without_backslash_is_zero_copy)
{
  LogMsg *msg = parse_flags("<13>1 2025-03-10T11:00:00Z h a - - [x y=\"zz\"] m",
                            MF_SYSLOG_PROTOCOL | MF_STORE_RAW_MESSAGE);
  const char *raw = log_msg_get_value(msg, LM_V_RAWMSG, NULL);
  size_t len;
  const char *v = log_msg_get_value(msg, log_msg_get_value_handle(".SDATA.x.y", -1), &len);
  cr_assert_eq(len, 2);
  cr_assert_eq(v, raw + 41);
  log_msg_unref(msg);
}

Test(rfc5424, sd_values_are_cut_to_the_maximum)
{
  MsgFormatOptions opts;
  msg_format_options_defaults(&opts);
  opts.flags |= MF_SYSLOG_PROTOCOL;
  opts.sdata_param_value_max = 3;
  const char *line = "<13>1 2025-03-10T11:00:00Z h a - - [x p=\"abcdef\" q=\"a\\\"bcd\" r=\"a\\nb\"] m";
  LogMsg *msg = parse_opts_at(&opts, line, strlen(line), TEST_NOW);
  assert_sd(msg, ".SDATA.x.p", "abc");
  assert_sd(msg, ".SDATA.x.q", "a\"b");
  assert_sd(msg, ".SDATA.x.r", "a\\n");
  log_msg_unref(msg);
}

Test(rfc5424, nilvalues)
{
  LogMsg *msg = P5424("<13>1 - - - - - - msg");
  assert_unset(msg, LM_V_HOST);
  assert_unset(msg, LM_V_PROGRAM);
  assert_unset(msg, LM_V_PID);
  assert_unset(msg, LM_V_MSGID);
  cr_assert_eq(msg->sdata_count, 0);
  assert_value(msg, LM_V_MESSAGE, "msg");
  assert_stamp_is_recvd(msg);
  log_msg_unref(msg);
}

Test(rfc5424, empty_fields_are_set_empty)
{
  /* two spaces: an empty field, which syslog-ng sets to "" */
  LogMsg *msg = P5424("<13>1 2025-03-10T11:00:00Z h  p m  hello");
  assert_value(msg, LM_V_PROGRAM, "");
  cr_assert(log_msg_is_value_set(msg, LM_V_PROGRAM));
  assert_value(msg, LM_V_PID, "p");
  assert_value(msg, LM_V_MSGID, "m");
  assert_value(msg, LM_V_MESSAGE, "hello");
  log_msg_unref(msg);
}

Test(rfc5424, columns_are_cut)
{
  char line[600];
  snprintf(line, sizeof(line), "<13>1 2025-03-10T11:00:00Z h %060d %0200d %040d - x", 1, 2, 3);
  LogMsg *msg = P5424(line);
  size_t len;
  log_msg_get_value(msg, LM_V_PROGRAM, &len);
  cr_assert_eq(len, 48);
  log_msg_get_value(msg, LM_V_PID, &len);
  cr_assert_eq(len, 128);
  log_msg_get_value(msg, LM_V_MSGID, &len);
  cr_assert_eq(len, 32);
  assert_value(msg, LM_V_MESSAGE, "x");
  log_msg_unref(msg);
}

Test(rfc5424, timestamps)
{
  LogMsg *m1 = P5424("<13>1 2025-03-10T11:00:00+05:30 h a - - - x");
  assert_stamp(m1, 1741604400 - 19800, 0, 19800);
  LogMsg *m2 = P5424("<13>1 2025-03-10T11:00:00.1234567Z h a - - - x");
  assert_stamp(m2, 1741604400, 123456, 0);
  /* no offset: the receiving zone's (TZ=UTC in the tests) */
  LogMsg *m3 = P5424("<13>1 2025-03-10T11:00:00 h a - - - x");
  assert_stamp(m3, 1741604400, 0, 0);
  /* an offset without a colon is not one, and then the space is missing */
  LogMsg *m4 = P5424("<13>1 2025-03-10T11:00:00+0100 h a - - - x");
  cr_assert(m4->flags & LF_PARSE_ERROR);
  /* out of range fields roll over like mktime() */
  LogMsg *m5 = P5424("<13>1 2025-02-30T10:00:00Z h a - - - x");
  assert_stamp(m5, 1740909600, 0, 0);
  LogMsg *m6 = P5424("<13>1 2025-14-03T04:05:06Z h a - - - x");
  assert_stamp(m6, 1738555506 + 365 * 86400, 0, 0);
  LogMsg *m7 = P5424("<13>1 2025-00-28T00:00:00Z h a - - - x");
  assert_stamp(m7, 1735344000, 0, 0); /* 2024-12-28 */
  log_msg_unref(m1);
  log_msg_unref(m2);
  log_msg_unref(m3);
  log_msg_unref(m4);
  log_msg_unref(m5);
  log_msg_unref(m6);
  log_msg_unref(m7);
}

Test(rfc5424, version_must_be_one_else_rfc3164)
{
  LogMsg *m1 = P5424("<13>01 2025-03-10T11:00:00Z h a - - - x");
  cr_assert(m1->flags & LF_RFC5424);
  LogMsg *m2 = P5424("<13>2 2025-03-10T11:00:00Z h a - - - x");
  cr_assert_eq(m2->flags & (LF_RFC5424 | LF_PARSE_ERROR), 0);
  assert_value(m2, LM_V_PROGRAM, "2");
  LogMsg *m3 = P5424("<13>Oct 11 22:14:15 host prog[1]: legacy");
  assert_value(m3, LM_V_HOST, "host");
  assert_value(m3, LM_V_PROGRAM, "prog");
  assert_value(m3, LM_V_LEGACY_MSGHDR, "prog[1]: ");
  LogMsg *m4 = parse_flags("<13>Oct 11 22:14:15 host prog[1]: legacy", MF_SYSLOG_PROTOCOL | MF_NO_RFC3164_FALLBACK);
  cr_assert(m4->flags & LF_PARSE_ERROR);
  log_msg_unref(m1);
  log_msg_unref(m2);
  log_msg_unref(m3);
  log_msg_unref(m4);
}

static void
assert_parse_error(const char *line)
{
  uint64_t before = msg_format_parse_error_count();
  LogMsg *msg = parse_flags(line, MF_SYSLOG_PROTOCOL);
  cr_assert(msg->flags & LF_PARSE_ERROR, "no parse error for %s", line);
  cr_assert(log_msg_has_tag(msg, log_tags_get_by_name(LOG_TAG_PARSE_ERROR_NAME)));
  assert_value(msg, LM_V_MESSAGE, line);
  assert_unset(msg, LM_V_HOST);
  assert_unset(msg, LM_V_PROGRAM);
  cr_assert_eq(msg->sdata_count, 0);
  cr_assert_eq(msg->nv_len, 0);
  cr_assert_eq(msg->flags & LF_RFC5424, 0);
  cr_assert_eq(msg->pri, 43);
  assert_stamp_is_recvd(msg);
  cr_assert_eq(msg_format_parse_error_count(), before + 1);
  log_msg_unref(msg);
}

Test(rfc5424, broken_headers_are_parse_errors)
{
  assert_parse_error("<13>1");
  assert_parse_error("<13>1 ");
  assert_parse_error("<13>1  2025-03-10T11:00:00Z h a - - - x");
  assert_parse_error("<13>1 2025-03-10 h a - - - x");
  assert_parse_error("<13>1 2025-03-10T11:00:00Z");
  assert_parse_error("<13>1 2025-03-10T11:00:00Z host:1 a - - - x");
  assert_parse_error("<13>1 2025-03-10T11:00:00Z h[1] a - - - x");
  assert_parse_error("<13>1 2025-03-10T11:00:00Z h a - -");
  assert_parse_error("<13>1 2025-03-10T11:00:00Z h a - - hello world");
  assert_parse_error("<13>1 2025-03-10T11:00:00Z h a - - -x");
  assert_parse_error("<1x>1 2025-03-10T11:00:00Z h a - - - x");
}

Test(rfc5424, broken_structured_data_is_a_parse_error)
{
  /* the pairs set before the error are dropped too */
  assert_parse_error("<13>1 2025-03-10T11:00:00Z h a - - [a x=\"1\"][b y=c] m");
  assert_parse_error("<13>1 2025-03-10T11:00:00Z h a - - [a x=\"1] m");
  assert_parse_error("<13>1 2025-03-10T11:00:00Z h a - - [a x=\"unescaped]\"] m");
  assert_parse_error("<13>1 2025-03-10T11:00:00Z h a - - [] m");
  assert_parse_error("<13>1 2025-03-10T11:00:00Z h a - - [a  x=\"1\"] m");
  assert_parse_error("<13>1 2025-03-10T11:00:00Z h a - - [a x=\"1\"");
  assert_parse_error("<13>1 2025-03-10T11:00:00Z h a - - [a x]");
  assert_parse_error("<13>1 2025-03-10T11:00:00Z h a - - [a =\"1\"]");
  assert_parse_error("<13>1 2025-03-10T11:00:00Z h a - - [\xc3\xa9 x=\"1\"]");
  assert_parse_error("<13>1 2025-03-10T11:00:00Z h a - - [a x=\"1\\\"]");
  assert_parse_error("<13>1 2025-03-10T11:00:00Z h a - - [a x=\"1\"]x");
}

static LogMsg *
parse_sd(const char *sd)
{
  char line[1024];
  snprintf(line, sizeof(line), "<13>1 - h a - - %s m", sd);
  return P5424(line);
}

Test(rfc5424, sd_name_lengths)
{
  char id[300], param[300], sd[700];
  memset(id, 'i', sizeof(id));
  memset(param, 'p', sizeof(param));

  /* an SD-ID of up to 248 bytes */
  snprintf(sd, sizeof(sd), "[%.*s]", 248, id);
  LogMsg *m1 = parse_sd(sd);
  cr_assert_eq(m1->sdata_count, 1);
  snprintf(sd, sizeof(sd), "[%.*s]", 249, id);
  LogMsg *m2 = parse_sd(sd);
  cr_assert(m2->flags & LF_PARSE_ERROR);

  /* ".SDATA.id.param" up to 255 bytes is stored */
  snprintf(sd, sizeof(sd), "[%.*s %.*s=\"v\" q=\"w\"]", 100, id, 147, param);
  LogMsg *m3 = parse_sd(sd);
  cr_assert_eq(m3->sdata_count, 2);
  /* longer is parsed but dropped, as syslog-ng's registry refuses it */
  snprintf(sd, sizeof(sd), "[%.*s %.*s=\"v\" q=\"w\"]", 100, id, 148, param);
  LogMsg *m4 = parse_sd(sd);
  cr_assert_eq(m4->flags & LF_PARSE_ERROR, 0);
  cr_assert_eq(m4->sdata_count, 1);
  assert_value(m4, LM_V_MESSAGE, "m");
  /* up to 255 bytes of SD-ID and PARAM-NAME together, else an error */
  snprintf(sd, sizeof(sd), "[%.*s %.*s=\"v\\\"\"]", 100, id, 155, param);
  LogMsg *m5 = parse_sd(sd);
  cr_assert_eq(m5->flags & LF_PARSE_ERROR, 0);
  cr_assert_eq(m5->sdata_count, 0);
  snprintf(sd, sizeof(sd), "[%.*s %.*s=\"v\"]", 100, id, 156, param);
  LogMsg *m6 = parse_sd(sd);
  cr_assert(m6->flags & LF_PARSE_ERROR);
  /* a 248-byte SD-ID leaves no room for parameters, but is no error */
  snprintf(sd, sizeof(sd), "[%.*s q=\"w\"][b c=\"d\"]", 248, id);
  LogMsg *m7 = parse_sd(sd);
  cr_assert_eq(m7->flags & LF_PARSE_ERROR, 0);
  cr_assert_eq(m7->sdata_count, 1);
  assert_sd(m7, ".SDATA.b.c", "d");
  log_msg_unref(m1);
  log_msg_unref(m2);
  log_msg_unref(m3);
  log_msg_unref(m4);
  log_msg_unref(m5);
  log_msg_unref(m6);
  log_msg_unref(m7);
}

Test(rfc5424, structured_data_ends_at_the_first_space)
{
  LogMsg *msg = P5424("<13>1 2025-03-10T11:00:00Z h a - - [a x=\"1\"] [b y=\"2\"] m");
  cr_assert_eq(msg->sdata_count, 1);
  assert_value(msg, LM_V_MESSAGE, "[b y=\"2\"] m");
  log_msg_unref(msg);
}

Test(rfc5424, hostname_nil_and_trailing_bracket)
{
  LogMsg *m1 = P5424("<13>1 2025-03-10T11:00:00Z - a - - - x");
  assert_unset(m1, LM_V_HOST);
  /* "[a]" followed by an unclosed "[" at the very end is accepted */
  LogMsg *m2 = P5424("<13>1 2025-03-10T11:00:00Z h a - - [a][");
  cr_assert_eq(m2->flags & LF_PARSE_ERROR, 0);
  assert_sd(m2, ".SDATA.a", "");
  log_msg_unref(m1);
  log_msg_unref(m2);
}

Test(rfc5424, message_flags)
{
  LogMsg *m1 = parse_flags("<13>1 - h a - - - \xc3\xa9", MF_SYSLOG_PROTOCOL | MF_VALIDATE_UTF8);
  cr_assert(m1->flags & LF_UTF8);
  LogMsg *m2 = parse_flags("<13>1 - h a - - - a\nb", MF_SYSLOG_PROTOCOL | MF_NO_MULTI_LINE);
  assert_value(m2, LM_V_MESSAGE, "a b");
  LogMsg *m3 = P5424("<13>1 - h a - - - ");
  assert_value(m3, LM_V_MESSAGE, "");
  cr_assert(log_msg_is_value_set(m3, LM_V_MESSAGE));
  log_msg_unref(m1);
  log_msg_unref(m2);
  log_msg_unref(m3);
}

Test(rfc5424, many_sd_params_grow_the_pair_table)
{
  char line[8192];
  int n = snprintf(line, sizeof(line), "<13>1 - h a - - [big");
  for (int i = 0; i < 300; i++)
    n += snprintf(line + n, sizeof(line) - (size_t) n, " p%d=\"%d\"", i, i);
  snprintf(line + n, sizeof(line) - (size_t) n, "] m");
  LogMsg *msg = P5424(line);
  cr_assert_eq(msg->sdata_count, 300);
  assert_sd(msg, ".SDATA.big.p299", "299");
  assert_value(msg, LM_V_MESSAGE, "m");
  log_msg_unref(msg);
}
