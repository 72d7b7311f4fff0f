/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * LogFramer: table-driven cases in every mode, each fed whole, split at
 * every byte boundary (and at every pair of boundaries for short inputs),
 * in 1-byte chunks and in random chunks; every way must give exactly the
 * same messages, flags, counters and ending.
 *
 * Expected results are syslog-ng 3.38's (framing-oracle.py beside this file
 * asks it; log-msg-size(16) stands for the small size), except where a
 * comment says "syslog-ng:" and gives what it does instead (framing.h
 * explains each departure).
 */
#include "sluice/framing.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Expected
{
  const char *data;
  size_t len;
  bool truncated;
} Expected;

typedef enum Ending
{
  END_EOF,          /* drained to LOG_FRAMER_EOF */
  END_ERROR,        /* framing error as soon as the bad bytes are seen */
  END_ERROR_AT_EOF, /* framing error only once the stream ended */
} Ending;

#define MAX_OUT 8

typedef struct FramingCase
{
  const char *name;
  LogFramingMode mode;
  size_t msg_size;
  const char *in;
  size_t in_len;
  Ending end;
  Expected out[MAX_OUT];
  size_t record_size; /* RECORD (pad-size()) */
} FramingCase;

#define IN(s) .in = (s), .in_len = sizeof(s) - 1
#define M(s) { (s), sizeof(s) - 1, false }
#define T(s) { (s), sizeof(s) - 1, true }

#define LF LOG_FRAMING_LF
#define OC LOG_FRAMING_OCTET_COUNTED
#define AUTO LOG_FRAMING_AUTO
#define DG LOG_FRAMING_DGRAM
#define REC LOG_FRAMING_RECORD

#define D16 "0123456789abcdef"

static const FramingCase cases[] = {
  /* ---- LF: syslog-ng network(transport(tcp)) ---- */
  { "lf", LF, 0, IN("a\nb\n"), END_EOF, { M("a"), M("b") } },
  { "lf_crlf", LF, 0, IN("a\r\nb\r\n"), END_EOF, { M("a"), M("b") } },
  { "lf_nul", LF, 0, IN("a\0b\0"), END_EOF, { M("a"), M("b") } },
  { "lf_nul_lf", LF, 0, IN("a\0\nb\n"), END_EOF, { M("a"), M("b") } },
  { "lf_cr_is_not_an_end", LF, 0, IN("a\rb\r"), END_EOF, { M("a\rb") } },
  { "lf_empty_lines_dropped", LF, 0, IN("\n\na\n\r\n\n"), END_EOF, { M("a") } },
  { "lf_partial_at_eof", LF, 0, IN("a\nbcd"), END_EOF, { M("a"), M("bcd") } },
  { "lf_cr_cr_lf", LF, 0, IN("a\r\r\nb\n"), END_EOF, { M("a"), M("b") } },
  { "lf_leading_cr_kept", LF, 0, IN("a\n\rb\n"), END_EOF, { M("a"), M("\rb") } },
  { "lf_cr_nul", LF, 0, IN("a\r\0b\n"), END_EOF, { M("a"), M("b") } },
  { "lf_spaces_kept", LF, 0, IN("  \n"), END_EOF, { M("  ") } },
  { "lf_only_crs", LF, 0, IN("\r\r\r"), END_EOF, { { 0 } } },
  { "lf_empty_stream", LF, 0, IN(""), END_EOF, { { 0 } } },
  { "lf_many", LF, 0, IN("<13>one\n<14>two\r\n<15>three\0<16>four\n"), END_EOF,
    { M("<13>one"), M("<14>two"), M("<15>three"), M("<16>four") } },
  { "lf16_exact", LF, 16, IN(D16 "\nok\n"), END_EOF, { M(D16), M("ok") } },
  { "lf16_one_under", LF, 16, IN("0123456789abcde\nok\n"), END_EOF, { M("0123456789abcde"), M("ok") } },
  /* syslog-ng: "0123456789abcdef", "g", "ok" (splits) */
  { "lf16_one_over", LF, 16, IN(D16 "g\nok\n"), END_EOF, { T(D16), M("ok") } },
  /* syslog-ng: D16, "XYZ", "ok" */
  { "lf16_over", LF, 16, IN(D16 "XYZ\nok\n"), END_EOF, { T(D16), M("ok") } },
  /* syslog-ng: D16, D16, "QQ", "ok" */
  { "lf16_over_twice", LF, 16, IN(D16 D16 "QQ\nok\n"), END_EOF, { T(D16), M("ok") } },
  { "lf16_exact_crlf", LF, 16, IN(D16 "\r\nok\n"), END_EOF, { M(D16), M("ok") } },
  { "lf16_one_under_crlf", LF, 16, IN("0123456789abcde\r\nok\n"), END_EOF, { M("0123456789abcde"), M("ok") } },
  { "lf16_exact_many_crs", LF, 16, IN(D16 "\r\r\r\r\r\nok\n"), END_EOF, { M(D16), M("ok") } },
  { "lf16_head_ends_in_crs", LF, 16, IN("0123456789abcde\r\r\r\nok\n"), END_EOF,
    { M("0123456789abcde"), M("ok") } },
  /* syslog-ng: D16, "\r\rX", "ok" */
  { "lf16_crs_then_text", LF, 16, IN(D16 "\r\rX\nok\n"), END_EOF, { T(D16), M("ok") } },
  { "lf16_exact_crs_at_eof", LF, 16, IN(D16 "\r\r"), END_EOF, { M(D16) } },
  /* syslog-ng: D16, then "XYZ" at EOF */
  { "lf16_over_at_eof", LF, 16, IN(D16 "XYZ"), END_EOF, { T(D16) } },
  { "lf16_truncated_then_nul", LF, 16, IN(D16 "XY\0ok\0"), END_EOF, { T(D16), M("ok") } },
  { "lf16_only_crs", LF, 16, IN("\r\r\r\r\r\r\r\r\r\r\r\r\r\r\r\r\r\r\r\0ok\n"), END_EOF, { M("ok") } },
  { "lf16_only_crs_at_eof", LF, 16, IN("a\n\r\r\r\r\r\r\r\r\r\r\r\r\r\r\r\r\r\r\r"), END_EOF, { M("a") } },
  { "lf1", LF, 1, IN("a\nbc\n\nd"), END_EOF, { M("a"), T("b"), M("d") } },

  /* ---- OCTET_COUNTED: syslog-ng network(transport(framed)) ---- */
  { "oc", OC, 0, IN("3 abc5 hello"), END_EOF, { M("abc"), M("hello") } },
  { "oc_leading_zeros", OC, 0, IN("003 abc"), END_EOF, { M("abc") } },
  { "oc_zero_length_dropped", OC, 0, IN("0 3 abc"), END_EOF, { M("abc") } },
  { "oc_ten_digits", OC, 0, IN("0000000003 abc"), END_EOF, { M("abc") } },
  { "oc_eleven_digits", OC, 0, IN("00000000003 abc"), END_ERROR, { { 0 } } },
  { "oc_huge", OC, 0, IN("99999999999999999999 abc"), END_ERROR, { { 0 } } },
  { "oc_too_large", OC, 0, IN("4294967295 abc"), END_ERROR, { { 0 } } },
  { "oc_max_frame_plus_one", OC, 0, IN("1073741825 abc"), END_ERROR, { { 0 } } },
  /* syslog-ng: closes the connection (frame larger than log_msg_size) */
  { "oc_max_frame", OC, 16, IN("1073741824 " D16 "more"), END_ERROR_AT_EOF, { T(D16) } },
  { "oc_non_digit", OC, 0, IN("x3 abc3 def"), END_ERROR, { { 0 } } },
  { "oc_no_digits", OC, 0, IN(" abc"), END_ERROR, { { 0 } } },
  { "oc_plus", OC, 0, IN("+3 abc"), END_ERROR, { { 0 } } },
  { "oc_no_space", OC, 0, IN("3abc"), END_ERROR, { { 0 } } },
  { "oc_double_space", OC, 0, IN("3  abc"), END_ERROR, { M(" ab") } },
  { "oc_text", OC, 0, IN("<13>hello\n"), END_ERROR, { { 0 } } },
  { "oc_error_after_good", OC, 0, IN("3 abc2 dex1 f"), END_ERROR, { M("abc"), M("de") } },
  /* syslog-ng: "abc", then closes the connection (invalid frame header) */
  { "oc_lf_between", OC, 0, IN("3 abc\n3 def"), END_EOF, { M("abc"), M("def") } },
  { "oc_crlf_between", OC, 0, IN("3 abc\r\n3 def"), END_EOF, { M("abc"), M("def") } },
  { "oc_lf_at_end", OC, 0, IN("3 abc\n"), END_EOF, { M("abc") } },
  { "oc_nul_between", OC, 0, IN("3 abc\0\0003 def"), END_EOF, { M("abc"), M("def") } },
  /* syslog-ng: drops the partial frame silently */
  { "oc_partial_body_at_eof", OC, 0, IN("3 abc5 he"), END_ERROR_AT_EOF, { M("abc") } },
  { "oc_partial_header_at_eof", OC, 0, IN("3 abc12"), END_ERROR_AT_EOF, { M("abc") } },
  { "oc_header_only_at_eof", OC, 0, IN("3 abc12 "), END_ERROR_AT_EOF, { M("abc") } },
  { "oc_line_ends_inside", OC, 0, IN("5 a\nb\nc3 def"), END_EOF, { M("a\nb\nc"), M("def") } },
  { "oc_nul_inside", OC, 0, IN("3 a\0b"), END_EOF, { M("a\0b") } },
  { "oc_empty_stream", OC, 0, IN(""), END_EOF, { { 0 } } },
  { "oc16_exact", OC, 16, IN("16 " D16 "3 abc"), END_EOF, { M(D16), M("abc") } },
  { "oc16_one_under", OC, 16, IN("15 0123456789abcde3 abc"), END_EOF, { M("0123456789abcde"), M("abc") } },
  /* syslog-ng: closes the connection; with trim-large-messages(yes) as here */
  { "oc16_one_over", OC, 16, IN("17 " D16 "g3 abc"), END_EOF, { T(D16), M("abc") } },
  { "oc16_over_skip", OC, 16, IN("20 " D16 "WXYZ2 ok"), END_EOF, { T(D16), M("ok") } },
  { "oc16_over_skip_lf_inside", OC, 16, IN("22 " D16 "W\nX\nYZ2 ok"), END_EOF, { T(D16), M("ok") } },
  { "oc16_over_at_eof", OC, 16, IN("20 " D16 "WX"), END_ERROR_AT_EOF, { T(D16) } },

  /* ---- AUTO: syslog-ng 4's transport(auto); the first byte decides ---- */
  { "auto_text", AUTO, 0, IN("<13>a\n<13>b\n"), END_EOF, { M("<13>a"), M("<13>b") } },
  { "auto_framed", AUTO, 0, IN("5 <13>a5 <13>b"), END_EOF, { M("<13>a"), M("<13>b") } },
  { "auto_framed_lf", AUTO, 0, IN("5 <13>a\n5 <13>b\n"), END_EOF, { M("<13>a"), M("<13>b") } },
  { "auto_leading_lf_means_text", AUTO, 0, IN("\n3 abc\n"), END_EOF, { M("3 abc") } },
  /* syslog-ng 4: closes the connection */
  { "auto_digit_text", AUTO, 0, IN("2024-01-01 x\nb\n"), END_EOF, { M("2024-01-01 x"), M("b") } },
  { "auto_eleven_digits_text", AUTO, 0, IN("00000000003 abc\n"), END_EOF, { M("00000000003 abc") } },
  { "auto_digits_at_eof", AUTO, 0, IN("12"), END_EOF, { M("12") } },
  { "auto_bad_after_good", AUTO, 0, IN("3 abcxyz"), END_ERROR, { M("abc") } },
  { "auto_empty_stream", AUTO, 0, IN(""), END_EOF, { { 0 } } },
  { "auto16_lf_over", AUTO, 16, IN("<" D16 "\nok\n"), END_EOF, { T("<0123456789abcde"), M("ok") } },
  { "auto16_oc_over", AUTO, 16, IN("17 " D16 "g3 abc"), END_EOF, { T(D16), M("abc") } },

  /* ---- DGRAM: syslog-ng network(transport(udp)); the input is one datagram ---- */
  { "dgram", DG, 0, IN("hello\n"), END_EOF, { M("hello") } },
  { "dgram_lines_inside", DG, 0, IN("a\nb\n"), END_EOF, { M("a\nb") } },
  { "dgram_cr_kept", DG, 0, IN("x\r\n"), END_EOF, { M("x\r") } },
  { "dgram_nul", DG, 0, IN("n\0"), END_EOF, { M("n") } },
  { "dgram_lf_nul", DG, 0, IN("x\n\0"), END_EOF, { M("x") } },
  { "dgram_nul_lf", DG, 0, IN("x\0\n\n"), END_EOF, { M("x") } },
  { "dgram_nul_inside", DG, 0, IN("a\0b"), END_EOF, { M("a\0b") } },
  { "dgram_only_lf", DG, 0, IN("\n"), END_EOF, { M("") } },
  { "dgram_only_nul", DG, 0, IN("\0"), END_EOF, { M("") } },
  { "dgram_empty", DG, 0, IN(""), END_EOF, { { 0 } } },
  { "dgram16_exact", DG, 16, IN(D16), END_EOF, { M(D16) } },
  { "dgram16_exact_lf", DG, 16, IN(D16 "\n"), END_EOF, { M(D16) } },
  { "dgram16_one_under", DG, 16, IN("0123456789abcde"), END_EOF, { M("0123456789abcde") } },
  { "dgram16_one_over", DG, 16, IN(D16 "g"), END_EOF, { T(D16) } },
  { "dgram16_over", DG, 16, IN(D16 "XYZ"), END_EOF, { T(D16) } },

  /* ---- RECORD: syslog-ng file(pad-size(N)), its "padded record server" (by
   * its source: the oracle speaks to network() only) ----
   * (syslog-ng: a short record is an I/O error, EIO; here it waits for the
   * rest and goes out as it is at end of stream) */
  { "rec", REC, 0, IN("abc\0def\0"), END_EOF, { M("abc"), M("def") }, .record_size = 4 },
  { "rec_full_records", REC, 0, IN("abcdefgh"), END_EOF, { M("abcd"), M("efgh") }, .record_size = 4 },
  { "rec_nl_cuts", REC, 0, IN("ab\ncdeef\nxyz"), END_EOF, { M("ab"), M("ef") }, .record_size = 6 },
  { "rec_nul_cuts", REC, 0, IN("a\0b\ncd" "efghij"), END_EOF, { M("a"), M("efghij") }, .record_size = 6 },
  { "rec_nl_before_nul", REC, 0, IN("a\nb\0cd"), END_EOF, { M("a") }, .record_size = 6 },
  { "rec_cr_kept", REC, 0, IN("ab\r\n"), END_EOF, { M("ab\r") }, .record_size = 4 },
  { "rec_empty_message_dropped", REC, 0, IN("\0abc" "\nabc" "wxyz"), END_EOF, { M("wxyz") },
    .record_size = 4 },
  { "rec_only_padding", REC, 0, IN("\0\0\0\0\0\0\0\0"), END_EOF, { { 0 } }, .record_size = 4 },
  { "rec_partial_at_eof", REC, 0, IN("abcdef"), END_EOF, { M("abcd"), M("ef") }, .record_size = 4 },
  { "rec_partial_cut_at_eof", REC, 0, IN("abcde\0g"), END_EOF, { M("abcd"), M("e") }, .record_size = 4 },
  { "rec_partial_empty_at_eof", REC, 0, IN("abcd\n"), END_EOF, { M("abcd") }, .record_size = 4 },
  { "rec_one_byte", REC, 0, IN("a\nb"), END_EOF, { M("a"), M("b") }, .record_size = 1 },
  { "rec_empty_stream", REC, 0, IN(""), END_EOF, { { 0 } }, .record_size = 4 },
  { "rec16_exact", REC, 16, IN(D16 D16), END_EOF, { M(D16), M(D16) }, .record_size = 16 },
  { "rec16_smaller", REC, 16, IN("<13>hi\0\0<14>yo\0\0"), END_EOF, { M("<13>hi"), M("<14>yo") },
    .record_size = 8 },
};

/* ---- the runner ---- */

typedef struct Got
{
  char *data[64];
  size_t len[64];
  uint32_t flags[64];
  size_t n;
  Ending end;
  LogFramerStats stats;
} Got;

static void
got_free(Got *g)
{
  for (size_t i = 0; i < g->n; i++)
    free(g->data[i]);
  g->n = 0;
}

/* Fetch every message; true once the stream is over (error or EOF). */
static bool
drain(LogFramer *f, Got *g, size_t msg_size)
{
  for (;;)
    {
      const char *msg;
      size_t len;
      uint32_t flags;
      LogFramerStatus st = log_framer_next(f, &msg, &len, &flags);
      switch (st)
        {
        case LOG_FRAMER_MESSAGE:
          cr_assert_leq(len, msg_size);
          cr_assert_lt(g->n, 64);
          g->data[g->n] = malloc(len + 1);
          memcpy(g->data[g->n], msg, len);
          g->len[g->n] = len;
          g->flags[g->n] = flags;
          g->n++;
          break;
        case LOG_FRAMER_NEED_MORE:
          cr_assert_not(f->eof, "NEED_MORE after eof");
          return false;
        case LOG_FRAMER_ERROR:
          g->end = f->eof ? END_ERROR_AT_EOF : END_ERROR;
          cr_assert_not_null(log_framer_error_reason(f));
          /* sticky */
          cr_assert_eq(log_framer_next(f, &msg, &len, &flags), LOG_FRAMER_ERROR);
          return true;
        case LOG_FRAMER_EOF:
          g->end = END_EOF;
          cr_assert_eq(log_framer_next(f, &msg, &len, &flags), LOG_FRAMER_EOF);
          return true;
        }
    }
}

/* Feed c->in cut at the offsets cuts[0..ncuts) (ascending), then EOF. */
static void
run_cuts(const FramingCase *c, const size_t *cuts, size_t ncuts, Got *g)
{
  LogFramer f;
  size_t msg_size = c->msg_size ? c->msg_size : LOG_FRAMER_DEFAULT_MSG_SIZE;
  if (c->mode == REC)
    cr_assert(log_framer_init_record(&f, c->record_size, c->msg_size));
  else
    cr_assert(log_framer_init(&f, c->mode, c->msg_size));
  memset(g, 0, sizeof(*g));
  bool over = false;
  size_t from = 0;
  for (size_t i = 0; i <= ncuts && !over; i++)
    {
      size_t to = i < ncuts ? cuts[i] : c->in_len;
      while (from < to && !over)
        {
          from += log_framer_feed(&f, c->in + from, to - from);
          over = drain(&f, g, msg_size);
        }
    }
  if (!over)
    {
      log_framer_eof(&f);
      over = drain(&f, g, msg_size);
    }
  cr_assert(over);
  g->stats = f.stats;
  log_framer_deinit(&f);
}

static void
check(const FramingCase *c, const Got *g, const char *how)
{
  size_t n_out = 0;
  while (n_out < MAX_OUT && c->out[n_out].data)
    n_out++;
  cr_assert_eq(g->end, c->end, "%s (%s): ending %d, expected %d", c->name, how, g->end, c->end);
  cr_assert_eq(g->n, n_out, "%s (%s): %zu messages, expected %zu", c->name, how, g->n, n_out);
  size_t truncated = 0;
  for (size_t i = 0; i < n_out; i++)
    {
      const Expected *e = &c->out[i];
      cr_assert(g->len[i] == e->len && memcmp(g->data[i], e->data, e->len) == 0,
                "%s (%s): message %zu is \"%.*s\", expected \"%.*s\"", c->name, how, i, (int) g->len[i],
                g->data[i], (int) e->len, e->data);
      cr_assert_eq(g->flags[i], e->truncated ? LOG_FRAMER_TRUNCATED : 0u, "%s (%s): flags of message %zu",
                   c->name, how, i);
      truncated += e->truncated;
    }
  cr_assert_eq(g->stats.messages, n_out, "%s (%s)", c->name, how);
  cr_assert_eq(g->stats.truncated, truncated, "%s (%s)", c->name, how);
  cr_assert_eq(g->stats.framing_errors, c->end == END_EOF ? 0u : 1u, "%s (%s)", c->name, how);
}

static void
run_and_check(const FramingCase *c, const size_t *cuts, size_t ncuts, const char *how)
{
  Got g;
  run_cuts(c, cuts, ncuts, &g);
  check(c, &g, how);
  got_free(&g);
}

Test(framing, whole_input)
{
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
    run_and_check(&cases[i], NULL, 0, "whole");
}

Test(framing, split_at_every_boundary)
{
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
    {
      const FramingCase *c = &cases[i];
      if (c->mode == DG)
        continue;
      for (size_t k = 1; k < c->in_len; k++)
        {
          char how[48];
          snprintf(how, sizeof(how), "split at %zu", k);
          run_and_check(c, &k, 1, how);
        }
    }
}

Test(framing, split_at_every_pair_of_boundaries)
{
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
    {
      const FramingCase *c = &cases[i];
      if (c->mode == DG)
        continue;
      for (size_t a = 1; a < c->in_len; a++)
        for (size_t b = a + 1; b < c->in_len; b++)
          {
            size_t cuts[2] = { a, b };
            char how[64];
            snprintf(how, sizeof(how), "split at %zu and %zu", a, b);
            run_and_check(c, cuts, 2, how);
          }
    }
}

Test(framing, one_byte_chunks)
{
  size_t cuts[64];
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
    {
      const FramingCase *c = &cases[i];
      if (c->mode == DG)
        continue;
      cr_assert_lt(c->in_len, 64);
      for (size_t k = 1; k < c->in_len; k++)
        cuts[k - 1] = k;
      run_and_check(c, cuts, c->in_len ? c->in_len - 1 : 0, "1-byte chunks");
    }
}

Test(framing, random_chunks)
{
  size_t cuts[64];
  unsigned seed = 12345;
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
    {
      const FramingCase *c = &cases[i];
      if (c->mode == DG)
        continue;
      for (int round = 0; round < 50; round++)
        {
          size_t n = 0;
          for (size_t k = 1; k < c->in_len; k++)
            {
              seed = seed * 1103515245u + 12345u;
              if ((seed >> 16) % 3 == 0)
                cuts[n++] = k;
            }
          run_and_check(c, cuts, n, "random chunks");
        }
    }
}

/* log_framer_dgram (a recvmmsg slot) frames every DGRAM case as a datagram
 * read into the framer's buffer is framed; a datagram cut by its slot is
 * truncated, whatever was left in the slot */
Test(framing, dgram_from_a_slot)
{
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
    {
      const FramingCase *c = &cases[i];
      if (c->mode != DG)
        continue;
      LogFramer f;
      cr_assert(log_framer_init(&f, DG, c->msg_size));
      const char *msg;
      size_t len;
      uint32_t flags;
      LogFramerStatus st = log_framer_dgram(&f, c->in, c->in_len, false, &msg, &len, &flags);
      if (!c->out[0].data)
        cr_assert_eq(st, LOG_FRAMER_NEED_MORE, "%s", c->name);
      else
        {
          cr_assert_eq(st, LOG_FRAMER_MESSAGE, "%s", c->name);
          cr_assert(len == c->out[0].len && memcmp(msg, c->out[0].data, len) == 0, "%s", c->name);
          cr_assert_eq(flags, c->out[0].truncated ? LOG_FRAMER_TRUNCATED : 0u, "%s", c->name);
          cr_assert_eq(f.stats.truncated, c->out[0].truncated ? 1u : 0u, "%s", c->name);
        }
      log_framer_deinit(&f);
    }
  LogFramer f;
  cr_assert(log_framer_init(&f, DG, 16));
  const char *msg;
  size_t len;
  uint32_t flags;
  cr_assert_eq(log_framer_dgram(&f, "abc\n", 4, true, &msg, &len, &flags), LOG_FRAMER_MESSAGE);
  cr_assert(len == 3 && memcmp(msg, "abc", 3) == 0 && flags == LOG_FRAMER_TRUNCATED);
  cr_assert_eq(log_framer_dgram(&f, D16 "XYZ", 19, true, &msg, &len, &flags), LOG_FRAMER_MESSAGE);
  cr_assert(len == 16 && memcmp(msg, D16, 16) == 0 && flags == LOG_FRAMER_TRUNCATED);
  cr_assert_eq(f.stats.messages, 2u);
  cr_assert_eq(f.stats.truncated, 2u);
  log_framer_deinit(&f);
}
