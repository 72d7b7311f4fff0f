/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * $(format-welf VALUE-PAIRS) and $(format-cef-extension VALUE-PAIRS):
 * the pairs value-pairs picks, as NAME=VALUE joined with spaces, in
 * ascending byte order of the names, as syslog-ng 3.38 writes them
 * (its kvformat and cef modules; checked with tests/oracle/tfunc-oracle.py).
 *
 * WELF.  A value with a space is put in double quotes, and then a '"' in
 * it gets a backslash; in every value '\\' is doubled, BS TAB LF FF CR
 * become \b \t \n \f \r, other bytes below 0x20 and bytes that are not
 * valid UTF-8 \xNN.
 *
 * CEF extension.  Names must be ASCII letters and digits: one that is not
 * empties the whole output.  In values '\\' and '=' get a backslash, LF
 * and CR become \n and \r, other bytes below 0x20 \u00NN, and bytes that
 * are not valid UTF-8 \xNN.
 */
#include "sluice/strrepr.h"
#include "json/json-module.h"
#include "json/value-pairs.h"

#include <string.h>

static void
_append_hex(GString *out, const char *prefix, unsigned char c)
{
  static const char hex[] = "0123456789abcdef";
  g_string_append(out, prefix);
  g_string_append_c(out, hex[c >> 4]);
  g_string_append_c(out, hex[c & 15]);
}

/* Copy a valid UTF-8 sequence at *s to out and step over it, or write the
 * byte as \xNN when it starts none. */
static void
_append_utf8_or_hex(GString *out, const char **s, const char *end)
{
  gunichar u = g_utf8_get_char_validated(*s, end - *s);
  if (u == (gunichar) -1 || u == (gunichar) -2)
    {
      _append_hex(out, "\\x", (unsigned char) **s);
      (*s)++;
      return;
    }
  const char *next = g_utf8_next_char(*s);
  g_string_append_len(out, *s, next - *s);
  *s = next;
}

static void
_welf_value(GString *out, const char *s, size_t len)
{
  bool quoted = memchr(s, ' ', len) != NULL;
  if (quoted)
    g_string_append_c(out, '"');
  str_append_escaped(out, s, len, quoted ? "\"" : NULL);
  if (quoted)
    g_string_append_c(out, '"');
}

static void
_cef_value(GString *out, const char *s, size_t len)
{
  const char *end = s + len;
  while (s < end)
    {
      unsigned char c = (unsigned char) *s;
      if (c >= 0x80)
        {
          _append_utf8_or_hex(out, &s, end);
          continue;
        }
      s++;
      if (c == '\\' || c == '=')
        {
          g_string_append_c(out, '\\');
          g_string_append_c(out, (char) c);
        }
      else if (c >= 0x20)
        g_string_append_c(out, (char) c);
      else if (c == '\n')
        g_string_append(out, "\\n");
      else if (c == '\r')
        g_string_append(out, "\\r");
      else
        _append_hex(out, "\\u00", c);
    }
}

static bool
_cef_name_ok(const char *s, size_t len)
{
  for (size_t i = 0; i < len; i++)
    if (!g_ascii_isalnum(s[i]))
      return false;
  return len > 0;
}

static void
_format_kv(const ValuePairs *vp, bool cef, const LogMsg *msg, const LogTemplateOptions *opts, GString *out)
{
  ValuePairsResult *res = value_pairs_result_acquire();
  size_t n = value_pairs_collect(vp, msg, opts, res);
  ValuePairsEntry *e = (ValuePairsEntry *) res->entries->data;
  value_pairs_sort_ascending(e, n);
  size_t start = out->len;
  for (size_t i = 0; i < n; i++)
    {
      if (cef && !_cef_name_ok(e[i].name, e[i].name_len))
        {
          g_string_truncate(out, start);
          break;
        }
      if (i)
        g_string_append_c(out, ' ');
      g_string_append_len(out, e[i].name, e[i].name_len);
      g_string_append_c(out, '=');
      (cef ? _cef_value : _welf_value)(out, e[i].value, e[i].value_len);
    }
  value_pairs_result_release(res);
}

static void
_format_welf_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
                  GString *out)
{
  (void) argc, (void) args;
  _format_kv(state, false, msg, opts, out);
}

static void
_format_cef_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
                 GString *out)
{
  (void) argc, (void) args;
  _format_kv(state, true, msg, opts, out);
}

/* $(names VALUE-PAIRS-OPTIONS) and $(values ...): the names the options
 * pick, ascending, as a list ($(list-*)'s quoting), or their values in the
 * same order, as syslog-ng 3.38 writes them. */
static void
_format_list(const ValuePairs *vp, bool values, const LogMsg *msg, const LogTemplateOptions *opts, GString *out)
{
  ValuePairsResult *res = value_pairs_result_acquire();
  size_t n = value_pairs_collect(vp, msg, opts, res);
  ValuePairsEntry *e = (ValuePairsEntry *) res->entries->data;
  value_pairs_sort_ascending(e, n);
  for (size_t i = 0; i < n; i++)
    {
      if (i)
        g_string_append_c(out, ',');
      if (values)
        str_append_repr(out, e[i].value, e[i].value_len, ",");
      else
        str_append_repr(out, e[i].name, e[i].name_len, ",");
    }
  value_pairs_result_release(res);
}

static void
_names_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
            GString *out)
{
  (void) argc, (void) args;
  _format_list(state, false, msg, opts, out);
}

static void
_values_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
             GString *out)
{
  (void) argc, (void) args;
  _format_list(state, true, msg, opts, out);
}

static char *
_format_kv_prepare(int argc, char **argv, void **state)
{
  char *error = NULL;
  ValuePairs *vp = value_pairs_new_from_argv(argc - 1, argv + 1, &error);
  if (!vp)
    return error;
  *state = vp;
  return NULL;
}

static void
_format_kv_free(void *state)
{
  value_pairs_free(state);
}

static const LogTemplateFunction format_welf = { "format-welf", _format_kv_prepare, _format_welf_call,
                                                 _format_kv_free };
static const LogTemplateFunction format_cef_extension = { "format-cef-extension", _format_kv_prepare,
                                                          _format_cef_call, _format_kv_free };
static const LogTemplateFunction names = { "names", _format_kv_prepare, _names_call, _format_kv_free };
static const LogTemplateFunction values = { "values", _format_kv_prepare, _values_call, _format_kv_free };

void
json_register_kv_template_functions(void)
{
  log_template_function_register(&format_welf);
  log_template_function_register(&format_cef_extension);
  log_template_function_register(&names);
  log_template_function_register(&values);
}
