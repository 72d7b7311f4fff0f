/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kv-parser(): the scanner's rules on the inputs syslog-ng 3.38 was run on
 * (expected values are what it produced), the options, configuration
 * errors, and malformed input.
 */
#include "sluice/strrepr.h"
#include "../parser-test.h"

#include "kvformat/kv-parser.h"
#include "parser-util.h"

#include <time.h>

static const LogDriverFactory *F = &kv_parser_factory;

/* Parse text with a kv-parser built from conf; the message is returned
 * for checks (caller unrefs). */
static LogMsg *
_parse(const char *conf, const char *text)
{
  LogProcessor *p = pt_new(F, conf);
  LogMsg *msg = pt_msg_prog(text, -1);
  cr_assert(pt_run(p, &msg), "kv-parser never fails");
  p->ops->free(p);
  return msg;
}

#define KV "parser p { kv-parser(prefix('kv.')); };"

Test(kvparser, plain_pairs_and_spaces_around_the_separator)
{
  LogMsg *m = _parse(KV, "a=1 b = 2 c= 3  d =4");
  pt_assert_value(m, "kv.a", "1");
  pt_assert_value(m, "kv.b", "2");
  pt_assert_value(m, "kv.c", "3");
  pt_assert_value(m, "kv.d", "4");
  pt_assert_value(m, "a", "(unset)");
  log_msg_unref(m);
}

Test(kvparser, quoted_values_and_escapes)
{
  LogMsg *m = _parse(KV, "a=\"x y\" b='q r' c=\"esc\\\"q\" d=\"n\\\\n\\t\" e='\\q\\''");
  pt_assert_value(m, "kv.a", "x y");
  pt_assert_value(m, "kv.b", "q r");
  pt_assert_value(m, "kv.c", "esc\"q");
  pt_assert_value(m, "kv.d", "n\\n\t");
  pt_assert_value(m, "kv.e", "\\q'");
  log_msg_unref(m);
}

Test(kvparser, broken_quotes_keep_the_raw_text_and_rescan)
{
  LogMsg *m = _parse(KV, "a=\"q\"tail b=1 c=\"unterminated");
  pt_assert_value(m, "kv.a", "\"q\"tail ");
  pt_assert_value(m, "kv.b", "1");
  pt_assert_value(m, "kv.c", "\"unterminated");
  log_msg_unref(m);
  m = _parse(KV, "a=\"x\",b=1 c=2");
  pt_assert_value(m, "kv.a", "\"x\",b=1 ");
  pt_assert_value(m, "kv.b", "1");
  pt_assert_value(m, "kv.c", "2");
  log_msg_unref(m);
}

Test(kvparser, keys_with_invalid_characters)
{
  LogMsg *m = _parse(KV, "k!ey=v foo bar=baz =y \"q\"=1 \xc3\xa9=2 k-1.x_y=v");
  pt_assert_value(m, "kv.ey", "v foo");
  pt_assert_value(m, "kv.bar", "baz =y \"q\"=1 \xc3\xa9=2");
  pt_assert_value(m, "kv.k-1.x_y", "v");
  pt_assert_value(m, "kv.k!ey", "(unset)");
  log_msg_unref(m);
}

Test(kvparser, duplicated_keys_keep_the_last)
{
  LogMsg *m = _parse(KV, "a=1 a=2 a=3");
  pt_assert_value(m, "kv.a", "3");
  log_msg_unref(m);
}

Test(kvparser, values_holding_separators)
{
  LogMsg *m = _parse(KV, "a=1,2 b=x=y c==z d=1, e=2; f=3 g= h=");
  pt_assert_value(m, "kv.a", "1,2");
  pt_assert_value(m, "kv.b", "x=y");
  pt_assert_value(m, "kv.c", "=z");
  pt_assert_value(m, "kv.d", "1");
  pt_assert_value(m, "kv.e", "2;");
  pt_assert_value(m, "kv.f", "3");
  pt_assert_value(m, "kv.g", "");
  pt_assert_value(m, "kv.h", "");
  log_msg_unref(m);
}

Test(kvparser, pair_and_value_separators)
{
  LogMsg *m = _parse("parser p { kv-parser(value-separator(':') pair-separator(';')); };",
                     "a:1;b:x y;c : 3 ;d=4");
  pt_assert_value(m, "a", "1");
  pt_assert_value(m, "b", "x y");
  pt_assert_value(m, "c", "3");
  pt_assert_value(m, "d", "(unset)");
  log_msg_unref(m);
}

Test(kvparser, stray_words_unprefixed_and_quoted_as_syslog_ng_does)
{
  const char *conf = "parser p { kv-parser(prefix('.junos.') pair-separator(';') "
                     "extract-stray-words-into('stray')); };";
  LogMsg *m = _parse(conf, "VSYS=public; Slot=5/1; time=2016/02/18 16:00:07; interzone-emtn inbound; policy=370;");
  pt_assert_value(m, ".junos.VSYS", "public");
  pt_assert_value(m, ".junos.Slot", "5/1");
  pt_assert_value(m, ".junos.time", "2016/02/18 16:00:07");
  pt_assert_value(m, ".junos.policy", "370");
  pt_assert_value(m, "stray", "\"interzone-emtn inbound;\"");
  log_msg_unref(m);
  m = _parse(conf, "w1 w2 \"q,w\" a=1");
  pt_assert_value(m, "stray", "'w1 w2 \"q,w\"'");
  log_msg_unref(m);
  m = _parse(conf, "a=1");
  pt_assert_value(m, "stray", "");
  log_msg_unref(m);
  m = _parse(conf, "x a=\"q\"tail b=1 c=\"unterm");
  pt_assert_value(m, "stray", "x,'\"q\"tail','\"unterm'");
  log_msg_unref(m);
}

Test(kvparser, stray_word_quoting)
{
  GString *s = g_string_new(NULL);
  str_append_repr(s, "", 0, ",");
  str_append_repr(s, "plain", 5, ",");
  str_append_repr(s, "a,b", 3, ",");
  str_append_repr(s, "w\\x\tq", 5, ",");
  str_append_repr(s, "ab'c \"d", 7, ",");
  str_append_repr(s, "x \xff\x01", 4, ",");
  cr_assert_str_eq(s->str, "\"\"plain\"a,b\"\"w\\\\x\\tq\"\"ab'c \\\"d\"\"x \\xff\\x01\"");
  g_string_free(s, TRUE);
}

Test(kvparser, template_and_named_template)
{
  LogMsg *m = _parse("parser p { kv-parser(template('${PROGRAM} x=$MSG')); };", "y=1");
  pt_assert_value(m, "x", "y=1");
  log_msg_unref(m);
  m = _parse("template t { template('k=${MESSAGE}'); }; parser p { kv-parser(template('t')); };", "v");
  pt_assert_value(m, "k", "v");
  log_msg_unref(m);
}

Test(kvparser, named_template_with_template_escape)
{
  LogMsg *m = _parse("template t { template('k=\"${MSG}\" p=1'); template-escape(yes); }; "
                     "parser p { kv-parser(template(t)); };", "a\"b c\\d");
  pt_assert_value(m, "k", "a\"b c\\d");
  pt_assert_value(m, "p", "1");
  log_msg_unref(m);
}

Test(kvparser, message_without_pairs_goes_on_unchanged)
{
  LogProcessor *p = pt_new(F, KV);
  LogMsg *msg = pt_msg_prog("nothing here", -1);
  LogMsg *before = msg;
  cr_assert(pt_run(p, &msg));
  cr_assert_eq(msg, before, "a message with nothing to set is not copied");
  log_msg_unref(msg);
  p->ops->free(p);
}

Test(kvparser, shared_message_is_copied_and_values_outlive_the_original)
{
  LogProcessor *p = pt_new(F, KV);
  LogMsg *orig = pt_msg_prog("a=plain b=\"q\\tx\"", -1);
  LogMsg *msg = log_msg_ref(orig);
  cr_assert(pt_run(p, &msg));
  cr_assert_neq(msg, orig);
  pt_assert_value(orig, "kv.a", "(unset)");
  log_msg_unref(orig);
  pt_assert_value(msg, "kv.a", "plain");
  pt_assert_value(msg, "kv.b", "q\tx");
  log_msg_unref(msg);
  p->ops->free(p);
}

Test(kvparser, malformed_input)
{
  static const char *const inputs[] = { "", "=", "==", "\"", "'", "a=\"", "a='\\", "a=\"\\", " = = ",
                                        "a=b=c=d=", ",,,;;;", "a=\"x\"\"y\"", "a= \"x\" ", "\xff\xfe=\x01" };
  LogProcessor *p = pt_new(F, "parser p { kv-parser(extract-stray-words-into('s')); };");
  for (size_t i = 0; i < G_N_ELEMENTS(inputs); i++)
    {
      LogMsg *msg = pt_msg_prog(inputs[i], -1);
      cr_assert(pt_run(p, &msg));
      log_msg_unref(msg);
    }
  /* the text ends at a NUL byte, as a C string does in syslog-ng */
  LogMsg *msg = pt_msg_prog("a=1\0b=2", 7);
  cr_assert(pt_run(p, &msg));
  pt_assert_value(msg, "a", "1");
  pt_assert_value(msg, "b", "(unset)");
  log_msg_unref(msg);
  p->ops->free(p);
}

Test(kvparser, configuration_errors)
{
  pt_assert_error(F, "parser p { kv-parser(value-separator('==')); };", "single-character");
  pt_assert_error(F, "parser p { kv-parser(value-separator('')); };", "single-character");
  pt_assert_error(F, "parser p { kv-parser(value-separator(' ')); };", "unsupported character");
  pt_assert_error(F, "parser p { kv-parser(value-separator('\"')); };", "unsupported character");
  pt_assert_error(F, "parser p { kv-parser(allow-pair-separator-in-value(yes)); };", "not supported");
  pt_assert_error(F, "parser p { kv-parser(prefx('a')); };", "did you mean 'prefix'");
  pt_assert_error(F, "parser p { kv-parser(template('$(nosuch)')); };", "bad template");
}

/* Names are remembered by position from one message to the next: a name
 * of the same length at the same place that differs in one byte (at the
 * start, the middle or the end; short, word-sized and long) must get its
 * own value, and each message only its own pairs. */
Test(kvparser, same_positions_with_other_names_get_their_own_handles)
{
  static const char *const lines[][2] = {
    { "k=1 abcd=2 abcdefgh=3 a_key_longer_than_16=4 mid_length_key=5", "kv.abcdefgh" },
    { "j=1 abce=2 abcdefgi=3 a_key_longer_than_17=4 mid_lenxth_key=5", "kv.abcdefgi" },
    { "k=1 bbcd=2 bbcdefgh=3 b_key_longer_than_16=4 mid_length_kez=5", "kv.bbcdefgh" },
    { "k=1 abcd=2 abcdefgh=3 a_key_longer_than_16=4 mid_length_key=5", "kv.abcdefgh" },
  };
  static const char *const absent[] = { "kv.j", "kv.k", "kv.j", "kv.j" };
  LogProcessor *p = pt_new(F, KV);
  for (size_t i = 0; i < G_N_ELEMENTS(lines); i++)
    {
      LogMsg *m = pt_msg_prog(lines[i][0], -1);
      cr_assert(pt_run(p, &m));
      cr_assert_eq(m->nv_len, 5, "line %zu: %u pairs", i, m->nv_len);
      pt_assert_value(m, lines[i][1], "3");
      pt_assert_value(m, absent[i], "(unset)");
      char name[64];
      for (uint16_t k = 0; k < m->nv_len; k++)
        {
          size_t len;
          const char *n = log_msg_get_value_name(m->nv[k].handle, &len);
          snprintf(name, sizeof(name), "%.*s", (int) len, n);
          cr_assert(strstr(lines[i][0], name + 3) != NULL, "line %zu: pair %s is not in it", i, name);
        }
      log_msg_unref(m);
    }
  p->ops->free(p);
}

/* Unquoted values are scanned sixteen bytes at a time where the input
 * allows: every length around and past a block ends at the right byte,
 * before a space or the pair separator. */
Test(kvparser, long_values_end_at_the_delimiter_whatever_their_length)
{
  LogProcessor *sp = pt_new(F, KV);
  LogProcessor *semi = pt_new(F, "parser p { kv-parser(prefix('kv.') pair-separator(';')); };");
  char value[64], line[160];
  for (int len = 1; len < 48; len++)
    {
      for (int i = 0; i < len; i++)
        value[i] = (char) ('a' + i % 26);
      value[len] = '\0';
      snprintf(line, sizeof(line), "a=%s b=1", value);
      LogMsg *m = pt_msg_prog(line, -1);
      cr_assert(pt_run(sp, &m));
      pt_assert_value(m, "kv.a", value);
      pt_assert_value(m, "kv.b", "1");
      log_msg_unref(m);
      snprintf(line, sizeof(line), "a=%s;b=x y;c=%s", value, value);
      m = pt_msg_prog(line, -1);
      cr_assert(pt_run(semi, &m));
      pt_assert_value(m, "kv.a", value);
      pt_assert_value(m, "kv.b", "x y");
      pt_assert_value(m, "kv.c", value);
      log_msg_unref(m);
    }
  sp->ops->free(sp);
  semi->ops->free(semi);
}

/* A space followed by a run of key characters ends a value only when the
 * value separator closes the run: the run is found sixteen bytes at a
 * time, so every byte value is tried at every position of the first
 * blocks as the byte that ends it, against the key characters'
 * definition, [A-Za-z0-9_.-]. */
Test(kvparser, key_after_a_space_whatever_byte_ends_its_run)
{
  LogProcessor *p = pt_new(F, KV);
  char key[64], line[160], want[160];
  for (int c = 1; c < 256; c++)
    {
      if (c == ' ' || c == '=' || c == '"' || c == '\'' || c == '\\')
        continue;
      bool key_char = g_ascii_isalnum(c) || c == '_' || c == '.' || c == '-';
      for (int at = 0; at < 40; at++)
        {
          for (int i = 0; i < at; i++)
            key[i] = (char) ('k' + i % 3);
          key[at] = (char) c;
          key[at + 1] = 'z';
          key[at + 2] = '\0';
          snprintf(line, sizeof(line), "a=1 %s=2", key);
          LogMsg *m = pt_msg_prog(line, -1);
          cr_assert(pt_run(p, &m));
          if (key_char)
            {
              snprintf(want, sizeof(want), "kv.%s", key);
              pt_assert_value(m, "kv.a", "1");
              pt_assert_value(m, want, "2");
            }
          else
            {
              /* no key: the run and what follows are a's value, or z is
               * the key when the byte is not one (found by the separator) */
              size_t len;
              const char *z = log_msg_get_value(m, log_msg_get_value_handle("kv.z", -1), &len);
              const char *a = log_msg_get_value(m, log_msg_get_value_handle("kv.a", -1), &len);
              cr_expect(strcmp(z, "2") == 0 || strncmp(a, "1 ", 2) == 0, "byte %d at %d: a=%s z=%s", c, at, a,
                        z);
              if (at > 0)
                {
                  snprintf(want, sizeof(want), "kv.%.*s", at, key);
                  pt_assert_value(m, want, "(unset)");
                }
            }
          log_msg_unref(m);
        }
    }
  p->ops->free(p);
}

/* A hostile sender: 64 KiB lines of 13,000 distinct keys each ("abc= ",
 * the shortest pair there is).  Set one by one, each new name must be
 * proven absent from the message; a scan of its pairs for that made a line
 * cost 13,000 * 13,000 / 2 compares.  The bound is on the CPU time the
 * test takes, not on the clock, so that a busy machine does not fail it:
 * before the index of the pairs these lines took about 45 s of CPU; with
 * it, about 2 s (debug build) or 5 s (sanitizers).  Criterion's timeout
 * stops the test either way. */
#define HOSTILE_KEYS 13000
#define HOSTILE_LINES 1000
#define HOSTILE_BOUND 20.0

static double
_cpu_seconds(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static void
_hostile_key(char *out, int i)
{
  out[0] = (char) ('a' + i / 26 / 26 % 26);
  out[1] = (char) ('a' + i / 26 % 26);
  out[2] = (char) ('a' + i % 26);
  out[3] = '\0';
}

Test(kvparser, thousands_of_distinct_keys_cost_no_square, .timeout = 300)
{
  GString *line = g_string_new(NULL);
  for (int i = 0; i < HOSTILE_KEYS; i++)
    {
      char key[4];
      _hostile_key(key, i);
      g_string_append_printf(line, "%s= ", key);
    }
  cr_assert_leq(line->len, 65536);
  LogProcessor *p = pt_new(F, KV);
  double start = _cpu_seconds();
  for (int n = 0; n < HOSTILE_LINES; n++)
    {
      LogMsg *msg = pt_msg_prog(line->str, (ssize_t) line->len);
      cr_assert(pt_run(p, &msg));
      cr_assert_eq(msg->nv_len, HOSTILE_KEYS);
      if (n == 0)
        for (int i = 0; i < HOSTILE_KEYS; i += 97)
          {
            char key[4], name[8];
            _hostile_key(key, i);
            snprintf(name, sizeof(name), "kv.%s", key);
            pt_assert_value(msg, name, "");
          }
      log_msg_unref(msg);
    }
  double took = _cpu_seconds() - start;
  fprintf(stderr, "kv-parser: %d lines of %d distinct keys took %.3f s of CPU\n", HOSTILE_LINES, HOSTILE_KEYS, took);
  cr_assert_lt(took, HOSTILE_BOUND, "%d lines of %d keys took %.1f s of CPU", HOSTILE_LINES, HOSTILE_KEYS, took);
  p->ops->free(p);
  g_string_free(line, TRUE);
}
