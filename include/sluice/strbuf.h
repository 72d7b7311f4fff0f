/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_STRBUF_H
#define SLUICE_STRBUF_H

/*
 * g_string_append_len() and g_string_append_c() without the library call
 * when the room is there already.  The per-message paths (templates,
 * output formats, parsers, rewrites) append many short pieces, and the
 * library's version checks whether the source lies inside the string
 * before it gets to the copy.  The source must not lie inside s.
 */

#include <glib.h>
#include <string.h>

static inline void
str_append(GString *s, const char *p, size_t n)
{
  if (n == 0)
    return; /* an empty value's pointer may be NULL */
  if (G_LIKELY(s->len + n < s->allocated_len))
    {
      memcpy(s->str + s->len, p, n);
      s->len += n;
      s->str[s->len] = '\0';
    }
  else
    g_string_append_len(s, p, (gssize) n);
}

static inline void
str_append_c(GString *s, char c)
{
  if (G_LIKELY(s->len + 1 < s->allocated_len))
    {
      s->str[s->len++] = c;
      s->str[s->len] = '\0';
    }
  else
    g_string_append_c(s, c);
}

#endif
