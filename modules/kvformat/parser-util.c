/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared by the name-value parsers: handle cache, scratch, template(). */
#include "kvformat/parser-util.h"
#include "sluice/strbuf.h"

#include <stdint.h>
#include <string.h>

/* ---- handle cache ------------------------------------------------------- */

#define HANDLE_CACHE_SIZE 1024 /* a power of two; 16 KiB per thread */

/* A hit is checked against the registry's own copy of the name, which
 * lives as long as the process, so an entry keeps a pointer to it and no
 * string of its own. */
typedef ParserNameMemo HandleCacheEntry; /* name NULL: an empty slot */

/* Thread-local and fixed-size: no allocation and nothing to free when a
 * worker exits. */
static __thread HandleCacheEntry handle_cache[HANDLE_CACHE_SIZE];

/* Eight bytes at a time (the last eight overlapping the ones before):
 * names are short, and this runs for every pair. */
static inline uint32_t
_name_hash(const char *name, size_t len)
{
  uint64_t h = 0x9e3779b97f4a7c15ull ^ len, w;
  if (len < 4)
    {
      w = 0;
      for (size_t i = 0; i < len; i++)
        w = (w << 8) | (uint8_t) name[i];
      h = (h ^ w) * 0xff51afd7ed558ccdull;
    }
  else if (len < 8)
    {
      uint32_t lo, hi; /* overlapping */
      memcpy(&lo, name, 4);
      memcpy(&hi, name + len - 4, 4);
      h = (h ^ ((uint64_t) hi << 32 | lo)) * 0xff51afd7ed558ccdull;
    }
  else
    {
      const char *last = name + len - 8;
      for (; name < last; name += 8)
        {
          memcpy(&w, name, 8);
          h = (h ^ w) * 0xff51afd7ed558ccdull;
          h ^= h >> 32;
        }
      memcpy(&w, last, 8);
      h = (h ^ w) * 0xff51afd7ed558ccdull;
    }
  h ^= h >> 32;
  return (uint32_t) (h ^ (h >> 29));
}

static inline bool
_entry_is(const HandleCacheEntry *e, const char *name, size_t len)
{
  return e->name && e->len == len && parser_same_bytes(e->name, name, len);
}

/* Two ways: a name goes to a pair of slots, so two names of one message
 * that hash alike do not throw each other out on every message.  The entry
 * that holds name, or NULL when name is not cached (an alias such as MSG
 * interns to a name of its own): then *handle is all there is. */
static const HandleCacheEntry *
_cache_lookup(const char *name, size_t len, NVHandle *handle)
{
  uint32_t hash = _name_hash(name, len);
  HandleCacheEntry *pair = &handle_cache[hash & (HANDLE_CACHE_SIZE - 2)];
  if (_entry_is(&pair[0], name, len))
    return &pair[0];
  if (_entry_is(&pair[1], name, len))
    return &pair[1];
  HandleCacheEntry *e = &pair[0];
  if (pair[0].name && !pair[1].name)
    e = &pair[1];
  else if (pair[0].name)
    pair[1] = pair[0]; /* the older one goes */
  NVHandle h = log_msg_get_value_handle(name, (ssize_t) len);
  size_t have_len = 0;
  const char *have = log_msg_get_value_name(h, &have_len);
  *handle = h;
  if (!have || have_len != len || memcmp(have, name, len) != 0)
    return NULL;
  e->name = have;
  e->len = (uint32_t) len;
  e->handle = h;
  return e;
}

NVHandle
parser_nv_handle(const char *name, size_t len)
{
  NVHandle h;
  const HandleCacheEntry *e = _cache_lookup(name, len, &h);
  return e ? e->handle : h;
}

NVHandle
parser_nv_handle_remember(ParserNameMemo *memo, const char *name, size_t len)
{
  NVHandle h;
  const HandleCacheEntry *e = _cache_lookup(name, len, &h);
  if (!e)
    return h;
  *memo = *e;
  return e->handle;
}

/* ---- scratch ------------------------------------------------------------ */

GString *
parser_scratch_get(int slot)
{
  /* the template engine's per-thread strings, from a range of their own */
  g_assert(slot >= 0 && slot < PARSER_SCRATCH_MAX);
  return log_template_scratch_get(LOG_TEMPLATE_SCRATCH_PARSERS + slot);
}

/* ---- str-repr quoting ---------------------------------------------------- */

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

/* Bytes below 0x20 as C escapes, bytes that are not UTF-8 as \xNN, and
 * each of unsafe with a backslash before it. */
static void
_append_escaped(GString *out, const char *str, size_t len, const char *unsafe)
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
parser_append_str_repr(GString *out, const char *str, size_t len, const char *forbidden)
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
  _append_escaped(out, str, len, apos && quote ? "\"" : NULL);
  g_string_append_c(out, q);
}

/* ---- input ------------------------------------------------------------- */

const char *
parser_input_text(const ParserInput *in, const LogMsg *msg, size_t *len, bool *from_msg)
{
  const char *text = parser_input_get(in, msg, len);
  *from_msg = in->tmpl == NULL;
  const char *nul = memchr(text, '\0', *len);
  if (nul)
    *len = (size_t) (nul - text);
  return text;
}
