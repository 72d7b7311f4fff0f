/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * systemd-journal()'s field mapping (modules/system/journal-fields.c): one
 * journal entry, as sd_journal_enumerate_data() hands its fields over,
 * becomes the message syslog-ng 3.38's journal reader makes of it.  The
 * expected values were taken from syslog-ng 3.38 reading the same entries.
 */
#include "system/journal.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

static JournalMapOptions map;

static void
_init(const char *prefix, size_t max, uint16_t pri, TimeZoneInfo *tz)
{
  cr_assert(journal_map_options_init(&map, prefix, max, pri, tz));
}

/* An entry of NUL-separated "KEY=VALUE" strings (len counts them all). */
static LogMsg *
_entry(const char *fields, size_t len)
{
  LogMsg *msg = log_msg_new(256);
  journal_msg_begin(msg, &map);
  const char *p = fields, *end = fields + len;
  while (p < end)
    {
      size_t n = strlen(p);
      journal_msg_add_field(msg, &map, p, n);
      p += n + 1;
    }
  journal_msg_finish(msg, &map);
  return msg;
}

#define ENTRY(lit) _entry(lit, sizeof(lit) - 1)

static void
_expect(const LogMsg *msg, NVHandle h, const char *want)
{
  size_t len = 0;
  const char *v = log_msg_is_value_set(msg, h) ? log_msg_get_value(msg, h, &len) : NULL;
  if (!want)
    {
      cr_assert(!v || len == 0, "value %u is set: %.*s", h, (int) len, v ? v : "");
      return;
    }
  cr_assert(v, "value %u is not set, expected %s", h, want);
  cr_assert_eq(len, strlen(want), "value %u: got '%.*s', expected '%s'", h, (int) len, v, want);
  cr_assert_eq(memcmp(v, want, len), 0, "value %u: got '%.*s', expected '%s'", h, (int) len, v, want);
}

static void
_expect_name(const LogMsg *msg, const char *name, const char *want)
{
  _expect(msg, log_msg_get_value_handle(name, -1), want);
}

Test(journal, maps_the_fields_syslog_ng_maps)
{
  _init(".journald.", 65536, 16 * 8 + 5, NULL);
  LogMsg *msg = ENTRY("MESSAGE=new one\0PRIORITY=4\0SYSLOG_FACILITY=3\0SYSLOG_IDENTIFIER=myapp\0_PID=1234\0"
                      "_HOSTNAME=hostx\0FOO=bar\0_COMM=commx\0_SOURCE_REALTIME_TIMESTAMP=1600000000000000\0");
  _expect(msg, LM_V_MESSAGE, "new one");
  _expect(msg, LM_V_PROGRAM, "myapp");
  _expect(msg, LM_V_PID, "1234");
  _expect(msg, LM_V_HOST, "hostx");
  cr_assert_eq(log_msg_facility(msg), 3);
  cr_assert_eq(log_msg_severity(msg), 4);
  /* every field, the mapped ones too, under the prefix */
  _expect_name(msg, ".journald.MESSAGE", "new one");
  _expect_name(msg, ".journald.PRIORITY", "4");
  _expect_name(msg, ".journald.SYSLOG_FACILITY", "3");
  _expect_name(msg, ".journald.SYSLOG_IDENTIFIER", "myapp");
  _expect_name(msg, ".journald._PID", "1234");
  _expect_name(msg, ".journald._HOSTNAME", "hostx");
  _expect_name(msg, ".journald.FOO", "bar");
  _expect_name(msg, ".journald._COMM", "commx");
  _expect_name(msg, ".journald._SOURCE_REALTIME_TIMESTAMP", "1600000000000000");
  /* nothing outside the prefix but the built-in values */
  _expect_name(msg, "FOO", NULL);
  log_msg_unref(msg);
}

Test(journal, default_priority_and_no_program)
{
  _init(".journald.", 65536, 16 * 8 + 5, NULL);
  LogMsg *msg = ENTRY("MESSAGE=plain\0");
  cr_assert_eq(msg->pri, 16 * 8 + 5); /* local0.notice */
  _expect(msg, LM_V_PROGRAM, NULL);
  _expect(msg, LM_V_PID, NULL);
  _expect(msg, LM_V_HOST, NULL);
  log_msg_unref(msg);

  /* default-facility() and default-level() */
  _init(".journald.", 65536, 1 * 8 + 3, NULL);
  msg = ENTRY("MESSAGE=plain\0PRIORITY=6\0");
  cr_assert_eq(log_msg_facility(msg), 1);
  cr_assert_eq(log_msg_severity(msg), 6);
  log_msg_unref(msg);
  msg = ENTRY("MESSAGE=plain\0SYSLOG_FACILITY=10\0");
  cr_assert_eq(log_msg_facility(msg), 10);
  cr_assert_eq(log_msg_severity(msg), 3);
  log_msg_unref(msg);
}

Test(journal, program_is_the_identifier_else_comm)
{
  _init(".journald.", 65536, 16 * 8 + 5, NULL);
  LogMsg *msg = ENTRY("_COMM=cc\0SYSLOG_IDENTIFIER=ident\0");
  _expect(msg, LM_V_PROGRAM, "ident");
  log_msg_unref(msg);
  msg = ENTRY("SYSLOG_IDENTIFIER=\0_COMM=cc\0");
  _expect(msg, LM_V_PROGRAM, "cc");
  log_msg_unref(msg);
  msg = ENTRY("_COMM=only\0");
  _expect(msg, LM_V_PROGRAM, "only");
  log_msg_unref(msg);
}

Test(journal, priority_reads_as_atoi_and_out_of_range_is_ignored)
{
  _init(".journald.", 65536, 16 * 8 + 5, NULL);
  /* not a number: 0, as syslog-ng's atoi() gives */
  LogMsg *msg = ENTRY("PRIORITY=abc\0SYSLOG_FACILITY=x\0");
  cr_assert_eq(msg->pri, 0);
  log_msg_unref(msg);
  msg = ENTRY("PRIORITY= 2junk\0SYSLOG_FACILITY=+4\0");
  cr_assert_eq(log_msg_facility(msg), 4);
  cr_assert_eq(log_msg_severity(msg), 2);
  log_msg_unref(msg);
  /* Sluice keeps the priority sane where syslog-ng ORs any number in */
  msg = ENTRY("PRIORITY=9\0SYSLOG_FACILITY=24\0");
  cr_assert_eq(msg->pri, 16 * 8 + 5);
  log_msg_unref(msg);
  msg = ENTRY("PRIORITY=-1\0SYSLOG_FACILITY=-3\0PRIORITY=99999999999999999999\0");
  cr_assert_eq(msg->pri, 16 * 8 + 5);
  _expect_name(msg, ".journald.PRIORITY", "99999999999999999999");
  log_msg_unref(msg);
  /* the last of a repeated field wins */
  msg = ENTRY("PRIORITY=1\0PRIORITY=7\0MESSAGE=a\0MESSAGE=b\0");
  cr_assert_eq(log_msg_severity(msg), 7);
  _expect(msg, LM_V_MESSAGE, "b");
  log_msg_unref(msg);
}

Test(journal, max_field_size_and_nul_cut_values)
{
  _init(".journald.", 10, 16 * 8 + 5, NULL);
  LogMsg *msg = ENTRY("MESSAGE=long value here\0FOO=0123456789abcdef\0SHORT=abc\0");
  _expect(msg, LM_V_MESSAGE, "long value");
  _expect_name(msg, ".journald.MESSAGE", "long value");
  _expect_name(msg, ".journald.FOO", "0123456789");
  _expect_name(msg, ".journald.SHORT", "abc");
  log_msg_unref(msg);

  /* a binary value ends at its first NUL byte, as syslog-ng copies it */
  _init(".journald.", 65536, 16 * 8 + 5, NULL);
  msg = log_msg_new(64);
  journal_msg_begin(msg, &map);
  static const char bin[] = "BLOB=ab\0cd";
  journal_msg_add_field(msg, &map, bin, sizeof(bin) - 1);
  static const char msgf[] = "MESSAGE=x\0y";
  journal_msg_add_field(msg, &map, msgf, sizeof(msgf) - 1);
  journal_msg_finish(msg, &map);
  _expect_name(msg, ".journald.BLOB", "ab");
  _expect(msg, LM_V_MESSAGE, "x");
  log_msg_unref(msg);
}

Test(journal, prefix_is_configurable)
{
  _init("J.", 65536, 16 * 8 + 5, NULL);
  LogMsg *msg = ENTRY("SYSLOG_IDENTIFIER=app\0FOO=bar\0");
  _expect_name(msg, "J.FOO", "bar");
  _expect_name(msg, "J.SYSLOG_IDENTIFIER", "app");
  _expect(msg, LM_V_PROGRAM, "app");
  log_msg_unref(msg);
  /* prefix(""): the journal's own names */
  _init("", 65536, 16 * 8 + 5, NULL);
  msg = ENTRY("_COMM=cc\0BAR=baz\0");
  _expect_name(msg, "BAR", "baz");
  _expect(msg, LM_V_PROGRAM, "cc");
  log_msg_unref(msg);
}

Test(journal, ignores_data_that_is_not_a_field)
{
  _init(".journald.", 65536, 16 * 8 + 5, NULL);
  LogMsg *msg = ENTRY("NOEQUALS\0=value\0MESSAGE=\0EMPTY=\0");
  _expect(msg, LM_V_MESSAGE, "");
  _expect_name(msg, ".journald.EMPTY", "");
  _expect_name(msg, ".journald.NOEQUALS", NULL);
  _expect_name(msg, ".journald.", NULL);
  log_msg_unref(msg);
}

Test(journal, time_is_the_realtime_stamp_in_time_zone)
{
  _init(".journald.", 65536, 16 * 8 + 5, tz_get("+09:00", NULL));
  LogMsg *msg = ENTRY("MESSAGE=x\0");
  journal_msg_set_time(msg, &map, UINT64_C(1700000000123456));
  cr_assert_eq(msg->stamps[LM_TS_STAMP].sec, 1700000000);
  cr_assert_eq(msg->stamps[LM_TS_STAMP].usec, 123456);
  cr_assert_eq(msg->stamps[LM_TS_STAMP].gmtoff, 9 * 3600);
  log_msg_unref(msg);
  _init(".journald.", 65536, 16 * 8 + 5, NULL);
  msg = ENTRY("MESSAGE=x\0");
  journal_msg_set_time(msg, &map, UINT64_C(1700000000000001));
  cr_assert_eq(msg->stamps[LM_TS_STAMP].usec, 1);
  cr_assert_eq(msg->stamps[LM_TS_STAMP].gmtoff, tz_offset_at(tz_local(), 1700000000));
  log_msg_unref(msg);
}

Test(journal, names_long_and_many)
{
  /* names of 80 bytes and more skip the per-thread cache */
  _init(".a.prefix.long.enough.to.make.names.of.eighty.bytes.and.more.", 65536, 16 * 8 + 5, NULL);
  LogMsg *msg = ENTRY("A_FIELD_NAME_THAT_IS_QUITE_LONG_AS_WELL=v1\0SHORT=v2\0");
  _expect_name(msg,
               ".a.prefix.long.enough.to.make.names.of.eighty.bytes.and.more."
               "A_FIELD_NAME_THAT_IS_QUITE_LONG_AS_WELL",
               "v1");
  _expect_name(msg, ".a.prefix.long.enough.to.make.names.of.eighty.bytes.and.more.SHORT", "v2");
  log_msg_unref(msg);

  /* more names than cache slots, twice: slots are taken over and every
   * value still lands under its own name */
  _init(".journald.", 65536, 16 * 8 + 5, NULL);
  for (int round = 0; round < 2; round++)
    for (int i = 0; i < 600; i++)
      {
        char field[32], name[48], value[16];
        snprintf(field, sizeof(field), "F%d=%d", i, i + round);
        snprintf(name, sizeof(name), ".journald.F%d", i);
        snprintf(value, sizeof(value), "%d", i + round);
        msg = log_msg_new(64);
        journal_msg_add_field(msg, &map, field, strlen(field));
        _expect_name(msg, name, value);
        log_msg_unref(msg);
      }
}
