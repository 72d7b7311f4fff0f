/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * regexp-parser(): what a match stores (checked against syslog-ng 3.38),
 * the options, and configuration errors.
 */
#include "../parser-test.h"

#include "regexp/regexp.h"

static const LogDriverFactory *F = &regexp_parser_factory;

Test(regexp, named_and_numbered_groups_with_prefix)
{
  LogProcessor *p = pt_new(F, "parser p { regexp-parser(patterns('^(?<verb>[A-Z]+) (?<path>\\S+) (\\d+)$') "
                              "prefix('.re.')); };");
  LogMsg *msg = pt_msg("<13>Nov 22 10:00:00 web1 nginx[1200]: GET /index.html 200", false);
  cr_assert(pt_run(p, &msg));
  pt_assert_value(msg, "0", "GET /index.html 200");
  pt_assert_value(msg, "1", "GET");
  pt_assert_value(msg, "2", "/index.html");
  pt_assert_value(msg, "3", "200");
  pt_assert_value(msg, ".re.verb", "GET");
  pt_assert_value(msg, ".re.path", "/index.html");
  pt_assert_value(msg, "verb", "(unset)");
  pt_assert_value(msg, "4", "(unset)");
  log_msg_unref(msg);
  pt_free(p);
}

Test(regexp, first_matching_pattern_wins_and_no_match_leaves_the_path)
{
  LogProcessor *p = pt_new(F, "parser p { regexp-parser(patterns('(?<a>zzz)', '(?<b>o+)', '(?<c>.+)')); };");
  LogMsg *msg = pt_msg_text("foo", -1);
  cr_assert(pt_run(p, &msg));
  pt_assert_value(msg, "b", "oo");
  pt_assert_value(msg, "c", "(unset)");
  pt_assert_value(msg, "a", "(unset)");
  pt_assert_value(msg, "1", "oo");
  log_msg_unref(msg);
  pt_free(p);

  p = pt_new(F, "parser p { regexp-parser(patterns('^x' '^y')); };");
  msg = pt_msg_text("abc", -1);
  LogMsg *before = msg;
  cr_assert_not(pt_run(p, &msg));
  cr_assert_eq(msg, before, "a message that did not match is not copied");
  pt_assert_value(msg, "0", "(unset)");
  log_msg_unref(msg);
  pt_free(p);
}

Test(regexp, unset_groups_stay_unset_and_empty_ones_are_set)
{
  LogProcessor *p = pt_new(F, "parser p { regexp-parser(patterns('(?<a>a)?(?<b>b)(c)?(?<d>d*)')); };");
  LogMsg *msg = pt_msg_text("xbyz", -1);
  cr_assert(pt_run(p, &msg));
  pt_assert_value(msg, "0", "b");
  pt_assert_value(msg, "1", "(unset)");
  pt_assert_value(msg, "a", "(unset)");
  pt_assert_value(msg, "2", "b");
  pt_assert_value(msg, "3", "(unset)");
  pt_assert_value(msg, "4", "");
  pt_assert_value(msg, "d", "");
  log_msg_unref(msg);
  pt_free(p);
}

Test(regexp, a_match_clears_the_numbered_values_of_an_earlier_one)
{
  LogProcessor *p1 = pt_new(F, "parser p { regexp-parser(patterns('(a)(b)(c)')); };");
  LogProcessor *p2 = pt_new(F, "parser p { regexp-parser(patterns('(?<x>b)')); };");
  LogMsg *msg = pt_msg_text("abc", -1);
  log_msg_set_value_by_name(msg, "10", "old", -1);
  log_msg_set_value_by_name(msg, "01", "not a match number", -1);
  cr_assert(pt_run(p1, &msg));
  pt_assert_value(msg, "3", "c");
  cr_assert(pt_run(p2, &msg));
  pt_assert_value(msg, "0", "b");
  pt_assert_value(msg, "1", "b");
  pt_assert_value(msg, "2", "(unset)");
  pt_assert_value(msg, "3", "(unset)");
  pt_assert_value(msg, "10", "(unset)");
  pt_assert_value(msg, "01", "not a match number");
  pt_assert_value(msg, "x", "b");
  log_msg_unref(msg);
  pt_free(p1);
  pt_free(p2);
}

Test(regexp, template_text_and_named_template)
{
  LogProcessor *p = pt_new(F, "parser p { regexp-parser(patterns('^(?<h>[^/]+)/(?<prog>.*)$') "
                              "template('${HOST}/$PROGRAM')); };");
  LogMsg *msg = pt_msg("<13>Nov 22 10:00:00 web1 nginx[1200]: x", false);
  cr_assert(pt_run(p, &msg));
  pt_assert_value(msg, "h", "web1");
  pt_assert_value(msg, "prog", "nginx");
  log_msg_unref(msg);
  pt_free(p);

  const char *named = "template t_prog { template('$PROGRAM'); };\n"
                      "parser p { regexp-parser(patterns('^(?<first>.)') template(t_prog)); };";
  p = pt_new(F, named);
  msg = pt_msg("<13>Nov 22 10:00:00 web1 nginx[1200]: x", false);
  cr_assert(pt_run(p, &msg));
  pt_assert_value(msg, "first", "n");
  log_msg_unref(msg);
  pt_free(p);
}

Test(regexp, flags)
{
  LogProcessor *p = pt_new(F, "parser p { regexp-parser(patterns('error') flags(ignore-case, store-matches, "
                              "substring, global)); };");
  LogMsg *msg = pt_msg_text("disk ERROR", -1);
  cr_assert(pt_run(p, &msg));
  pt_assert_value(msg, "0", "ERROR");
  log_msg_unref(msg);
  pt_free(p);

  /* utf8: one character is one '.', and bytes that are not UTF-8 are
   * matched around instead of failing the match */
  p = pt_new(F, "parser p { regexp-parser(patterns('^(.)(.)b') flags(utf8)); };");
  msg = pt_msg_text("\xc3\xa9\xc3\xa9" "b\xff", -1);
  cr_assert(pt_run(p, &msg));
  pt_assert_value(msg, "1", "\xc3\xa9");
  log_msg_unref(msg);
  pt_free(p);
  p = pt_new(F, "parser p { regexp-parser(patterns('(?<x>b)') flags(utf8, disable-jit)); };");
  msg = pt_msg_text("\xff\xfe" "b\xc3", -1);
  cr_assert(pt_run(p, &msg));
  pt_assert_value(msg, "x", "b");
  log_msg_unref(msg);
  pt_free(p);

  /* unicode: \w takes letters beyond ASCII */
  p = pt_new(F, "parser p { regexp-parser(patterns('^(\\w+)') flags(unicode)); };");
  msg = pt_msg_text("\xc3\xa9t\xc3\xa9 x", -1);
  cr_assert(pt_run(p, &msg));
  pt_assert_value(msg, "1", "\xc3\xa9t\xc3\xa9");
  log_msg_unref(msg);
  pt_free(p);

  /* dupnames: alternatives may name their groups alike; the one that
   * matched sets the value.  Without it the pattern is refused. */
  p = pt_new(F, "parser p { regexp-parser(patterns('user=(?<u>\\w+)|login (?<u>\\w+)') flags(dupnames)); };");
  msg = pt_msg_text("login alice", -1);
  cr_assert(pt_run(p, &msg));
  pt_assert_value(msg, "u", "alice");
  log_msg_unref(msg);
  pt_free(p);
  pt_assert_error(F, "parser p { regexp-parser(patterns('(?<u>a)|(?<u>b)')); };", "same name");

  /* newline: $ ends a line at CR, LF or CRLF; icase is ignore-case */
  p = pt_new(F, "parser p { regexp-parser(patterns('(?m)^(B\\w*)$') flags(newline, icase)); };");
  msg = pt_msg_text("a\r\nbee\r\nc", -1);
  cr_assert(pt_run(p, &msg));
  pt_assert_value(msg, "1", "bee");
  log_msg_unref(msg);
  pt_free(p);
}

Test(regexp, a_shared_message_is_copied_not_changed)
{
  LogProcessor *p = pt_new(F, "parser p { regexp-parser(patterns('(?<w>\\w+)')); };");
  LogMsg *orig = pt_msg_text("hello", -1);
  LogMsg *msg = log_msg_ref(orig);
  cr_assert(pt_run(p, &msg));
  cr_assert_neq(msg, orig);
  pt_assert_value(msg, "w", "hello");
  pt_assert_value(orig, "w", "(unset)");
  log_msg_unref(msg);
  log_msg_unref(orig);
  pt_free(p);
}

Test(regexp, at_most_256_numbered_values)
{
  GString *pat = g_string_new("parser p { regexp-parser(patterns('");
  GString *text = g_string_new(NULL);
  for (int i = 0; i < 300; i++)
    {
      g_string_append(pat, "(.)");
      g_string_append_c(text, (char) ('a' + i % 26));
    }
  g_string_append(pat, "')); };");
  LogProcessor *p = pt_new(F, pat->str);
  LogMsg *msg = pt_msg_text(text->str, (ssize_t) text->len);
  cr_assert(pt_run(p, &msg));
  pt_assert_value(msg, "255", "u"); /* 254 % 26 = 20 */
  pt_assert_value(msg, "256", "(unset)");
  log_msg_unref(msg);
  pt_free(p);
  g_string_free(pat, TRUE);
  g_string_free(text, TRUE);
}

Test(regexp, configuration_errors)
{
  pt_assert_error(F, "parser p { regexp-parser(); };", "needs at least one pattern");
  pt_assert_error(F, "parser p { regexp-parser(patterns('a(')); };", "error compiling regular expression 'a('");
  pt_assert_error(F, "parser p { regexp-parser(patterns('a') flags(prefix)); };", "prefix");
  pt_assert_error(F, "parser p { regexp-parser(patterns('a') flags(dup-names)); };", "dup-names");
  pt_assert_error(F, "parser p { regexp-parser(patterns('a') prefx('x')); };", "prefix");
  pt_assert_error(F, "parser p { regexp-parser(patterns('a') template('$(nosuch)')); };", "bad template");
}

Test(regexp, binary_and_empty_input)
{
  LogProcessor *p = pt_new(F, "parser p { regexp-parser(patterns('^(?<all>[^\\n]*)')); };");
  static const char bytes[] = { 'a', 0, '\xff', '\n', 'b' };
  LogMsg *msg = pt_msg_text(bytes, sizeof(bytes));
  cr_assert(pt_run(p, &msg));
  size_t len;
  const char *v = log_msg_get_value(msg, log_msg_get_value_handle("all", -1), &len);
  cr_assert(len == 3 && memcmp(v, bytes, 3) == 0, "a NUL byte is a byte like any other");
  log_msg_unref(msg);
  msg = pt_msg_text("", 0);
  cr_assert(pt_run(p, &msg));
  pt_assert_value(msg, "all", "");
  log_msg_unref(msg);
  pt_free(p);
}
