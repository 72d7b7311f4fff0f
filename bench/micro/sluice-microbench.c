/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sluice-microbench: nanoseconds per message for the hot steps of the
 * pipeline, measured in a tight loop on one thread.
 *
 * Not a test: the figures depend on the machine.  Each case is run several
 * times and the best run is printed, which is the least disturbed by other
 * load.  For stable instruction counts run it under
 * `valgrind --tool=callgrind` with a small --iterations.
 *
 * Usage: sluice-microbench [--iterations N] [--runs N]
 */
#include "sluice/msg-format.h"
#include "sluice/template.h"

#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A 400-byte RFC 3164 line as a Linux daemon sends it. */
static const char rfc3164_line[] =
  "<86>Nov 22 10:14:03 web-frontend-07 sshd[23541]: Accepted publickey for deploy from "
  "192.0.2.117 port 52114 ssh2: ED25519 SHA256:Zq8v3kS0d9lQm2yXkH1rTt4nW6bP0aJc7eF5gU2iL8o "
  "session opened for user deploy(uid=1001) by (uid=0); client=\"OpenSSH_9.2p1 Debian-2+deb12u3\" "
  "kex=curve25519-sha256 cipher=chacha20-poly1305@openssh.com mac=implicit compression=no "
  "tty=none forward=no agent-fwd=no pty-req=no";

/* An RFC 5424 line with structured data, about the same length. */
static const char rfc5424_line[] =
  "<165>1 2026-11-22T10:14:03.123456+01:00 web-frontend-07.example.net payments 23541 ID47 "
  "[exampleSDID@32473 iut=\"3\" eventSource=\"Application\" eventID=\"1011\"]"
  "[origin ip=\"192.0.2.117\" software=\"payments\" swVersion=\"4.2.1\"] "
  "\xEF\xBB\xBF" "Payment batch 88213 settled: 412 transactions, 0 rejected, total 18231.44 EUR; "
  "gateway=adyen latency_ms=211 retries=0 queue=settle-eu-1 worker=7 shard=3 attempt=1 region=eu-west";

typedef void (*BenchFunc)(void *ctx);

static double
_now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec * 1e9 + (double) ts.tv_nsec;
}

/* Best-of-runs nanoseconds per call of func. */
static double
_measure(BenchFunc func, void *ctx, long iterations, int runs)
{
  double best = 0;
  for (int r = 0; r < runs; r++)
    {
      double start = _now_ns();
      for (long i = 0; i < iterations; i++)
        func(ctx);
      double per = (_now_ns() - start) / (double) iterations;
      if (r == 0 || per < best)
        best = per;
    }
  return best;
}

typedef struct ParseCase
{
  MsgFormatOptions opts;
  const char *line;
  size_t len;
  LogStamp recvd;
} ParseCase;

static void
_bench_parse(void *ctx)
{
  ParseCase *c = ctx;
  LogMsg *msg = msg_format_parse(&c->opts, c->line, c->len, &c->recvd);
  log_msg_unref(msg);
}

typedef struct FormatCase
{
  LogMsg *msg;
  LogTemplateOptions opts;
  GString *out;
  void (*format)(const LogMsg *msg, const LogTemplateOptions *opts, GString *out);
} FormatCase;

static void
_bench_format(void *ctx)
{
  FormatCase *c = ctx;
  g_string_truncate(c->out, 0);
  c->format(c->msg, &c->opts, c->out);
}

static void
_run_case(const char *name, const char *line, bool rfc5424, long iterations, int runs)
{
  ParseCase pc;
  msg_format_options_defaults(&pc.opts);
  if (rfc5424)
    pc.opts.flags |= MF_SYSLOG_PROTOCOL;
  pc.line = line;
  pc.len = strlen(line);
  pc.recvd = (LogStamp) { .sec = 1795342443, .usec = 0, .gmtoff = 0 };

  double parse_ns = _measure(_bench_parse, &pc, iterations, runs);

  FormatCase fc;
  fc.msg = msg_format_parse(&pc.opts, pc.line, pc.len, &pc.recvd);
  log_template_options_defaults(&fc.opts);
  fc.out = g_string_sized_new(1024);
  fc.format = rfc5424 ? log_format_rfc5424_frame : log_format_file_line;
  double format_ns = _measure(_bench_format, &fc, iterations, runs);

  printf("%-8s %4zu bytes   parse %7.1f ns/msg   format(%s) %7.1f ns/msg\n", name, pc.len, parse_ns,
         rfc5424 ? "syslog() frame" : "file line", format_ns);

  g_string_free(fc.out, TRUE);
  log_msg_unref(fc.msg);
}

int
main(int argc, char **argv)
{
  long iterations = 2000000;
  int runs = 5;
  for (int i = 1; i < argc; i++)
    {
      if (strcmp(argv[i], "--iterations") == 0 && i + 1 < argc)
        iterations = strtol(argv[++i], NULL, 10);
      else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
        runs = (int) strtol(argv[++i], NULL, 10);
      else
        {
          fprintf(stderr, "usage: %s [--iterations N] [--runs N]\n", argv[0]);
          return 2;
        }
    }
  if (iterations < 1 || runs < 1)
    {
      fprintf(stderr, "%s: --iterations and --runs must be positive\n", argv[0]);
      return 2;
    }
  _run_case("RFC3164", rfc3164_line, false, iterations, runs);
  _run_case("RFC5424", rfc5424_line, true, iterations, runs);
  return 0;
}
