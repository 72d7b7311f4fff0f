/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The basic template functions against what syslog-ng 3.38 printed for
 * the same templates and lines (basicfuncs-corpus.h, made by
 * tests/oracle/tfunc-oracle.py), their compile-time errors, and odd
 * arguments under the sanitizers.
 */
#include "../tfunc-test.h"

#include "basicfuncs-corpus.h"

static void
setup(void)
{
  modules_register_template_functions();
  setenv("TZ", "UTC", 1); /* the oracle ran with TZ=UTC: $(env TZ) */
  setenv("HOME", "/root", 1);
}

TestSuite(basicfuncs, .init = setup);

Test(basicfuncs, corpus_matches_syslog_ng)
{
  TFUNC_CHECK_CORPUS(cases, templates, expected);
}

Test(basicfuncs, compile_errors_name_the_function)
{
  tfunc_assert_compile_error("$(padding $PID)", "$(padding) Not enough arguments");
  tfunc_assert_compile_error("$(padding $PID x)", "Padding template function requires a number");
  tfunc_assert_compile_error("$(if)", "$(if) requires three arguments");
  tfunc_assert_compile_error("$(if (a) b)", "$(if) requires three arguments");
  tfunc_assert_compile_error("$(if (nosuchfn(x)) a b)", "$(if) Error parsing conditional filter expression");
  tfunc_assert_compile_error("$(if ($PID == ) a b)", "\"if\"");
  tfunc_assert_compile_error("$(hash)", "$(hash) parsing failed, invalid number of arguments");
  tfunc_assert_compile_error("$(sha1 -l x a)", "Cannot parse integer value \"x\" for -l");
  tfunc_assert_compile_error("$(sha1 --nosuch a)", "Unknown option --nosuch");
  tfunc_assert_compile_error("$(sha1 -l)", "\"sha1\"");
  tfunc_assert_compile_error("$(sanitize --nosuch a)", "$(sanitize) unknown option --nosuch");
  tfunc_assert_compile_error("$(grep)", "$(grep) requires at least two arguments");
  tfunc_assert_compile_error("$(grep (program(a)))", "$(grep) requires at least two arguments");
  tfunc_assert_compile_error("$(grep x y)", "$(grep) Error parsing conditional filter expression");
  tfunc_assert_compile_error("$(map)", "Wrong number of arguments. Example: $(map template list).");
  tfunc_assert_compile_error("$(map x)", "Wrong number of arguments. Example: $(map template list).");
  tfunc_assert_compile_error("$(map $_ a b)", "Wrong number of arguments. Example: $(map template list).");
  tfunc_assert_compile_error("$(filter)", "Wrong number of arguments. Example: $(filter expr list).");
  tfunc_assert_compile_error("$(filter (x) a)", "$(filter) Error parsing conditional filter expression");
  tfunc_assert_compile_error("$(sum)", "$(sum) requires only one argument");
  tfunc_assert_compile_error("$(average 1 2)", "$(average) requires only one argument");
  tfunc_assert_compile_error("$(min)", "$(min) requires only one argument");
  tfunc_assert_compile_error("$(max 1 2)", "$(max) requires only one argument");
  tfunc_assert_compile_error("$(md4 x)", "Unknown template function \"md4\"");
  /* $(binary)'s numbers are read when it is compiled (syslog-ng 3.38's
   * messages, from syslog-ng -s) */
  tfunc_assert_compile_error("$(binary)", "$(binary) Incorrect parameters, usage $(binary <number> <number> ...)");
  tfunc_assert_compile_error("$(binary 256)",
                             "$(binary) template function only supports 8 bit values as characters, 256 is above 255");
  tfunc_assert_compile_error("$(binary 65 x)", "unable to parse x as a dec number");
  tfunc_assert_compile_error("$(binary 0x)", "unable to parse 0x as a hex number");
  tfunc_assert_compile_error("$(binary 09)", "unable to parse 09 as a oct number");
  tfunc_assert_compile_error("$(binary $PID)", "unable to parse $PID as a dec number");
  /* one syslog-ng has and Sluice does not build yet says so */
  tfunc_assert_compile_error("$(dns-resolve-ip a b)",
                             "$(dns-resolve-ip) is a syslog-ng template function that Sluice does not support yet");
  tfunc_assert_compile_error("$(no-such-function x)", "Unknown template function \"no-such-function\"");
  tfunc_assert_compile_error("$(substr $(padding) 1)", "padding");
}

/* syslog-ng 3.38's messages, checked with syslog-ng -s */
Test(basicfuncs, list_search_compile_errors)
{
  tfunc_assert_compile_error("$(list-search)",
                             "$(list-search) Pattern is missing. Usage: $(list-search [options] <pattern> ${list})");
  tfunc_assert_compile_error("$(list-search z)",
                             "$(list-search) List is missing. Usage: $(list-search [options] <pattern> ${list}");
  tfunc_assert_compile_error("$(list-search --mode glob a)", "$(list-search) List is missing");
  tfunc_assert_compile_error("$(list-search --mode bogus w x)", "$(list-search) Invalid list-search mode: bogus. "
                                                                "Valid modes are: literal, prefix, substring, glob, pcre");
  tfunc_assert_compile_error("$(list-search --start-index x w x)", "Cannot parse integer value \"x\" for --start-index");
  tfunc_assert_compile_error("$(list-search --start-index=4294967296 w x)",
                             "Integer value \"4294967296\" for --start-index out of range");
  tfunc_assert_compile_error("$(list-search --nosuch w x)", "Unknown option --nosuch");
  tfunc_assert_compile_error("$(list-search -m glob w x)", "Unknown option -m");
  tfunc_assert_compile_error("$(list-search w x --mode)", "Missing argument for --mode");
  tfunc_assert_compile_error("$(list-search --mode pcre \"(\" x)", "$(list-search) Failed to prepare pattern: (");
}

/* $_ outside map and filter is the message's value "_"; inside, nested
 * calls each see their own element and get the outer one back. */
Test(basicfuncs, map_binds_underscore)
{
  LogMsg *msg = test_parse("<14>1 2025-03-10T11:58:01Z h app 1 m - x");
  log_msg_set_value_by_name(msg, "_", "U", -1);
  assert_format("$_|$(map [$_] a,b)|$_|$(map $(map $_$_ $_,x)$_ a,b)|$(filter ($_ eq U) a,U)|${_}", msg, NULL,
                "U|[a],[b]|U|\"aa,xxa\",\"bb,xxb\"|U|U");
  log_msg_unref(msg);
}

/* syslog-ng 3.38 wrote these for four messages "hello 0".."hello 3"
 * through one destination each. */
Test(basicfuncs, iterate_across_messages)
{
  static const char *const seq[] = {
    "$(iterate $(+ 1 $_) 0)", "$(iterate $(* 2 $_) 1)|$(iterate $(+ 1 $_) 0)", "$(iterate \"$_ x\" a)",
    "$(iterate $(+ $_ $_) $PID)", "$(iterate $MSG a)",
  };
  static const char *const want[][4] = {
    { "0", "1", "2", "3" },
    { "1|0", "2|1", "4|2", "8|3" },
    { "a", "a x", "a x x", "a x x x" },
    { "$PID", "NaN", "nan", "nan" },
    { "a", "hello 0", "hello 1", "hello 2" },
  };
  for (size_t t = 0; t < G_N_ELEMENTS(seq); t++)
    {
      char *error = NULL;
      LogTemplate *tpl = log_template_compile(seq[t], &error);
      cr_assert_not_null(tpl, "%s: %s", seq[t], error);
      for (int k = 0; k < 4; k++)
        {
          char line[64];
          g_snprintf(line, sizeof(line), "<38>2025-03-10T11:58:01Z web01 sshd[2345]: hello %d", k);
          LogMsg *msg = test_parse(line);
          GString *out = g_string_new(NULL);
          log_template_format(tpl, msg, NULL, out);
          cr_assert_str_eq(out->str, want[t][k], "%s, message %d", seq[t], k);
          g_string_free(out, TRUE);
          log_msg_unref(msg);
        }
      log_template_unref(tpl);
    }
  tfunc_assert_compile_error("$(iterate a)", "Wrong number of arguments. Example: $(iterate template initial-value).");
  tfunc_assert_compile_error("$(iterate a b c)", "Wrong number of arguments");
}

/* glib's GPatternSpec asserts on a pattern or element that ends inside a
 * UTF-8 sequence (found by fuzz-tfuncs); list-search's globs do not use it */
Test(basicfuncs, list_search_glob_takes_any_bytes)
{
  LogMsg *msg = test_parse("<14>1 2025-03-10T11:58:01Z h app 1 m - x");
  log_msg_set_value_by_name(msg, "e", "a,\xd4,\xc3\xa9\xd4,b\xff", -1);
  assert_format("$(list-search --mode glob \"\x85*e*\xd4\xd4\xd4\" a,b)|$(list-search --mode glob \"*\xd4\" ${e})|"
                "$(list-search --mode glob \"??\" ${e})|$(list-search --mode glob \"b?\" ${e})",
                msg, NULL, "|1|2|3");
  log_msg_unref(msg);
}

/* Each list call takes two scratch levels and map three: deep nesting
 * must not make two of them share a buffer (one would be reallocated
 * under the other's feet). */
Test(basicfuncs, deep_nesting_keeps_scratch_apart)
{
  LogMsg *msg = test_parse("<14>1 2025-03-10T11:58:01Z h app 1 m - x");
  GString *big = g_string_new("abcdefgh");
  for (int i = 1; i < 20000; i++)
    g_string_append(big, ",abcdefgh");
  log_msg_set_value_by_name(msg, "big", big->str, (ssize_t) big->len);
  GString *t = g_string_new("$(length ");
  for (int i = 0; i < 20; i++)
    g_string_append(t, i % 2 ? "$(list-concat x " : "$(map $_ ");
  g_string_append(t, "$(explode , ${big})");
  for (int i = 0; i < 21; i++)
    g_string_append_c(t, ')');
  GString *out = tfunc_format(t->str, msg);
  cr_assert_eq(atoi(out->str), (int) big->len + 20, "%s", out->str);
  g_string_free(out, TRUE);
  g_string_free(t, TRUE);
  g_string_free(big, TRUE);
  log_msg_unref(msg);
}

/* What the oracle's records cannot hold: newlines, written as \n inside
 * quotes and read back from them. */
Test(basicfuncs, lists_with_newlines)
{
  LogMsg *msg = test_parse("<14>1 2025-03-10T11:58:01Z h app 1 m - x");
  log_msg_set_value_by_name(msg, "nl", "a\nb", -1);
  log_msg_set_value_by_name(msg, "q", "\"a\\nb\",c", -1);
  assert_format("$(list-append \"\" ${nl})|$(length $(list-head ${q}))|$(list-concat ${q})|$(explode x ${nl})", msg, NULL,
                "\"a\\nb\"|3|\"a\\nb\",c|\"a\\nb\"");
  log_msg_unref(msg);
}

/* $(template): named templates from a source the pipeline builder sets
 * (tests/functional/data/file-tfuncs.conf runs them through the daemon
 * against syslog-ng). */
static const char *
_named_text(const void *data, const char *name)
{
  (void) data;
  static const char *const named[][2] = {
    { "t1", "[$PROGRAM]" }, { "t2", "<$(template t1)>" }, { "sshd", "S" }, { "self", "x$(template self)" },
    { "loop", "$(template $PROGRAM)" }, { "bad", "$(nosuchfn)" },
  };
  for (size_t i = 0; i < G_N_ELEMENTS(named); i++)
    if (strcmp(named[i][0], name) == 0)
      return named[i][1];
  return NULL;
}

static void
_named_each(const void *data, void (*func)(const char *name, void *user), void *user)
{
  (void) data;
  static const char *const names[] = { "t1", "t2", "sshd", "loop" };
  for (size_t i = 0; i < G_N_ELEMENTS(names); i++)
    func(names[i], user);
}

Test(basicfuncs, named_templates)
{
  static const LogTemplateNamedSource src = { _named_text, _named_each, NULL };
  tfunc_assert_compile_error("$(template t1)", "$(template) Unknown template function or template \"t1\"");
  const LogTemplateNamedSource *old = log_template_set_named_source(&src);
  LogMsg *msg = test_parse("<38>2025-03-10T11:58:01Z web01 sshd[2345]: hello world");
  assert_format("$(template t1)|$(template t2)|$(template t1 extra)|$(template $PROGRAM)|$(template $PROGRAM t1)|"
                "$(template $HOST t1)|[$(template $HOST)]|$(template \"$PROGRAM\")|$(template $(substr t1x 0 2))",
                msg, NULL, "[sshd]|<[sshd]>|[sshd]|S|S|t1|[]|S|[sshd]");
  /* "loop" names itself through $PROGRAM: left out while it compiles */
  assert_format("$(template loop)", msg, NULL, "S");
  tfunc_assert_compile_error("$(template)",
                             "$(template) requires one argument, that specifies the template name to be invoked");
  tfunc_assert_compile_error("$(template nosuch)", "$(template) Unknown template function or template \"nosuch\"");
  tfunc_assert_compile_error("$(template self)", "$(template) template self references itself");
  tfunc_assert_compile_error("$(template bad)", "$(template) template bad: ");
  log_msg_unref(msg);
  log_template_set_named_source(old);
}

/* template-function NAME "TEXT"; (the builder hands the texts over):
 * $(NAME) is TEXT, other user functions and built-ins inside it; no
 * arguments, no function that reaches itself, the error inside named. */
static const char *
_function_text(const void *data, const char *name)
{
  (void) data;
  static const char *const fns[][2] = {
    { "hello", "<${PROGRAM}:$(uppercase $MSG)>" }, { "two", "$(hello)$(hello)" },
    { "loop", "a$(loop2)" }, { "loop2", "b$(loop)" }, { "broken", "$(nosuchfn)" },
  };
  for (size_t i = 0; i < G_N_ELEMENTS(fns); i++)
    if (strcmp(fns[i][0], name) == 0)
      return fns[i][1];
  return NULL;
}

Test(basicfuncs, template_function_statement)
{
  static const LogTemplateNamedSource src = { _named_text, _named_each, NULL, _function_text };
  tfunc_assert_compile_error("$(hello)", "Unknown template function \"hello\"");
  const LogTemplateNamedSource *old = log_template_set_named_source(&src);
  LogMsg *msg = test_parse("<38>2025-03-10T11:58:01Z web01 sshd[2345]: hello world");
  assert_format("$(two)|$(hello)|$(echo $(hello))", msg, NULL,
                "<sshd:HELLO WORLD><sshd:HELLO WORLD>|<sshd:HELLO WORLD>|<sshd:HELLO WORLD>");
  tfunc_assert_compile_error("$(hello x)", "User defined template function $(hello) cannot have arguments");
  tfunc_assert_compile_error("$(loop)", "In template-function loop: In template-function loop2: template-function "
                                        "loop reaches itself");
  tfunc_assert_compile_error("$(broken)", "In template-function broken: Unknown template function \"nosuchfn\"");
  log_msg_unref(msg);
  log_template_set_named_source(old);
}

/* $(stardate)'s errors, as syslog-ng 3.38's stardate module words them,
 * and its year in the local zone (the corpus runs in UTC): syslog-ng gave
 * these with TZ=America/New_York. */
Test(basicfuncs, stardate_errors_and_local_year)
{
  tfunc_assert_compile_error("$(stardate)", "stardate: format must be: $(stardate [--digits 2] $UNIXTIME)");
  tfunc_assert_compile_error("$(stardate 1 2)", "stardate: format must be: $(stardate [--digits 2] $UNIXTIME)");
  tfunc_assert_compile_error("$(stardate -- -1)", "stardate: format must be: $(stardate [--digits 2] $UNIXTIME)");
  tfunc_assert_compile_error("$(stardate --digits 10 5)", "stardate: digits must be between 0-9.");
  tfunc_assert_compile_error("$(stardate --digits -1 5)", "stardate: digits must be between 0-9.");
  tfunc_assert_compile_error("$(stardate --digits x 5)", "Cannot parse integer value \"x\" for --digits");
  tfunc_assert_compile_error("$(stardate --nosuch 5)", "Unknown option --nosuch");
  tfunc_assert_compile_error("$(stardate -5)", "Unknown option -5");
  setenv("TZ", "America/New_York", 1); /* read at the local zone's first use, in this test's process */
  LogMsg *msg = tfunc_case_msg(&cases[0]);
  assert_format("$(stardate 1704067200)|$(stardate --digits 6 1704085200)|$(stardate --digits 6 1709251200)", msg,
                NULL, "2023.99|2024.000000|2024.163365");
  assert_format("$(stardate -- 1704067200)|$(stardate --digits 3 -- 1704067200)", msg, NULL, "2023.99|2023.999");
  /* a time the calendar cannot hold is no time */
  assert_format("[$(stardate 99999999999999999999)][$(stardate 1000000000000001)]", msg, NULL, "[][]");
  log_msg_unref(msg);
}

/* format-date and tag are syslog-ng 4 functions that 3.38 lacks: their
 * expected values come from the documentation and Python's strftime. */
Test(basicfuncs, format_date_and_tag)
{
  const TfuncCase sd = cases[0], odd = cases[1];
  LogMsg *msg = tfunc_case_msg(&sd);
  assert_format("$(format-date %Y-%m-%dT%H:%M:%S)|$(format-date \"%a %b %e %j %y %z %%\")", msg, NULL,
                "2025-03-10T11:58:00|Mon Mar 10 069 25 +0000 %");
  assert_format("$(format-date --time-zone Europe/Budapest \"%H:%M %z\")|$(format-date %s)|$(format-date %%s%s)", msg,
                NULL, "12:58 +0100|1741607880|%s1741607880");
  assert_format("$(format-date --time-zone=America/New_York \"%F %T %z\" 1741607880.5)|$(format-date %H x)|"
                "$(format-date \"\")",
                msg, NULL, "2025-03-10 07:58:00 -0400||");
  /* a time the calendar cannot hold is no time (found by fuzz-tfuncs:
   * the zone offset overflowed) */
  assert_format("[$(format-date --time-zone Europe/Budapest %s 9223372036854775807)]"
                "[$(format-date %s 99999999999999999999)][$(format-date %s -1000000000000001)]",
                msg, NULL, "[][][]");
  assert_format("$(tag .source.s5424)|$(tag nosuch)|$(tag .source.s5424 Y N)|$(tag nosuch Y $PID)", msg, NULL,
                "1|0|Y|4711");
  log_msg_unref(msg);
  msg = tfunc_case_msg(&odd);
  assert_format("$(format-date \"%H:%M %z\")|$(tag .source.s3164)", msg, NULL, "11:58 +0100|0");
  log_msg_unref(msg);
  tfunc_assert_compile_error("$(tag)", "$(tag) usage");
  tfunc_assert_compile_error("$(tag a b)", "$(tag) usage");
  tfunc_assert_compile_error("$(format-date)", "$(format-date) usage");
  tfunc_assert_compile_error("$(format-date %H 1 2)", "$(format-date) usage");
  tfunc_assert_compile_error("$(format-date --time-zone Nowhere/Land %H)", "$(format-date) bad --time-zone");
  tfunc_assert_compile_error("$(format-date --zone UTC %H)", "$(format-date) unknown option");
}

/* syslog-ng 3.38 with template-escape(yes) wrote this for
 * <165>1 2025-03-10T11:58:00.003Z h p"q 1 m - say "hi" \\ x
 * : only the top-level $MSG is escaped, not function arguments or output. */
Test(basicfuncs, template_escape_leaves_functions_alone)
{
  const char line[] = "<165>1 2025-03-10T11:58:00.003Z h p\"q 1 m - say \"hi\" \\\\ x";
  LogMsg *msg = test_parse(line);
  LogTemplateOptions opts;
  log_template_options_defaults(&opts);
  opts.escape = true;
  assert_format("$(format-json m=$MSG --key PROGRAM)|$(md5 $MSG)|$(echo $MSG)|$(length $MSG)|$MSG", msg, &opts,
                "{\"m\":\"say \\\"hi\\\" \\\\\\\\ x\",\"PROGRAM\":\"p\\\"q\"}|a38f572fa398c48f1b34d1fc6450f6bb|"
                "say \"hi\" \\\\ x|13|say \\\"hi\\\" \\\\\\\\ x");
  log_msg_unref(msg);
}

Test(basicfuncs, uuid_is_random_version_4)
{
  LogMsg *msg = test_parse("<13>1 2025-03-10T11:58:01Z h app 1 m - x");
  GString *a = tfunc_format("$(uuid)", msg), *b = tfunc_format("$(uuid)", msg);
  cr_assert_eq(a->len, 36);
  cr_assert(g_uuid_string_is_valid(a->str), "%s", a->str);
  cr_assert_eq(a->str[14], '4');
  cr_assert_str_neq(a->str, b->str);
  g_string_free(a, TRUE);
  g_string_free(b, TRUE);
  log_msg_unref(msg);
}

Test(basicfuncs, functions_survive_odd_arguments)
{
  static const char *const names[] = {
    "if",  "or",     "echo",       "substr",   "strip",  "sanitize",    "length", "lowercase", "uppercase",
    "replace-delimiter", "padding", "hash", "md5", "sha1", "sha256", "sha512", "base64-encode", "url-encode",
    "env", "basename", "dirname", "ipv4-to-int", "+", "-", "*", "/", "%", "uuid", "tag", "format-date",
    "list-concat", "list-append", "list-head", "list-tail", "list-nth", "list-count", "list-slice", "list-search",
    "explode", "implode", "url-decode", "indent-multi-line", "template", "grep", "map", "filter", "iterate", "round", "ceil", "floor", "sum", "average", "min", "max",
  };
  LogMsg *msg = tfunc_fuzz_msg();
  for (size_t i = 0; i < G_N_ELEMENTS(names); i++)
    {
      cr_assert_not_null(log_template_function_lookup(names[i]), "%s is not registered", names[i]);
      tfunc_fuzz_function(names[i], msg);
    }
  log_msg_unref(msg);
}

Test(basicfuncs, huge_values_come_out_whole)
{
  LogMsg *msg = tfunc_fuzz_msg();
  GString *len = tfunc_format("$(length $HUGE)|$(length $(padding $BIN 100000 xy))|$(length $(base64-encode $HUGE))",
                              msg);
  cr_assert_str_eq(len->str, "1048576|100000|1398104");
  g_string_free(len, TRUE);
  len = tfunc_format("$(list-count $HUGE)|$(length $(list-concat $HUGE))|$(list-count $(explode , $HUGE))", msg);
  cr_assert_str_eq(len->str, "1|1855175|1");
  g_string_free(len, TRUE);
  log_msg_unref(msg);
}
