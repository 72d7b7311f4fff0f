/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_STRBUF_H
#define SLUICE_STRBUF_H

/*
 * String helpers for the per-message paths.
 *
 * g_string_append_len() and g_string_append_c() without the library call
 * when the room is there already.  The per-message paths (templates,
 * output formats, parsers, rewrites) append many short pieces, and the
 * library's version checks whether the source lies inside the string
 * before it gets to the copy.  The source must not lie inside s.
 */

#include <glib.h>
#include <stdint.h>
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

/* A hash of s[0..n), eight bytes a step (glib's g_str_hash takes one: it
 * was a tenth of a destination that splits its files by macros). */
static inline guint
str_hash_bytes(const char *s, size_t n)
{
  uint64_t h = (uint64_t) n * 0x9e3779b97f4a7c15u;
  for (; n >= 8; n -= 8, s += 8)
    {
      uint64_t w;
      memcpy(&w, s, 8);
      h = (h ^ w) * 0xff51afd7ed558ccdu;
      h ^= h >> 32;
    }
  if (n)
    {
      /* the last 1-7 bytes by fixed-size loads (a copy of n bytes into a
       * word was a byte loop, 45 instructions); 4-7 bytes as two loads
       * that may overlap, 1-3 as the first, middle and last byte */
      uint64_t w;
      if (n >= 4)
        {
          uint32_t a, b;
          memcpy(&a, s, 4);
          memcpy(&b, s + n - 4, 4);
          w = a | ((uint64_t) b << 32);
        }
      else
        w = (uint64_t) (uint8_t) s[0] | ((uint64_t) (uint8_t) s[n / 2] << 8) | ((uint64_t) (uint8_t) s[n - 1] << 16);
      h = (h ^ w) * 0xc4ceb9fe1a85ec53u;
    }
  h ^= h >> 29;
  return (guint) h;
}

#endif
