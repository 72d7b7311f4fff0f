/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_TFUNC_TEST_H
#define SLUICE_TFUNC_TEST_H

/*
 * Helpers of the template function suites (modules/basicfuncs, modules/json):
 * the oracle table types of tests/oracle/tfunc-oracle.py, messages made as
 * the oracle's sources made them, a corpus check, and compile-error and
 * robustness helpers.
 */

#include "../template/template-test.h"
#include "modules.h"

typedef struct TfuncCase
{
  const char *name;
  const char *input;
  size_t input_len;
  bool rfc5424;
} TfuncCase;

typedef struct TfuncBytes
{
  const char *bytes;
  size_t len;
} TfuncBytes;

/* The message of c as syslog-ng's network()/syslog() source s3164/s5424
 * had it: parsed, from 127.0.0.1, SOURCE and the .source tag set. */
static inline LogMsg *
tfunc_case_msg(const TfuncCase *c)
{
  LogMsg *msg = test_parse_len(c->input, c->input_len, c->rfc5424);
  const char *source = c->rfc5424 ? "s5424" : "s3164";
  log_msg_set_value(msg, LM_V_SOURCE, source, -1);
  char *tag = g_strconcat(".source.", source, NULL);
  log_msg_set_tag(msg, log_tags_get_by_name(tag));
  g_free(tag);
  return msg;
}

/* Format template t (text) for msg; the caller g_string_frees. */
static inline GString *
tfunc_format(const char *text, const LogMsg *msg)
{
  char *error = NULL;
  LogTemplate *t = log_template_compile(text, &error);
  cr_assert_not_null(t, "template \"%s\" did not compile: %s", text, error);
  GString *out = g_string_new(NULL);
  log_template_format(t, msg, NULL, out);
  log_template_unref(t);
  return out;
}

/* Check every template of the corpus against every case, byte for byte;
 * reports all mismatches before failing. */
#define TFUNC_CHECK_CORPUS(cases, templates, expected)                                                                \
  do                                                                                                                  \
    {                                                                                                                 \
      int _bad = 0;                                                                                                   \
      for (size_t _c = 0; _c < G_N_ELEMENTS(cases); _c++)                                                             \
        {                                                                                                             \
          LogMsg *_msg = tfunc_case_msg(&(cases)[_c]);                                                                \
          for (size_t _t = 0; _t < G_N_ELEMENTS(templates); _t++)                                                     \
            {                                                                                                         \
              GString *_got = tfunc_format((templates)[_t], _msg);                                                    \
              const TfuncBytes *_want = &(expected)[_t][_c];                                                          \
              if (_got->len != _want->len || memcmp(_got->str, _want->bytes, _want->len) != 0)                        \
                {                                                                                                     \
                  cr_log_error("case %s, template %s\n   got: %s\n  want: %.*s", (cases)[_c].name, (templates)[_t],  \
                               _got->str, (int) _want->len, _want->bytes);                                            \
                  _bad++;                                                                                             \
                }                                                                                                     \
              g_string_free(_got, TRUE);                                                                              \
            }                                                                                                         \
          log_msg_unref(_msg);                                                                                        \
        }                                                                                                             \
      cr_assert_eq(_bad, 0, "%d template outputs differ from syslog-ng's", _bad);                                     \
    }                                                                                                                 \
  while (0)

/* text must fail to compile, with an error that contains want. */
static inline void
tfunc_assert_compile_error(const char *text, const char *want)
{
  char *error = NULL;
  LogTemplate *t = log_template_compile(text, &error);
  cr_assert_null(t, "template \"%s\" compiled", text);
  cr_assert_not_null(error);
  cr_assert(strstr(error, want), "template \"%s\": error \"%s\" lacks \"%s\"", text, error, want);
  g_free(error);
}

/* Robustness: for each function, calls with odd arguments (empty, huge,
 * binary, many) must compile or fail cleanly and format without crashing
 * (the sanitizer build checks memory). */
static inline void
tfunc_fuzz_function(const char *name, const LogMsg *msg)
{
  static const char *const shapes[] = {
    "$(%s)",
    "$(%s \"\")",
    "$(%s \"\" \"\" \"\" \"\")",
    "$(%s $HUGE)",
    "$(%s $HUGE $HUGE $HUGE)",
    "$(%s $BIN)",
    "$(%s $BIN $BIN 3)",
    "$(%s -1 -1 -1)",
    "$(%s 0 99999999999999999999 -99999999999999999999)",
    "$(%s --length -1 x)",
    "$(%s --scope everything --key * --rekey * --shift 1000 --add-prefix ...)",
    "$(%s ..=$BIN .=$HUGE a.....b=1 ...=2)",
    "$(%s ($BIN == $HUGE) $HUGE $BIN)",
    "$(%s $(%s $(%s $HUGE)))",
    "$(%s 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20)",
  };
  for (size_t i = 0; i < G_N_ELEMENTS(shapes); i++)
    {
      char *text = g_strdup_printf(shapes[i], name, name, name);
      char *error = NULL;
      LogTemplate *t = log_template_compile(text, &error);
      if (t)
        {
          GString *out = g_string_new(NULL);
          log_template_format(t, msg, NULL, out);
          log_template_unref(t);
          g_string_free(out, TRUE);
        }
      else
        {
          cr_assert_not_null(error, "%s: no error message", text);
          cr_assert(strstr(error, name), "%s: the error \"%s\" does not name the function", text, error);
          g_free(error);
        }
      g_free(text);
    }
}

/* A message with HUGE (1 MiB of mixed bytes) and BIN (every byte value). */
static inline LogMsg *
tfunc_fuzz_msg(void)
{
  LogMsg *msg = test_parse("<14>1 2025-03-10T11:58:01Z h app 1 m [x@1 a=\"b\"] body");
  GString *huge = g_string_new(NULL);
  for (int i = 0; i < 1 << 20; i++)
    g_string_append_c(huge, (char) ("a.b /\\\"\x01\xff\xc3\xa9 "[i % 13]));
  log_msg_set_value_by_name(msg, "HUGE", huge->str, (ssize_t) huge->len);
  char bin[256];
  for (int i = 0; i < 256; i++)
    bin[i] = (char) i;
  log_msg_set_value_by_name(msg, "BIN", bin, 256);
  g_string_free(huge, TRUE);
  return msg;
}

#endif
