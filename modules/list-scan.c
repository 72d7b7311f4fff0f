/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading syslog-ng's lists: see list-scan.h. */
#include "list-scan.h"

#include <string.h>

void
list_scanner_init(ListScanner *sc, const GString *list, GString *buf)
{
  sc->p = list->str;
  sc->end = list->str + list->len;
  sc->buf = buf;
}

/* The element quoted by sc->p[0]: true with it decoded in sc->buf and
 * *after past it (and its comma), or false with *fail where it broke. */
static bool
_scan_quoted(ListScanner *sc, const char **after, const char **fail)
{
  char quote = *sc->p;
  const char *q = sc->p + 1;
  g_string_truncate(sc->buf, 0);
  while (q < sc->end)
    {
      char c = *q;
      if (c == quote)
        {
          q++;
          if (q == sc->end)
            *after = q;
          else if (*q == ',')
            *after = q + 1;
          else
            {
              *fail = q;
              return false;
            }
          return true;
        }
      if (c != '\\')
        {
          g_string_append_c(sc->buf, c);
          q++;
          continue;
        }
      if (q + 1 >= sc->end)
        break;
      char e = q[1];
      switch (e)
        {
        case 'b': g_string_append_c(sc->buf, '\b'); break;
        case 'f': g_string_append_c(sc->buf, '\f'); break;
        case 'n': g_string_append_c(sc->buf, '\n'); break;
        case 'r': g_string_append_c(sc->buf, '\r'); break;
        case 't': g_string_append_c(sc->buf, '\t'); break;
        default:
          if (e != quote && e != '\\')
            g_string_append_c(sc->buf, '\\');
          g_string_append_c(sc->buf, e);
        }
      q += 2;
    }
  *fail = sc->end;
  return false;
}

bool
list_scanner_next(ListScanner *sc, const char **s, size_t *len)
{
  while (sc->p < sc->end && *sc->p == ',')
    sc->p++;
  if (sc->p >= sc->end)
    return false;
  const char *start = sc->p;
  if (*start == '"' || *start == '\'')
    {
      const char *after = NULL, *fail = NULL;
      if (_scan_quoted(sc, &after, &fail))
        {
          sc->p = after;
          *s = sc->buf->str;
          *len = sc->buf->len;
          return true;
        }
      const char *comma = memchr(fail, ',', (size_t) (sc->end - fail));
      sc->p = comma ? comma + 1 : sc->end;
      *s = start;
      *len = (size_t) (sc->p - start);
      return true;
    }
  const char *comma = memchr(start, ',', (size_t) (sc->end - start));
  const char *stop = comma ? comma : sc->end;
  sc->p = comma ? comma + 1 : sc->end;
  *s = start;
  *len = (size_t) (stop - start);
  return true;
}
