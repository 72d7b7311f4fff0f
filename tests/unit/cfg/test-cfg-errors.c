/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The first error, with its exact file:line:col and message.  Where
 * syslog-ng 3.38 rejects the same text its location is the same token. */
#include "cfg-test.h"

#include <glib.h>

Test(cfg_errors, missing_semicolon_after_block)
{
  assert_parse_error("source s { internal(); }\nlog { };\n",
                     "t.conf:2:1: expected ';' after 'source' block, got 'log'");
  assert_parse_error("options { }", "t.conf:1:12: expected ';' after 'options' block, got end of file");
}

Test(cfg_errors, missing_semicolon_after_driver)
{
  /* syslog-ng: "unexpected KW_DESTINATION, expecting ';'" at 1:19 */
  assert_parse_error("log { source(s_a) destination(d); };", "t.conf:1:19: expected ';' after 'source' in log path, got 'destination'");
  assert_parse_error("source s3 { internal() internal(); };", "t.conf:1:24: expected ';' after 'internal()', got 'internal'");
  assert_parse_error("log { if (level(err)) { } };", "t.conf:1:27: expected ';' after 'if' block, got '}'");
  assert_parse_error("template t { template(\"x\") };", "t.conf:1:28: expected ';' after 'template()', got '}'");
  /* syslog-ng: "unexpected '}', expecting ';'" at the same column */
  assert_parse_error("source s2 { internal() };", "t.conf:1:24: expected ';' after 'internal()', got '}'");
  assert_parse_error("log { source(s); destination(d); flags(final) };",
                     "t.conf:1:47: expected ';' after 'flags()', got '}'");
}

Test(cfg_errors, unknown_words_name_the_nearest)
{
  assert_parse_error("sorce s { internal(); };",
                     "t.conf:1:1: unknown top-level statement 'sorce'; did you mean 'source'?");
  assert_parse_error("zzzzzz s { };", "t.conf:1:1: expected top-level statement, got 'zzzzzz'");
  assert_parse_error("source s { internal(); };\nlog {\n  sorce(s);\n};",
                     "t.conf:3:3: unknown log path element 'sorce'; did you mean 'source'?");
}

Test(cfg_errors, unclosed_and_misplaced)
{
  assert_parse_error("source s {\n  tcp(port(514);\n};", "t.conf:2:16: expected ')' to close 'tcp(' opened at 2:3, got ';'");
  assert_parse_error("source s tcp();", "t.conf:1:10: expected '{' after 'source s', got 'tcp'");
  assert_parse_error("source s { \"x\"; };",
                     "t.conf:1:12: expected a driver like 'name(...)' or '}' in source, got string \"x\"");
  assert_parse_error("filter f { };", "t.conf:1:12: expected a filter expression, got '}'");
  assert_parse_error("filter f { level(info) and };", "t.conf:1:28: expected a filter expression, got '}'");
  assert_parse_error("filter f { ; == x };", "t.conf:1:12: expected a filter expression, got ';'");
  assert_parse_error("log { source(s);", "t.conf:1:17: expected log path element, got end of file");
  assert_parse_error("include \"x.conf\";",
                     "t.conf:1:1: the old include statement (without '@') was removed in syslog-ng 3.20: write @include");
  assert_parse_error("source s { internal(); }; block source b() { };",
                     "t.conf:1:27: a block definition must start its own line: 'block TYPE NAME(...) { ... };'");
}

Test(cfg_errors, flags_must_be_last_and_known)
{
  /* syslog-ng: "unexpected KW_SOURCE, expecting '}'" */
  assert_parse_error("source s { internal(); };\nlog { flags(final); source(s); };",
                     "t.conf:2:21: flags() must be the last element of a log path");
  assert_parse_error("source s { internal(); };\nlog { source(s); flags(final, finale); };",
                     "t.conf:2:31: unknown log path flag 'finale'; did you mean 'final'?");
  assert_parse_error("log { flags(\"final\" x()); };", "t.conf:1:21: flags() takes flag names, not 'x()'");
}

Test(cfg_errors, duplicates_name_both_places)
{
  /* syslog-ng: "duplicate source definition" at the second one */
  assert_parse_error("source s { internal(); };\n  source s { internal(); };",
                     "t.conf:2:3: duplicate source 's'; first defined at t.conf:1:1 (syslog-ng takes it with "
                     "@define allow-config-dups 1, the last one winning)");
  /* the same name in two kinds is fine */
  CfgTree *t = parse_ok("source x { internal(); };\ndestination x { file(\"/tmp/x\"); };\n");
  cfg_tree_free(t);
}

/* With @define allow-config-dups 1, or an @version below 3.3, syslog-ng
 * takes a name defined twice, and the last definition is the one used
 * (a run of syslog-ng 3.38: of program(p1) then program(p2) under one
 * name, only p2's messages passed); the earlier one leaves the tree. */
Test(cfg_errors, duplicates_allowed_as_syslog_ng_allows_them)
{
  static const char *const heads[] = {
    "@version: 3.38\n@define allow-config-dups 1\n",
    "@version: 3.38\n@define allow-config-dups \"2\"\n",
    "@version: 3.2\n",
  };
  for (size_t i = 0; i < G_N_ELEMENTS(heads); i++)
    {
      char *text = g_strconcat(heads[i], "filter f { program(p1); };\nsource s { internal(); };\n"
                                         "filter f { program(p2); };\nlog { source(s); filter(f); };\n",
                               NULL);
      CfgTree *t = parse_ok(text);
      size_t filters = 0;
      for (size_t k = 0; k < t->root->n_children; k++)
        filters += t->root->children[k]->kind == CFG_NODE_DEFINE && t->root->children[k]->obj == CFG_OBJ_FILTER;
      cr_assert_eq(filters, 1, "%s", heads[i]);
      const CfgNode *f = cfg_tree_lookup(t, CFG_OBJ_FILTER, "f");
      cr_assert_str_eq(f->children[0]->args[0].str, "p2", "%s", heads[i]);
      cfg_tree_free(t);
      g_free(text);
    }
  /* "yes" is 0 to syslog-ng's atoi(), which refuses it too */
  assert_parse_error("@version: 3.38\n@define allow-config-dups yes\nsource s { internal(); };\nsource s { internal(); };",
                     "t.conf:4:1: duplicate source 's'; first defined at t.conf:3:1 (syslog-ng takes it with "
                     "@define allow-config-dups 1, the last one winning)");
  assert_parse_error("@version: 3.3\nsource s { internal(); };\nsource s { internal(); };",
                     "t.conf:3:1: duplicate source 's'; first defined at t.conf:2:1 (syslog-ng takes it with "
                     "@define allow-config-dups 1, the last one winning)");
  /* "current" is the reader's own version: no older than 3.3 */
  assert_parse_error("@version: current\nsource s { internal(); };\nsource s { internal(); };",
                     "t.conf:3:1: duplicate source 's'; first defined at t.conf:2:1 (syslog-ng takes it with "
                     "@define allow-config-dups 1, the last one winning)");
  CfgTree *t = parse_ok("@version:current\nsource s { internal(); };\n");
  cr_assert_str_eq(t->version, "current");
  cfg_tree_free(t);
}

Test(cfg_errors, unknown_references_name_the_nearest)
{
  assert_parse_error("destination d_file { file(\"/tmp/x\"); };\nlog { destination(d_fil); };",
                     "t.conf:2:7: unknown destination 'd_fil'; did you mean 'd_file'?");
  assert_parse_error("log { source(nothing_like_it); };", "t.conf:1:7: unknown source 'nothing_like_it'");
  /* object names are exact: syslog-ng cannot resolve s-a to s_a either */
  assert_parse_error("source s_a { internal(); };\nlog { source(s-a); };",
                     "t.conf:2:7: unknown source 's-a'; did you mean 's_a'?");
  assert_parse_error("filter f { level(info) and filter(g); };", "t.conf:1:28: unknown filter 'g'; did you mean 'f'?");
  assert_parse_error("log { if (filter(f_nope)) { }; };", "t.conf:1:11: unknown filter 'f_nope'");
}

Test(cfg_errors, filter_reference_cycles)
{
  assert_parse_error("filter a { filter(b) };\nfilter b { level(info) or filter(a) };",
                     "t.conf:2:27: filter 'a' refers to itself through filter() references");
  assert_parse_error("filter a { not filter(a) };", "t.conf:1:16: filter 'a' refers to itself through filter() references");
}

Test(cfg_errors, deep_nesting_is_an_error_not_a_crash)
{
  GString *s = g_string_new("filter f { ");
  for (int i = 0; i < 1000; i++)
    g_string_append_c(s, '(');
  char *e = parse_err(s->str);
  cr_assert(g_str_has_suffix(e, ": nesting deeper than 128 levels"), "%s", e);
  free(e);
  g_string_free(s, TRUE);

  s = g_string_new("");
  for (int i = 0; i < 1000; i++)
    g_string_append(s, "log { ");
  e = parse_err(s->str);
  cr_assert(g_str_has_suffix(e, ": nesting deeper than 128 levels"), "%s", e);
  free(e);
  g_string_free(s, TRUE);
}

Test(cfg_errors, error_format_and_clear)
{
  CfgError err = { 0 };
  CfgLocation loc = { "sluice.conf", 12, 5 };
  cfg_error_set(&err, &loc, "expected %s after '%s' block, got '%s'", "';'", "source", "log");
  char *s = cfg_error_format(&err);
  cr_assert_str_eq(s, "sluice.conf:12:5: expected ';' after 'source' block, got 'log'");
  free(s);
  cfg_error_clear(&err);
  cr_assert_null(err.message);

  cr_assert_null(cfg_parse_file("/nonexistent-sluice/x.conf", NULL, &err));
  s = cfg_error_format(&err);
  cr_assert_str_eq(s, "/nonexistent-sluice/x.conf: cannot open '/nonexistent-sluice/x.conf': No such file or directory");
  free(s);
  cfg_error_clear(&err);
  cr_assert_null(err.file);
  cfg_error_clear(&err);
}
