/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Globs over bytes: see include/sluice/glob.h. */
#include "sluice/glob.h"

#include <glib.h>
#include <string.h>

/* The length of the character at s (one byte for a stray byte), at most n. */
static size_t
_char_len(const char *s, size_t n)
{
  unsigned char c = (unsigned char) *s;
  size_t want = c < 0xc0 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
  size_t i = 1;
  while (i < want && i < n && ((unsigned char) s[i] & 0xc0) == 0x80)
    i++;
  return i;
}

bool
glob_match(const Glob *g, const char *s, size_t n)
{
  const char *p = g->text, *pend = g->text + g->len, *send = s + n;
  const char *star = NULL, *star_s = NULL;
  while (s < send)
    {
      if (p < pend && *p == '*')
        {
          star = ++p;
          star_s = s;
        }
      else if (p < pend && *p == '?')
        {
          p++;
          s += _char_len(s, (size_t) (send - s));
        }
      else if (p < pend && *p == *s)
        p++, s++;
      else if (star)
        {
          p = star;
          star_s += _char_len(star_s, (size_t) (send - star_s));
          s = star_s;
        }
      else
        return false;
    }
  while (p < pend && *p == '*')
    p++;
  return p == pend;
}

Glob
glob_new(const char *pattern)
{
  return (Glob) { g_strdup(pattern), strlen(pattern) };
}

void
glob_clear(Glob *g)
{
  g_free(g->text);
  *g = (Glob) { NULL, 0 };
}

bool
glob_match_str(const char *pattern, const char *s)
{
  const Glob g = { (char *) pattern, strlen(pattern) };
  return glob_match(&g, s, strlen(s));
}
