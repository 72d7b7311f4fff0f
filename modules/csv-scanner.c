/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The column scanner of csv-parser() and add-contextual-data()'s database
 * (rules in csv-scanner.h). */
#include "csv-scanner.h"

#include <string.h>

void
csv_scanner_init(CsvScanner *s, const CsvScannerOptions *o, const char *input, size_t len, GString *buf)
{
  memset(s, 0, sizeof(*s));
  s->o = o;
  s->cur = input;
  s->end = input + len;
  s->buf = buf;
}

static inline bool
_is_blank(char c)
{
  return c == ' ' || c == '\t';
}

/* Add the byte at p to the value: the value stays a slice of the input
 * while the bytes it takes are adjacent, and moves to the buffer at the
 * first gap (a quote or escape left out). */
static inline void
_take(CsvScanner *s, const char *p)
{
  if (!s->value_in_buf)
    {
      if (p == s->value + s->value_len)
        {
          s->value_len++;
          return;
        }
      if (s->value_len == 0)
        {
          s->value = p;
          s->value_len = 1;
          return;
        }
      g_string_truncate(s->buf, 0);
      g_string_append_len(s->buf, s->value, s->value_len);
      s->value_in_buf = true;
    }
  g_string_append_c(s->buf, *p);
}

/* A string delimiter at p: its length, else 0. */
static size_t
_string_delimiter(const CsvScanner *s, const char *p)
{
  if (!s->o->string_first[(uint8_t) *p])
    return 0;
  for (char **d = s->o->strings; *d; d++)
    {
      size_t n = strlen(*d);
      if (n && (size_t) (s->end - p) >= n && memcmp(p, *d, n) == 0)
        return n;
    }
  return 0;
}

static void
_scan_value(CsvScanner *s, char quote)
{
  const CsvScannerOptions *o = s->o;
  const char *p = s->cur;
  while (p < s->end)
    {
      if (quote)
        {
          if (o->escape == CSV_ESCAPE_BACKSLASH && *p == '\\' && p + 1 < s->end)
            _take(s, ++p);
          else if (o->escape == CSV_ESCAPE_DOUBLE_CHAR && *p == quote && p + 1 < s->end && p[1] == quote)
            _take(s, ++p);
          else if (*p == quote)
            quote = 0;
          else
            _take(s, p);
          p++;
          continue;
        }
      size_t n = _string_delimiter(s, p);
      if (n)
        {
          p += n;
          break;
        }
      if (o->delim[(uint8_t) *p])
        {
          p++;
          break;
        }
      _take(s, p);
      p++;
    }
  s->cur = p;
}

/* strip-whitespace on the right, then null(). */
static void
_finish_value(CsvScanner *s)
{
  if (s->value_in_buf)
    {
      s->value = s->buf->str;
      s->value_len = s->buf->len;
    }
  if (s->o->strip_whitespace)
    while (s->value_len && _is_blank(s->value[s->value_len - 1]))
      s->value_len--;
  const char *nv = s->o->null_value;
  if (nv && strlen(nv) == s->value_len && memcmp(nv, s->value, s->value_len) == 0)
    s->value_len = 0;
}

bool
csv_scanner_next(CsvScanner *s)
{
  const CsvScannerOptions *o = s->o;
  if (s->column >= o->n_columns || s->partial)
    return false;
  s->value = s->cur;
  s->value_len = 0;
  s->value_in_buf = false;

  if (o->greedy && s->column == o->n_columns - 1)
    {
      if (o->strip_whitespace)
        while (s->cur < s->end && _is_blank(*s->cur))
          s->cur++;
      s->value = s->cur;
      s->value_len = s->end - s->cur;
      s->cur = s->end;
    }
  else
    {
      if (s->cur >= s->end)
        {
          s->partial = true;
          return false;
        }
      char quote = (char) o->quote_end[(uint8_t) *s->cur];
      if (quote)
        s->cur++;
      if (o->strip_whitespace)
        while (s->cur < s->end && _is_blank(*s->cur))
          s->cur++;
      s->value = s->cur;
      _scan_value(s, quote);
    }
  _finish_value(s);
  s->column++;
  return true;
}

bool
csv_scanner_complete(const CsvScanner *s)
{
  return !s->partial && s->column == s->o->n_columns && s->cur >= s->end;
}
