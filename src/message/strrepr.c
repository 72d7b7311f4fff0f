/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * syslog-ng 3.38's ways of writing a value that must stay one field:
 * str-repr (a list element, kv-parser's stray words, json-parser's arrays,
 * the list template functions) and the backslash escapes under it (the
 * stats output, WELF values).  One place, so that every output agrees.
 */
#include "sluice/strrepr.h"
#include "sluice/strbuf.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>


/* What a byte means to str-repr: it makes the word quoted, or it is one
 * of the two quotes (which pick the quote character). */
enum
{
  REPR_QUOTE = 1,
  REPR_APOS = 2,
  REPR_DQUOTE = 4,
};
static const uint8_t repr_class[256] = {
  ['\b'] = REPR_QUOTE, ['\f'] = REPR_QUOTE, ['\n'] = REPR_QUOTE, ['\r'] = REPR_QUOTE, ['\t'] = REPR_QUOTE,
  ['\\'] = REPR_QUOTE, [' '] = REPR_QUOTE, ['\''] = REPR_APOS, ['"'] = REPR_DQUOTE,
};

/* The REPR_* bits of str's bytes, in one pass; a byte of forbidden counts
 * as REPR_QUOTE. */
static unsigned
_repr_classes(const char *str, size_t len, const char *forbidden)
{
  unsigned seen = 0;
  for (size_t i = 0; i < len; i++)
    seen |= repr_class[(uint8_t) str[i]];
  if (forbidden && !(seen & REPR_QUOTE))
    for (size_t i = 0; i < len; i++)
      if (str[i] && strchr(forbidden, str[i]))
        return seen | REPR_QUOTE;
  return seen;
}

void
str_append_escaped(GString *out, const char *str, size_t len, const char *unsafe)
{
  const char *p = str, *end = str + len;
  while (p < end)
    {
      gunichar c = g_utf8_get_char_validated(p, end - p);
      if (c == (gunichar) -1 || c == (gunichar) -2)
        {
          g_string_append_printf(out, "\\x%02x", (unsigned) (uint8_t) *p);
          p++;
          continue;
        }
      const char *next = g_utf8_next_char(p);
      switch (c)
        {
        case '\b': g_string_append(out, "\\b"); break;
        case '\f': g_string_append(out, "\\f"); break;
        case '\n': g_string_append(out, "\\n"); break;
        case '\r': g_string_append(out, "\\r"); break;
        case '\t': g_string_append(out, "\\t"); break;
        case '\\': g_string_append(out, "\\\\"); break;
        default:
          if (c < 0x20)
            g_string_append_printf(out, "\\x%02x", (unsigned) c);
          else if (c < 0x80 && unsafe && strchr(unsafe, (char) c))
            {
              g_string_append_c(out, '\\');
              g_string_append_c(out, (char) c);
            }
          else
            g_string_append_len(out, p, next - p);
          break;
        }
      p = next;
    }
}

void
str_append_repr(GString *out, const char *str, size_t len, const char *forbidden)
{
  if (len == 0)
    {
      g_string_append(out, "\"\"");
      return;
    }
  unsigned seen = _repr_classes(str, len, forbidden);
  bool apos = seen & REPR_APOS, quote = seen & REPR_DQUOTE;
  if (!seen)
    {
      str_append(out, str, len);
      return;
    }
  char q = quote && !apos ? '\'' : '"';
  g_string_append_c(out, q);
  str_append_escaped(out, str, len, apos && quote ? "\"" : NULL);
  g_string_append_c(out, q);
}
