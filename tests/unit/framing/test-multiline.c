/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Multi-line joining (sluice/multiline.h) over the LINES framer.
 *
 * Every expected output below is what syslog-ng 3.38.1 (Debian's) wrote
 * for the same input, unless the test says it departs.  The runs: a
 * source reading the input, `flags(no-parse)` and the options the test
 * names, into file() with template("[$MSG]\n"), the "[...]" pairs of the
 * output copied here as they came.  "file run" means
 *   source s { file("IN" follow-freq(1) flags(no-parse) OPTIONS); };
 * stopped after 3 s (a followed file never ends: the message still open
 * then was never written), "stdin run" means
 *   source s { stdin(flags(no-parse) OPTIONS); };  with `cat IN |`
 * (the input ends: what is open is written).
 */
#include "sluice/framing.h"
#include "sluice/multiline.h"

#include <criterion/criterion.h>
#include <glib.h>
#include <string.h>

typedef struct Out
{
  GString *text;
  LogStamp last_recvd;
} Out;

static void
_collect(const char *msg, size_t len, uint32_t flags, const LogStamp *recvd, void *user_data)
{
  Out *o = user_data;
  cr_assert_gt(len, 0);
  g_string_append_c(o->text, '[');
  g_string_append_len(o->text, msg, (gssize) len);
  g_string_append_c(o->text, ']');
  if (flags & LOG_FRAMER_TRUNCATED)
    g_string_append(o->text, "T");
  o->last_recvd = *recvd;
}

static LogMultiLineOptions *
_opts(LogMultiLineMode mode, const char *prefix, const char *garbage)
{
  char *error = NULL;
  LogMultiLineOptions *o = log_multi_line_options_new(mode, prefix, garbage, 0, &error);
  cr_assert_not_null(o, "%s", error ? error : "");
  return o;
}

/* Frame input[0..len) in LINES mode, step bytes at a time (0: whole),
 * join, and end the stream when eof; the messages as "[msg]" ("[msg]T"
 * when truncated). */
static GString *
_run_step(const LogMultiLineOptions *opts, size_t msg_size, const char *input, size_t len, bool eof, size_t step)
{
  LogFramer f;
  LogMultiLine ml;
  Out out = { g_string_new(""), { 0 } };
  cr_assert(log_framer_init(&f, LOG_FRAMING_LINES, msg_size));
  log_multi_line_init(&ml, opts, f.log_msg_size);
  LogStamp now = { 0 };
  size_t off = 0;
  for (;;)
    {
      const char *line;
      size_t n;
      uint32_t flags;
      LogFramerStatus st;
      while ((st = log_framer_next(&f, &line, &n, &flags)) == LOG_FRAMER_MESSAGE)
        log_multi_line_feed(&ml, line, n, flags, &now, _collect, &out);
      if (st == LOG_FRAMER_EOF)
        {
          log_multi_line_flush(&ml, _collect, &out);
          break;
        }
      cr_assert_eq(st, LOG_FRAMER_NEED_MORE);
      if (off == len)
        {
          if (!eof)
            break;
          log_framer_eof(&f);
          continue;
        }
      size_t chunk = step && step < len - off ? step : len - off;
      off += log_framer_feed(&f, input + off, chunk);
      now.sec++;
    }
  log_multi_line_deinit(&ml);
  log_framer_deinit(&f);
  return out.text;
}

/* _run_step whole and byte by byte: both must give the same. */
static void
_expect(const LogMultiLineOptions *opts, size_t msg_size, const char *input, size_t len, bool eof,
        const char *expected, size_t expected_len)
{
  GString *whole = _run_step(opts, msg_size, input, len, eof, 0);
  GString *bytes = _run_step(opts, msg_size, input, len, eof, 1);
  cr_assert(whole->len == expected_len && memcmp(whole->str, expected, expected_len) == 0,
            "got \"%s\", expected \"%s\"", g_strescape(whole->str, NULL), g_strescape(expected, NULL));
  cr_assert(bytes->len == whole->len && memcmp(bytes->str, whole->str, whole->len) == 0, "byte by byte \"%s\"",
            g_strescape(bytes->str, NULL));
  g_string_free(whole, TRUE);
  g_string_free(bytes, TRUE);
}

#define EXPECT(opts, eof, input, expected)                                                                     \
  _expect(opts, 0, input, sizeof(input) - 1, eof, expected, sizeof(expected) - 1)
#define FILE_RUN false
#define STDIN_RUN true

/* ---- indented ------------------------------------------------------------ */

Test(multiline, indented_joins_space_and_tab_lines)
{
  LogMultiLineOptions *o = _opts(LOG_MULTI_LINE_INDENTED, NULL, NULL);
  /* file run, multi-line-mode(indented); "fourth" is still open */
  EXPECT(o, FILE_RUN, "first\n cont1\n\tcont2\nsecond\n\nthird\n  \nfourth\n",
         "[first\n cont1\n\tcont2][second][third\n  ]");
  log_multi_line_options_unref(o);
}

Test(multiline, indented_empty_lines_continue_and_a_leading_continuation_begins)
{
  LogMultiLineOptions *o = _opts(LOG_MULTI_LINE_INDENTED, NULL, NULL);
  /* file run, multi-line-mode(indented): " lead" begins a message,
   * "first\n\n cont" keeps its empty line, "second\n\n\n" loses its
   * trailing line ends */
  EXPECT(o, FILE_RUN, " lead\nfirst\n\n cont\nsecond\n\n\nthird\n\n", "[ lead][first\n\n cont][second]");
  /* leading empty lines make a message of nothing, which is not sent
   * (timeout run below, "\n\nfirst...") */
  EXPECT(o, FILE_RUN, "\n\nfirst\nsecond\n", "[first]");
  log_multi_line_options_unref(o);
}

Test(multiline, indented_keeps_inner_cr_and_nul_line_ends)
{
  LogMultiLineOptions *o = _opts(LOG_MULTI_LINE_INDENTED, NULL, NULL);
  /* file run, multi-line-mode(indented), input "a\r\n b\r\nc\r\n" */
  EXPECT(o, FILE_RUN, "a\r\n b\r\nc\r\n", "[a\r\n b]");
  /* file run, multi-line-mode(indented), input "a\0 b\nc\0d\n": a NUL ends
   * a line and stays inside the message */
  EXPECT(o, FILE_RUN, "a\0 b\nc\0d\n", "[a\0 b][c]");
  log_multi_line_options_unref(o);
}

Test(multiline, end_of_stream_sends_the_open_message_with_the_partial_line)
{
  LogMultiLineOptions *o = _opts(LOG_MULTI_LINE_INDENTED, NULL, NULL);
  /* stdin runs, multi-line-mode(indented) */
  EXPECT(o, STDIN_RUN, "first\nsecond\n cont\nthird", "[first][second\n cont\nthird]");
  EXPECT(o, STDIN_RUN, "first\nsecond\n cont\nthird\n", "[first][second\n cont][third]");
  EXPECT(o, STDIN_RUN, "first\nsecond\n cont\n", "[first][second\n cont]");
  EXPECT(o, STDIN_RUN, "first\nsecond\n cont\n\n\n", "[first][second\n cont]");
  EXPECT(o, STDIN_RUN, "first\nsecond\n cont\n \r\n", "[first][second\n cont\n ]");
  log_multi_line_options_unref(o);
}

/* ---- regexp / prefix-garbage ------------------------------------------------ */

Test(multiline, regexp_prefix_begins_a_message_and_the_first_line_always_does)
{
  static const char input[] = "junk1\njunk2\nSTART a\nb\nSTART c\n\nd\nxx START e\nSTART f\n";
  /* stdin run, multi-line-mode(regexp) multi-line-prefix('^START') */
  LogMultiLineOptions *o = _opts(LOG_MULTI_LINE_PREFIX_GARBAGE, "^START", NULL);
  EXPECT(o, STDIN_RUN, input, "[junk1\njunk2][START a\nb][START c\n\nd\nxx START e][START f]");
  log_multi_line_options_unref(o);
  /* stdin run, multi-line-prefix('START'): not anchored */
  o = _opts(LOG_MULTI_LINE_PREFIX_GARBAGE, "START", NULL);
  EXPECT(o, STDIN_RUN, input, "[junk1\njunk2][START a\nb][START c\n\nd][xx START e][START f]");
  log_multi_line_options_unref(o);
}

Test(multiline, garbage_ends_the_message_and_is_dropped_with_the_rest_of_its_line)
{
  /* stdin runs, multi-line-mode(prefix-garbage) multi-line-prefix('^START')
   * multi-line-garbage('GARB') */
  LogMultiLineOptions *o = _opts(LOG_MULTI_LINE_PREFIX_GARBAGE, "^START", "GARB");
  EXPECT(o, STDIN_RUN, "START a\nb GARB c\nd\nSTART e\nGARB\nf\nSTART g\nh\n",
         "[START a\nb ][d][START e][f][START g\nh]");
  /* garbage at the start of a first line: nothing is sent */
  EXPECT(o, STDIN_RUN, "GARB x\nSTART a GARB y\nSTART b\nc\n", "[START a ][START b\nc]");
  log_multi_line_options_unref(o);
}

Test(multiline, garbage_on_an_empty_line_is_looked_for_in_the_whole_message)
{
  static const char input[] = "a\nb\n\nc\nSTART d\n";
  /* stdin run, prefix-garbage, multi-line-prefix('^START')
   * multi-line-garbage('a\nb'): only the empty line's subject, "a\nb\n",
   * has it, at 0: the message is dropped */
  LogMultiLineOptions *o = _opts(LOG_MULTI_LINE_PREFIX_GARBAGE, "^START", "a\\nb");
  EXPECT(o, STDIN_RUN, input, "[c][START d]");
  log_multi_line_options_unref(o);
  /* the same with prefix-suffix: the message ends after the match */
  o = _opts(LOG_MULTI_LINE_PREFIX_SUFFIX, "^START", "a\\nb");
  EXPECT(o, STDIN_RUN, input, "[a\nb][c][START d]");
  log_multi_line_options_unref(o);
  /* stdin run, prefix-garbage, multi-line-garbage('^$'): never matches
   * "START\n" or "START\n\n" */
  o = _opts(LOG_MULTI_LINE_PREFIX_GARBAGE, "^START", "^$");
  EXPECT(o, STDIN_RUN, "a\nb\nSTART\n\n\nc\n", "[a\nb][START\n\n\nc]");
  log_multi_line_options_unref(o);
}

Test(multiline, regexp_empty_lines)
{
  /* stdin run, multi-line-mode(regexp) multi-line-prefix('^START') */
  LogMultiLineOptions *o = _opts(LOG_MULTI_LINE_PREFIX_GARBAGE, "^START", NULL);
  EXPECT(o, STDIN_RUN, "\n\nSTART a\n\n\nb\n\n", "[START a\n\n\nb]");
  log_multi_line_options_unref(o);
}

Test(multiline, garbage_matching_nothing_drops_everything)
{
  static const char input[] = "a\nb\nc\n";
  /* stdin runs, multi-line-garbage('x*') (matches "" at 0): no output */
  LogMultiLineOptions *o = _opts(LOG_MULTI_LINE_PREFIX_GARBAGE, "^START", "x*");
  EXPECT(o, STDIN_RUN, input, "");
  log_multi_line_options_unref(o);
  o = _opts(LOG_MULTI_LINE_PREFIX_SUFFIX, "^START", "x*");
  EXPECT(o, STDIN_RUN, input, "");
  log_multi_line_options_unref(o);
}

/* ---- prefix-suffix -------------------------------------------------------- */

Test(multiline, suffix_ends_the_message_and_keeps_itself)
{
  static const char input[] = "pre\nSTART a\nb END c\nd\nSTART e END f\nSTART g\nSTART h\ni\nEND\nj\n";
  /* stdin run, multi-line-mode(prefix-suffix) multi-line-prefix('^START')
   * multi-line-suffix('END') (multi-line-garbage('END') gave the same) */
  LogMultiLineOptions *o = _opts(LOG_MULTI_LINE_PREFIX_SUFFIX, "^START", "END");
  EXPECT(o, STDIN_RUN, input, "[pre][START a\nb END][d\nSTART e END][START g][START h\ni\nEND][j]");
  log_multi_line_options_unref(o);
  /* stdin run, multi-line-suffix('END') alone */
  o = _opts(LOG_MULTI_LINE_PREFIX_SUFFIX, NULL, "END");
  EXPECT(o, STDIN_RUN, input, "[pre\nSTART a\nb END][d\nSTART e END][START g\nSTART h\ni\nEND][j]");
  log_multi_line_options_unref(o);
  /* stdin run, multi-line-prefix('^START') alone */
  o = _opts(LOG_MULTI_LINE_PREFIX_SUFFIX, "^START", NULL);
  EXPECT(o, STDIN_RUN, input, "[pre][START a\nb END c\nd][START e END f][START g][START h\ni\nEND\nj]");
  log_multi_line_options_unref(o);
}

/* ---- verdicts --------------------------------------------------------------- */

Test(multiline, classify_gives_the_verdicts)
{
  LogMultiLineOptions *o = _opts(LOG_MULTI_LINE_PREFIX_GARBAGE, "^S", "G");
  LogMultiLine ml;
  log_multi_line_init(&ml, o, 0);
  size_t keep;
  cr_assert_eq(log_multi_line_classify(&ml, "S1", 2, &keep), LOG_MULTI_LINE_APPEND);
  cr_assert_eq(log_multi_line_classify(&ml, "G", 1, &keep), LOG_MULTI_LINE_DROP);
  cr_assert_eq(log_multi_line_classify(&ml, "xG", 2, &keep), LOG_MULTI_LINE_EMIT_WITH);
  cr_assert_eq(keep, 1);
  LogStamp t = { 0 };
  Out out = { g_string_new(""), { 0 } };
  log_multi_line_feed(&ml, "S1", 2, 0, &t, _collect, &out);
  cr_assert(log_multi_line_is_open(&ml));
  cr_assert_eq(log_multi_line_classify(&ml, "x", 1, &keep), LOG_MULTI_LINE_APPEND);
  cr_assert_eq(log_multi_line_classify(&ml, "S2", 2, &keep), LOG_MULTI_LINE_EMIT_BEFORE);
  cr_assert_eq(log_multi_line_classify(&ml, "abG", 3, &keep), LOG_MULTI_LINE_EMIT_WITH);
  cr_assert_eq(keep, 5); /* "S1\nab" */
  cr_assert_eq(out.text->len, 0);
  g_string_free(out.text, TRUE);
  log_multi_line_deinit(&ml);
  log_multi_line_options_unref(o);
}

/* ---- reception time, timeout ------------------------------------------------ */

Test(multiline, a_message_keeps_its_first_lines_time)
{
  LogMultiLineOptions *o = _opts(LOG_MULTI_LINE_INDENTED, NULL, NULL);
  LogMultiLine ml;
  log_multi_line_init(&ml, o, 0);
  Out out = { g_string_new(""), { 0 } };
  LogStamp t1 = { .sec = 100 }, t2 = { .sec = 200 }, t3 = { .sec = 300 };
  log_multi_line_feed(&ml, "a", 1, 0, &t1, _collect, &out);
  log_multi_line_feed(&ml, " b", 2, 0, &t2, _collect, &out);
  log_multi_line_feed(&ml, "c", 1, 0, &t3, _collect, &out);
  cr_assert_str_eq(out.text->str, "[a\n b]");
  cr_assert_eq(out.last_recvd.sec, 100);
  log_multi_line_flush(&ml, _collect, &out);
  cr_assert_str_eq(out.text->str, "[a\n b][c]");
  cr_assert_eq(out.last_recvd.sec, 300);
  cr_assert_not(log_multi_line_is_open(&ml));
  g_string_free(out.text, TRUE);
  log_multi_line_deinit(&ml);
  log_multi_line_options_unref(o);
}

Test(multiline, timeout_sends_the_open_message_and_the_partial_line_as_one)
{
  /* file runs, follow-freq(0.5) multi-line-mode(indented)
   * multi-line-timeout(1), stopped after 4 s: "\n\nfirst\nsecond\nthird"
   * gave [first][second\nthird]; "first\nsecond\n cont\n" and
   * "first\nsecond\n cont" both gave [first][second\n cont] */
  static const struct
  {
    const char *input, *expected;
  } cases[] = {
    { "\n\nfirst\nsecond\nthird", "[first][second\nthird]" },
    { "first\nsecond\n cont\n", "[first][second\n cont]" },
    { "first\nsecond\n cont", "[first][second\n cont]" },
  };
  LogMultiLineOptions *o = _opts(LOG_MULTI_LINE_INDENTED, NULL, NULL);
  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++)
    {
      LogFramer f;
      LogMultiLine ml;
      Out out = { g_string_new(""), { 0 } };
      LogStamp t = { 0 };
      cr_assert(log_framer_init(&f, LOG_FRAMING_LINES, 0));
      log_multi_line_init(&ml, o, 0);
      log_framer_feed(&f, cases[i].input, strlen(cases[i].input));
      const char *line;
      size_t n;
      uint32_t flags;
      while (log_framer_next(&f, &line, &n, &flags) == LOG_FRAMER_MESSAGE)
        log_multi_line_feed(&ml, line, n, flags, &t, _collect, &out);
      /* what the reader's timer does */
      if (log_framer_take_partial(&f, &line, &n, &flags))
        log_multi_line_feed(&ml, line, n, flags, &t, _collect, &out);
      else
        log_multi_line_flush(&ml, _collect, &out);
      cr_assert_str_eq(out.text->str, cases[i].expected);
      /* the rest of a line taken by the timeout is a line of its own */
      log_framer_feed(&f, "x\n", 2);
      cr_assert_eq(log_framer_next(&f, &line, &n, &flags), LOG_FRAMER_MESSAGE);
      cr_assert(n == 1 && line[0] == 'x' && flags == 0);
      g_string_free(out.text, TRUE);
      log_multi_line_deinit(&ml);
      log_framer_deinit(&f);
    }
  log_multi_line_options_unref(o);
}

/* ---- log-msg-size ------------------------------------------------------------ */

Test(multiline, an_over_long_message_is_cut_and_its_continuation_dropped)
{
  /* Departure.  stdin runs with options { log-msg-size(32); } and
   * multi-line-mode(indented) (regexp with multi-line-prefix('^[a-z]') gave
   * the same): syslog-ng splits at 32 bytes and reads on mid-line,
   *   [first line\n cont 0123456789\n con][t abcdefghij][second\n cont][third]
   *   [first][second\n cont 0123456789 01234567][89 0123456789 xyz\n cont][third]
   * Sluice sends the first 32 bytes, truncated, and drops the rest of
   * that message. */
  LogMultiLineOptions *o = _opts(LOG_MULTI_LINE_INDENTED, NULL, NULL);
  static const char in1[] = "first line\n cont 0123456789\n cont abcdefghij\nsecond\n cont\nthird\n";
  static const char out1[] = "[first line\n cont 0123456789\n con]T[second\n cont][third]";
  _expect(o, 32, in1, sizeof(in1) - 1, true, out1, sizeof(out1) - 1);
  static const char in2[] = "first\nsecond\n cont 0123456789 0123456789 0123456789 xyz\n cont\nthird\n";
  /* the long line is cut by the framer at 32 bytes first */
  static const char out2[] = "[first][second\n cont 0123456789 01234567]T[third]";
  _expect(o, 32, in2, sizeof(in2) - 1, true, out2, sizeof(out2) - 1);
  log_multi_line_options_unref(o);

  /* the same with a suffix: the cut message ends at its suffix line */
  o = _opts(LOG_MULTI_LINE_PREFIX_SUFFIX, "^S", "E");
  static const char in3[] = "S 0123456789\n0123456789\n0123456789\nmore\nE\nafter\n";
  static const char out3[] = "[S 0123456789\n0123456789\n012345]T[after]";
  _expect(o, 30, in3, sizeof(in3) - 1, true, out3, sizeof(out3) - 1);
  /* a suffix cut past the limit is a truncation too */
  static const char in4[] = "S 0123456789\n0123456789 E tail\n";
  static const char out4[] = "[S 0123456789\n0123456]T";
  _expect(o, 20, in4, sizeof(in4) - 1, true, out4, sizeof(out4) - 1);
  log_multi_line_options_unref(o);
}

Test(multiline, memory_stays_within_log_msg_size)
{
  LogMultiLineOptions *o = _opts(LOG_MULTI_LINE_INDENTED, NULL, NULL);
  LogMultiLine ml;
  log_multi_line_init(&ml, o, 100);
  Out out = { g_string_new(""), { 0 } };
  LogStamp t = { 0 };
  log_multi_line_feed(&ml, "a", 1, 0, &t, _collect, &out);
  for (int i = 0; i < 100000; i++)
    {
      log_multi_line_feed(&ml, " continuation", 13, 0, &t, _collect, &out);
      cr_assert_leq(ml.cap, 101);
      cr_assert_leq(ml.len, 100);
    }
  /* one cut message, its last line end dropped: [a\n continuation ... \n]T */
  cr_assert_eq(out.text->len, 99 + 3);
  cr_assert_eq(out.text->str[out.text->len - 1], 'T');
  g_string_free(out.text, TRUE);
  log_multi_line_deinit(&ml);
  log_multi_line_options_unref(o);
}

/* ---- LINES framing ------------------------------------------------------------ */

Test(multiline, lines_framing_hands_out_lines_as_they_are)
{
  LogFramer f;
  cr_assert(log_framer_init(&f, LOG_FRAMING_LINES, 4));
  static const char input[] = "ab\r\n\n\r\ncd\0abcdefgh\nxyz";
  log_framer_feed(&f, input, sizeof(input) - 1);
  static const struct
  {
    const char *text;
    size_t len;
    uint32_t flags;
  } want[] = {
    { "ab\r", 3, 0 },
    { "", 0, 0 },
    { "\r", 1, 0 },
    { "cd", 2, LOG_FRAMER_NUL_END },
    { "abcd", 4, LOG_FRAMER_TRUNCATED },
    { "xyz", 3, LOG_FRAMER_NO_END },
  };
  const char *line;
  size_t n;
  uint32_t flags;
  for (size_t i = 0; i < G_N_ELEMENTS(want); i++)
    {
      if (i == G_N_ELEMENTS(want) - 1)
        {
          cr_assert_eq(log_framer_next(&f, &line, &n, &flags), LOG_FRAMER_NEED_MORE);
          log_framer_eof(&f);
        }
      cr_assert_eq(log_framer_next(&f, &line, &n, &flags), LOG_FRAMER_MESSAGE, "line %zu", i);
      cr_assert(n == want[i].len && memcmp(line, want[i].text, n) == 0, "line %zu: \"%.*s\"", i, (int) n, line);
      cr_assert_eq(flags, want[i].flags, "line %zu flags %u", i, flags);
    }
  cr_assert_eq(log_framer_next(&f, &line, &n, &flags), LOG_FRAMER_EOF);
  cr_assert_not(log_framer_take_partial(&f, &line, &n, &flags));
  log_framer_deinit(&f);
}

/* ---- configuration ------------------------------------------------------------- */

static bool
_resolve(const char *mode, const char *prefix, const char *garbage, LogMultiLineOptions **out, char **message)
{
  LogMultiLineCfg cfg = { (char *) mode, (char *) prefix, (char *) garbage, 0 };
  CfgError err = { 0 };
  CfgLocation loc = { "test.conf", 3, 12 };
  bool ok = log_multi_line_resolve(&cfg, &loc, out, &err);
  *message = ok ? NULL : g_strdup(err.message);
  cfg_error_clear(&err);
  return ok;
}

Test(multiline, resolve_checks_as_syslog_ng_does)
{
  LogMultiLineOptions *o;
  char *msg;
  cr_assert(_resolve(NULL, NULL, NULL, &o, &msg));
  cr_assert_null(o);
  cr_assert(_resolve("none", NULL, NULL, &o, &msg));
  cr_assert_null(o);
  cr_assert(_resolve("INDENTED", NULL, NULL, &o, &msg)); /* strcasecmp in syslog-ng */
  cr_assert_eq(o->mode, LOG_MULTI_LINE_INDENTED);
  log_multi_line_options_unref(o);
  cr_assert(_resolve("regexp", "^S", NULL, &o, &msg));
  cr_assert_eq(o->mode, LOG_MULTI_LINE_PREFIX_GARBAGE);
  log_multi_line_options_unref(o);
  cr_assert(_resolve("prefix-suffix", NULL, "E", &o, &msg));
  cr_assert_eq(o->mode, LOG_MULTI_LINE_PREFIX_SUFFIX);
  log_multi_line_options_unref(o);

  /* syslog-ng 3.38 (stdin(multi-line-mode(regexp))): refuses to start with */
  cr_assert_not(_resolve("regexp", NULL, NULL, &o, &msg));
  cr_assert_str_eq(msg, "To follow files in multi-line-mode() 'regexp', 'prefix-garbage', 'prefix-suffix', please "
                        "also specify regexps using the multi-line-prefix/garbage options");
  g_free(msg);
  /* stdin(multi-line-prefix('x')) and with multi-line-mode(indented) */
  cr_assert_not(_resolve(NULL, "x", NULL, &o, &msg));
  cr_assert(g_str_has_prefix(msg, "multi-line-prefix() and/or multi-line-garbage() specified but"));
  g_free(msg);
  cr_assert_not(_resolve("indented", NULL, "x", &o, &msg));
  g_free(msg);
  /* multi-line-mode(prefix_garbage): "Invalid multi-line mode" */
  cr_assert_not(_resolve("prefix_garbage", "x", NULL, &o, &msg));
  cr_assert_str_eq(msg, "multi-line-mode(): Invalid multi-line mode");
  g_free(msg);
  cr_assert_not(_resolve("regexp", "(x", NULL, &o, &msg));
  cr_assert(g_str_has_prefix(msg, "error compiling multi-line regexp: "), "%s", msg);
  g_free(msg);
}

typedef struct TestDriverOptions
{
  int other;
  LogMultiLineCfg ml;
} TestDriverOptions;

static const CfgOption test_table[] = {
  LOG_MULTI_LINE_CFG_OPTIONS(TestDriverOptions, ml),
  LOG_MULTI_LINE_CFG_TIMEOUT_OPTION(TestDriverOptions, ml),
  { 0 },
};

Test(multiline, option_rows_fill_the_drivers_struct)
{
  TestDriverOptions opts;
  cfg_options_defaults(test_table, &opts);
  cr_assert_null(opts.ml.mode);
  cr_assert_eq(opts.ml.timeout, 0);
  const CfgOption *mode = cfg_options_find(test_table, "multi_line_mode");
  cr_assert_not_null(mode);
  opts.ml.mode = g_strdup("Prefix-Suffix");
  cr_assert_null(mode->check(mode, (char *) &opts + mode->offset));
  g_free(opts.ml.mode);
  opts.ml.mode = g_strdup("bogus");
  cr_assert_not_null(mode->check(mode, (char *) &opts + mode->offset));
  cr_assert_eq(cfg_options_find(test_table, "multi-line-suffix")->offset,
               cfg_options_find(test_table, "multi-line-garbage")->offset);
  cfg_options_free(test_table, &opts);
}
