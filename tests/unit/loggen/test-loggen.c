/* SPDX-License-Identifier: GPL-2.0-or-later */
/* loggen: the standard line, -R conversion, mixed lines, latency, --check. */
#include "loggen-conn.h"
#include "loggen.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static LoggenStamp
_stamp(void)
{
  LoggenStamp st = { .sec = 1, .iso = "2026-01-02T03:04:05", .iso_len = 19, .offset = "+01:00",
                     .bsd = "Jan  2 03:04:05" };
  return st;
}

static char *
_padded(const char *head, size_t size)
{
  char *s = malloc(size + 1);
  size_t h = strlen(head);
  memcpy(s, head, h);
  for (size_t i = h; i + 1 < size; i++)
    s[i] = "PADD"[(i - h) % 4];
  s[size - 1] = '\n';
  s[size] = '\0';
  return s;
}

Test(loggen_line, rfc3164_as_syslog_ng)
{
  LoggenOptions o = { .size = 256, .runid = 1234567890 };
  static LineTemplate t;
  cr_assert(line_template_init(&t, &o));
  LoggenStamp st = _stamp();
  char buf[LOGGEN_MAX_MESSAGE + 64];
  size_t n = line_template_format(&t, buf, 42, 7, &st);
  char *want = _padded("<38>2026-01-02T03:04:05 localhost prg00000[1234]: seq: 0000000042, thread: 0007, "
                       "runid: 1234567890, stamp: 2026-01-02T03:04:05 ",
                       256);
  cr_assert_eq(n, 256);
  cr_assert_arr_eq(buf, want, 256);
  free(want);
}

Test(loggen_line, rfc5424_framed_with_sdata)
{
  LoggenOptions o = { .size = 300, .runid = 42, .syslog_proto = true, .framing = true, .sdata = "[a b=\"c\"]" };
  static LineTemplate t;
  cr_assert(line_template_init(&t, &o));
  LoggenStamp st = _stamp();
  char buf[LOGGEN_MAX_MESSAGE + 64];
  size_t n = line_template_format(&t, buf, 9999999999ULL, 12, &st);
  char *body = _padded("<38>1 2026-01-02T03:04:05+01:00 localhost prg00000 1234 - [a b=\"c\"] \xEF\xBB\xBF"
                       "seq: 9999999999, thread: 0012, runid: 42        , stamp: 2026-01-02T03:04:05 ",
                       300);
  cr_assert_eq(n, 304);
  cr_assert_arr_eq(buf, "300 ", 4);
  cr_assert_arr_eq(buf + 4, body, 300);
  free(body);
}

Test(loggen_line, too_small_keeps_the_newline)
{
  LoggenOptions o = { .size = 50, .runid = 1 };
  static LineTemplate t;
  cr_assert_not(line_template_init(&t, &o));
  cr_assert_gt(t.len, 50);
  cr_assert_eq(t.text[t.len - 1], '\n');
  cr_assert_eq(t.text[t.len - 2], ' ');
}

static char *
_convert(LoggenOptions *o, const char *line)
{
  static char buf[LOGGEN_MAX_MESSAGE + 32];
  LoggenStamp st = _stamp();
  long n = file_reader_convert(o, line, strlen(line), buf, sizeof(buf), &st);
  if (n < 0)
    return NULL;
  buf[n] = '\0';
  return buf;
}

Test(loggen_file, rfc3164_output)
{
  LoggenOptions o = { 0 };
  cr_assert_str_eq(_convert(&o, "<13>Nov 23 10:00:00 myhost sshd[42]: Accepted for bob\n"),
                   "<38>Jan  2 03:04:05 myhost sshd[42]: Accepted for bob\n");
  cr_assert_str_eq(_convert(&o, "<13>Nov 23 10:00:00 h prog: no pid"), "<38>Jan  2 03:04:05 h prog: no pid\n");
  cr_assert_str_eq(_convert(&o, "<13>Nov 23 10:00:00 hostonly\n"), "<38>Jan  2 03:04:05 hostonly\n");
  cr_assert_str_eq(_convert(&o, "<13>Nov 23 10:00:00 h4 nocolon word\n"), "<38>Jan  2 03:04:05 h4 : nocolon word\n");
  cr_assert_str_eq(_convert(&o, "<14>1 2026-11-23T10:00:00Z h2 app 77 ID47 [ex@1 a=\"]\"] \xEF\xBB\xBFhello\n"),
                   "<38>Jan  2 03:04:05 h2 app[77]: hello\n");
  cr_assert_str_eq(_convert(&o, "<38>2026-11-23T12:54:44 localhost prg00000[1234]: seq: 1\n"),
                   "<38>Jan  2 03:04:05 localhost prg00000[1234]: seq: 1\n");
}

Test(loggen_file, rfc5424_output_framed)
{
  LoggenOptions o = { .syslog_proto = true, .framing = true };
  cr_assert_str_eq(_convert(&o, "<14>1 2026-11-23T10:00:00Z h2 app 77 ID47 [ex@1 a=\"]\"] \xEF\xBB\xBFhello\n"),
                   "69 <14>1 2026-01-02T03:04:05+01:00 h2 app 77 ID47 [ex@1 a=\"]\"] \xEF\xBB\xBFhello\n");
  cr_assert_str_eq(_convert(&o, "<13>Nov 23 10:00:00 h p[1]: m"),
                   "47 <13>1 2026-01-02T03:04:05+01:00 h p 1 - - \xEF\xBB\xBFm\n");
}

Test(loggen_file, dont_parse_skip_tokens_and_invalid)
{
  LoggenOptions o = { .dont_parse = true };
  cr_assert_str_eq(_convert(&o, "anything at all\r\n"), "anything at all\n");
  LoggenOptions skip = { .skip_tokens = 2 };
  cr_assert_str_eq(_convert(&skip, "2026-11-23 relay <13>Nov 23 10:00:00 h p: x"), "<38>Jan  2 03:04:05 h p: x\n");
  cr_assert_null(_convert(&skip, "one <13>Nov 23 10:00:00 h p: x"));
  LoggenOptions plain = { 0 };
  cr_assert_null(_convert(&plain, "garbage"));
  cr_assert_null(_convert(&plain, "<13>"));
  cr_assert_null(_convert(&plain, "<13>1 2026-11-23T10:00:00Z h app"));
  cr_assert_null(_convert(&plain, "<14>1 2026-11-23T10:00:00Z h2 app 77 ID47 [unterminated"));
}

Test(loggen_mixed, lengths_formats_and_body)
{
  MixedGen g;
  mixed_gen_init(&g, 3, 1795438484, false);
  LoggenStamp st = _stamp();
  static char buf[LOGGEN_MIXED_MAX];
  bool saw3164 = false, saw5424 = false, long_one = false;
  for (uint64_t seq = 0; seq < 2000; seq++)
    {
      size_t n = mixed_gen_format(&g, buf, seq, &st);
      cr_assert(n >= 100 && n <= 2000, "length %zu", n);
      cr_assert_eq(buf[n - 1], '\n');
      cr_assert_null(memchr(buf, '\n', n - 1));
      char want[64];
      snprintf(want, sizeof(want), "seq: %010llu, thread: 0003, runid: 1795438484,", (unsigned long long) seq);
      cr_assert_not_null(memmem(buf, n, want, strlen(want)));
      if (buf[2] == '>' || buf[3] == '>' || buf[4] == '>')
        {
          const char *gt = memchr(buf, '>', 5);
          if (gt[1] == '1' && gt[2] == ' ')
            saw5424 = true;
          else
            saw3164 = true;
        }
      long_one |= n > 1800;
    }
  cr_assert(saw3164 && saw5424 && long_one);

  mixed_gen_init(&g, 0, 1, true);
  size_t n = mixed_gen_format(&g, buf, 0, &st);
  char *sp = memchr(buf, ' ', 6);
  cr_assert_not_null(sp);
  cr_assert_eq((size_t) atoi(buf), n - (size_t) (sp + 1 - buf));
}

Test(loggen_latency, quantiles)
{
  LoggenLatency l = { 0 };
  cr_assert_eq(loggen_latency_quantile(&l, 0.5), 0);
  for (int i = 0; i < 99; i++)
    loggen_latency_add(&l, 10);
  loggen_latency_add(&l, 5000);
  cr_assert_eq(l.count, 100);
  cr_assert_eq(l.max_us, 5000);
  cr_assert_eq(loggen_latency_quantile(&l, 0.5), 10);
  cr_assert_eq(loggen_latency_quantile(&l, 0.99), 10);
  cr_assert_eq(loggen_latency_quantile(&l, 0.999), 5000);
  LoggenLatency m = { 0 };
  loggen_latency_add(&m, 0);
  loggen_latency_merge(&m, &l);
  cr_assert_eq(m.count, 101);
  cr_assert_eq(loggen_latency_quantile(&m, 0.001), 0);
}

static char dir[] = "/tmp/loggen-unit-XXXXXX";

static const char *
_write(const char *name, const char *text)
{
  static char path[256];
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f);
  fputs(text, f);
  fclose(f);
  return path;
}

static int
_check(const char *const *paths, int n, CheckOptions *co, char **report)
{
  size_t len;
  FILE *out = open_memstream(report, &len);
  int rc = loggen_check(paths, n, co, out);
  fclose(out);
  return rc;
}

static void
_setup(void)
{
  cr_assert_not_null(mkdtemp(dir));
}

static void
_teardown(void)
{
  char cmd[300];
  snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
  cr_assert_eq(system(cmd), 0);
}

#define L(seq, th) "x seq: " #seq ", thread: " #th ", runid: 77, stamp: y\n"

Test(loggen_check, order_is_judged_per_file, .init = _setup, .fini = _teardown)
{
  char *a = strdup(_write("a", L(2, 0) L(3, 0)));
  char *b = strdup(_write("b", L(0, 0) L(1, 0) "no body here\n"));
  const char *paths[] = { a, b };
  CheckOptions co = { 0 };
  char *report = NULL;
  cr_assert_eq(_check(paths, 2, &co, &report), 0, "%s", report);
  cr_assert_str_eq(report, "runid=77 thread=0000 received=4 missing=0 duplicated=0 reordered=0\n"
                           "check: threads=1 received=4 missing=0 duplicated=0 reordered=0: OK\n");
  free(report);
  free(a);
  free(b);
}

Test(loggen_check, lists_and_limits, .init = _setup, .fini = _teardown)
{
  const char *p = _write("x", L(0, 1) L(3, 1) L(1, 1) L(3, 1) L(6, 1) L(0, 2));
  CheckOptions co = { .expect = 8 };
  char *report = NULL;
  cr_assert_eq(_check(&p, 1, &co, &report), 1);
  cr_assert_str_eq(report, "runid=77 thread=0001 received=5 missing=4 duplicated=1 reordered=1\n"
                           "  missing: 2 4-5 7\n"
                           "  duplicated: 3\n"
                           "  reordered: 1\n"
                           "runid=77 thread=0002 received=1 missing=7 duplicated=0 reordered=0\n"
                           "  missing: 1-7\n"
                           "check: threads=2 received=6 missing=11 duplicated=1 reordered=1: FAIL\n");
  free(report);
}

Test(loggen_check, allowances, .init = _setup, .fini = _teardown)
{
  const char *p = _write("x", L(1, 0) L(0, 0) L(1, 0));
  CheckOptions co = { 0 };
  char *report = NULL;
  cr_assert_eq(_check(&p, 1, &co, &report), 1);
  free(report);
  co.allow_duplicates = true;
  cr_assert_eq(_check(&p, 1, &co, &report), 1);
  free(report);
  co.allow_reordering = true;
  cr_assert_eq(_check(&p, 1, &co, &report), 0, "%s", report);
  free(report);
}

Test(loggen_check, stray_huge_numbers, .init = _setup, .fini = _teardown)
{
  /* a 10-digit seq costs a page, not a bitmap up to it; 11 digits are not loggen's */
  const char *p = _write("x", L(0, 0) L(1, 0) L(9999999999, 0) L(99999999999, 0));
  CheckOptions co = { 0 };
  char *report = NULL;
  cr_assert_eq(_check(&p, 1, &co, &report), 1);
  cr_assert_str_eq(report, "runid=77 thread=0000 received=3 missing=9999999997 duplicated=0 reordered=0\n"
                           "  missing: 2-9999999998\n"
                           "check: threads=1 received=3 missing=9999999997 duplicated=0 reordered=0: FAIL\n");
  free(report);
}

Test(loggen_proxy, header_defaults_and_ipv6)
{
  LoggenOptions o = { .proxied = true };
  char buf[256];
  size_t n = loggen_proxy_header(&o, 3, buf, sizeof(buf));
  cr_assert_eq(n, strlen(buf));
  cr_assert_str_eq(buf, "PROXY TCP4 192.168.1.4 192.168.1.254 10003 514\r\n");
  LoggenOptions v6 = { .proxied = true, .proxy_src_ip = "2001:db8::1", .proxy_dst_ip = "2001:db8::2",
                       .proxy_src_port = "1", .proxy_dst_port = "2" };
  loggen_proxy_header(&v6, 0, buf, sizeof(buf));
  cr_assert_str_eq(buf, "PROXY TCP6 2001:db8::1 2001:db8::2 1 2\r\n");
}
