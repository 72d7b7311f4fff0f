/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * block definitions and references (src/cfg/cfg-block.c): a configuration
 * with blocks must give the same tree as the one syslog-ng 3.38 expands it
 * to (its --preprocess-into output, written out here by hand), and the
 * refusals use syslog-ng's words.
 */
#include "cfg-test.h"

#include <glib.h>

static void
_render(GString *out, const CfgNode *n)
{
  g_string_append_printf(out, "%d", (int) n->kind);
  if (n->obj)
    g_string_append_printf(out, ":%d", (int) n->obj);
  if (n->name)
    g_string_append_printf(out, " %s", n->name);
  if (n->n_args)
    {
      g_string_append_c(out, '(');
      for (size_t i = 0; i < n->n_args; i++)
        g_string_append_printf(out, "%s%d:%s", i ? "," : "", (int) n->args[i].type, n->args[i].str);
      g_string_append_c(out, ')');
    }
  if (n->cond)
    {
      g_string_append_c(out, '?');
      _render(out, n->cond);
    }
  if (n->n_children)
    {
      g_string_append_c(out, '{');
      for (size_t i = 0; i < n->n_children; i++)
        {
          if (i)
            g_string_append_c(out, ';');
          _render(out, n->children[i]);
        }
      g_string_append_c(out, '}');
    }
}

static char *
_tree(const char *text)
{
  CfgTree *t = parse_ok(text);
  GString *out = g_string_new(NULL);
  _render(out, t->root);
  cfg_tree_free(t);
  return g_string_free(out, FALSE);
}

static void
assert_same_tree(const char *with_blocks, const char *expanded)
{
  char *a = _tree(with_blocks), *b = _tree(expanded);
  cr_assert_str_eq(a, b, "\n%s\nexpands to\n%s\nnot to\n%s", with_blocks, a, b);
  g_free(a);
  g_free(b);
}

#define DEFS                                                                                                 \
  "@version: 3.38\n"                                                                                         \
  "block source my_src(port(5514) ip(\"127.0.0.1\") flags(\"\")) {\n"                                        \
  "  tcp(ip(`ip`) port(`port`) flags(`flags`));\n"                                                           \
  "};\n"                                                                                                     \
  "block destination my_dst(path() ...) {\n"                                                                 \
  "  file(`path` `__VARARGS__`);\n"                                                                          \
  "};\n"                                                                                                     \
  "block root my_root(name(x)) {\n"                                                                          \
  "  destination d_`name` { file(\"/tmp/`name`.log\"); };\n"                                                 \
  "};\n"                                                                                                     \
  "block log my_log(dst()) {\n"                                                                              \
  "  destination(`dst`);\n"                                                                                  \
  "};\n"

/* syslog-ng 3.38's --preprocess-into of the same file, blocks expanded */
Test(cfg_block, references_expand_as_syslog_ng_expands_them)
{
  assert_same_tree(DEFS "source s { my_src(port(6000)); my_src(port(6001) ip(\"127.0.0.2\")); };\n"
                        "my_root(name(rooted));\n"
                        "destination d { my_dst(path(\"/tmp/out\") perm(0644) template(\"$MSG\\n\")); };\n"
                        "log { source(s); destination(d); my_log(dst(d_rooted)); };\n",
                   "@version: 3.38\n"
                   "source s { tcp(ip(\"127.0.0.1\") port(6000) flags()); tcp(ip(\"127.0.0.2\") port(6001) flags()); };\n"
                   "destination d_rooted { file(\"/tmp/rooted.log\"); };\n"
                   "destination d { file(\"/tmp/out\" perm(0644) template(\"$MSG\\n\")); };\n"
                   "log { source(s); destination(d); destination(d_rooted); };\n");
}

Test(cfg_block, defaults_empty_strings_names_and_globals)
{
  /* "" is empty, '-' and '_' alike, the last of two same arguments wins,
   * commas between arguments, @define'd names in the body and in values */
  assert_same_tree("@version: 3.38\n@define g global\n"
                   "block destination d_blk(a-b(\"x\") c(\"\") ...) {\n"
                   "  file(\"/`a-b`/`c`/`g`\" `__VARARGS__`);\n"
                   "};\n"
                   "destination d1 { d_blk(); };\n"
                   "destination d2 { d_blk(a_b(\"q\"), a-b(r) perm(0600) group(`g`)); };\n",
                   "@version: 3.38\n"
                   "destination d1 { file(\"/x//global\"); };\n"
                   "destination d2 { file(\"/r//global\" perm(0600) group(global)); };\n");
}

Test(cfg_block, blocks_use_blocks_and_every_context_takes_its_type)
{
  assert_same_tree("@version: 3.38\n"
                   "block source inner(p(1)) { tcp(port(`p`)); };\n"
                   "block source outer(p(2)) { inner(p(`p`)); udp(port(`p`)); };\n"
                   "block filter f_err() { level(err..emerg) };\n"
                   "block parser p_kv(prefix(\"kv.\")) { kv-parser(prefix(`prefix`)); };\n"
                   "block rewrite r_set(v()) { set(\"`v`\" value(\"x\")); };\n"
                   "block options o_common() { keep-hostname(yes); chain-hostnames(no); };\n"
                   "options { o_common(); };\n"
                   "source s { outer(p(7)); };\n"
                   "log { source(s); filter { not f_err() or program(a); }; parser { p_kv(); };\n"
                   "      rewrite { r_set(v(y)); }; destination { file(\"/x\"); }; };\n",
                   "@version: 3.38\n"
                   "options { keep-hostname(yes); chain-hostnames(no); };\n"
                   "source s { tcp(port(7)); udp(port(7)); };\n"
                   "log { source(s); filter { not (level(err..emerg)) or program(a); }; parser { kv-parser(prefix(\"kv.\")); };\n"
                   "      rewrite { set(\"y\" value(\"x\")); }; destination { file(\"/x\"); }; };\n");
  /* one name, a block of each type, each where its type goes (the SCL's
   * osquery()) */
  assert_same_tree("@version: 3.38\n"
                   "block source q(p(\"/in\")) { file(\"`p`\"); };\n"
                   "block destination q(p(\"/out\")) { pipe(\"`p`\"); };\n"
                   "log { source { q(); }; destination { q(p(\"/o2\")); }; };\n",
                   "@version: 3.38\n"
                   "log { source { file(\"/in\"); }; destination { pipe(\"/o2\"); }; };\n");
}

Test(cfg_block, refusals_in_syslog_ngs_words)
{
  assert_parse_error(DEFS "source s { my_src(nosuch(1)); };\n",
                     "t.conf:14:19: Unknown argument specified to block reference; argument='nosuch', value='1', "
                     "reference='t.conf:14:12'");
  assert_parse_error(DEFS "destination d { my_dst(); };\n",
                     "t.conf:14:17: Mandatory parameter not overridden; parameter='path', reference='t.conf:14:17'");
  assert_parse_error(DEFS "source s { my_src(6000); };\n",
                     "t.conf:14:19: expected an argument like 'name(value)' or ')' in the reference to block my_src, got "
                     "'6000'");
  /* a block of another type is not a reference here */
  assert_parse_error(DEFS "source s { my_dst(path(\"/x\")); };\nlog { source(s); };\n",
                     "t.conf:14:12: 'my_dst()' is a destination block, not a source one");
  assert_parse_error("@version: 3.38\nblock source a() { a(); };\nsource s { a(); };\n",
                     "t.conf:2:20: more than 10000 block references expanded; does block a use itself?");
  assert_parse_error("@version: 3.38\nblock source a(x()) { tcp(); };\nblock source a() { udp(); };\n",
                     "t.conf:3:1: block source a is defined twice");
  assert_parse_error("@version: 3.38\nblock source a(x() { tcp(); };\n", "t.conf:2:20: expected a parameter like 'name(default)' in block a");
  /* an error inside a block body is reported where the body says it */
  assert_parse_error("@version: 3.38\nblock source a() {\n  tcp(port(1);\n};\nsource s { a(); };\n",
                     "t.conf:3:14: expected ')' to close 'tcp(' opened at 3:3, got ';'");
  /* a reference whose argument starts in a block's text and ends after it */
  assert_parse_error("@version: 3.38\nblock root bar(x()) {};\nblock root foo() { bar(x(1 };\nfoo() ))\n",
                     "t.conf:3:24: argument x of the reference to block bar begins and ends in different texts (a "
                     "block's expansion and what follows it)");
}

/* Each expansion moves the token array: an 'or' or a 'not' must not keep
 * a pointer into it across its operand (use after free under ASan). */
Test(cfg_block, many_filter_blocks_in_one_expression)
{
  GString *with = g_string_new("@version: 3.38\nblock filter f() { level(info) };\nfilter x { program(\"a\")");
  GString *without = g_string_new("@version: 3.38\nfilter x { program(\"a\")");
  for (int i = 0; i < 200; i++)
    {
      g_string_append(with, i % 3 ? " or f()" : " or not f()");
      g_string_append(without, i % 3 ? " or (level(info))" : " or not (level(info))");
    }
  g_string_append(with, " };\n");
  g_string_append(without, " };\n");
  assert_same_tree(with->str, without->str);
  g_string_free(with, TRUE);
  g_string_free(without, TRUE);
}

/* syslog-ng 3.38's --preprocess-into: inside a "..." string a value
 * written as a string literal goes in as its text (escaped for the "..."),
 * outside one as it was written */
Test(cfg_block, string_values_inside_and_outside_strings)
{
  assert_same_tree("@version: 3.38\n"
                   "block rewrite r(p() v()) { set(\"`p`\" value(\"a\")); set(`p` value(`v`)); };\n"
                   "rewrite r1 { r(p(\"a b\") v(\"MESSAGE\")); };\n"
                   "rewrite r2 { r(p('q\"q') v(MESSAGE)); };\n"
                   "rewrite r3 { r(p(abc) v(x)); };\n",
                   "@version: 3.38\n"
                   "rewrite r1 { set(\"a b\" value(\"a\")); set(\"a b\" value(\"MESSAGE\")); };\n"
                   "rewrite r2 { set(\"q\\\"q\" value(\"a\")); set('q\"q' value(MESSAGE)); };\n"
                   "rewrite r3 { set(\"abc\" value(\"a\")); set(abc value(x)); };\n");
  /* and inside a '...' string, as its text (no escapes there): syslog-ng's
   * cisco SCL writes columns('`prefix`facility') */
  assert_same_tree("@version: 3.38\n"
                   "block rewrite r(p()) { set('`p`x' value('`p`y')); set(\"'`p`'\" value(\"z\")); };\n"
                   "rewrite r1 { r(p(\".c.\")); };\n",
                   "@version: 3.38\n"
                   "rewrite r1 { set('.c.x' value('.c.y')); set(\"'.c.'\" value(\"z\")); };\n");
}
