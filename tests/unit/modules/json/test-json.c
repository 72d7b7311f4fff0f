/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * format-json, format-flat-json and value-pairs against what syslog-ng
 * 3.38 printed for the same templates and lines (json-corpus.h, made by
 * tests/oracle/tfunc-oracle.py), their compile-time errors, the escaper
 * alone, and odd arguments under the sanitizers.
 */
#include "../tfunc-test.h"

#include "json/json-module.h"
#include "json/value-pairs.h"
#include "sluice/internal-log.h"

#include "json-corpus.h"

static void
setup(void)
{
  modules_register_template_functions();
}

TestSuite(json, .init = setup);

Test(json, corpus_matches_syslog_ng)
{
  TFUNC_CHECK_CORPUS(cases, templates, expected);
}

Test(json, compile_errors_name_the_problem)
{
  tfunc_assert_compile_error("$(format-json --scope nosuch)", "unknown scope nosuch");
  tfunc_assert_compile_error("$(format-json --nosuch)", "Unknown option --nosuch");
  tfunc_assert_compile_error("$(format-json --shift x)", "used without --key or --rekey");
  tfunc_assert_compile_error("$(format-json --rekey a --shift x)", "argument to --shift is not numeric");
  tfunc_assert_compile_error("$(format-json --rekey a --shift-levels -1)", "argument to --shift-levels");
  tfunc_assert_compile_error("$(format-json --key)", "Missing argument for --key");
  tfunc_assert_compile_error("$(format-json --rekey x --shift 2 --add-prefix)", "Missing argument for --add-prefix");
  tfunc_assert_compile_error("$(format-flat-json --pair a)", "expected an equal sign in key=value pair");
  tfunc_assert_compile_error("$(format-json -q x)", "Unknown option -q");
  tfunc_assert_compile_error("$(format-json -l 1)", "Unknown option -l");
  tfunc_assert_compile_error("$(format-json --scope none -x)", "Missing argument for -x");
  tfunc_assert_compile_error("$(format-json --replace-prefix x)", "--replace-prefix used without --key or --rekey");
  tfunc_assert_compile_error("$(format-json --key a --replace-prefix x)", "needs OLD=NEW");
  tfunc_assert_compile_error("$(format-json x=$(nosuch))", "Unknown template function \"nosuch\"");
  tfunc_assert_compile_error("$(format-json --scope rfc5424,bad)", "\"format-json\"");
  tfunc_assert_compile_error("$(format-json a=foo(1))", "Unknown type specified in type hinting: foo");
  tfunc_assert_compile_error("$(format-flat-json a=x_1(1))", "Unknown type specified in type hinting: x_1");
}

static char *
_escaped(const char *s, size_t len)
{
  GString *out = g_string_new(NULL);
  json_append_escaped(out, s, len);
  return g_string_free(out, FALSE);
}

Test(json, escaper_matches_syslog_ng_byte_for_byte)
{
  static const struct
  {
    const char *in;
    size_t len;
    const char *want;
  } t[] = {
    { "", 0, "" },
    { "plain /text/", 12, "plain /text/" },
    { "\"\\", 2, "\\\"\\\\" },
    { "\b\f\n\r\t", 5, "\\b\\f\\n\\r\\t" },
    { "\x01\x1f\x7f", 3, "\\u0001\\u001f\x7f" },
    { "\0x", 2, "\\u0000x" },
    { "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80" },
    { "\xff\xfe", 2, "\\\\xff\\\\xfe" },
    { "\xc0\xaf", 2, "\\\\xc0\\\\xaf" },          /* overlong */
    { "\xed\xa0\x80", 3, "\\\\xed\\\\xa0\\\\x80" }, /* surrogate */
    { "\xf4\x90\x80\x80", 4, "\\\\xf4\\\\x90\\\\x80\\\\x80" }, /* above U+10FFFF */
    { "\xe2\x82", 2, "\\\\xe2\\\\x82" },          /* cut short */
    { "a\xc3", 2, "a\\\\xc3" },
  };
  for (size_t i = 0; i < G_N_ELEMENTS(t); i++)
    {
      char *got = _escaped(t[i].in, t[i].len);
      cr_assert_str_eq(got, t[i].want, "case %zu", i);
      g_free(got);
    }
}

/* The escaper scans 32, 16 and eight bytes at a time and ends with an
 * overlapping load: put each kind of special byte at every offset of runs
 * of several lengths and check it is still found. */
Test(json, escaper_finds_specials_at_any_offset)
{
  static const struct
  {
    char in[3];
    const char *want;
  } specials[] = {
    { "\"", "\\\"" }, { "\\", "\\\\" }, { "\x1f", "\\u001f" }, { "\xff", "\\\\xff" }, { "\xc3\xa9", "\xc3\xa9" },
    { "\n", "\\n" },   { " ", " " },         { "\x85", "\\\\x85" },
  };
  /* short values go through eight- and four-byte words that overlap at
   * their end: every length up to 20 */
  static const size_t totals[] = { 1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12,
                                   13, 14, 15, 16, 17, 18, 19, 20, 30, 65, 100 };
  for (size_t k = 0; k < G_N_ELEMENTS(specials); k++)
    for (size_t t = 0; t < G_N_ELEMENTS(totals); t++)
      for (size_t total = totals[t], at = 0; at <= total; at++)
        {
          GString *in = g_string_new(NULL), *want = g_string_new(NULL);
          for (size_t i = 0; i <= total; i++)
            {
              if (i == at)
                {
                  g_string_append(in, specials[k].in);
                  g_string_append(want, specials[k].want);
                }
              if (i == total)
                break;
              g_string_append_c(in, 'a');
              g_string_append_c(want, 'a');
            }
          char *got = _escaped(in->str, in->len);
          cr_assert_str_eq(got, want->str, "special %zu at %zu of %zu", k, at, total);
          g_free(got);
          g_string_free(in, TRUE);
          g_string_free(want, TRUE);
        }
}

Test(json, value_pairs_collects_sorted_for_other_users)
{
  char *argv[] = { "--scope", "sdata", "--rekey", ".SDATA.*", "--shift", "7", "z=$PID", "--pair", "a=1", NULL };
  char *error = NULL;
  ValuePairs *vp = value_pairs_new_from_argv(9, argv, &error);
  cr_assert_not_null(vp, "%s", error);
  LogMsg *msg = test_parse("<14>1 2025-03-10T11:58:01Z h app 42 m [x@1 k=\"v\" j=\"\"] body");
  ValuePairsResult *res = value_pairs_result_acquire();
  size_t n = value_pairs_collect(vp, msg, NULL, res);
  cr_assert_eq(n, 4);
  const ValuePairsEntry *e = (const ValuePairsEntry *) res->entries->data;
  const char *want[][2] = { { "z", "42" }, { "x@1.k", "v" }, { "x@1.j", "" }, { "a", "1" } };
  for (size_t i = 0; i < n; i++)
    {
      cr_assert_eq(e[i].name_len, strlen(want[i][0]));
      cr_assert(memcmp(e[i].name, want[i][0], e[i].name_len) == 0, "entry %zu: %.*s", i, (int) e[i].name_len,
                e[i].name);
      cr_assert_eq(e[i].value_len, strlen(want[i][1]));
      cr_assert(memcmp(e[i].value, want[i][1], e[i].value_len) == 0);
    }
  value_pairs_result_release(res);
  value_pairs_free(vp);
  log_msg_unref(msg);
}

Test(json, functions_survive_odd_arguments)
{
  LogMsg *msg = tfunc_fuzz_msg();
  tfunc_fuzz_function("format-json", msg);
  tfunc_fuzz_function("format-flat-json", msg);
  tfunc_fuzz_function("format-welf", msg);
  tfunc_fuzz_function("format-cef-extension", msg);
  log_msg_unref(msg);
}

Test(json, deep_and_huge_names)
{
  LogMsg *msg = tfunc_fuzz_msg();
  GString *key = g_string_new("$(format-json ");
  for (int i = 0; i < 2000; i++)
    g_string_append(key, "a.");
  g_string_append(key, "b=1 c=$HUGE)");
  GString *out = tfunc_format(key->str, msg);
  /* 2000 objects opened and closed, plus the 1 MiB value escaped */
  cr_assert(g_str_has_prefix(out->str, "{\"c\":\""));
  const char *b = strstr(out->str, "\"b\":\"1\"}");
  cr_assert_not_null(b);
  cr_assert_eq(strspn(b + 7, "}"), 2001);
  cr_assert_eq(b + 7 + 2001, out->str + out->len);
  g_string_free(out, TRUE);
  g_string_free(key, TRUE);
  log_msg_unref(msg);
}

/* --shift-levels beyond the levels a name has empties it, at once: a
 * count of two billion looped that many times (a fuzz-tfuncs timeout). */
Test(json, shift_levels_beyond_the_name_ends_at_once, .timeout = 10)
{
  LogMsg *msg = log_msg_new(0);
  log_msg_set_value_by_name(msg, ".SDATA.a@1.b", "v", -1);
  log_msg_set_value_by_name(msg, ".SDATA.a@1.c", "w", -1);
  GString *few = tfunc_format("$(format-json --scope sdata --rekey .SDATA.* --shift-levels 3)", msg);
  cr_assert_str_eq(few->str, "{\"c\":\"w\",\"b\":\"v\"}");
  GString *all = tfunc_format("$(format-json --scope sdata --rekey .SDATA.* --shift-levels 4)", msg);
  GString *huge = tfunc_format("$(format-json --scope sdata --rekey .SDATA.* --shift-levels 2000000000)", msg);
  cr_assert_str_eq(huge->str, all->str);
  g_string_free(few, TRUE);
  g_string_free(all, TRUE);
  g_string_free(huge, TRUE);
  log_msg_unref(msg);
}

/* --auto-cast is taken and changes nothing, as in syslog-ng 3.38 (its
 * SCL's format-cim gives it; 3.38 wrote {"n":"5","_j":{"a":"1"}}). */
Test(json, auto_cast_is_taken_and_ignored)
{
  LogMsg *msg = test_parse("<14>1 2025-03-10T11:58:01Z h app 42 m - body");
  log_msg_set_value_by_name(msg, ".j.a", "1", -1);
  LogTemplateOptions opts;
  log_template_options_defaults(&opts);
  assert_format("$(format-json --auto-cast --key .j.* --pair n=5)", msg, &opts, "{\"n\":\"5\",\"_j\":{\"a\":\"1\"}}");
  log_msg_unref(msg);
}

/* An SD-ID with dots (Junos's junos@2636.1.1.1.2.129) is one object
 * under _SDATA, as syslog-ng 3.38's walker nests it (compare-scl-junos);
 * other names split at each dot, "_SDATA.a.b.c" too. */
Test(json, sdata_id_with_dots_is_one_object)
{
  LogMsg *msg = test_parse("<14>1 2019-04-12T14:29:06Z - RT_FLOW - X [junos@2636.1.1.1.2.129 reason=\"TCP FIN\" "
                           "source-port=\"80\"][meta seq=\"1\"] m");
  log_msg_set_value_by_name(msg, ".x.a.b.c", "v", -1);
  log_msg_set_value_by_name(msg, "_SDATA.a.b.c", "w", -1);
  LogTemplateOptions opts;
  log_template_options_defaults(&opts);
  assert_format("$(format-json --scope sdata --key .x.* --key _SDATA.*)", msg, &opts,
                "{\"_x\":{\"a\":{\"b\":{\"c\":\"v\"}}},\"_SDATA\":{\"meta\":{\"seq\":\"1\"},"
                "\"junos@2636.1.1.1.2.129\":{\"source-port\":\"80\",\"reason\":\"TCP FIN\"},"
                "\"a\":{\"b\":{\"c\":\"w\"}}}}");
  log_msg_unref(msg);
}

/* syslog-ng 3.38 with ts-format(iso) frac-digits(3) wrote
 * "DATE":"Mar 10 11:58:00.003" for rfc3164's DATE: $DATE, not $STAMP. */
Test(json, rfc3164_date_is_bsd_with_fraction)
{
  LogMsg *msg = test_parse("<165>1 2025-03-10T11:58:00.003Z h p 1 m [a b=\"c\"] msg");
  LogTemplateOptions opts;
  log_template_options_defaults(&opts);
  opts.ts_format = LTZ_FORMAT_RFC3339;
  opts.frac_digits = 3;
  assert_format("$(format-json --scope rfc3164 --exclude P* --exclude M* --exclude H* --exclude F* --key ISODATE)",
                msg, &opts, "{\"ISODATE\":\"2025-03-10T11:58:00.003+00:00\",\"DATE\":\"Mar 10 11:58:00.003\"}");
  assert_format("$(format-json --scope nv-pairs,sdata --exclude H*)", msg, &opts,
                "{\"_SDATA\":{\"a\":{\"b\":\"c\"}},\"PROGRAM\":\"p\",\"PID\":\"1\",\"MSGID\":\"m\",\"MESSAGE\":\"msg\"}");
  /* scope names take - and _ alike, as syslog-ng's (a real configuration
   * writes nv_pairs) */
  assert_format("$(format-json --scope nv_pairs,sdata --exclude H*)", msg, &opts,
                "{\"_SDATA\":{\"a\":{\"b\":\"c\"}},\"PROGRAM\":\"p\",\"PID\":\"1\",\"MSGID\":\"m\",\"MESSAGE\":\"msg\"}");
  log_msg_unref(msg);
}

/* Names and globs may hold any byte (glib's GPatternSpec would abort on
 * invalid UTF-8, which the fuzzer found); '?' takes one UTF-8 character. */
Test(json, globs_on_any_bytes)
{
  char *argv[] = { "--key", "\xc3\xa9?", "--key", "x\xff*", "--exclude", "*\xfe", "--rekey", "\xc3*", "--add-prefix",
                   "p.", NULL };
  char *error = NULL;
  ValuePairs *vp = value_pairs_new_from_argv(10, argv, &error);
  cr_assert_not_null(vp, "%s", error);
  LogMsg *msg = test_parse("<14>1 2025-03-10T11:58:01Z h app 42 m - body");
  static const char *const names[] = { "\xc3\xa9" "a", "\xc3\xa9\xc3\xa9", "\xc3\xa9", "x\xffy", "x\xffy\xfe", "\xc3\xa9\xc3" };
  for (size_t i = 0; i < G_N_ELEMENTS(names); i++)
    log_msg_set_value_by_name(msg, names[i], "v", 1);
  ValuePairsResult *res = value_pairs_result_acquire();
  size_t n = value_pairs_collect(vp, msg, NULL, res);
  const ValuePairsEntry *e = (const ValuePairsEntry *) res->entries->data;
  const char *want[] = { "x\xffy", "p.\xc3\xa9\xc3\xa9", "p.\xc3\xa9\xc3", "p.\xc3\xa9" "a" };
  cr_assert_eq(n, G_N_ELEMENTS(want));
  for (size_t i = 0; i < n; i++)
    cr_assert(e[i].name_len == strlen(want[i]) && memcmp(e[i].name, want[i], e[i].name_len) == 0, "entry %zu: %.*s",
              i, (int) e[i].name_len, e[i].name);
  value_pairs_result_release(res);
  value_pairs_free(vp);
  log_msg_unref(msg);
}

typedef struct ThreadCase
{
  LogTemplate *t;
  const LogMsg *msg;
  const char *want;
  int bad;
} ThreadCase;

static gpointer
_format_many(gpointer p)
{
  ThreadCase *c = p;
  GString *out = g_string_new(NULL);
  for (int i = 0; i < 2000; i++)
    {
      g_string_truncate(out, 0);
      log_template_format(c->t, c->msg, NULL, out);
      if (strcmp(out->str, c->want) != 0)
        c->bad++;
    }
  g_string_free(out, TRUE);
  return NULL;
}

/* One compiled template, formatted by several threads at once (writer
 * threads share the configuration's templates); each thread's scratch is
 * freed when it ends (the sanitizer build checks). */
Test(json, threads_share_a_template)
{
  LogMsg *msg = tfunc_case_msg(&cases[0]);
  const char *text = "$(format-json --scope rfc5424 --scope nv-pairs x=$(format-flat-json --key HOST) n=int($PID)"
                     " h=$(sha1 $MSG) s=$(substr $MSG 3 5))";
  GString *want = tfunc_format(text, msg);
  LogTemplate *t = log_template_compile(text, NULL);
  ThreadCase c[4];
  GThread *th[4];
  for (int i = 0; i < 4; i++)
    {
      c[i] = (ThreadCase) { t, msg, want->str, 0 };
      th[i] = g_thread_new("fmt", _format_many, &c[i]);
    }
  for (int i = 0; i < 4; i++)
    {
      g_thread_join(th[i]);
      cr_assert_eq(c[i].bad, 0, "thread %d got %d different outputs", i, c[i].bad);
    }
  log_template_unref(t);
  g_string_free(want, TRUE);
  log_msg_unref(msg);
}

/* A value-pairs of fixed names (macros, key=value pairs and, for a message
 * without picked name-value pairs of its own, built-in values) goes through
 * a plan made once; with the plans off the same selection goes through
 * collecting and walking per message.  Both must agree byte for byte, on
 * each corpus message (and one with name-value pairs of its own), with and
 * without template-escape. */
Test(json, fixed_names_plan_matches_the_general_path)
{
  static const char *const args[] = {
    "a.b=$HOST a.c=$PID a=3 b.x.y=$MESSAGE .d.e=5 _f=6",
    "--omit-empty-values a.b=$PID a.c=x b=$MSGID",
    "--omit-empty-values x=$PID y= z=$MSGID q=$HOST",
    "--scope rfc3164 --scope selected-macros",
    "--scope rfc3164 PID=custom HOST=h1 HOST=$PID MESSAGE=",
    "--scope rfc3164 --omit-empty-values PID=$MSGID PROGRAM= HOST=${PID}",
    "--scope rfc5424 --exclude DATE --exclude MESSAGE x.y=${MSGID}",
    "a=int($PID) b=int($HOST) c=$MESSAGE",
    "a=int($PID) b=boolean($PID) c=list($MESSAGE) d=literal($MSGID) e=json(${PID})",
    "--key S_* --rekey S_* --shift 2 --add-prefix t.",
    "--rekey * --add-prefix x. a=$HOST b=${PROGRAM} c=$(echo $MESSAGE)",
    "--key ISODATE --key HOST --key FACILITY --key LEVEL m=$MESSAGE p=$PROGRAM pid=$PID",
    "q='say \"hi\" \\ \x01' e=$(echo $MESSAGE) m=${MESSAGE} h=${HOST}x",
    ".a=1 .a.b=$PID a..b=$HOST c.=$PROGRAM .=$MSGID",
    "--scope rfc5424 --scope nv-pairs",
    "--scope nv-pairs --omit-empty-values --key DATE",
    "--scope nv-pairs HOST=$PROGRAM --pair PID=x",
    "--scope nv-pairs --exclude HOST* --rekey P* --add-prefix q",
    "--scope nv-pairs --rekey * --add-prefix n. x.y=1",
    "--scope all-nv-pairs --scope rfc3164",
    "--key MSG* --key HOST",
  };
  static const char *const funcs[] = { "format-json", "format-flat-json" };
  LogTemplateOptions escape;
  log_template_options_defaults(&escape);
  escape.escape = true;
  for (size_t c = 0; c <= G_N_ELEMENTS(cases); c++)
    {
      LogMsg *msg;
      const char *name;
      if (c < G_N_ELEMENTS(cases))
        {
          msg = tfunc_case_msg(&cases[c]);
          name = cases[c].name;
        }
      else
        {
          /* pairs of its own, one of them empty; PID left unset */
          msg = tfunc_case_msg(&cases[2]);
          log_msg_unset_value(msg, LM_V_PID);
          log_msg_set_value_by_name(msg, "HOSTX", "hx", -1);
          log_msg_set_value_by_name(msg, "empty", "", 0);
          log_msg_set_value_by_name(msg, "a.b", "ab", -1);
          name = "own pairs";
        }
      for (size_t a = 0; a < G_N_ELEMENTS(args); a++)
        for (size_t f = 0; f < G_N_ELEMENTS(funcs); f++)
          for (int e = 0; e < 2; e++)
            {
              char *text = g_strdup_printf("<$(%s %s)>", funcs[f], args[a]);
              format_json_plans = false;
              char *want = test_format(text, msg, e ? &escape : NULL);
              format_json_plans = true;
              char *got = test_format(text, msg, e ? &escape : NULL);
              cr_expect_str_eq(got, want, "case %s, %s, escape %d", name, text, e);
              g_free(want);
              g_free(got);
              g_free(text);
            }
      log_msg_unref(msg);
    }
}

/* syslog-ng 3.38 has no TRANSPORT value: neither a scope nor a pattern
 * picks Sluice's, in the plan (no pairs of the message's own) or the walk
 * (one), while the template's ${TRANSPORT} still gives it. */
Test(json, transport_never_picked)
{
  LogMsg *msg = tfunc_case_msg(&cases[2]);
  log_msg_set_value(msg, LM_V_TRANSPORT, "rfc3164+tcp", -1);
  static const char *const texts[] = {
    "$(format-json --scope nv-pairs --exclude SOURCE --exclude L* --exclude M* --exclude P* --exclude HOST_FROM)",
    "$(format-json --scope all-nv-pairs --exclude SOURCE --exclude L* --exclude M* --exclude P* --exclude HOST_FROM)",
    "$(format-json --key HOST --key TRANSPORT)",
    "$(format-json --key HOST --key TRANS*)",
  };
  for (int own = 0; own < 2; own++)
    {
      if (own)
        log_msg_set_value_by_name(msg, "zz", "1", -1);
      for (size_t i = 0; i < G_N_ELEMENTS(texts); i++)
        {
          GString *out = tfunc_format(texts[i], msg);
          const char *want = own && i < 2 ? "{\"zz\":\"1\",\"HOST\":\"web01\"}" : "{\"HOST\":\"web01\"}";
          cr_expect_str_eq(out->str, want, "%s, own pairs %d", texts[i], own);
          g_string_free(out, TRUE);
        }
    }
  GString *out = tfunc_format("${TRANSPORT}", msg);
  cr_expect_str_eq(out->str, "rfc3164+tcp");
  g_string_free(out, TRUE);
  log_msg_unref(msg);
}

/* --scope nv-pairs picks the built-in values that are set, even empty,
 * and the message's own pairs; the plan must show the same. */
Test(json, nv_pairs_plan_shows_set_builtins_only)
{
  LogMsg *msg = tfunc_case_msg(&cases[2]);
  log_msg_set_value(msg, LM_V_PID, "", 0);
  log_msg_unset_value(msg, LM_V_MSGID);
  GString *out = tfunc_format("$(format-json --scope nv-pairs --exclude SOURCE --exclude TRANSPORT)", msg);
  cr_expect_str_eq(out->str, "{\"PROGRAM\":\"sshd\",\"PID\":\"\",\"MESSAGE\":\"Accepted publickey for deploy "
                             "from 10.0.0.5 port 22\",\"LEGACY_MSGHDR\":\"sshd[2345]: \","
                             "\"HOST_FROM\":\"127.0.0.1\",\"HOST\":\"web01\"}");
  g_string_free(out, TRUE);
  log_msg_set_value_by_name(msg, "zz", "1", -1);
  out = tfunc_format("$(format-json --scope nv-pairs --exclude SOURCE --exclude TRANSPORT --exclude M*"
                     " --exclude L* --exclude P*)", msg);
  cr_expect_str_eq(out->str, "{\"zz\":\"1\",\"HOST_FROM\":\"127.0.0.1\",\"HOST\":\"web01\"}");
  g_string_free(out, TRUE);
  log_msg_unref(msg);
}

static GPtrArray *cast_errors;

static void
_keep_cast_errors(SluiceLogLevel level, const char *line, void *user_data)
{
  (void) user_data;
  if (level == SLUICE_LOG_ERROR && g_str_has_prefix(line, "Casting error"))
    g_ptr_array_add(cast_errors, g_strdup(line));
}

/* on-error(): a value that does not cast to its type hint.  What syslog-ng
 * 3.38 wrote for the same line and templates (a run of it with each
 * options { on-error() }), by the plan and by the general path alike;
 * but where it leaves out the first member it writes "{,": Sluice writes
 * valid JSON there.  Its error lines as well: one for each function that
 * drop-message empties, one for each pair that drop-property leaves out,
 * none for fallback-to-string nor for the silently-* forms. */
Test(json, on_error_decides_what_a_bad_cast_does)
{
  static const char *const text = "$(format-json a.b=int($PROGRAM) a.c=int($PID) x=y d.e=boolean($PROGRAM) "
                                  "f=double($PROGRAM)) | $(format-flat-json a.b=int($PROGRAM) z=1) | "
                                  "$(format-flat-json zz=int($PROGRAM) a=1) | $(format-json zz=int($PROGRAM) a=1) | "
                                  "$(format-json --scope rfc3164 --exclude DATE --exclude FACILITY --exclude PRIORITY "
                                  "HOST=int($HOST) q=boolean($PID))";
  static const struct
  {
    LogOnError on_error;
    const char *want;
    guint errors;
  } t[] = {
    { LOG_ON_ERROR_DROP_MESSAGE, " |  |  |  | ", 5 },
    { LOG_ON_ERROR_DROP_PROPERTY,
      "{\"x\":\"y\",\"d\":{},\"a\":{\"c\":12}} | {\"z\":\"1\"} | {\"a\":\"1\"} | "
      "{\"a\":\"1\"} | {\"q\":true,\"PROGRAM\":\"prog\",\"PID\":\"12\",\"MESSAGE\":\"x\"}",
      7 },
    { LOG_ON_ERROR_FALLBACK_TO_STRING,
      "{\"x\":\"y\",\"f\":\"prog\",\"d\":{\"e\":\"prog\"},\"a\":{\"c\":12,\"b\":\"prog\"}} | "
      "{\"z\":\"1\",\"a.b\":\"prog\"} | {\"zz\":\"prog\",\"a\":\"1\"} | {\"zz\":\"prog\",\"a\":\"1\"} | "
      "{\"q\":true,\"PROGRAM\":\"prog\",\"PID\":\"12\",\"MESSAGE\":\"x\",\"HOST\":\"h\"}",
      0 },
  };
  static const char line[] = "<13>Nov 23 10:00:00 h prog[12]: x";
  LogMsg *msg = test_parse_len(line, sizeof(line) - 1, false);
  cast_errors = g_ptr_array_new_with_free_func(g_free);
  sluice_log_set_rate_limit(0);
  sluice_log_set_sink(_keep_cast_errors, NULL);
  for (size_t i = 0; i < G_N_ELEMENTS(t); i++)
    for (int silent = 0; silent < 2; silent++)
      for (int plans = 0; plans < 2; plans++)
        {
          LogTemplateOptions opts;
          log_template_options_defaults(&opts);
          opts.on_error = t[i].on_error | (silent ? LOG_ON_ERROR_SILENT : 0);
          format_json_plans = plans;
          g_ptr_array_set_size(cast_errors, 0);
          char *got = test_format(text, msg, &opts);
          cr_expect_str_eq(got, t[i].want, "on-error %d, plans %d", (int) opts.on_error, plans);
          cr_expect_eq(cast_errors->len, silent ? 0 : t[i].errors, "on-error %d, plans %d: %u casting errors",
                       (int) opts.on_error, plans, cast_errors->len);
          g_free(got);
        }
  sluice_log_set_sink(NULL, NULL);
  sluice_log_set_rate_limit(SLUICE_LOG_RATE_LIMIT);
  g_ptr_array_unref(cast_errors);
  format_json_plans = true;
  log_msg_unref(msg);
}

/* The line syslog-ng 3.38 logs for each, from a run of it with
 * on-error(drop-property) and these five pairs over "abc": int is int32,
 * float is double, int64 keeps its name. */
Test(json, a_casting_error_names_the_value_and_its_type_hint)
{
  static const char line[] = "<13>Nov 23 10:00:00 h prog[12]: abc";
  LogMsg *msg = test_parse_len(line, sizeof(line) - 1, false);
  cast_errors = g_ptr_array_new_with_free_func(g_free);
  sluice_log_set_rate_limit(0);
  sluice_log_set_sink(_keep_cast_errors, NULL);
  LogTemplateOptions opts;
  log_template_options_defaults(&opts);
  opts.on_error = LOG_ON_ERROR_DROP_PROPERTY;
  char *got = test_format("$(format-json a=int($MSG) b=float($MSG) c=boolean($MSG) d=int64($MSG) e=double($MSG))",
                          msg, &opts);
  cr_expect_str_eq(got, "{}");
  g_free(got);
  sluice_log_set_sink(NULL, NULL);
  sluice_log_set_rate_limit(SLUICE_LOG_RATE_LIMIT);
  static const char *const want[] = { "int32", "double", "boolean", "int64", "double" };
  cr_assert_eq(cast_errors->len, G_N_ELEMENTS(want));
  for (size_t i = 0; i < G_N_ELEMENTS(want); i++)
    {
      char *line_want = g_strdup_printf("Casting error; value='abc', type-hint='%s'", want[i]);
      bool seen = false;
      for (guint k = 0; k < cast_errors->len; k++)
        seen = seen || strcmp(g_ptr_array_index(cast_errors, k), line_want) == 0;
      cr_expect(seen, "no line \"%s\"", line_want);
      g_free(line_want);
    }
  g_ptr_array_unref(cast_errors);
  log_msg_unref(msg);
}
