/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * json-parser(): names and values as syslog-ng 3.38 sets them (expected
 * values are what it produced for the same documents), its options,
 * configuration errors and malformed input.
 */
#include "../parser-test.h"

#include "json/json-parser.h"

static const LogDriverFactory *F = &json_parser_factory;

/* Run a json-parser built from conf on text; *ok gets its verdict.  The
 * message is returned for checks (caller unrefs). */
static LogMsg *
_parse(const char *conf, const char *text, bool *ok)
{
  LogProcessor *p = pt_new(F, conf);
  LogMsg *msg = pt_msg_prog(text, -1);
  *ok = pt_run(p, &msg);
  p->ops->free(p);
  return msg;
}

static LogMsg *
_parse_ok(const char *conf, const char *text)
{
  bool ok;
  LogMsg *msg = _parse(conf, text, &ok);
  cr_assert(ok, "json-parser failed on %s", text);
  return msg;
}

static void
_assert_fails(const char *conf, const char *text)
{
  bool ok;
  LogMsg *msg = _parse(conf, text, &ok);
  cr_assert_not(ok, "json-parser accepted %s", text);
  log_msg_unref(msg);
}

#define J "parser p { json-parser(prefix('j.')); };"

Test(jsonparser, scalars_as_syslog_ng_writes_them)
{
  LogMsg *m = _parse_ok(J, "{\"a\":1,\"b\":\"x\",\"c\":true,\"c2\":false,\"d\":null,\"e\":1.5,\"f\":-0,\"g\":1e3,"
                           "\"h\":12345678901234567890,\"i\":-42,\"k\":-1.5e-7}");
  pt_assert_value(m, "j.a", "1");
  pt_assert_value(m, "j.b", "x");
  pt_assert_value(m, "j.c", "true");
  pt_assert_value(m, "j.c2", "false");
  pt_assert_value(m, "j.d", "");
  pt_assert_value(m, "j.e", "1.500000");
  pt_assert_value(m, "j.f", "0");
  pt_assert_value(m, "j.g", "1000.000000");
  pt_assert_value(m, "j.h", "9223372036854775807");
  pt_assert_value(m, "j.i", "-42");
  pt_assert_value(m, "j.k", "-0.000000");
  log_msg_unref(m);
}

Test(jsonparser, nested_objects_flatten_with_the_key_delimiter)
{
  LogMsg *m = _parse_ok(J, "{\"o\":{\"x\":1,\"y\":{\"z\":\"deep\"}},\"e\":{},\"\":3,\"k.dot\":2}");
  pt_assert_value(m, "j.o.x", "1");
  pt_assert_value(m, "j.o.y.z", "deep");
  pt_assert_value(m, "j.e", "(unset)");
  pt_assert_value(m, "j.", "3");
  pt_assert_value(m, "j.k.dot", "2");
  log_msg_unref(m);
  m = _parse_ok("parser p { json-parser(key-delimiter('/') prefix('p/')); };", "{\"a\":{\"d\":{\"e\":\"f\"}}}");
  pt_assert_value(m, "p/a/d/e", "f");
  log_msg_unref(m);
}

Test(jsonparser, arrays_of_scalars_are_lists_others_json_text)
{
  LogMsg *m = _parse_ok(J, "{\"s\":[\"a\",\"b,c\",\"d\\\"e\",\"\",\"f g\"],\"n\":[1.5,true,false,null,7],"
                           "\"x\":[1,\"two\",{\"k\":\"v\"},[3,4],null,true],\"e\":[],\"o\":{\"a\":[{\"b\":1}]}}");
  pt_assert_value(m, "j.s", "a,b,c,'d\"e',\"\",\"f g\"");
  pt_assert_value(m, "j.n", "1.500000,true,false,\"\",7");
  pt_assert_value(m, "j.x", "[1,\"two\",{\"k\":\"v\"},[3,4],null,true]");
  pt_assert_value(m, "j.e", "");
  pt_assert_value(m, "j.o.a", "[{\"b\":1}]");
  log_msg_unref(m);
}

Test(jsonparser, top_level_array_sets_the_matches)
{
  LogProcessor *p = pt_new(F, J);
  LogMsg *msg = pt_msg_prog("[\"a\",{\"x\":1},[1],null,\"b c\",\"\"]", -1);
  log_msg_set_value_by_name(msg, "0", "old", -1);
  log_msg_set_value_by_name(msg, "9", "old", -1);
  cr_assert(pt_run(p, &msg));
  pt_assert_value(msg, "1", "a");
  pt_assert_value(msg, "2", "{\"x\":1}");
  pt_assert_value(msg, "3", "[1]");
  pt_assert_value(msg, "4", "");
  pt_assert_value(msg, "5", "b c");
  pt_assert_value(msg, "6", "");
  pt_assert_value(msg, "0", "(unset)");
  pt_assert_value(msg, "9", "(unset)");
  pt_assert_value(msg, "j.1", "(unset)");
  log_msg_unref(msg);
  p->ops->free(p);
}

Test(jsonparser, marker)
{
  const char *conf = "parser p { json-parser(marker('@cee:')); };";
  LogMsg *m = _parse_ok(conf, "@cee: \t {\"m\":1}");
  pt_assert_value(m, "m", "1");
  log_msg_unref(m);
  m = _parse_ok(conf, "@cee:{\"m\":2}");
  pt_assert_value(m, "m", "2");
  log_msg_unref(m);
  _assert_fails(conf, "{\"m\":3}");
  _assert_fails(conf, "@ce");
  m = _parse_ok("parser p { json-parser(marker('')); };", "{\"m\":4}");
  pt_assert_value(m, "m", "4");
  log_msg_unref(m);
}

Test(jsonparser, extract_prefix)
{
  const char *doc = "{\"a\":{\"b\":[{\"c\":1}],\"d\":{\"e\":\"f\"}}}";
  LogMsg *m = _parse_ok("parser p { json-parser(extract-prefix('a')); };", doc);
  pt_assert_value(m, "d.e", "f");
  pt_assert_value(m, "b", "[{\"c\":1}]");
  log_msg_unref(m);
  m = _parse_ok("parser p { json-parser(extract-prefix('a.b[0]')); };", doc);
  pt_assert_value(m, "c", "1");
  log_msg_unref(m);
  m = _parse_ok("parser p { json-parser(extract-prefix('[1]')); };", "[{\"foo\":\"bar\"},{\"x\":1}]");
  pt_assert_value(m, "x", "1");
  pt_assert_value(m, "foo", "(unset)");
  log_msg_unref(m);
  _assert_fails("parser p { json-parser(extract-prefix('a.d.e')); };", doc);
  _assert_fails("parser p { json-parser(extract-prefix('a.zz')); };", doc);
  _assert_fails("parser p { json-parser(extract-prefix('a.b[3]')); };", doc);
  _assert_fails("parser p { json-parser(extract-prefix('[0]')); };", doc);
  m = _parse_ok("parser p { json-parser(extract-prefix('')); };", doc);
  pt_assert_value(m, "a.d.e", "f");
  log_msg_unref(m);
}

Test(jsonparser, template_and_trailing_text)
{
  LogMsg *m = _parse_ok("parser p { json-parser(template('{\"p\":\"${PROGRAM}\"}')); };", "not json");
  pt_assert_value(m, "p", "prog");
  log_msg_unref(m);
  m = _parse_ok(J, "   {\"a\":1} trailing");
  pt_assert_value(m, "j.a", "1");
  log_msg_unref(m);
}

Test(jsonparser, strings_end_at_nul_and_keys_repeat)
{
  LogMsg *m = _parse_ok(J, "{\"s\":\"esc\\n\\t\\\"\\\\\\u00e9\\u0000x\",\"dup\":1,\"dup\":2}");
  pt_assert_value(m, "j.s", "esc\n\t\"\\\xc3\xa9");
  pt_assert_value(m, "j.dup", "2");
  log_msg_unref(m);
}

Test(jsonparser, malformed_input_fails_the_parser)
{
  static const char *const bad[] = { "", "   ", "\"just a string\"", "42", "null", "true", "{bad json}",
                                     "{\"a\":1,", "{\"a\"", "[1,2", "}", "\xff\xfe", "{\"a\":\"\\ud800", "{'a':}" };
  for (size_t i = 0; i < G_N_ELEMENTS(bad); i++)
    _assert_fails(J, bad[i]);
  /* the text ends at a NUL byte */
  LogProcessor *p = pt_new(F, J);
  LogMsg *msg = pt_msg_prog("{\"a\":\0\"x\"}", 10);
  cr_assert_not(pt_run(p, &msg));
  log_msg_unref(msg);
  p->ops->free(p);
}

Test(jsonparser, deep_nesting_does_not_crash)
{
  GString *doc = g_string_new(NULL);
  for (int i = 0; i < 5000; i++)
    g_string_append(doc, "{\"a\":");
  g_string_append(doc, "1");
  for (int i = 0; i < 5000; i++)
    g_string_append_c(doc, '}');
  _assert_fails(J, doc->str); /* beyond json-c's depth limit */
  g_string_free(doc, TRUE);
}

Test(jsonparser, shared_message_is_copied)
{
  LogProcessor *p = pt_new(F, J);
  LogMsg *orig = pt_msg_prog("{\"a\":\"v\"}", -1);
  LogMsg *msg = log_msg_ref(orig);
  cr_assert(pt_run(p, &msg));
  cr_assert_neq(msg, orig);
  pt_assert_value(orig, "j.a", "(unset)");
  pt_assert_value(msg, "j.a", "v");
  log_msg_unref(orig);
  log_msg_unref(msg);
  p->ops->free(p);
}

Test(jsonparser, configuration_errors)
{
  pt_assert_error(F, "parser p { json-parser(key-delimiter('::')); };", "single characters");
  pt_assert_error(F, "parser p { json-parser(key-delimiter('')); };", "single characters");
  pt_assert_error(F, "parser p { json-parser(extract-prefix('a..b')); };", "not a valid path");
  pt_assert_error(F, "parser p { json-parser(extract-prefix('a[x]')); };", "not a valid path");
  pt_assert_error(F, "parser p { json-parser(extract-prefix('a[-1]')); };", "not a valid path");
  pt_assert_error(F, "parser p { json-parser(prefx('a')); };", "did you mean 'prefix'");
  pt_assert_error(F, "parser p { json-parser(template('$(nosuch)')); };", "bad template");
}

/* ---- the fast path against json-c ----------------------------------------- */

static const char *const scalars[] = {
  "1", "-5", "0", "-0", "1.5", "-2.25e-3", "1e300", "1E+2", "-0.0", "123456789012345678", "1234567890123456789",
  "12345678901234567890", "01", "1.", ".5", "-", "true", "false", "null", "TRUE", "nul", "truex", "\"s\"",
  "\"a b\"", "\"\"", "\"q\\\"x\"", "\"it's\"", "\"\xc3\xa9\"", "\"x,y\"", "\"tab\\t\"", "\"\\/\\b\\f\\n\\r\"",
  "\"\\u00e9\"", "\"\\ud800\"", "\"raw\ttab\"", "\"\xff\xfe\"", "'single'", "NaN", "Infinity", "1e400",
  /* longer than a word: the plain run is scanned eight bytes at a time */
  "\"a plain value longer than a word\"", "\"0123456\\\"89abcdef\"", "\"01234567\\\\x\"", "\"0123456789abcde\x01\"",
  "\"\xc3\xa9t\xc3\xa9 \xff\x80\x7f more than eight\"", "\"abcdefg\"", "\"abcdefgh\"",
};

static void
_gen_value(GRand *rnd, GString *out, int depth);

static void
_gen_object(GRand *rnd, GString *out, int depth)
{
  static const char *const keys[] = { "a", "b", "c d", "e.f", "", "k\xc3\xa9", "a\\\"q", "x", "a_rather_long_key", "sixteen_byte_key",
                                      "long key with \\\" a quote" };
  /* mostly compact, sometimes with blanks around each token */
  static const char *const colons[] = { ":", ":", ":", ":", " : ", ":\n", "\t:", ": " };
  static const char *const blanks[] = { "", "", "", "", "", " ", "\r\n", "\t" };
  g_string_append_c(out, '{');
  g_string_append(out, blanks[g_rand_int_range(rnd, 0, G_N_ELEMENTS(blanks))]);
  int n = g_rand_int_range(rnd, 0, 5);
  for (int i = 0; i < n; i++)
    {
      if (i)
        g_string_append(out, g_rand_int_range(rnd, 0, 8) ? "," : " , ");
      g_string_append_printf(out, "\"%s\"%s", keys[g_rand_int_range(rnd, 0, G_N_ELEMENTS(keys))],
                             colons[g_rand_int_range(rnd, 0, G_N_ELEMENTS(colons))]);
      _gen_value(rnd, out, depth + 1);
      g_string_append(out, blanks[g_rand_int_range(rnd, 0, G_N_ELEMENTS(blanks))]);
    }
  if (g_rand_int_range(rnd, 0, 30) == 0)
    g_string_append_c(out, ','); /* json-c takes a trailing comma */
  g_string_append_c(out, '}');
}

static void
_gen_value(GRand *rnd, GString *out, int depth)
{
  int k = g_rand_int_range(rnd, 0, 10);
  if (depth > 4 || k < 6)
    g_string_append(out, scalars[g_rand_int_range(rnd, 0, G_N_ELEMENTS(scalars))]);
  else if (k < 8)
    _gen_object(rnd, out, depth);
  else
    {
      g_string_append_c(out, '[');
      int n = g_rand_int_range(rnd, 0, 4);
      for (int i = 0; i < n; i++)
        {
          if (i)
            g_string_append_c(out, ',');
          _gen_value(rnd, out, depth + 1);
        }
      g_string_append_c(out, ']');
    }
}

/* Every pair the same, in the same order. */
static void
_assert_same_pairs(const LogMsg *a, const LogMsg *b, const char *doc)
{
  cr_assert_eq(a->nv_len, b->nv_len, "pair count differs for %s", doc);
  for (uint16_t i = 0; i < a->nv_len; i++)
    {
      size_t la, lb;
      const char *va = log_msg_get_value(a, a->nv[i].handle, &la);
      const char *vb = log_msg_get_value(b, b->nv[i].handle, &lb);
      cr_assert_eq(a->nv[i].handle, b->nv[i].handle, "pair %u named otherwise for %s", i, doc);
      cr_assert(la == lb && memcmp(va, vb, la) == 0, "pair %u differs for %s: '%.*s' vs '%.*s'", i, doc, (int) la,
                va, (int) lb, vb);
    }
}

Test(jsonparser, fast_path_sets_what_json_c_sets)
{
  static const char *const confs[] = { J, "parser p { json-parser(key-delimiter('/')); };" };
  static const char *const tails[] = { "", " trailing", "/", " /* c */", "}", "\n", " //x" };
  GRand *rnd = g_rand_new_with_seed(7);
  GString *doc = g_string_new(NULL);
  for (size_t c = 0; c < G_N_ELEMENTS(confs); c++)
    {
      LogProcessor *fast = pt_new(F, confs[c]);
      LogProcessor *slow = pt_new(F, confs[c]);
      json_parser_set_fast_path(slow, false);
      for (int i = 0; i < 20000; i++)
        {
          g_string_assign(doc, g_rand_int_range(rnd, 0, 10) ? "" : "  ");
          _gen_object(rnd, doc, 0);
          g_string_append(doc, tails[g_rand_int_range(rnd, 0, G_N_ELEMENTS(tails))]);
          LogMsg *a = pt_msg_prog(doc->str, (ssize_t) doc->len);
          LogMsg *b = pt_msg_prog(doc->str, (ssize_t) doc->len);
          bool ok_a = pt_run(fast, &a), ok_b = pt_run(slow, &b);
          cr_assert_eq(ok_a, ok_b, "verdicts differ for %s", doc->str);
          if (ok_a)
            _assert_same_pairs(a, b, doc->str);
          log_msg_unref(a);
          log_msg_unref(b);
        }
      fast->ops->free(fast);
      slow->ops->free(slow);
    }
  g_string_free(doc, TRUE);
  g_rand_free(rnd);
}

/* map-value-pairs(): the block syntax it takes, and what it refuses */
Test(map_value_pairs, renames_and_refusals)
{
  const LogDriverFactory *M = &map_value_pairs_factory;
  LogProcessor *p = pt_new(M, "parser p { map-value-pairs(key('PROGRAM' rekey(add-prefix('x.'))) pair('n' '$PID!') "
                              "rekey('n' replace-prefix('n' 'm'))); };");
  LogMsg *msg = pt_msg("<13>Nov 22 10:00:00 h app[42]: text", false);
  cr_assert(pt_run(p, &msg));
  pt_assert_value(msg, "x.PROGRAM", "app");
  pt_assert_value(msg, "m", "42!");
  pt_assert_value(msg, "PROGRAM", "app");
  log_msg_unref(msg);
  pt_free(p);
  pt_assert_error(M, "parser p { map-value-pairs(rekey('*' shift(0))); };", "positive number");
  pt_assert_error(M, "parser p { map-value-pairs(rekey('*' upper())); };", "not a rekey() transformation");
  pt_assert_error(M, "parser p { map-value-pairs(pair('a')); };", "a name and a template");
  pt_assert_error(M, "parser p { map-value-pairs(key('a' 'b' rekey(shift(1)))); };", "one glob and rekey");
  pt_assert_error(M, "parser p { map-value-pairs(scope('nosuch')); };", "nosuch");
  pt_assert_error(M, "parser p { map-value-pairs(nosuch('x')); };", "unknown option 'nosuch'");
}
