/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The template compiler: syntax, compile errors (messages as syslog-ng 3.38
 * words them), escaping, name-value pairs and the function registry.
 */
#include "template-test.h"
#include "template/template-internal.h"

static LogMsg *
sample(void)
{
  return test_parse("<38>Mar 10 11:58:01 web01 sshd[2345]: hello world");
}

static void
assert_compile_error(const char *text, const char *expected_part)
{
  char *error = NULL;
  LogTemplate *t = log_template_compile(text, &error);
  cr_assert_null(t, "\"%s\" compiled", text);
  cr_assert_not_null(error);
  cr_assert(strstr(error, expected_part), "\"%s\": error \"%s\" lacks \"%s\"", text, error, expected_part);
  g_free(error);
}

Test(template_compile, errors_name_the_problem_and_position)
{
  assert_compile_error("a${", "Invalid macro, '}' is missing, error_pos='3'");
  assert_compile_error("a${x", "Invalid macro, '}' is missing, error_pos='4'");
  /* a ':' in braces is a substitution, and ':-' the only one (syslog-ng 3.38's
   * message and position) */
  assert_compile_error("${NOPE:x}", "Unknown substitution function, error_pos='7'");
  assert_compile_error("a${HOST:}", "Unknown substitution function, error_pos='8'");
  assert_compile_error("${", "error_pos='2'");
  assert_compile_error("a$(", "missing function name or imbalanced '(', error_pos='3'");
  assert_compile_error("a$(echo", "imbalanced '(', error_pos='7'");
  assert_compile_error("a$(echo x", "imbalanced '(', error_pos='9'");
  assert_compile_error("$(echo \"a)", "imbalanced '(', error_pos='7'");
  assert_compile_error("$(echo a(b)|", "imbalanced '('");
  assert_compile_error("a$(nosuch x)", "Unknown template function \"nosuch\"");
  assert_compile_error("$(ech$HOST)", "Unknown template function \"ech$HOST\"");
  assert_compile_error("$(echo ${x)", "In argument 1 of \"echo\": Invalid macro");
}

Test(template_compile, error_pointer_is_optional)
{
  cr_assert_null(log_template_compile("${", NULL));
}

Test(template_compile, dollar_rules)
{
  LogMsg *msg = sample();
  assert_format("a$$b", msg, NULL, "a$b");
  assert_format("a$", msg, NULL, "a$");
  assert_format("a$ b", msg, NULL, "a$ b");
  assert_format("$)$}$-", msg, NULL, "$)$}$-");
  assert_format("${}", msg, NULL, "");
  assert_format("$()|$( )", msg, NULL, "");
  /* syslog-ng 3.38 quirk: an empty $() takes the literal before it */
  assert_format("a$()b|c$$d$( )e|$HOST$()", msg, NULL, "e|web01");
  assert_format("$PID$PROGRAM", msg, NULL, "2345sshd");
  assert_format("${PID}x", msg, NULL, "2345x");
  assert_format("$PIDx", msg, NULL, "");
  assert_format("${HOST}@3|", msg, NULL, "|");
  /* outside a context the message itself is @0 (syslog-ng 3.38 gives "vm||" for a@0|@1|) */
  assert_format("a${HOST}@0|${HOST}@1|", msg, NULL, "aweb01||");
  log_msg_unref(msg);
}

Test(template_compile, context_message_references)
{
  LogMsg *a = sample();
  LogMsg *b = log_msg_new(64);
  log_msg_set_value(b, LM_V_HOST, "second", -1);
  const LogMsg *msgs[] = { a, b };
  LogTemplateContext prev = log_template_context_set((LogTemplateContext) { msgs, 2 });
  /* plain names read the message formatted; @0 the last of the context, @1 the one before */
  assert_format("$HOST|${HOST}@0|${HOST}@1|x${HOST}@2|${PID}@1", b, NULL, "second|second|web01|x|2345");
  log_template_context_set(prev);
  assert_format("${HOST}@1|", b, NULL, "|");
  /* "@@" after a macro or a function is one '@' (patterndb's sudo.pdb writes
   * "${user}@@${tty}"); a lone '@' before a non-digit stays as it is */
  assert_format("${HOST}@@x|${HOST}@y|$(echo a)@@b|${HOST}@@@1|a@@b", b, NULL,
                "second@x|second@y|a@b|second@@1|a@@b");
  log_msg_unref(a);
  log_msg_unref(b);
}

Test(template_compile, backslash_is_literal)
{
  LogMsg *msg = sample();
  /* escapes are the configuration lexer's job, not the compiler's */
  assert_format("\\$PID \\n \\\\", msg, NULL, "\\2345 \\n \\\\");
  log_msg_unref(msg);
}

Test(template_compile, names_are_case_sensitive_and_unknown_ones_are_values)
{
  LogMsg *msg = sample();
  log_msg_set_value_by_name(msg, "host", "lower", -1);
  log_msg_set_value_by_name(msg, "my.field", "v1", -1);
  log_msg_set_value_by_name(msg, "1", "match1", -1);
  assert_format("$HOST|$host|$Host|${my.field}|$my.field|$1|$2", msg, NULL, "web01|lower||v1|.field|match1|");
  log_msg_unref(msg);
}

Test(template_compile, sdata_params)
{
  const char *line = "<14>1 2025-03-10T11:58:01Z h app 12 m1 [x@1 q=\"a\\\"b\" k=\"v\"][y@2 z=\"\"] body";
  LogMsg *msg = test_parse(line);
  assert_format("${.SDATA.x@1.q}|${.SDATA.x@1.k}|${.SDATA.y@2.z}|${.SDATA.x@1.none}", msg, NULL, "a\"b|v||");
  assert_format("$SDATA", msg, NULL, "[x@1 q=\"a\\\"b\" k=\"v\"][y@2 z=\"\"]");
  log_msg_unref(msg);
}

Test(template_compile, literal_templates)
{
  char *error = NULL;
  LogTemplate *t = log_template_compile("plain text, $$ only", &error);
  cr_assert_not_null(t);
  cr_assert(log_template_is_literal(t));
  cr_assert_str_eq(log_template_get_text(t), "plain text, $$ only");
  LogTemplate *u = log_template_compile("x $MSG", &error);
  cr_assert_not(log_template_is_literal(u));
  cr_assert_eq(log_template_ref(u), u);
  log_template_unref(u);
  log_template_unref(u);
  log_template_unref(t);
  log_template_unref(NULL);
}

Test(template_compile, empty_template)
{
  LogMsg *msg = sample();
  assert_format("", msg, NULL, "");
  log_msg_unref(msg);
}

/* ---- functions ------------------------------------------------------------ */

Test(template_compile, echo_and_argument_splitting)
{
  LogMsg *msg = sample();
  assert_format("$(echo $HOST $(echo \"$PID\" x)  y)", msg, NULL, "web01 2345 x y");
  assert_format("$(echo \"a b\" c)|$(echo ''x)|$(echo a\\ b)|$(echo (a b))|$(echo)", msg, NULL, "a b c|x|a b|(a b)|");
  assert_format("$(echo \"q)r\" s)", msg, NULL, "q)r s");
  assert_format("$(echo 'a \"b' c)", msg, NULL, "a \"b c");
  log_msg_unref(msg);
}

typedef struct RepeatState
{
  int times;
} RepeatState;

static int repeat_frees;

/* $(repeat N arg): arg N times; N must be a positive number */
static char *
_repeat_prepare(int argc, char **argv, void **state)
{
  if (argc != 3)
    return g_strdup_printf("expected 2 arguments, got %d", argc - 1);
  char *end;
  long n = strtol(argv[1], &end, 10);
  if (*end || n <= 0)
    return g_strdup_printf("not a positive count: %s", argv[1]);
  RepeatState *s = g_new(RepeatState, 1);
  s->times = (int) n;
  *state = s;
  return NULL;
}

static void
_repeat_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
             GString *out)
{
  RepeatState *s = state;
  GString *scratch = log_template_scratch_get(0);
  log_template_format(args[1], msg, opts, scratch);
  for (int i = 0; i < s->times; i++)
    g_string_append_len(out, scratch->str, (gssize) scratch->len);
}

static void
_repeat_free(void *state)
{
  repeat_frees++;
  g_free(state);
}

static const LogTemplateFunction repeat_function = { "test-repeat", _repeat_prepare, _repeat_call, _repeat_free };

Test(template_compile, registry)
{
  cr_assert_not_null(log_template_function_lookup("echo"));
  cr_assert_null(log_template_function_lookup("test-repeat"));
  cr_assert(log_template_function_register(&repeat_function));
  cr_assert_not(log_template_function_register(&repeat_function), "registered twice");
  cr_assert_eq(log_template_function_lookup("test-repeat"), &repeat_function);

  LogMsg *msg = sample();
  repeat_frees = 0;
  assert_format("<$(test-repeat 3 ${PID}-)>", msg, NULL, "<2345-2345-2345->");
  cr_assert_eq(repeat_frees, 1, "state freed %d times", repeat_frees);
  assert_compile_error("$(test-repeat x y)", "Error preparing template function \"test-repeat\": not a positive count: x");
  assert_compile_error("$(test-repeat 1)", "expected 2 arguments, got 1");
  assert_compile_error("$(test-repeat 2 ${)", "In argument 2");
  cr_assert_eq(repeat_frees, 2, "state of the failed compile not freed");
  log_msg_unref(msg);
}

Test(template_compile, scratch_levels_are_distinct)
{
  GString *a = log_template_scratch_get(0);
  g_string_append(a, "x");
  GString *b = log_template_scratch_get(1);
  cr_assert_neq(a, b);
  cr_assert_str_eq(a->str, "x");
  cr_assert_eq(log_template_scratch_get(0)->len, 0);
}

/* ---- options -------------------------------------------------------------- */

Test(template_compile, options)
{
  LogTemplateOptions o;
  log_template_options_defaults(&o);
  cr_assert_eq(o.ts_format, LTZ_FORMAT_RFC3164);
  cr_assert_eq(o.frac_digits, 0);
  cr_assert_null(o.send_tz);
  cr_assert_null(log_template_options_set_ts_format(&o, "iso"));
  cr_assert_eq(o.ts_format, LTZ_FORMAT_RFC3339);
  cr_assert_null(log_template_options_set_ts_format(&o, "unixtime"));
  cr_assert_eq(o.ts_format, LTZ_FORMAT_UNIX);
  cr_assert_null(log_template_options_set_ts_format(&o, "full"));
  cr_assert_null(log_template_options_set_ts_format(&o, "bsd"));
  cr_assert_eq(o.ts_format, LTZ_FORMAT_RFC3164);
  cr_assert_not_null(log_template_options_set_ts_format(&o, "nope"));
  cr_assert_eq(o.ts_format, LTZ_FORMAT_RFC3164);
  cr_assert_null(log_template_options_set_frac_digits(&o, 6));
  cr_assert_not_null(log_template_options_set_frac_digits(&o, 7));
  cr_assert_not_null(log_template_options_set_frac_digits(&o, -1));
  cr_assert_eq(o.frac_digits, 6);
}

Test(template_compile, nesting_is_bounded)
{
  GString *deep = g_string_new(NULL);
  for (int i = 0; i < 64; i++)
    g_string_append(deep, "$(echo ");
  g_string_append(deep, "x");
  for (int i = 0; i < 64; i++)
    g_string_append_c(deep, ')');
  LogMsg *msg = sample();
  assert_format(deep->str, msg, NULL, "x");
  g_string_prepend(deep, "$(echo ");
  g_string_append_c(deep, ')');
  char *error = NULL;
  cr_assert_null(log_template_compile(deep->str, &error));
  cr_assert(strstr(error, "nested too deep"), "%s", error);
  g_free(error);
  g_string_free(deep, TRUE);
  log_msg_unref(msg);
}

/* The key of a template leaves its literal text out and gives every other
 * element's output after its length: different expansions give different
 * keys, even where the plain texts would run together; the text is made
 * back from the key. */
static GString *
key_of(const char *text, const LogMsg *msg)
{
  char *error = NULL;
  LogTemplate *t = log_template_compile(text, &error);
  cr_assert_not_null(t, "%s", error);
  GString *k = g_string_new(NULL);
  log_template_format_key(t, msg, NULL, k);
  log_template_unref(t);
  return k;
}

Test(template_compile, format_key_is_the_values_after_their_lengths)
{
  LogMsg *m = test_parse("<13>Mar 10 11:58:01 ab c[1]: x");
  GString *k = key_of("/var/log/${HOST}/${PROGRAM}.log", m);
  const char want[] = "\x02\x00\x00\x00" "ab" "\x01\x00\x00\x00" "c";
  cr_assert_eq(k->len, sizeof(want) - 1);
  cr_assert_eq(memcmp(k->str, want, k->len), 0);
  /* the text back from the key: the literals with the values between */
  char *error = NULL;
  LogTemplate *t = log_template_compile("/var/log/${HOST}/${PROGRAM}.log", &error);
  GString *text = g_string_new(NULL);
  cr_assert(log_template_format_from_key(t, k->str, k->len, text));
  cr_assert_str_eq(text->str, "/var/log/ab/c.log");
  /* a key of another template, or cut short, is refused */
  g_string_truncate(text, 0);
  cr_assert_not(log_template_format_from_key(t, k->str, k->len - 1, text));
  g_string_truncate(text, 0);
  cr_assert_not(log_template_format_from_key(t, k->str, 6, text));
  g_string_free(text, TRUE);
  log_template_unref(t);
  g_string_free(k, TRUE);
  /* a template of literals only has the empty key */
  k = key_of("/var/log/messages", m);
  cr_assert_eq(k->len, 0);
  g_string_free(k, TRUE);
  /* "ab" + "c" and "a" + "bc" make the same text and two keys */
  LogMsg *m2 = test_parse("<13>Mar 10 11:58:01 a bc[1]: x");
  GString *k1 = key_of("${HOST}${PROGRAM}", m), *k2 = key_of("${HOST}${PROGRAM}", m2);
  char *t1 = test_format("${HOST}${PROGRAM}", m, NULL), *t2 = test_format("${HOST}${PROGRAM}", m2, NULL);
  cr_assert_str_eq(t1, t2);
  cr_assert(k1->len != k2->len || memcmp(k1->str, k2->str, k1->len) != 0);
  /* an element past the context's messages still ends with its length */
  GString *k3 = key_of("${HOST}@2", m);
  cr_assert_eq(k3->len, 4);
  g_free(t1);
  g_free(t2);
  g_string_free(k1, TRUE);
  g_string_free(k2, TRUE);
  g_string_free(k3, TRUE);
  log_msg_unref(m);
  log_msg_unref(m2);
}

/* The keys' table (LogTemplateKeys) answers what was added for a key that
 * log_template_format_key makes the same, and nothing for a new one,
 * whether it looks a message up by views of its values (values, defaults
 * and host macros only) or by its formatted key (anything else); the text
 * made from a key is the template's text. */
static void
check_keys_table(const char *text, bool viewable)
{
  static const char *lines[] = {
    "<13>Mar 10 11:58:01 h1 su[1]: one", "<13>Mar 10 11:58:02 h2 su[2]: two", "<13>Mar 10 11:58:03 h1 cron: x",
    "<13>Mar 10 11:58:04 ab c: x",       "<13>Mar 10 11:58:05 a bc: x",       "<13>Mar 10 11:58:06 h1 su[none]: x",
    "<13>Mar 10 11:58:07 h1/relay su: x", "<13>Mar 10 11:58:08 h1 su[1]: x",
  };
  enum { N = G_N_ELEMENTS(lines) };
  char *error = NULL;
  LogTemplate *t = log_template_compile(text, &error);
  cr_assert_not_null(t, "%s", error);
  cr_assert_eq(log_template_key_viewable(t), viewable, "%s", text);
  LogMsg *m[N];
  GString *key[N];
  for (int i = 0; i < N; i++)
    {
      m[i] = test_parse(lines[i]);
      if (strstr(lines[i], "/relay"))
        m[i]->flags |= LF_CHAINED_HOSTNAME;
      key[i] = g_string_new(NULL);
      log_template_format_key(t, m[i], NULL, key[i]);
    }
  LogTemplateKeys *k = log_template_keys_new(t);
  for (int round = 0; round < 3; round++)
    for (int i = 0; i < N; i++)
      {
        int first = i; /* the first message of the same key */
        for (int j = 0; j < i; j++)
          if (key[j]->len == key[i]->len && memcmp(key[j]->str, key[i]->str, key[i]->len) == 0)
            {
              first = j;
              break;
            }
        void *got = log_template_keys_find(k, m[i], NULL);
        if (round == 0 && first == i)
          {
            cr_assert_null(got, "%s: line %d is new", text, i);
            GString *made = g_string_new(NULL), *want = g_string_new(NULL);
            log_template_keys_text(k, made);
            log_template_format(t, m[i], NULL, want);
            cr_assert_str_eq(made->str, want->str);
            g_string_free(made, TRUE);
            g_string_free(want, TRUE);
            log_template_keys_add(k, GINT_TO_POINTER(first + 1), 100);
          }
        else
          cr_assert_eq(GPOINTER_TO_INT(got), first + 1, "%s: line %d round %d", text, i, round);
      }
  /* emptied between a find that hit and the add that follows it: the
   * find's key stays for the text and the add */
  cr_assert_not_null(log_template_keys_find(k, m[0], NULL));
  log_template_keys_clear(k);
  cr_assert_eq(log_template_keys_size(k), 0);
  GString *made = g_string_new(NULL), *want = g_string_new(NULL);
  log_template_keys_text(k, made);
  log_template_format(t, m[0], NULL, want);
  cr_assert_str_eq(made->str, want->str);
  log_template_keys_add(k, GINT_TO_POINTER(42), 100);
  cr_assert_eq(log_template_keys_size(k), 1);
  cr_assert(key[7]->len == key[0]->len && memcmp(key[7]->str, key[0]->str, key[0]->len) == 0);
  cr_assert_eq(GPOINTER_TO_INT(log_template_keys_find(k, m[7], NULL)), 42);
  g_string_free(made, TRUE);
  g_string_free(want, TRUE);
  log_template_keys_free(k);
  for (int i = 0; i < N; i++)
    {
      log_msg_unref(m[i]);
      g_string_free(key[i], TRUE);
    }
  log_template_unref(t);
}

Test(template_compile, the_keys_table_finds_by_views_as_by_formatting)
{
  check_keys_table("/var/log/${HOST}/${PROGRAM}.log", true);
  check_keys_table("${HOST}${PROGRAM}", true);
  check_keys_table("${FULLHOST}-${HOST}-${HOST_FROM}-${PID:-none}", true);
  check_keys_table("/var/log/$(echo ${HOST})/${PROGRAM}.log", false);
  check_keys_table("${HOST}@1/${PROGRAM}", false);
  check_keys_table("${PID}/${PID}/${PID}/${PID}/${PID}/${PID}/${PID}/${PID}", true);
  check_keys_table("${PID}/${PID}/${PID}/${PID}/${PID}/${PID}/${PID}/${PID}/${PID}", false);
}

/* Many keys: the table grows and finds each, and empties at its bound. */
Test(template_compile, the_keys_table_grows_and_is_bounded)
{
  char *error = NULL;
  LogTemplate *t = log_template_compile("${HOST}/${PROGRAM}", &error);
  LogTemplateKeys *k = log_template_keys_new(t);
  LogMsg *m[600];
  for (int i = 0; i < 600; i++)
    {
      char *line = g_strdup_printf("<13>Mar 10 11:58:01 h%d p%d: x", i % 37, i);
      m[i] = test_parse(line);
      g_free(line);
      cr_assert_null(log_template_keys_find(k, m[i], NULL));
      log_template_keys_add(k, GINT_TO_POINTER(i + 1), 1000);
    }
  cr_assert_eq(log_template_keys_size(k), 600);
  for (int i = 0; i < 600; i++)
    cr_assert_eq(GPOINTER_TO_INT(log_template_keys_find(k, m[i], NULL)), i + 1);
  /* at the bound, a new key empties the table first */
  LogMsg *extra = test_parse("<13>Mar 10 11:58:01 x y: x");
  cr_assert_null(log_template_keys_find(k, extra, NULL));
  log_template_keys_add(k, GINT_TO_POINTER(1000), 600);
  cr_assert_eq(log_template_keys_size(k), 1);
  cr_assert_null(log_template_keys_find(k, m[0], NULL));
  cr_assert_eq(GPOINTER_TO_INT(log_template_keys_find(k, extra, NULL)), 1000);
  log_msg_unref(extra);
  for (int i = 0; i < 600; i++)
    log_msg_unref(m[i]);
  log_template_keys_free(k);
  log_template_unref(t);
}
