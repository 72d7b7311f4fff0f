/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * syslog-parser(): which fields a reparse sets and which it keeps (as
 * syslog-ng 3.38 does), invalid input, the options and configuration
 * errors.
 */
#include "../parser-test.h"

#include "syslogformat/syslogformat.h"

static const LogDriverFactory *F = &syslog_parser_factory;

/* A relayed line: the inner line is the MESSAGE of the outer one. */
static LogMsg *
_wrapped(const char *inner)
{
  char *line = g_strconcat("<13>Nov 22 09:00:00 relay wrap: ", inner, NULL);
  LogMsg *msg = pt_msg(line, false);
  g_free(line);
  return msg;
}

Test(syslog_parser, rfc3164_fields_replace_the_message_fields)
{
  LogProcessor *p = pt_new(F, "parser p { syslog-parser(); };");
  LogMsg *msg = _wrapped("<34>Oct 11 22:14:15 mymachine su[42]: hello world");
  log_msg_set_value_by_name(msg, "mine", "kept", -1);
  cr_assert(pt_run(p, &msg));
  cr_assert_eq(msg->pri, 34);
  pt_assert_value(msg, "HOST", "mymachine");
  pt_assert_value(msg, "PROGRAM", "su");
  pt_assert_value(msg, "PID", "42");
  pt_assert_value(msg, "MESSAGE", "hello world");
  pt_assert_value(msg, "LEGACY_MSGHDR", "su[42]: ");
  pt_assert_value(msg, "mine", "kept");
  /* Oct 11 received on 2025-11-22: this year */
  cr_assert_eq(msg->stamps[LM_TS_STAMP].sec, 1760220855);
  cr_assert_eq(msg->stamps[LM_TS_RECVD].sec, PT_RECVD_SEC);
  log_msg_unref(msg);
  pt_free(p);
}

Test(syslog_parser, what_the_line_lacks_stays)
{
  LogProcessor *p = pt_new(F, "parser p { syslog-parser(); };");
  LogMsg *msg = _wrapped("<13>hello no header");
  cr_assert(pt_run(p, &msg));
  cr_assert_eq(msg->pri, 13);
  pt_assert_value(msg, "HOST", "relay");
  pt_assert_value(msg, "PROGRAM", "hello");
  pt_assert_value(msg, "MESSAGE", "no header");
  cr_assert_eq(msg->stamps[LM_TS_STAMP].sec, PT_RECVD_SEC, "no timestamp: the reception time");
  log_msg_unref(msg);
  pt_free(p);
}

Test(syslog_parser, rfc5424_with_structured_data)
{
  LogProcessor *p = pt_new(F, "parser p { syslog-parser(flags(syslog-protocol)); };");
  LogMsg *msg = _wrapped("<165>1 2003-10-11T22:14:15.003Z mymachine.example.com evntslog - ID47 "
                         "[exampleSDID@32473 iut=\"3\" eventSource=\"Application\"] An application event");
  cr_assert(pt_run(p, &msg));
  cr_assert_eq(msg->pri, 165);
  pt_assert_value(msg, "HOST", "mymachine.example.com");
  pt_assert_value(msg, "PROGRAM", "evntslog");
  pt_assert_value(msg, "PID", "(unset)");
  pt_assert_value(msg, "MSGID", "ID47");
  pt_assert_value(msg, ".SDATA.exampleSDID@32473.iut", "3");
  pt_assert_value(msg, ".SDATA.exampleSDID@32473.eventSource", "Application");
  pt_assert_value(msg, "MESSAGE", "An application event");
  pt_assert_value(msg, "LEGACY_MSGHDR", "(unset)");
  cr_assert_eq(msg->stamps[LM_TS_STAMP].sec, 1065910455);
  cr_assert_eq(msg->stamps[LM_TS_STAMP].usec, 3000);
  cr_assert(msg->flags & LF_RFC5424);
  log_msg_unref(msg);

  /* "-" fields set nothing */
  msg = _wrapped("<13>1 2003-10-11T22:14:15+02:00 - - - - - ");
  cr_assert(pt_run(p, &msg));
  pt_assert_value(msg, "HOST", "relay");
  pt_assert_value(msg, "PROGRAM", "wrap");
  pt_assert_value(msg, "LEGACY_MSGHDR", "wrap: ");
  cr_assert_eq(msg->stamps[LM_TS_STAMP].gmtoff, 7200);
  log_msg_unref(msg);
  pt_free(p);
}

Test(syslog_parser, invalid_lines)
{
  LogProcessor *keep = pt_new(F, "parser p { syslog-parser(); };");
  LogProcessor *drop = pt_new(F, "parser p { syslog-parser(drop-invalid(yes)); };");
  LogProcessor *drop5424 = pt_new(F, "parser p { syslog-parser(drop-invalid(yes) flags(syslog-protocol)); };");

  LogMsg *msg = _wrapped("<abc>broken pri");
  log_msg_set_value_by_name(msg, "mine", "kept", -1);
  cr_assert_not(pt_run(drop, &msg));
  cr_assert(pt_run(keep, &msg));
  cr_assert_eq(msg->pri, 43);
  cr_assert(msg->flags & LF_PARSE_ERROR);
  cr_assert(log_msg_has_tag(msg, log_tags_get_by_name(LOG_TAG_PARSE_ERROR_NAME)));
  pt_assert_value(msg, "MESSAGE", "<abc>broken pri");
  pt_assert_value(msg, "mine", "kept");
  log_msg_unref(msg);

  msg = _wrapped("<13>1 garbage");
  cr_assert(pt_run(drop, &msg), "RFC 3164 takes anything after the PRI");
  log_msg_unref(msg);
  msg = _wrapped("<13>1 garbage");
  cr_assert_not(pt_run(drop5424, &msg));
  log_msg_unref(msg);

  /* bytes of every kind: a result, never a crash */
  for (int i = 0; i < 256; i++)
    {
      char bad[8] = { '<', (char) i, '>', '1', ' ', (char) (255 - i), 0, 'x' };
      LogMsg *m = pt_msg_text(bad, sizeof(bad));
      pt_run(drop5424, &m);
      pt_run(keep, &m);
      log_msg_unref(m);
    }
  pt_free(keep);
  pt_free(drop);
  pt_free(drop5424);
}

Test(syslog_parser, defaults_zone_and_template)
{
  LogProcessor *p = pt_new(F, "parser p { syslog-parser(default-facility(local3) default-severity(warn) "
                              "time-zone('+02:00') template('${MSG} ')); };");
  LogMsg *msg = _wrapped("plain text");
  cr_assert(pt_run(p, &msg));
  cr_assert_eq(msg->pri, 19 * 8 + 4);
  pt_assert_value(msg, "PROGRAM", "plain");
  pt_assert_value(msg, "MESSAGE", "text ");
  cr_assert_eq(msg->stamps[LM_TS_STAMP].sec, PT_RECVD_SEC);
  cr_assert_eq(msg->stamps[LM_TS_STAMP].gmtoff, 7200, "the reception time in time-zone()");
  log_msg_unref(msg);

  msg = _wrapped("<14>Nov 22 10:00:07 web2 cron[3]: x");
  cr_assert(pt_run(p, &msg));
  cr_assert_eq(msg->stamps[LM_TS_STAMP].sec, PT_RECVD_SEC + 7 - 7200);
  cr_assert_eq(msg->stamps[LM_TS_STAMP].gmtoff, 7200);
  log_msg_unref(msg);
  pt_free(p);
}

Test(syslog_parser, flags)
{
  LogProcessor *p = pt_new(F, "parser p { syslog-parser(flags(no-hostname, store-raw-message, "
                              "dont-store-legacy-msghdr, no-multi-line)); };");
  LogMsg *msg = pt_msg_text("<13>Oct 11 22:14:15 host prog: a\nb", -1);
  log_msg_set_value(msg, LM_V_HOST, "before", -1);
  cr_assert(pt_run(p, &msg));
  pt_assert_value(msg, "HOST", "before");
  pt_assert_value(msg, "PROGRAM", "host");
  pt_assert_value(msg, "MESSAGE", "prog: a b");
  pt_assert_value(msg, "RAWMSG", "<13>Oct 11 22:14:15 host prog: a\nb");
  pt_assert_value(msg, "LEGACY_MSGHDR", "(unset)");
  log_msg_unref(msg);
  pt_free(p);

  p = pt_new(F, "parser p { syslog-parser(flags(no-parse)); };");
  msg = pt_msg_text("<13>Oct 11 22:14:15 host prog: x", -1);
  cr_assert(pt_run(p, &msg));
  cr_assert_eq(msg->pri, 13);
  pt_assert_value(msg, "MESSAGE", "<13>Oct 11 22:14:15 host prog: x");
  log_msg_unref(msg);
  pt_free(p);
}

Test(syslog_parser, a_shared_message_is_copied_not_changed)
{
  LogProcessor *p = pt_new(F, "parser p { syslog-parser(); };");
  LogMsg *orig = _wrapped("<34>Oct 11 22:14:15 mymachine su[42]: hello");
  LogMsg *msg = log_msg_ref(orig);
  cr_assert(pt_run(p, &msg));
  cr_assert_neq(msg, orig);
  pt_assert_value(msg, "HOST", "mymachine");
  pt_assert_value(orig, "HOST", "relay");
  cr_assert_eq(orig->pri, 13);
  log_msg_unref(msg);
  log_msg_unref(orig);
  pt_free(p);
}

Test(syslog_parser, configuration_errors)
{
  pt_assert_error(F, "parser p { syslog-parser(flags(kernel)); };", "kernel");
  pt_assert_error(F, "parser p { syslog-parser(time-zone('Nowhere/Nothing')); };", "time zone");
  pt_assert_error(F, "parser p { syslog-parser(default-facility(nosuch)); };", "nosuch");
  pt_assert_error(F, "parser p { syslog-parser(default-priority(13)); };", "default-priority");
  pt_assert_error(F, "parser p { syslog-parser(template('$(nosuch)')); };", "bad template");
}
