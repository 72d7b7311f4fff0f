/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * subst() against what syslog-ng 3.38 gave for the same rules and values
 * (run by hand against Debian's build): pcre and string matching, global
 * replacement with empty matches, groups in the replacement and on the
 * message afterwards, unset values, and the patterns it refuses.
 */
#include "rewrite-test.h"

static void
setup(void)
{
  modules_register_template_functions();
}

TestSuite(subst, .init = setup);

/* subst RULE on value a=VALUE ("" for unset); the new value or NULL */
static char *
_subst(const char *args, const char *value)
{
  char *rule = g_strdup_printf("subst(%s value(\"a\"))", args);
  LogProcessor *p = rw_build(rule);
  LogMsg *m = rw_msg("", 13);
  if (value)
    log_msg_set_value_by_name(m, "a", value, -1);
  m = rw_run(p, m);
  char *v = rw_get(m, "a");
  log_msg_unref(m);
  p->ops->free(p);
  g_free(rule);
  return v;
}

#define assert_subst(args, value, want)                                                         \
  do                                                                                            \
    {                                                                                           \
      char *got_ = _subst((args), (value));                                                     \
      const char *want_ = (want);                                                               \
      if (want_)                                                                                \
        cr_assert(got_ && strcmp(got_, want_) == 0, "subst(%s) on '%s': got '%s', want '%s'",   \
                  (args), (value) ? (value) : "(unset)", got_ ? got_ : "(unset)", want_);      \
      else                                                                                      \
        cr_assert_null(got_, "subst(%s): got '%s', want unset", (args), got_);                  \
      g_free(got_);                                                                             \
    }                                                                                           \
  while (0)

Test(subst, pcre_replaces_the_first_match_or_every_one)
{
  assert_subst("\"foo\" \"baz\"", "foo bar foo", "baz bar foo");
  assert_subst("\"foo\" \"baz\" flags(global)", "foo bar foo", "baz bar baz");
  assert_subst("\"foo\" \"baz\" flags(global)", "nothing here", "nothing here");
  assert_subst("\"FOO\" \"baz\" flags(global ignore-case)", "foo Foo", "baz baz");
  assert_subst("\"FOO\" \"baz\" flags(global icase)", "fOO", "baz");
  assert_subst("\"b\" \"\" flags(global)", "abcb", "ac");
  /* plain patterns are searched without the regex engine: same results */
  assert_subst("\"aa\" \"X\" flags(global)", "aaaaa", "XXa");
  assert_subst("\"a a\" \"X\"", "aa a a", "aX a");
  assert_subst("\"ab\" \"X\" flags(global)", "aab abab", "aX XX");
  assert_subst("\"t.t\" \"X\"", "tot", "X");
}

Test(subst, global_empty_matches_as_syslog_ng)
{
  assert_subst("\"a*\" \"#\" flags(global)", "baaac", "#b##c");
  assert_subst("\"x*\" \"-\" flags(global)", "abc", "-a-b-c");
  assert_subst("\"x*\" \"-\" flags(global)", "xx", "-");
  assert_subst("\"x*\" \"-\" flags(global)", "q", "-q");
  assert_subst("\"\" \"+\" flags(global)", "ab", "+a+b");
  assert_subst("\"\" \"+\" flags(global)", "", "+");
}

Test(subst, an_unset_value_is_matched_as_empty)
{
  assert_subst("\"^$\" \"EMPTY\"", NULL, "EMPTY");
  assert_subst("\"x\" \"y\"", NULL, NULL);
  /* the groups of a match in an unset value are not set: the old ones stay,
   * the numbers above it are cleared */
  LogProcessor *p1 = rw_build("subst(\"(b)(c)\" \"1\" value(\"x1\"))");
  LogProcessor *p2 = rw_build("subst(\".*\" \"[$0|$1]\" value(\"nosuch\"))");
  LogMsg *m = rw_run(p2, rw_run(p1, rw_msg("x1=bc", 13)));
  rw_assert_value(m, "nosuch", "[bc|]");
  rw_assert_value(m, "0", "bc");
  rw_assert_value(m, "1", NULL);
  log_msg_unref(m);
  p1->ops->free(p1);
  p2->ops->free(p2);
  /* type(string) never matches an empty value */
  assert_subst("\"\" \"+\" type(string)", NULL, NULL);
  assert_subst("\"\" \"+\" type(string) flags(substring)", NULL, NULL);
  m = rw_apply("subst(\"x*\" \"-\" value(\"v\"))", "v=abc", 13);
  rw_assert_value(m, "v", "-abc");
  rw_assert_value(m, "0", "");
  log_msg_unref(m);
}

Test(subst, groups_in_the_replacement_and_on_the_message)
{
  assert_subst("\"(b)(c)\" \"[$1|$2|$0|${1}|\\\\1]\"", "abcbc", "a[b|c|bc|b|\\1]bc");
  assert_subst("\"(?<nm>q)\" \"<${nm}>\"", "q", "<q>");
  assert_subst("\"(b)\" \"<$1>\" flags(global)", "abab", "a<b>a<b>");

  LogProcessor *p1 = rw_build("subst(\"(a)(b)(c)\" \"1\" value(\"x1\"))");
  LogProcessor *p2 = rw_build("subst(\"(a)|(b)\" \"[$1,$2,$3]\" value(\"x2\"))");
  LogProcessor *p3 = rw_build("subst(\"(x)?y\" \"2\" value(\"x3\"))");
  LogProcessor *p4 = rw_build("subst(\"b\" \"B\" value(\"x4\") type(string))");
  LogMsg *m = rw_msg("x1=abc x2=b x3=y x4=b", 13);
  m = rw_run(p1, m);
  rw_assert_value(m, "0", "abc");
  rw_assert_value(m, "3", "c");
  /* group 1 takes no part: it keeps its old value; $3 is above the last */
  m = rw_run(p2, m);
  rw_assert_value(m, "x2", "[a,b,]");
  m = rw_run(p1, rw_run(p4, m));
  rw_assert_value(m, "x4", "B");
  rw_assert_value(m, "3", NULL); /* x1 is "1" now: no match, nothing cleared */
  m = rw_run(p3, m);
  rw_assert_value(m, "0", "y");
  rw_assert_value(m, "1", NULL);
  rw_assert_value(m, "2", NULL);
  log_msg_unref(m);
  p1->ops->free(p1);
  p2->ops->free(p2);
  p3->ops->free(p3);
  p4->ops->free(p4);
}

Test(subst, a_regex_in_the_replacement_does_not_disturb_the_replacement_loop)
{
  /* $(if) evaluates match() with the same per-thread match data */
  LogProcessor *p = rw_build("subst(\"(b)\" \"$(if (match(\\\"(q)\\\" value(\\\"other\\\"))) [$0] <$0>)\" "
                             "value(\"a\") flags(global))");
  LogMsg *m = rw_run(p, rw_msg("a=abab other=xxxxxq", 13));
  rw_assert_value(m, "a", "a[b]a[b]");
  log_msg_unref(m);
  p->ops->free(p);
}

Test(subst, string_matches_the_whole_value_a_prefix_or_a_substring)
{
  assert_subst("\"b\" \"B\" type(string)", "abcb", "abcb");
  assert_subst("\"b\" \"B\" type(string)", "b", "B");
  assert_subst("\"B\" \"x\" type(string) flags(ignore-case)", "b", "x");
  assert_subst("\"b\" \"B\" type(string) flags(substring global)", "abcb", "aBcB");
  assert_subst("\"b\" \"B\" type(string) flags(substring)", "abab", "aBab");
  assert_subst("\"bb\" \"+\" type(string) flags(substring global)", "bbbbb", "++b");
  assert_subst("\"B\" \"+\" type(string) flags(substring global ignore-case)", "abBa", "a++a");
  assert_subst("\"b\" \"B\" type(string) flags(prefix)", "bab", "Bab");
  assert_subst("\"b\" \"B\" type(string) flags(prefix)", "ab", "ab");
  assert_subst("\"b\" \"+\" type(string) flags(prefix global)", "bbb", "+++");
  assert_subst("\"x\" \"+\" type(string) flags(global)", "x", "+");
  assert_subst("\"\" \"+\" type(string) flags(substring)", "xy", "+xy");
  assert_subst("\"\" \"+\" type(string) flags(substring global)", "xy", "+xy");
  assert_subst("\"\" \"+\" type(string) flags(prefix)", "q", "+q");
  assert_subst("\"(\" \"+\" type(string) flags(substring)", "a(b", "a+b");
  assert_subst("\"b\" \"+\" type(string) flags(substring prefix)", "Ab", "Ab");
  assert_subst("\"b\" \"+\" type(string) flags(prefix substring)", "bb", "+b");
}

Test(subst, utf8_patterns)
{
  assert_subst("\"é\" \"E\" flags(utf8 ignore-case)", "aÉb", "aEb");
  assert_subst("\"\\\\w+\" \"W\" flags(unicode global)", "é x", "W W");
  /* bad UTF-8 in the value is matched around, never a failure */
  assert_subst("\"b\" \"B\" flags(utf8)", "a\xff" "b", "a\xff" "B");
}

Test(subst, the_default_value_is_message)
{
  LogMsg *m = rw_apply("subst(\"thread\" \"THREAD\")", "MESSAGE=one_thread", 13);
  rw_assert_value(m, "MESSAGE", "one_THREAD");
  log_msg_unref(m);
}

Test(subst, no_match_leaves_a_shared_message_alone)
{
  LogProcessor *p = rw_build("subst(\"zzz\" \"y\" flags(global))");
  LogMsg *orig = rw_msg("MESSAGE=abc", 13);
  log_msg_write_protect(orig);
  LogMsg *m = rw_run(p, orig);
  cr_assert_eq(m, orig);
  log_msg_unref(m);
  p->ops->free(p);
}

Test(subst, bad_patterns_and_options_are_refused_with_a_place)
{
  rw_assert_refused("subst(\"(\" \"b\")", "2:19", "error compiling the pattern '(' of subst(): missing closing parenthesis");
  rw_assert_refused("subst(\"a\" \"b\" type(glob))", "2:27",
                    "subst() only supports matchers that allow replacement, glob is not one of these");
  rw_assert_refused("subst(\"a\" \"b\" type(foo))", "2:32", "unknown value 'foo' for option 'type'");
  rw_assert_refused("subst(\"a\" \"b\" flags(nobackref))", "2:33", "unknown value 'nobackref' for option 'flags'");
  rw_assert_refused("subst(\"a\" \"b\" time-zone(\"UTC\"))", "2:27", "unknown option 'time-zone' in subst()");
  rw_assert_refused("subst(\"a\")", "2:13", "subst() takes 2 to 2 positional arguments");
  rw_assert_refused("subst(\"a\" \"$(nosuch)\")", "2:23", "error compiling the template of subst()");
  rw_assert_refused("subst(\"a\" \"b\" value(\"TAGS\"))", "2:33", "TAGS is read-only");
}
