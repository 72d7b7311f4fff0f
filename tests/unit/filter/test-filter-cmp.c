/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Comparisons between templates.  Every expected result below is what
 * Debian's syslog-ng 3.38 gave for the same expression and $MSG, through
 * $(if (EXPR) 1 0) (the filter and $(if) share one evaluator there too).
 */
#include "filter-test.h"

typedef struct CmpCase
{
  const char *expr;
  const char *msg; /* $MSG */
  bool expected;
} CmpCase;

static void
run_cases(const CmpCase *cases, size_t n)
{
  for (size_t i = 0; i < n; i++)
    {
      FilterExpr *f = ft_compile_ok(cases[i].expr);
      char *line = g_strdup_printf("<13>Nov 22 10:00:01 h app:%s", cases[i].msg);
      LogMsg *msg = ft_parse(line);
      char *m = ft_value(msg, "MSG");
      cr_assert_str_eq(m, cases[i].msg, "the test line must give $MSG as written");
      cr_assert_eq(filter_expr_eval(f, msg), cases[i].expected, "%s with $MSG \"%s\" should be %s", cases[i].expr,
                   cases[i].msg, cases[i].expected ? "true" : "false");
      g_free(m);
      g_free(line);
      log_msg_unref(msg);
      filter_expr_free(f);
    }
}

#define RUN(cases) run_cases(cases, sizeof(cases) / sizeof(cases[0]))

/* A number literal on either side: both sides are parsed as numbers;
 * one that is not a number makes only != true. */
Test(filter_cmp, typed_with_a_number_literal)
{
  static const CmpCase cases[] = {
    { "\"${MSG}\" == 0", "", false },
    { "\"${MSG}\" != 0", "", true },
    { "\"${MSG}\" <= 0", "", false },
    { "\"${MSG}\" >= 0", "", false },
    { "\"${MSG}\" < 100", "abc", false },
    { "\"${MSG}\" > 100", "abc", false },
    { "\"${MSG}\" != 100", "abc", true },
    { "\"${MSG}\" < 100", "12abc", false },
    { "\"${MSG}\" >= 16", "12abc", false },
    { "\"${MSG}\" == 16", "0x10", true },
    { "\"${MSG}\" < 100", "0x10", true },
    { "\"${MSG}\" == 0x10", "16", true },
    { "\"${MSG}\" > 100", "1.5e2", true },
    { "\"${MSG}\" < 151", "1.5e2", true },
    { "\"${MSG}\" == 0", "nan", false },
    { "\"${MSG}\" != 0", "nan", true },
    { "\"${MSG}\" < 0", "nan", false },
    { "\"${MSG}\" > 100", "inf", true },
    { "\"${MSG}\" < 9", "010", false },
    { "\"${MSG}\" > 9", "010", true },
    { "\"${MSG}\" == 010", "010", false }, /* the literal is octal: 8 */
    { "\"${MSG}\" == 010", "8", true },
    { "\"${MSG}\" == 0", "-0", true },
    { "\"${MSG}\" == 5", "+5", true },
    { "\"${MSG}\" == 5", "5 ", false },
    { "\"${MSG}\" != 5", "5 ", true },
    { "\" ${MSG}\" == 5", "5", true },
    { "\"${MSG}\" == 5", "5.0", true },
    { "\"${MSG}\" == 5.0", "5", true },
    { "\"${MSG}\" == 5.0", "5 ", false },
    { "\"${MSG}\" < 5.5", "5", true },
    { "\"${MSG}\" < 5.5", "-0", true },
    { "\"${MSG}\" == 0", "1e400", false },
    { "\"${MSG}\" != 0", "1e400", true },
    { "\"${MSG}\" > 100", "9999999999999999999", true },
    { "\"${MSG}\" > -1", "16", true },
    { "\"${MSG}\" > -1", "xyz", false },
    { "9 > \"${MSG}\"", "5", true },
    { "9 > \"${MSG}\"", "010", false },
    { "5 == 5.0", "", true },
    { "MSG == 5", "5", false }, /* a bare word is text, not a macro */
  };
  RUN(cases);
}

/* Two strings or macros: syslog-ng 3.38 compares atoi() of each side. */
Test(filter_cmp, atoi_between_strings)
{
  static const CmpCase cases[] = {
    { "\"${MSG}\" == \"0\"", "", true },
    { "\"${MSG}\" == \"abc\"", "", true },
    { "\"${MSG}\" == \"abc\"", "xyz", true },
    { "\"${MSG}\" == \"0x10\"", "abc", true },
    { "\"${MSG}\" == \"abc\"", "12abc", false },
    { "\"${MSG}\" > \"5\"", "12abc", true },
    { "\"${MSG}\" < \"16\"", "12abc", true },
    { "\"${MSG}\" == \"0\"", "0x10", true },
    { "\"${MSG}\" < \"5\"", "1.5e2", true },
    { "\"${MSG}\" < \"0\"", "9999999999999999999", true }, /* atoi overflows to -1 */
    { "\"${MSG}\" > \"5\"", "010", true },
    { "\"${MSG}\" == \"5\"", "5 ", true },
    { "\"${MSG}\" != \"5\"", "5 ", false },
    { "\"${MSG}\" < 1e1", "", true }, /* 1e1 is a word, not a number literal: atoi 1 */
    { "\"${MSG}\" < 1e1", "5", false },
    { "\"${MSG}\" == 1.6e1", "1.5e2", true },
    { "$MSG == \"-5\"", "-5", true },
    { "\"${MSG}\" >= \"-5\"", "-6", false },
  };
  RUN(cases);
}

Test(filter_cmp, string_operators)
{
  static const CmpCase cases[] = {
    { "\"${MSG}\" eq 5", "5", true },
    { "\"${MSG}\" eq 5", "5.0", false },
    { "\"${MSG}\" eq 0x10", "16", true }, /* the literal stands for its value */
    { "\"${MSG}\" eq 0x10", "0x10", false },
    { "\"${MSG}\" eq 5.0", "5.0", true },
    { "\"${MSG}\" eq +5", "5", true },
    { "\"${MSG}\" eq \"abc\"", "abc", true },
    { "\"${MSG}\" ne \"abc\"", "abd", true },
    { "\"${MSG}\" lt \"abd\"", "abc", true },
    { "\"${MSG}\" lt \"abc\"", "abc", false },
    { "\"${MSG}\" le \"abc\"", "abc", true },
    { "\"${MSG}\" gt \"abc\"", "b", true },
    { "\"${MSG}\" gt \"abc\"", "ab", false },
    { "\"${MSG}\" ge \"abc\"", "abcd", true },
    { "\"${MSG}\" lt \"a\"", "", true },
    { "\"$HOST/${MSG}\" eq \"h/x y\"", "x y", true },
  };
  RUN(cases);
}

Test(filter_cmp, combined_with_functions_and_not)
{
  static const CmpCase cases[] = {
    { "program(\"app\") and \"${MSG}\" > 10", "11", true },
    { "program(\"app\") and \"${MSG}\" > 10", "9", false },
    { "not \"${MSG}\" == 3 or \"${MSG}\" eq \"3\"", "3", true },
    { "not (\"${MSG}\" == 3)", "3", false },
    { "\"$PROGRAM\" eq \"app\"; \"${MSG}\" ge \"m\"", "n", true },
    { "\"$PROGRAM\" eq \"app\"; \"${MSG}\" ge \"m\"", "a", false },
  };
  RUN(cases);
}

Test(filter_cmp, errors)
{
  ft_check_error("\"$MSG\" == ", "test.conf:2:");
  ft_check_error("\"$(nosuchfunction x)\" == 1", "comparison");
}
