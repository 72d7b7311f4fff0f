/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * csv-parser(): columns as syslog-ng 3.38 splits them (expected values are
 * what it produced for the same lines), the options and how flags()
 * combine, configuration errors and malformed input.
 */
#include "../parser-test.h"

#include "csvparser/csv-parser.h"

static const LogDriverFactory *F = &csv_parser_factory;

/* Run a csv-parser built from "csv-parser(columns(c1,c2,c3) OPTS)" on
 * text; *ok gets its verdict.  The message is returned (caller unrefs). */
static LogMsg *
_parse(const char *opts, const char *text, bool *ok)
{
  char *conf = g_strdup_printf("parser p { csv-parser(columns('c1', 'c2', 'c3') %s); };", opts);
  LogProcessor *p = pt_new(F, conf);
  g_free(conf);
  LogMsg *msg = pt_msg_prog(text, -1);
  *ok = pt_run(p, &msg);
  p->ops->free(p);
  return msg;
}

/* The three columns of text, "(unset)" for a column not set. */
static void
_assert_columns(const char *opts, const char *text, const char *c1, const char *c2, const char *c3)
{
  bool ok;
  LogMsg *m = _parse(opts, text, &ok);
  cr_assert(ok, "csv-parser(%s) failed on %s", opts, text);
  pt_assert_value(m, "c1", c1);
  pt_assert_value(m, "c2", c2);
  pt_assert_value(m, "c3", c3);
  log_msg_unref(m);
}

Test(csvparser, defaults_space_quotes_and_strip_whitespace)
{
  _assert_columns("", "a b c", "a", "b", "c");
  _assert_columns("", "a  b c", "a", "b", "c");
  _assert_columns("", " a b c ", "a", "b", "c");
  _assert_columns("", "\"a b\" 'c d' e", "a b", "c d", "e");
  _assert_columns("", "\"a\"x b c", "ax", "b", "c");
  _assert_columns("", " \"a\" b c", "\"a\"", "b", "c");
  _assert_columns("", "\"a\"\"b\" c d", "a\"b\"", "c", "d");
  _assert_columns("", "\"unterminated b c", "unterminated b c", "(unset)", "(unset)");
  _assert_columns("", "a b", "a", "b", "(unset)");
  _assert_columns("", "a b c d e", "a", "b", "c");
}

Test(csvparser, escapes)
{
  _assert_columns("flags(escape-backslash)", "\"a\\\"b\" c d", "a\"b", "c", "d");
  _assert_columns("flags(escape-backslash)", "a\\ b c", "a\\", "b", "c");
  _assert_columns("flags(escape-double-char)", "\"a\"\"b\" c d", "a\"b", "c", "d");
  _assert_columns("flags(escape-none)", "\"a\\\"b\" c d", "a\\b\"", "c", "d");
}

Test(csvparser, flags_combine_as_in_syslog_ng)
{
  /* a flags() without an escape style replaces the rest: strip-whitespace goes */
  _assert_columns("flags(greedy)", "a  b c", "a", "", "b c");
  _assert_columns("flags(escape-backslash) flags(greedy)", "\"a\\\"b\" c d", "a\"b", "c", "d");
  /* a flags() with one sets exactly what it names: greedy goes */
  _assert_columns("flags(greedy) flags(escape-backslash)", "  a b c", "", "", "a");
  /* dialect() sets the escape style where it stands among the flags() */
  _assert_columns("dialect(escape-backslash)", "\"a\\\"b\" c d", "a\"b", "c", "d");
  _assert_columns("dialect(escape-double-char)", "\"a\"\"b\" c d", "a\"b", "c", "d");
  _assert_columns("dialect(escape-backslash) flags(greedy)", "\"a\\\"b\" c d", "a\"b", "c", "d");
  _assert_columns("flags(escape-double-char) dialect(escape-none)", "\"a\"\"b\" c d", "a\"b\"", "c", "d");
  _assert_columns("flags()", "  a b c", "", "", "a");
  _assert_columns("flags(greedy, strip-whitespace)", " a b  c d ", "a", "b", "c d");
  _assert_columns("flags(greedy)", "a b", "a", "b", "");
}

Test(csvparser, delimiters_chars_and_strings)
{
  _assert_columns("delimiters(',')", "a,b,c", "a", "b", "c");
  _assert_columns("delimiters(',')", "a b c", "a b c", "(unset)", "(unset)");
  _assert_columns("delimiters(chars(';') strings('::'))", "a::b;c", "a", "b", "c");
  _assert_columns("delimiters(chars(';') strings('::'))", "\"x\"::y z", "x", "y z", "(unset)");
  _assert_columns("delimiters(strings('::' ';;'))", "a::b;c d", "a", "b;c", "d");
  _assert_columns("delimiters(chars('') strings(':' '::'))", "a::b:c d", "a", "", "b");
  _assert_columns("delimiters(chars('') strings('::' ':'))", "a::b:c d", "a", "b", "c d");
  _assert_columns("delimiters(':;')", "a:;b", "a", "", "b");
}

Test(csvparser, quotes_quote_pairs_and_null)
{
  _assert_columns("quote-pairs('[]')", "[a b] c d", "a b", "c", "d");
  _assert_columns("quote-pairs('[]')", "\"a b\" c", "\"a", "b\"", "c");
  _assert_columns("quotes('x')", "xa bx c d", "a b", "c", "d");
  _assert_columns("quotes('x') quote-pairs('[]')", "[a b] xc dx", "a b", "xc", "dx");
  _assert_columns("null('b')", "a b c", "a", "", "c");
  _assert_columns("null('')", "a b c", "a", "b", "c");
}

Test(csvparser, drop_invalid_fails_on_missing_or_extra_columns)
{
  bool ok;
  LogMsg *m = _parse("flags(drop-invalid)", "a b c", &ok);
  cr_assert(ok);
  log_msg_unref(m);
  m = _parse("flags(drop-invalid)", "a b", &ok);
  cr_assert_not(ok);
  log_msg_unref(m);
  m = _parse("flags(drop-invalid)", "a b c d", &ok);
  cr_assert_not(ok);
  log_msg_unref(m);
  m = _parse("flags(drop-invalid)", "", &ok);
  cr_assert_not(ok);
  log_msg_unref(m);
  m = _parse("", "", &ok);
  cr_assert(ok, "without drop-invalid csv-parser never fails");
  pt_assert_value(m, "c1", "(unset)");
  log_msg_unref(m);
}

Test(csvparser, prefix_template_and_no_columns)
{
  LogProcessor *p = pt_new(F, "parser p { csv-parser(columns(a, b) prefix('.csv.') template('${PROGRAM},$MSG') "
                               "delimiters(',')); };");
  LogMsg *msg = pt_msg_prog("x", -1);
  cr_assert(pt_run(p, &msg));
  pt_assert_value(msg, ".csv.a", "prog");
  pt_assert_value(msg, ".csv.b", "x");
  log_msg_unref(msg);
  p->ops->free(p);

  p = pt_new(F, "parser p { csv-parser(flags(drop-invalid)); };");
  msg = pt_msg_prog("x", -1);
  cr_assert_not(pt_run(p, &msg), "no columns and input left: incomplete");
  log_msg_unref(msg);
  p->ops->free(p);
}

Test(csvparser, shared_message_is_copied_and_slices_outlive_the_original)
{
  LogProcessor *p = pt_new(F, "parser p { csv-parser(columns(a, b)); };");
  LogMsg *orig = pt_msg_prog("plain \"quoted\"\"x\"", -1);
  LogMsg *msg = log_msg_ref(orig);
  cr_assert(pt_run(p, &msg));
  cr_assert_neq(msg, orig);
  log_msg_unref(orig);
  pt_assert_value(msg, "a", "plain");
  pt_assert_value(msg, "b", "quoted\"x\"");
  log_msg_unref(msg);
  p->ops->free(p);
}

Test(csvparser, malformed_input)
{
  static const char *const inputs[] = { "\"", "'", "\"\\", "\\", "\t\t", "\"a\"\"", "[[[", "\xff\xfe\x01", "   " };
  static const char *const opts[] = { "", "flags(escape-backslash, greedy)", "flags(escape-double-char)",
                                      "quote-pairs('[]') delimiters(strings('[' ']'))" };
  for (size_t o = 0; o < G_N_ELEMENTS(opts); o++)
    for (size_t i = 0; i < G_N_ELEMENTS(inputs); i++)
      {
        bool ok;
        LogMsg *m = _parse(opts[o], inputs[i], &ok);
        cr_assert(ok);
        log_msg_unref(m);
      }
  /* the text ends at a NUL byte */
  LogProcessor *p = pt_new(F, "parser p { csv-parser(columns(a, b)); };");
  LogMsg *msg = pt_msg_prog("x\0y z", 5);
  cr_assert(pt_run(p, &msg));
  pt_assert_value(msg, "a", "x");
  pt_assert_value(msg, "b", "(unset)");
  log_msg_unref(msg);
  p->ops->free(p);
}

Test(csvparser, configuration_errors)
{
  pt_assert_error(F, "parser p { csv-parser(flags(greedy, escape-none, escape-backslash)); };", "one escape style");
  pt_assert_error(F, "parser p { csv-parser(flags(nosuch)); };", "unknown value 'nosuch'");
  pt_assert_error(F, "parser p { csv-parser(dialect(greedy)); };",
                  "dialect(): takes escape-none, escape-backslash or escape-double-char");
  pt_assert_error(F, "parser p { csv-parser(dialect(nosuch)); };", "unknown value 'nosuch'");
  pt_assert_error(F, "parser p { csv-parser(null-value('x')); };", "unknown option 'null-value'");
  pt_assert_error(F, "parser p { csv-parser(delimiters(words(','))); };", "unknown option 'words'");
  pt_assert_error(F, "parser p { csv-parser(template('$(nosuch)')); };", "bad template");
}

/* A column named "" is read and left out, as in syslog-ng 3.38 (the SCL's
 * extract-solaris-msgid() skips columns that way): no value of an empty
 * name, and the columns after it still counted. */
Test(csvparser, a_column_without_a_name_is_left_out)
{
  LogProcessor *p = pt_new(F, "parser p { csv-parser(columns('', 'b', '') delimiters(' ')); };");
  LogMsg *msg = pt_msg_prog("x y z", -1);
  cr_assert(pt_run(p, &msg));
  pt_assert_value(msg, "b", "y");
  pt_assert_value(msg, "", "(unset)");
  log_msg_unref(msg);
  p->ops->free(p);
}
