/* SPDX-License-Identifier: GPL-2.0-or-later */
/* RFC 3164 as really sent: each test states what syslog-ng 3.38 makes of
 * the line (the corpus test checks many more lines against its output). */
#include "syslog-test.h"

#include <stdio.h>

Test(rfc3164, full_header)
{
  LogMsg *msg = parse("<34>Oct 11 22:14:15 mymachine su[230]: 'su root' failed for lonvick on /dev/pts/8");
  cr_assert_eq(msg->pri, 34);
  assert_value(msg, LM_V_HOST, "mymachine");
  assert_value(msg, LM_V_PROGRAM, "su");
  assert_value(msg, LM_V_PID, "230");
  assert_value(msg, LM_V_LEGACY_MSGHDR, "su[230]: ");
  assert_value(msg, LM_V_MESSAGE, "'su root' failed for lonvick on /dev/pts/8");
  assert_unset(msg, LM_V_MSGID);
  assert_stamp(msg, OCT11_221415_2025, 0, 0);
  cr_assert_eq(msg->stamps[LM_TS_RECVD].sec, TEST_NOW);
  cr_assert_eq(msg->flags & (LF_PARSE_ERROR | LF_RFC5424), 0);
  cr_assert_eq(msg->nv_len, 0);
  log_msg_unref(msg);
}

Test(rfc3164, fields_point_into_one_copy_of_the_line)
{
  LogMsg *msg = parse_flags("<34>Oct 11 22:14:15 mymachine su[230]: hello", MF_STORE_RAW_MESSAGE);
  size_t raw_len, len;
  const char *raw = log_msg_get_value(msg, LM_V_RAWMSG, &raw_len);
  cr_assert_eq(raw_len, 44);
  const char *host = log_msg_get_value(msg, LM_V_HOST, &len);
  cr_assert_eq(host, raw + 20);
  cr_assert_eq(log_msg_get_value(msg, LM_V_MESSAGE, &len), raw + 39);
  cr_assert_eq(log_msg_get_value(msg, LM_V_LEGACY_MSGHDR, &len), raw + 30);
  log_msg_unref(msg);
}

Test(rfc3164, no_pri_uses_default)
{
  LogMsg *msg = parse("Oct 11 22:14:15 host prog: text");
  cr_assert_eq(msg->pri, 13);
  assert_value(msg, LM_V_HOST, "host");
  assert_value(msg, LM_V_MESSAGE, "text");

  MsgFormatOptions opts;
  msg_format_options_defaults(&opts);
  opts.default_pri = 165;
  LogMsg *msg2 = parse_opts_at(&opts, "no header", 9, TEST_NOW);
  cr_assert_eq(msg2->pri, 165);
  log_msg_unref(msg);
  log_msg_unref(msg2);
}

Test(rfc3164, pri_edge_cases)
{
  LogMsg *m1 = parse("<>x");
  cr_assert_eq(m1->pri, 0);
  LogMsg *m2 = parse("<191>x");
  cr_assert_eq(m2->pri, 191);
  /* out of range PRI is kept (modulo 2^16), as syslog-ng does */
  LogMsg *m3 = parse("<192>x");
  cr_assert_eq(m3->pri, 192);
  LogMsg *m4 = parse("<99999999999999>x");
  cr_assert_eq(m4->pri, 16383);
  assert_value(m4, LM_V_PROGRAM, "x");
  LogMsg *m5 = parse("<18446744073709551616999>y");
  cr_assert_eq(m5->pri, 999); /* 2^64 * 1000 + 999, modulo 2^16, without overflow */
  /* unterminated: everything was PRI */
  LogMsg *m6 = parse("<13");
  cr_assert_eq(m6->pri, 13);
  assert_value(m6, LM_V_PROGRAM, "");
  assert_value(m6, LM_V_MESSAGE, "");
  cr_assert_eq(m6->flags & LF_PARSE_ERROR, 0);
  log_msg_unref(m1);
  log_msg_unref(m2);
  log_msg_unref(m3);
  log_msg_unref(m4);
  log_msg_unref(m5);
  log_msg_unref(m6);
}

Test(rfc3164, malformed_pri_is_a_parse_error)
{
  uint64_t before = msg_format_parse_error_count();
  LogMsg *msg = parse_flags("<1a>Oct 11 22:14:15 host prog: text\n", MF_STORE_RAW_MESSAGE);
  cr_assert(msg->flags & LF_PARSE_ERROR);
  cr_assert(log_msg_has_tag(msg, log_tags_get_by_name(LOG_TAG_PARSE_ERROR_NAME)));
  assert_value(msg, LM_V_MESSAGE, "<1a>Oct 11 22:14:15 host prog: text");
  assert_value(msg, LM_V_RAWMSG, "<1a>Oct 11 22:14:15 host prog: text");
  assert_unset(msg, LM_V_HOST);
  assert_unset(msg, LM_V_PROGRAM);
  cr_assert_eq(msg->pri, 43);
  assert_stamp_is_recvd(msg);
  cr_assert_eq(msg_format_parse_error_count(), before + 1);
  log_msg_unref(msg);
}

Test(rfc3164, only_pri_and_empty_line)
{
  LogMsg *m1 = parse("<13>");
  cr_assert_eq(m1->pri, 13);
  assert_value(m1, LM_V_MESSAGE, "");
  assert_value(m1, LM_V_PROGRAM, "");
  assert_stamp_is_recvd(m1);
  LogMsg *m2 = parse("");
  cr_assert_eq(m2->pri, 13);
  cr_assert_eq(m2->flags & LF_PARSE_ERROR, 0);
  assert_value(m2, LM_V_MESSAGE, "");
  log_msg_unref(m1);
  log_msg_unref(m2);
}

Test(rfc3164, trailing_newlines_and_nuls_are_dropped)
{
  MsgFormatOptions opts;
  msg_format_options_defaults(&opts);
  opts.flags |= MF_STORE_RAW_MESSAGE;
  static const char line[] = "<13>Oct 11 22:14:15 host prog: text\n\0\n";
  LogMsg *msg = parse_opts_at(&opts, line, sizeof(line) - 1, TEST_NOW);
  assert_value(msg, LM_V_MESSAGE, "text");
  assert_value(msg, LM_V_RAWMSG, "<13>Oct 11 22:14:15 host prog: text");
  log_msg_unref(msg);
}

Test(rfc3164, no_hostname_after_timestamp)
{
  LogMsg *msg = parse("<13>Oct 11 22:14:15 sshd[99]: Accepted");
  assert_unset(msg, LM_V_HOST);
  assert_value(msg, LM_V_PROGRAM, "sshd");
  assert_value(msg, LM_V_PID, "99");
  LogMsg *msg2 = parse("<13>Oct 11 22:14:15 cron: job");
  assert_unset(msg2, LM_V_HOST);
  assert_value(msg2, LM_V_PROGRAM, "cron");
  assert_value(msg2, LM_V_MESSAGE, "job");
  log_msg_unref(msg);
  log_msg_unref(msg2);
}

Test(rfc3164, hostname_heuristics_as_syslog_ng)
{
  /* a first word ended by a space is a hostname, even without a tag after */
  LogMsg *m1 = parse("<13>Oct 11 22:14:15 host message text");
  assert_value(m1, LM_V_HOST, "host");
  assert_value(m1, LM_V_PROGRAM, "message");
  assert_value(m1, LM_V_MESSAGE, "text");
  /* "bad:" looks like the start of an IPv6 address, so it is a hostname */
  LogMsg *m2 = parse("<13>Oct 11 22:14:15 bad: text");
  assert_value(m2, LM_V_HOST, "bad:");
  assert_value(m2, LM_V_PROGRAM, "text");
  LogMsg *m3 = parse("<13>Oct 11 22:14:15 fe80::1:2 prog: text");
  assert_value(m3, LM_V_HOST, "fe80::1:2");
  LogMsg *m4 = parse("<13>Oct 11 22:14:15 host:1 prog: text");
  assert_unset(m4, LM_V_HOST);
  assert_value(m4, LM_V_PROGRAM, "host");
  assert_value(m4, LM_V_MESSAGE, "1 prog: text");
  log_msg_unref(m1);
  log_msg_unref(m2);
  log_msg_unref(m3);
  log_msg_unref(m4);
}

Test(rfc3164, hostname_longer_than_255_is_not_one)
{
  char line[400];
  int n = snprintf(line, sizeof(line), "<13>Oct 11 22:14:15 %0255d p: x", 0);
  cr_assert_lt(n, (int) sizeof(line));
  LogMsg *m1 = parse(line);
  size_t len;
  log_msg_get_value(m1, LM_V_HOST, &len);
  cr_assert_eq(len, 255);
  snprintf(line, sizeof(line), "<13>Oct 11 22:14:15 %0256d p: x", 0);
  LogMsg *m2 = parse(line);
  assert_unset(m2, LM_V_HOST);
  log_msg_get_value(m2, LM_V_PROGRAM, &len);
  cr_assert_eq(len, 256);
  log_msg_unref(m1);
  log_msg_unref(m2);
}

Test(rfc3164, no_hostname_and_check_hostname_flags)
{
  LogMsg *m1 = parse_flags("<13>Oct 11 22:14:15 host prog: text", MF_NO_HOSTNAME);
  assert_unset(m1, LM_V_HOST);
  assert_value(m1, LM_V_PROGRAM, "host");
  assert_value(m1, LM_V_MESSAGE, "prog: text");
  LogMsg *m2 = parse_flags("<13>Oct 11 22:14:15 my_host.example-1 prog: text", MF_CHECK_HOSTNAME);
  assert_value(m2, LM_V_HOST, "my_host.example-1");
  LogMsg *m3 = parse_flags("<13>Oct 11 22:14:15 my!host prog: text", MF_CHECK_HOSTNAME);
  assert_unset(m3, LM_V_HOST);
  assert_value(m3, LM_V_PROGRAM, "my!host");
  log_msg_unref(m1);
  log_msg_unref(m2);
  log_msg_unref(m3);
}

Test(rfc3164, tag_variants)
{
  LogMsg *m1 = parse("<13>Oct 11 22:14:15 h prog[12]text");
  assert_value(m1, LM_V_PROGRAM, "prog");
  assert_value(m1, LM_V_PID, "12");
  assert_value(m1, LM_V_LEGACY_MSGHDR, "prog[12]");
  assert_value(m1, LM_V_MESSAGE, "text");
  LogMsg *m2 = parse("<13>Oct 11 22:14:15 h prog:text");
  assert_value(m2, LM_V_PROGRAM, "prog");
  assert_value(m2, LM_V_MESSAGE, "text");
  assert_value(m2, LM_V_LEGACY_MSGHDR, "prog:");
  LogMsg *m3 = parse("<13>Oct 11 22:14:15 h : text");
  assert_value(m3, LM_V_PROGRAM, "");
  cr_assert(log_msg_is_value_set(m3, LM_V_PROGRAM));
  assert_value(m3, LM_V_MESSAGE, "text");
  LogMsg *m4 = parse("<13>Oct 11 22:14:15 h prog[12");
  assert_value(m4, LM_V_PROGRAM, "prog");
  assert_unset(m4, LM_V_PID);
  LogMsg *m5 = parse("<13>Oct 11 22:14:15 h prog[12[3]: x");
  assert_value(m5, LM_V_PID, "12[3");
  LogMsg *m6 = parse("<13>Oct 11 22:14:15 h prog[] x");
  assert_value(m6, LM_V_PID, "");
  cr_assert(log_msg_is_value_set(m6, LM_V_PID));
  log_msg_unref(m1);
  log_msg_unref(m2);
  log_msg_unref(m3);
  log_msg_unref(m4);
  log_msg_unref(m5);
  log_msg_unref(m6);
}

Test(rfc3164, long_program_names_are_not_cut)
{
  char line[600];
  snprintf(line, sizeof(line), "<13>Oct 11 22:14:15 host %0400d[1]: m", 7);
  LogMsg *msg = parse(line);
  size_t len;
  log_msg_get_value(msg, LM_V_PROGRAM, &len);
  cr_assert_eq(len, 400);
  assert_value(msg, LM_V_PID, "1");
  log_msg_unref(msg);
}

Test(rfc3164, dont_store_legacy_msghdr)
{
  LogMsg *msg = parse_flags("<13>Oct 11 22:14:15 h prog[1]: x", MF_DONT_STORE_LEGACY_MSGHDR);
  assert_unset(msg, LM_V_LEGACY_MSGHDR);
  assert_value(msg, LM_V_PROGRAM, "prog");
  log_msg_unref(msg);
}

Test(rfc3164, without_timestamp_the_line_starts_with_the_tag)
{
  LogMsg *m1 = parse("<13>prog[5]: hello");
  assert_value(m1, LM_V_PROGRAM, "prog");
  assert_value(m1, LM_V_PID, "5");
  assert_value(m1, LM_V_MESSAGE, "hello");
  assert_unset(m1, LM_V_HOST);
  assert_stamp_is_recvd(m1);
  LogMsg *m2 = parse("<13>Oct 11 22:14 host prog: truncated timestamp");
  assert_value(m2, LM_V_PROGRAM, "Oct");
  assert_value(m2, LM_V_MESSAGE, "11 22:14 host prog: truncated timestamp");
  assert_stamp_is_recvd(m2);
  /* a one-digit day is not a BSD date for syslog-ng 3.38 */
  LogMsg *m3 = parse("<13>Oct 1 22:14:15 host prog: x");
  assert_value(m3, LM_V_PROGRAM, "Oct");
  log_msg_unref(m1);
  log_msg_unref(m2);
  log_msg_unref(m3);
}

Test(rfc3164, kernel_lines_on_local_sources)
{
  LogMsg *m1 = parse_flags("<6>[ 1.234] usb 1-1: new device", MF_LOCAL);
  assert_value(m1, LM_V_PROGRAM, "kernel");
  assert_value(m1, LM_V_MESSAGE, "[ 1.234] usb 1-1: new device");
  cr_assert(m1->flags & LF_LOCAL);
  assert_unset(m1, LM_V_LEGACY_MSGHDR);
  /* not local: the first word is the tag */
  LogMsg *m2 = parse("<6>[ 1.234] usb 1-1: new device");
  assert_value(m2, LM_V_PROGRAM, "");
  /* local but facility user */
  LogMsg *m3 = parse_flags("<14>hello there", MF_LOCAL);
  assert_value(m3, LM_V_PROGRAM, "hello");
  /* with a timestamp the kernel rule does not apply */
  LogMsg *m4 = parse_flags("<6>Oct 11 22:14:15 kernel: x", MF_LOCAL | MF_NO_HOSTNAME);
  assert_value(m4, LM_V_PROGRAM, "kernel");
  assert_value(m4, LM_V_LEGACY_MSGHDR, "kernel: ");
  log_msg_unref(m1);
  log_msg_unref(m2);
  log_msg_unref(m3);
  log_msg_unref(m4);
}

Test(rfc3164, last_message_repeated)
{
  LogMsg *m1 = parse("<13>Oct 11 22:14:15 last message repeated 3 times");
  assert_unset(m1, LM_V_HOST);
  assert_unset(m1, LM_V_PROGRAM);
  assert_value(m1, LM_V_MESSAGE, "last message repeated 3 times");
  assert_stamp(m1, OCT11_221415_2025, 0, 0);
  /* needs a byte after it */
  LogMsg *m2 = parse("<13>Oct 11 22:14:15 last message repeated");
  assert_value(m2, LM_V_HOST, "last");
  assert_value(m2, LM_V_PROGRAM, "message");
  log_msg_unref(m1);
  log_msg_unref(m2);
}

Test(rfc3164, aix_forwarded)
{
  LogMsg *msg = parse("<13>Oct 11 22:14:15 Message forwarded from aixhost: sshd[4]: hi");
  assert_value(msg, LM_V_HOST, "aixhost");
  assert_value(msg, LM_V_PROGRAM, "sshd");
  assert_value(msg, LM_V_PID, "4");
  assert_value(msg, LM_V_MESSAGE, "hi");
  log_msg_unref(msg);
}

Test(rfc3164, cisco_sequence_and_sync_marks)
{
  LogMsg *m1 = parse("<189>123: *Oct 11 22:14:15: %SYS-5-CONFIG_I: Configured");
  cr_assert_eq(m1->pri, 189);
  assert_sd(m1, ".SDATA.meta.sequenceId", "123");
  assert_sd(m1, ".SDATA.timeQuality.isSynced", "0");
  assert_unset(m1, LM_V_HOST);
  assert_value(m1, LM_V_PROGRAM, "%SYS-5-CONFIG_I");
  assert_value(m1, LM_V_MESSAGE, "Configured");
  assert_stamp(m1, OCT11_221415_2025, 0, 0);
  cr_assert_eq(m1->sdata_count, 2);

  LogMsg *m2 = parse("<189>45: router1: .Oct 11 22:14:15 x");
  assert_sd(m2, ".SDATA.meta.sequenceId", "45");
  assert_value(m2, LM_V_PROGRAM, "router1");
  assert_stamp_is_recvd(m2);

  LogMsg *m3 = parse("<13>: Oct 11 22:14:15 host prog: m");
  cr_assert(log_msg_is_value_set(m3, log_msg_get_value_handle(".SDATA.meta.sequenceId", -1)));
  assert_sd(m3, ".SDATA.meta.sequenceId", "");
  assert_value(m3, LM_V_HOST, "host");

  /* the mark is taken even when no timestamp follows */
  LogMsg *m4 = parse("<13>.hello world");
  assert_sd(m4, ".SDATA.timeQuality.isSynced", "1");
  assert_value(m4, LM_V_PROGRAM, "hello");
  assert_value(m4, LM_V_MESSAGE, "world");

  /* digits to the end of the line, or not followed by a space */
  LogMsg *m5 = parse("<13>123");
  cr_assert_eq(m5->nv_len, 0);
  assert_value(m5, LM_V_PROGRAM, "123");
  LogMsg *m6 = parse("<13>12:34 x");
  cr_assert_eq(m6->nv_len, 0);
  log_msg_unref(m1);
  log_msg_unref(m2);
  log_msg_unref(m3);
  log_msg_unref(m4);
  log_msg_unref(m5);
  log_msg_unref(m6);
}

Test(rfc3164, nul_bytes_inside_the_line_count_as_spaces_where_syslog_ng_skips)
{
  static const char line[] = "<13>Oct 11 22:14:15\0host prog: m\0x";
  MsgFormatOptions opts;
  msg_format_options_defaults(&opts);
  LogMsg *msg = parse_opts_at(&opts, line, sizeof(line) - 1, TEST_NOW);
  assert_value(msg, LM_V_HOST, "host");
  assert_value(msg, LM_V_PROGRAM, "prog");
  size_t len;
  const char *m = log_msg_get_value(msg, LM_V_MESSAGE, &len);
  cr_assert_eq(len, 3);
  cr_assert(memcmp(m, "m\0x", 3) == 0);
  log_msg_unref(msg);
}

Test(rfc3164, eight_bit_garbage_is_kept_verbatim)
{
  static const char line[] = "<13>Oct 11 22:14:15 h\xff\xfe st\xe9[\x80]: \xc3\x28 bad utf8";
  LogMsg *msg = parse_flags(line, MF_VALIDATE_UTF8);
  assert_value(msg, LM_V_HOST, "h\xff\xfe");
  assert_value(msg, LM_V_PROGRAM, "st\xe9");
  assert_value(msg, LM_V_PID, "\x80");
  assert_value(msg, LM_V_MESSAGE, "\xc3\x28 bad utf8");
  cr_assert_eq(msg->flags & LF_UTF8, 0);
  log_msg_unref(msg);
}

Test(rfc3164, utf8_flags)
{
  LogMsg *m1 = parse_flags("<13>Oct 11 22:14:15 h p: \xc3\xa9t\xc3\xa9", MF_VALIDATE_UTF8);
  cr_assert(m1->flags & LF_UTF8);
  LogMsg *m2 = parse("<13>Oct 11 22:14:15 h p: \xc3\xa9t\xc3\xa9");
  cr_assert_eq(m2->flags & LF_UTF8, 0);
  LogMsg *m3 = parse_flags("<13>x \xff", MF_ASSUME_UTF8);
  cr_assert(m3->flags & LF_UTF8);
  log_msg_unref(m1);
  log_msg_unref(m2);
  log_msg_unref(m3);
}

Test(rfc3164, no_parse)
{
  LogMsg *msg = parse_flags("<34>Oct 11 22:14:15 mymachine su: hello", MF_NO_PARSE);
  cr_assert_eq(msg->pri, 13);
  assert_value(msg, LM_V_MESSAGE, "<34>Oct 11 22:14:15 mymachine su: hello");
  assert_unset(msg, LM_V_PROGRAM);
  assert_unset(msg, LM_V_HOST);
  assert_stamp_is_recvd(msg);
  log_msg_unref(msg);
}

Test(rfc3164, no_header)
{
  LogMsg *msg = parse_flags("<34>Oct 11 22:14:15 mymachine su: hello", MF_NO_HEADER);
  cr_assert_eq(msg->pri, 34);
  assert_value(msg, LM_V_MESSAGE, "Oct 11 22:14:15 mymachine su: hello");
  assert_unset(msg, LM_V_PROGRAM);
  assert_stamp_is_recvd(msg);
  log_msg_unref(msg);
}

Test(rfc3164, no_multi_line)
{
  LogMsg *m1 = parse_flags("<13>Oct 11 22:14:15 h p: one\rtwo\nthree", MF_NO_MULTI_LINE);
  assert_value(m1, LM_V_MESSAGE, "one two three");
  /* RAWMSG shares the copy of the line and must stay as received */
  LogMsg *m2 = parse_flags("<13>Oct 11 22:14:15 h p: one\ntwo", MF_NO_MULTI_LINE | MF_STORE_RAW_MESSAGE);
  assert_value(m2, LM_V_MESSAGE, "one two");
  assert_value(m2, LM_V_RAWMSG, "<13>Oct 11 22:14:15 h p: one\ntwo");
  log_msg_unref(m1);
  log_msg_unref(m2);
}

Test(rfc3164, store_raw_message_is_off_by_default)
{
  LogMsg *msg = parse("<13>x");
  assert_unset(msg, LM_V_RAWMSG);
  log_msg_unref(msg);
}
