/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * xml(): names and values as syslog-ng 3.38 sets them (the expected
 * values were printed by it for the same input), the options, invalid
 * XML and configuration errors.
 */
#include "../parser-test.h"

#include "xml/xml.h"

static const LogDriverFactory *F = &xml_parser_factory;

/* Run xml(args) on text; returns the message (unref it) or NULL when the
 * parser ended the path. */
static LogMsg *
_run(const char *args, const char *text)
{
  char *conf = g_strdup_printf("parser p { xml(%s); };", args);
  LogProcessor *p = pt_new(F, conf);
  g_free(conf);
  LogMsg *msg = pt_msg_text(text, -1);
  bool ok = pt_run(p, &msg);
  pt_free(p);
  if (!ok)
    {
      log_msg_unref(msg);
      return NULL;
    }
  return msg;
}

Test(xml, elements_attributes_and_the_default_prefix)
{
  LogMsg *msg = _run("", "<a attr=\"v\" other='w'><b x=\"1\">t1</b><b>t2</b><c/></a>");
  pt_assert_value(msg, ".xml.a._attr", "v");
  pt_assert_value(msg, ".xml.a._other", "w");
  pt_assert_value(msg, ".xml.a.b._x", "1");
  pt_assert_value(msg, ".xml.a.b", "t1,t2");
  pt_assert_value(msg, ".xml.a.c", "(unset)");
  pt_assert_value(msg, ".xml.a", "(unset)");
  log_msg_unref(msg);

  msg = _run("", "<a><b><c><d>deep</d></c></b></a>");
  pt_assert_value(msg, ".xml.a.b.c.d", "deep");
  log_msg_unref(msg);
}

Test(xml, prefixes)
{
  LogMsg *msg = _run("prefix('')", "<a><b>x</b></a>");
  pt_assert_value(msg, "a.b", "x");
  log_msg_unref(msg);
  msg = _run("prefix('foo')", "<a><b>x</b></a>");
  pt_assert_value(msg, "foo.a.b", "x");
  log_msg_unref(msg);
  msg = _run("prefix('.x.')", "<a v='1'>t</a>");
  pt_assert_value(msg, ".x.a", "t");
  pt_assert_value(msg, ".x.a._v", "1");
  log_msg_unref(msg);
}

Test(xml, text_pieces_and_whitespace)
{
  LogMsg *msg = _run("", "<a>  spaced  <b> inner </b> tail </a>");
  pt_assert_value(msg, ".xml.a", "\"  spaced   tail \"");
  pt_assert_value(msg, ".xml.a.b", "\" inner \"");
  log_msg_unref(msg);
  msg = _run("strip-whitespaces(yes)", "<a x=' sp '>  spaced  <b> inner </b> tail </a>");
  pt_assert_value(msg, ".xml.a", "spacedtail");
  pt_assert_value(msg, ".xml.a.b", "inner");
  pt_assert_value(msg, ".xml.a._x", "\" sp \"");
  log_msg_unref(msg);
  msg = _run("strip-whitespaces(yes)", "<a>   <b> </b>   </a>");
  pt_assert_value(msg, ".xml.a", "(unset)");
  pt_assert_value(msg, ".xml.a.b", "(unset)");
  log_msg_unref(msg);
  msg = _run("", "<a>x<b>y</b>z</a>");
  pt_assert_value(msg, ".xml.a", "xz");
  log_msg_unref(msg);
}

Test(xml, values_are_list_items)
{
  static const struct
  {
    const char *xml;
    const char *want;
  } t[] = {
    { "<a v='ab'/>", "ab" },
    { "<a v='a b'/>", "\"a b\"" },
    { "<a v='a,b'/>", "\"a,b\"" },
    { "<a v=\"a'b\"/>", "\"a'b\"" },
    { "<a v='a&quot;b'/>", "'a\"b'" },
    { "<a v='a\\b'/>", "\"a\\\\b\"" },
    { "<a v='a&#10;b'/>", "\"a\\nb\"" },
    { "<a v='a&#13;b'/>", "\"a\\rb\"" },
    { "<a v='a&#9;b'/>", "\"a\\tb\"" },
    { "<a v='a&#12;b'/>", "\"a\\fb\"" },
    { "<a v='a&#11;b'/>", "a\vb" },
    { "<a v='a&quot;b&#9;c'/>", "'a\"b\\tc'" },
    { "<a v=\"a'b&quot;c\"/>", "\"a'b\\\"c\"" },
    { "<a v='a=b;c|d'/>", "a=b;c|d" },
    { "<a v=''/>", "\"\"" },
    { "<a v='&lt;&amp;&gt;&#65;&#x42;'/>", "<&>AB" },
    { "<a v='1' v='2'/>", "1,2" },
  };
  for (size_t i = 0; i < G_N_ELEMENTS(t); i++)
    {
      LogMsg *msg = _run("", t[i].xml);
      cr_assert(msg, "%s", t[i].xml);
      pt_assert_value(msg, ".xml.a._v", t[i].want);
      log_msg_unref(msg);
    }
}

Test(xml, a_name_already_set_gets_the_value_added)
{
  LogProcessor *p = pt_new(F, "parser p { xml(); };");
  LogMsg *msg = pt_msg_text("<a><b>1</b><b></b><b>3</b></a>", -1);
  log_msg_set_value_by_name(msg, ".xml.a.b", "old value", -1);
  cr_assert(pt_run(p, &msg));
  pt_assert_value(msg, ".xml.a.b", "old value,1,3");
  cr_assert(pt_run(p, &msg));
  pt_assert_value(msg, ".xml.a.b", "old value,1,3,1,3");
  log_msg_unref(msg);
  pt_free(p);
}

Test(xml, exclude_tags)
{
  LogMsg *msg = _run("exclude-tags('b*' 'skip')", "<a x='1'><bb y='2'>x</bb><skip><c>y</c></skip><d>z</d><b/></a>");
  pt_assert_value(msg, ".xml.a._x", "1");
  pt_assert_value(msg, ".xml.a.bb", "(unset)");
  pt_assert_value(msg, ".xml.a.bb._y", "(unset)");
  pt_assert_value(msg, ".xml.a.skip.c", "(unset)");
  pt_assert_value(msg, ".xml.a.d", "z");
  log_msg_unref(msg);
  /* names, not paths */
  msg = _run("exclude-tags('a.b' '*.b')", "<a><b>x</b></a>");
  pt_assert_value(msg, ".xml.a.b", "x");
  log_msg_unref(msg);
  /* the root itself */
  msg = _run("exclude-tags('a')", "<a><b>x</b></a><c>y</c>");
  pt_assert_value(msg, ".xml.a.b", "(unset)");
  pt_assert_value(msg, ".xml.c", "y");
  log_msg_unref(msg);
}

/* syslog-ng 3.38's rotation of the open elements' text below the second
 * level (modules/xml/xml-parser.c), each case as it printed it */
Test(xml, mixed_content_below_the_root)
{
  static const struct
  {
    const char *xml;
    const char *name, *want;
  } t[] = {
    { "<a>x<b>y</b>z<c>w</c>v</a>", ".xml.a", "xzv" },
    { "<m><a>x<b/>z</a></m>", ".xml.m", "x" },
    { "<m><a>x<b/>z</a></m>", ".xml.m.a", "z" },
    { "<m>q<a>x<b>y</b>z</a>k</m>", ".xml.m.a", "qz" },
    { "<m>q<a>x<b>y</b>z</a>k</m>", ".xml.m", "xk" },
    { "<a>x<b>y<c>w</c>u</b>z</a>", ".xml.a.b", "xu" },
    { "<a>x<b>y<c>w</c>u</b>z</a>", ".xml.a", "yz" },
    { "<m><a>x<b>y<c>w</c>u</b>z</a></m>", ".xml.m", "y" },
    { "<m><a>x<b>y<c>w</c>u</b>z</a></m>", ".xml.m.a", "xz" },
    { "<m><a>x<b>y<c>w</c>u</b>z</a></m>", ".xml.m.a.b", "u" },
    { "<r><m><a>x<b>y</b>z</a></m></r>", ".xml.r", "x" },
    { "<a>t<b>bt</b><c><d>dt</d></c><e>et</e></a>", ".xml.a.c", "t" },
    { "<a>t<b>bt</b><c><d>dt</d></c><e>et</e></a>", ".xml.a", "(unset)" },
  };
  for (size_t i = 0; i < G_N_ELEMENTS(t); i++)
    {
      LogMsg *msg = _run("", t[i].xml);
      pt_assert_value(msg, t[i].name, t[i].want);
      log_msg_unref(msg);
    }
  /* an excluded element rotates too */
  LogMsg *msg = _run("exclude-tags('b')", "<m><a>x<b>y</b>z</a></m>");
  pt_assert_value(msg, ".xml.m", "x");
  pt_assert_value(msg, ".xml.m.a", "z");
  log_msg_unref(msg);
}

Test(xml, what_sets_nothing)
{
  LogMsg *msg = _run("", "<?xml version='1.0'?><a><!-- c --><![CDATA[raw <x>]]><b>c</b></a>");
  pt_assert_value(msg, ".xml.a", "(unset)");
  pt_assert_value(msg, ".xml.a.b", "c");
  log_msg_unref(msg);
  msg = _run("", "<ns:a xmlns:ns='u'><ns:b>ns</ns:b></ns:a>");
  pt_assert_value(msg, ".xml.ns:a.ns:b", "ns");
  pt_assert_value(msg, ".xml.ns:a._xmlns:ns", "u");
  log_msg_unref(msg);
}

Test(xml, invalid_xml)
{
  static const char *const bad[] = {
    "not xml at all", "<a><b>unclosed</a>", "<a>x</a>trailing", "<a>&unknown;</a>", "", " ", "<a>", "</a>",
    "<1a>x</1a>", "<a b>x</a>", "<a b=x>x</a>", "<a>x</A>", "<a>\xff</a>", "<a>&#0;</a>",
  };
  for (size_t i = 0; i < G_N_ELEMENTS(bad); i++)
    {
      cr_assert_null(_run("drop-invalid(yes)", bad[i]), "'%s' passed drop-invalid", bad[i]);
      LogMsg *msg = _run("", bad[i]);
      cr_assert(msg, "'%s' ended the path without drop-invalid", bad[i]);
      log_msg_unref(msg);
    }
  /* without drop-invalid what came before the error stays */
  LogMsg *msg = _run("", "<a>x</a>trailing");
  pt_assert_value(msg, ".xml.a", "x");
  log_msg_unref(msg);
  /* valid: several roots, blanks around them */
  msg = _run("drop-invalid(yes)", " <a>x</a><b>y</b> ");
  cr_assert(msg);
  pt_assert_value(msg, ".xml.a", "x");
  pt_assert_value(msg, ".xml.b", "y");
  log_msg_unref(msg);
}

Test(xml, template_and_shared_messages)
{
  LogMsg *msg = _run("template('<t>$MSG</t>')", "plain");
  pt_assert_value(msg, ".xml.t", "plain");
  log_msg_unref(msg);

  LogProcessor *p = pt_new(F, "parser p { xml(); };");
  LogMsg *orig = pt_msg_text("<a>x</a>", -1);
  msg = log_msg_ref(orig);
  cr_assert(pt_run(p, &msg));
  cr_assert_neq(msg, orig);
  pt_assert_value(msg, ".xml.a", "x");
  pt_assert_value(orig, ".xml.a", "(unset)");
  log_msg_unref(msg);
  log_msg_unref(orig);
  pt_free(p);
}

Test(xml, deep_and_random_input)
{
  GString *deep = g_string_new(NULL);
  for (int i = 0; i < 5000; i++)
    g_string_append(deep, "<e>");
  g_string_append(deep, "x");
  for (int i = 0; i < 5000; i++)
    g_string_append(deep, "</e>");
  LogMsg *msg = _run("drop-invalid(yes)", deep->str);
  cr_assert(msg);
  log_msg_unref(msg);
  g_string_free(deep, TRUE);

  LogProcessor *p = pt_new(F, "parser p { xml(exclude-tags('s*') strip-whitespaces(yes)); };");
  GRand *r = g_rand_new_with_seed(11);
  static const char *const pieces[] = { "<a>", "</a>", "<b x='1'>", "</b>", "<s>", "</s>", "text", " ", "&amp;",
                                         "&bad;", "<!-- c -->", "<![CDATA[x]]>", "\xff", "'", "\"", "<", ">", "=" };
  for (int i = 0; i < 5000; i++)
    {
      GString *s = g_string_new(NULL);
      int n = g_rand_int_range(r, 0, 12);
      for (int j = 0; j < n; j++)
        g_string_append(s, pieces[g_rand_int_range(r, 0, G_N_ELEMENTS(pieces))]);
      LogMsg *m = pt_msg_text(s->str, (ssize_t) s->len);
      cr_assert(pt_run(p, &m));
      log_msg_unref(m);
      g_string_free(s, TRUE);
    }
  g_rand_free(r);
  pt_free(p);
}

Test(xml, configuration_errors)
{
  pt_assert_error(F, "parser p { xml(create-lists(yes)); };", "create-lists");
  pt_assert_error(F, "parser p { xml(strip-whitespace(yes)); };", "strip-whitespaces");
  pt_assert_error(F, "parser p { xml(drop-invalid(maybe)); };", "drop-invalid");
  pt_assert_error(F, "parser p { xml(template('$(nosuch)')); };", "bad template");
}
