/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The system module's parts that need no running daemon: /dev/kmsg record
 * parsing and usertty()'s writes to the terminals utmp lists (a
 * pseudo-terminal of the test's own stands in for a login's).
 */
#include "file/kmsg.h"
#include "system/system.h"

#include "sluice/msg-format.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <utmp.h>

Test(kmsg, parses_record_headers)
{
  KmsgRecord r;
  const char *line = "6,339,5140900,-;NET: Registered protocol family 10";
  cr_assert(kmsg_parse_header(line, strlen(line), &r));
  cr_assert_eq(r.pri, 6);
  cr_assert_eq(r.seq, 339);
  cr_assert_eq(r.usec, 5140900);
  cr_assert_str_eq(line + r.text_off, "NET: Registered protocol family 10");
  /* fields later kernels add after the flags are skipped */
  line = "30,12,99,c,caller=T1;systemd[1]: x";
  cr_assert(kmsg_parse_header(line, strlen(line), &r));
  cr_assert_eq(r.pri, 30);
  cr_assert_str_eq(line + r.text_off, "systemd[1]: x");
  /* an empty text is still a record */
  line = "0,1,2,-;";
  cr_assert(kmsg_parse_header(line, strlen(line), &r));
  cr_assert_eq(r.text_off, strlen(line));
}

Test(kmsg, refuses_what_is_not_a_header)
{
  static const char *const bad[] = {
    " SUBSYSTEM=block", "", "6", "6,1", "6,1,2", "6,1,2,-", "192,1,2,-;x", "a,1,2,-;x", "6,,2,-;x",
    "6,1,2;", /* no flags is fine for the parser only when ';' follows USEC */
    "6,99999999999999999999999,2,-;x",
  };
  KmsgRecord r;
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
    {
      bool ok = kmsg_parse_header(bad[i], strlen(bad[i]), &r);
      if (i == 9)
        cr_assert(ok, "'%s'", bad[i]);
      else
        cr_assert(!ok, "'%s' parsed", bad[i]);
    }
}

static LogMsg *
_raw_msg(const char *line)
{
  MsgFormatOptions o;
  msg_format_options_defaults(&o);
  o.flags |= MF_NO_PARSE;
  LogStamp now = { .sec = 2000000000, .usec = 0, .gmtoff = 3600 };
  return msg_format_parse(&o, line, strlen(line), &now);
}

static const char *
_value(LogMsg *m, NVHandle h)
{
  size_t len;
  const char *v = log_msg_get_value(m, h, &len);
  static char buf[256];
  snprintf(buf, sizeof(buf), "%.*s", (int) len, v ? v : "");
  return buf;
}

static const char *
_by_name(LogMsg *m, const char *name)
{
  NVHandle h = log_msg_lookup_value_handle(name, -1);
  return h == LM_V_NONE ? "(unset)" : _value(m, h);
}

Test(kmsg, makes_the_kernel_message)
{
  const char *line = "3,100,5250000,-;disk failed";
  LogMsg *m = _raw_msg(line);
  KmsgRecord r;
  cr_assert(kmsg_parse_header(line, strlen(line), &r));
  kmsg_msg_apply(m, &r);
  cr_assert_eq(m->pri, 3);
  /* PROGRAM is system()'s program-override("kernel"), not the format's */
  cr_assert_str_eq(_value(m, LM_V_PROGRAM), "");
  cr_assert_str_eq(_value(m, LM_V_MESSAGE), "disk failed");
  cr_assert_str_eq(_value(m, LM_V_MSGID), "100");
  /* the record's time: boot time (CLOCK_MONOTONIC's zero) + 5.25 s */
  struct timespec real, mono;
  clock_gettime(CLOCK_REALTIME, &real);
  clock_gettime(CLOCK_MONOTONIC, &mono);
  int64_t boot = real.tv_sec - mono.tv_sec;
  int64_t t = m->stamps[LM_TS_STAMP].sec;
  cr_assert(t >= boot + 4 && t <= boot + 6, "stamp %lld, boot %lld", (long long) t, (long long) boot);
  cr_assert_eq(m->stamps[LM_TS_RECVD].sec, 2000000000);
  cr_assert(m->flags & LF_LOCAL);

  cr_assert_str_eq(_by_name(m, ".linux.timestamp"), "5250000");

  kmsg_msg_add_dict(m, " SUBSYSTEM=block", 16);
  kmsg_msg_add_dict(m, " DEVICE=b8:16", 13);
  kmsg_msg_add_dict(m, " DRIVER=a=b", 11);
  kmsg_msg_add_dict(m, " novalue", 8);
  cr_assert_str_eq(_by_name(m, ".linux.SUBSYSTEM"), "block");
  cr_assert_str_eq(_by_name(m, ".linux.DRIVER"), "a=b");
  cr_assert_str_eq(_by_name(m, ".linux.DEVICE.type"), "block");
  cr_assert_str_eq(_by_name(m, ".linux.DEVICE.major"), "8");
  cr_assert_str_eq(_by_name(m, ".linux.DEVICE.minor"), "16");
  cr_assert_eq(log_msg_lookup_value_handle(".linux.novalue", -1), LM_V_NONE);
  log_msg_unref(m);
}

Test(kmsg, splits_the_device)
{
  static const char *const cases[][4] = {
    /* DEVICE=, then .linux.DEVICE.type, the next field's name and value */
    { "c4:1", "char", ".linux.DEVICE.minor", "1" },
    { "n2", "netdev", ".linux.DEVICE.index", "2" },
    { "+pci:0000:00:01.0", "pci", ".linux.DEVICE.name", "0000:00:01.0" },
    { "+nocolon", "<unknown>", ".linux.DEVICE.name", "+nocolon" },
    { "x9", "<unknown>", ".linux.DEVICE.name", "x9" },
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
    {
      LogMsg *m = _raw_msg("6,1,2,-;x");
      char *line = g_strdup_printf(" DEVICE=%s", cases[i][0]);
      kmsg_msg_add_dict(m, line, strlen(line));
      cr_assert_str_eq(_by_name(m, ".linux.DEVICE.type"), cases[i][1], "%s", cases[i][0]);
      cr_assert_str_eq(_by_name(m, cases[i][2]), cases[i][3], "%s", cases[i][0]);
      g_free(line);
      log_msg_unref(m);
    }
}

Test(kmsg, keeps_a_line_that_is_not_a_record)
{
  LogMsg *m = _raw_msg("garbage here");
  kmsg_msg_apply(m, NULL);
  cr_assert_eq(m->pri, 5);
  cr_assert_str_eq(_value(m, LM_V_MESSAGE), "garbage here");
  cr_assert(m->flags & LF_LOCAL);
  log_msg_unref(m);
}

/* ---- usertty() --------------------------------------------------------- */

static void
_put(int fd, short type, const char *user, const char *line)
{
  struct utmp ut;
  memset(&ut, 0, sizeof(ut));
  ut.ut_type = type;
  strncpy(ut.ut_user, user, sizeof(ut.ut_user));
  strncpy(ut.ut_line, line, sizeof(ut.ut_line));
  cr_assert_eq(write(fd, &ut, sizeof(ut)), (ssize_t) sizeof(ut));
}

static size_t
_drain(int master, char *buf, size_t cap)
{
  size_t got = 0;
  ssize_t n;
  while (got + 1 < cap && (n = read(master, buf + got, cap - 1 - got)) > 0)
    got += (size_t) n;
  buf[got] = '\0';
  return got;
}

Test(usertty, writes_to_the_logins_utmp_lists)
{
  int master = posix_openpt(O_RDWR | O_NOCTTY | O_NONBLOCK);
  if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0)
    cr_skip_test("no pseudo-terminals here");
  const char *slave = ptsname(master);
  cr_assert(slave && strncmp(slave, "/dev/", 5) == 0);
  /* keep the terminal open so what is written stays readable */
  int keep = open(slave, O_RDWR | O_NOCTTY);
  cr_assert(keep >= 0);

  char tmpl[] = "/tmp/sluice-utmp-XXXXXX";
  int fd = mkstemp(tmpl);
  cr_assert(fd >= 0);
  _put(fd, USER_PROCESS, "root", slave + 5);
  _put(fd, USER_PROCESS, "alice", slave + 5);
  _put(fd, DEAD_PROCESS, "bob", slave + 5);
  _put(fd, USER_PROCESS, "eve", "../etc/passwd");
  _put(fd, USER_PROCESS, "carol", "no-such-tty-here");
  close(fd);

  char buf[256];
  const char *failed = "unset";
  cr_assert_eq(usertty_write(tmpl, "root", "one\n", 4, &failed), 1);
  cr_assert_null(failed);
  _drain(master, buf, sizeof(buf));
  cr_assert(strstr(buf, "one"), "got '%s'", buf);
  /* a logged-out user and one not there get nothing; a line out of /dev
   * is never opened */
  cr_assert_eq(usertty_write(tmpl, "bob", "two\n", 4, &failed), 0);
  cr_assert_eq(usertty_write(tmpl, "nobody", "two\n", 4, &failed), 0);
  cr_assert_eq(usertty_write(tmpl, "eve", "two\n", 4, &failed), 0);
  cr_assert_eq(usertty_write(tmpl, "roo", "two\n", 4, &failed), 0);
  cr_assert_null(failed);
  cr_assert_eq(_drain(master, buf, sizeof(buf)), 0);
  /* "*": every login, until the one whose terminal is gone */
  cr_assert_eq(usertty_write(tmpl, "*", "three\n", 6, &failed), -1);
  cr_assert(failed && strstr(failed, "Opening tty device failed"));
  _drain(master, buf, sizeof(buf));
  cr_assert(strstr(buf, "three") && strstr(strstr(buf, "three") + 5, "three"), "got '%s'", buf);
  cr_assert_eq(usertty_write(tmpl, "carol", "four\n", 5, &failed), -1);
  /* no utmp at all: nobody is logged in */
  cr_assert_eq(usertty_write("/nonexistent/utmp", "*", "x\n", 2, &failed), 0);
  cr_assert_null(failed);
  unlink(tmpl);
  close(keep);
  close(master);
}
