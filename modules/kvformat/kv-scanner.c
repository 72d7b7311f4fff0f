/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The key=value scanner of kv-parser() (rules in kv-scanner.h). */
#include "sluice/strrepr.h"
#include "kvformat/kv-scanner.h"

#include "parser-util.h"

#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* [A-Za-z0-9_.-] */
static const bool key_chars[256] = {
  ['-'] = true, ['.'] = true, ['_'] = true,
  ['0'] = true, ['1'] = true, ['2'] = true, ['3'] = true, ['4'] = true,
  ['5'] = true, ['6'] = true, ['7'] = true, ['8'] = true, ['9'] = true,
  ['A'] = true, ['B'] = true, ['C'] = true, ['D'] = true, ['E'] = true, ['F'] = true, ['G'] = true,
  ['H'] = true, ['I'] = true, ['J'] = true, ['K'] = true, ['L'] = true, ['M'] = true, ['N'] = true,
  ['O'] = true, ['P'] = true, ['Q'] = true, ['R'] = true, ['S'] = true, ['T'] = true, ['U'] = true,
  ['V'] = true, ['W'] = true, ['X'] = true, ['Y'] = true, ['Z'] = true,
  ['a'] = true, ['b'] = true, ['c'] = true, ['d'] = true, ['e'] = true, ['f'] = true, ['g'] = true,
  ['h'] = true, ['i'] = true, ['j'] = true, ['k'] = true, ['l'] = true, ['m'] = true, ['n'] = true,
  ['o'] = true, ['p'] = true, ['q'] = true, ['r'] = true, ['s'] = true, ['t'] = true, ['u'] = true,
  ['v'] = true, ['w'] = true, ['x'] = true, ['y'] = true, ['z'] = true,
};

static inline bool
_is_key_char(char c)
{
  return key_chars[(uint8_t) c];
}

void
kv_scanner_init(KvScanner *s, char vsep, const char *psep, size_t psep_len, GString *value_buf, GString *stray)
{
  memset(s, 0, sizeof(*s));
  s->value_sep = vsep;
  s->pair_sep = psep;
  s->pair_sep_len = psep_len;
  s->value_buf = value_buf;
  s->stray = stray;
  if (stray)
    g_string_truncate(stray, 0);
}

void
kv_scanner_input(KvScanner *s, const char *input, size_t len)
{
  s->input = input;
  s->end = input + len;
  s->cur = input;
  s->next_key = NULL;
}

/* ---- stray words -------------------------------------------------------- */

static void
_add_stray(KvScanner *s, const char *word, const char *end)
{
  if (!s->stray)
    return;
  while (end > word && end[-1] == ' ')
    end--;
  while (word < end && *word == ' ')
    word++;
  if (word == end)
    return;
  if (s->stray->len)
    g_string_append_c(s->stray, ',');
  str_append_repr(s->stray, word, end - word, ",");
}

/* ---- keys --------------------------------------------------------------- */

static bool
_find_key(KvScanner *s)
{
  const char *from = s->cur;
  const char *p = from;
  const char *sep;
  if (s->next_key == from && s->next_key)
    {
      /* the end of the last value found this key already */
      const char *key_end = s->next_sep;
      while (key_end[-1] == ' ')
        key_end--;
      s->key = from;
      s->key_len = key_end - from;
      s->cur = s->next_sep + 1;
      s->next_key = NULL;
      return true;
    }
  while ((sep = memchr(p, s->value_sep, s->end - p)) != NULL)
    {
      const char *key_end = sep;
      while (key_end > from && key_end[-1] == ' ')
        key_end--;
      const char *key = key_end;
      while (key > from && _is_key_char(key[-1]))
        key--;
      if (key < key_end)
        {
          _add_stray(s, from, key);
          s->key = key;
          s->key_len = key_end - key;
          s->cur = sep + 1;
          return true;
        }
      p = sep + 1;
    }
  _add_stray(s, from, s->end);
  s->cur = s->end;
  return false;
}

/* ---- values ------------------------------------------------------------- */

static inline bool
_starts_with_pair_sep(const KvScanner *s, const char *p)
{
  return (size_t) (s->end - p) >= s->pair_sep_len && memcmp(p, s->pair_sep, s->pair_sep_len) == 0;
}

#if defined(__SSE2__)
/* 0xff in each byte of x in [lo, hi] (both below 0x80: a byte from 0x80
 * up is negative as a signed byte and never in range) */
static inline __m128i
_in_range(__m128i x, char lo, char hi)
{
  return _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8((char) (lo - 1))),
                       _mm_cmpgt_epi8(_mm_set1_epi8((char) (hi + 1)), x));
}
#endif

/* The first byte from p on that is not a key character, or end: sixteen
 * at a time with SSE2 (a long run of them, as loggen's padding, is a
 * value that _key_follows walks to its end), then byte by byte. */
static inline const char *
_key_run(const char *p, const char *end)
{
#if defined(__SSE2__)
  while (end - p >= 16)
    {
      __m128i x = _mm_loadu_si128((const __m128i *) (const void *) p);
      /* | 0x20 folds A-Z onto a-z and nothing else onto a-z */
      __m128i key = _in_range(_mm_or_si128(x, _mm_set1_epi8(0x20)), 'a', 'z');
      key = _mm_or_si128(key, _in_range(x, '0', '9'));
      key = _mm_or_si128(key, _in_range(x, '-', '.'));
      key = _mm_or_si128(key, _mm_cmpeq_epi8(x, _mm_set1_epi8('_')));
      unsigned mask = (unsigned) _mm_movemask_epi8(key) ^ 0xffffu;
      if (mask)
        return p + __builtin_ctz(mask);
      p += 16;
    }
#endif
  while (p < end && _is_key_char(*p))
    p++;
  return p;
}

/* A key and the value separator start at p.  Where they are is kept for
 * _find_key, which would find the same key from p (unless the separator
 * is itself a key character: then the first one counts there). */
static bool
_key_follows(KvScanner *s, const char *p)
{
  const char *k = _key_run(p, s->end);
  if (k == p)
    return false;
  while (k < s->end && *k == ' ')
    k++;
  if (k < s->end && *k == s->value_sep)
    {
      if (!_is_key_char(s->value_sep))
        {
          s->next_key = p;
          s->next_sep = k;
        }
      return true;
    }
  return false;
}

/* Does a delimiter start at p (p < end, *p a space or the pair
 * separator's first byte)?  *next is where scanning goes on. */
static bool
_delimiter_at(KvScanner *s, const char *p, const char **next)
{
  if (*p == ' ')
    {
      if (s->value_was_quoted)
        {
          *next = p + 1;
          return true;
        }
      if (s->pair_sep[0] == ' ' && _starts_with_pair_sep(s, p))
        {
          *next = p + s->pair_sep_len;
          return true;
        }
      const char *q = p;
      while (q < s->end && *q == ' ')
        q++;
      if (q == s->end || _key_follows(s, q))
        {
          *next = q;
          return true;
        }
      if (_starts_with_pair_sep(s, q))
        {
          *next = q + s->pair_sep_len;
          return true;
        }
      return false;
    }
  if (s->pair_sep_len && *p == s->pair_sep[0] && _starts_with_pair_sep(s, p))
    {
      *next = p + s->pair_sep_len;
      return true;
    }
  return false;
}

/* Only a space or the pair separator's first byte can start one. */
static inline bool
_may_delimit(const KvScanner *s, char c)
{
  return c == ' ' || (c == s->pair_sep[0] && c != '\0');
}

/* The first byte from p on that may start a delimiter, or end: sixteen
 * bytes at a time with SSE2 (every x86-64 has it) while a whole block is
 * there, then byte by byte.  An empty pair separator compares with NUL,
 * which the input (it ends at its first NUL) does not hold. */
static inline const char *
_value_run(const KvScanner *s, const char *p)
{
  const char *end = s->end;
#if defined(__SSE2__)
  const __m128i space = _mm_set1_epi8(' '), sep = _mm_set1_epi8(s->pair_sep[0]);
  while (end - p >= 16)
    {
      __m128i x = _mm_loadu_si128((const __m128i *) (const void *) p);
      int mask = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(x, space), _mm_cmpeq_epi8(x, sep)));
      if (mask)
        return p + __builtin_ctz((unsigned) mask);
      p += 16;
    }
#endif
  while (p < end && !_may_delimit(s, *p))
    p++;
  return p;
}

static inline bool
_delimiter(KvScanner *s, const char *p, const char **next)
{
  return _may_delimit(s, *p) && _delimiter_at(s, p, next);
}

enum
{
  V_INITIAL,
  V_UNQUOTED,
  V_QUOTED,
  V_BACKSLASH,
  V_AFTER_QUOTE,
  V_JUNK,
};

static void
_unescape(GString *buf, char quote, char c)
{
  switch (c)
    {
    case 'b': g_string_append_c(buf, '\b'); break;
    case 'f': g_string_append_c(buf, '\f'); break;
    case 'n': g_string_append_c(buf, '\n'); break;
    case 'r': g_string_append_c(buf, '\r'); break;
    case 't': g_string_append_c(buf, '\t'); break;
    case '\\': g_string_append_c(buf, '\\'); break;
    default:
      if (c != quote)
        g_string_append_c(buf, '\\');
      g_string_append_c(buf, c);
      break;
    }
}

/* Decode the value at s->cur.  A value that ends well moves s->cur past
 * it; one that does not (a quote left open, text after the closing quote)
 * is its raw text up to where the scan stopped and leaves s->cur alone. */
static void
_decode_value(KvScanner *s)
{
  const char *start = s->cur, *p = start, *next = NULL;
  const char *vstart = start, *vend = start;
  char quote = 0;
  int state = V_INITIAL;
  bool failed = false;

  s->value_in_buf = false;
  s->value_was_quoted = p < s->end && (*p == '"' || *p == '\'');
  for (; p < s->end; p++)
    {
      switch (state)
        {
        case V_INITIAL:
          if (_delimiter(s, p, &next))
            goto done;
          if (*p == '"' || *p == '\'')
            {
              quote = *p;
              vstart = vend = p + 1;
              state = V_QUOTED;
            }
          else
            {
              vend = p + 1;
              state = V_UNQUOTED;
            }
          break;
        case V_UNQUOTED:
          if (!_may_delimit(s, *p))
            {
              /* the bytes up to the next space or pair separator byte
               * are value: take them in one go */
              const char *q = _value_run(s, p + 1);
              vend = q;
              p = q - 1;
              break;
            }
          if (_delimiter_at(s, p, &next))
            goto done;
          vend = p + 1;
          break;
        case V_QUOTED:
          if (*p == quote)
            state = V_AFTER_QUOTE;
          else if (*p == '\\')
            {
              if (!s->value_in_buf)
                {
                  g_string_truncate(s->value_buf, 0);
                  g_string_append_len(s->value_buf, vstart, vend - vstart);
                  s->value_in_buf = true;
                }
              state = V_BACKSLASH;
            }
          else if (s->value_in_buf)
            g_string_append_c(s->value_buf, *p);
          else
            vend = p + 1;
          break;
        case V_BACKSLASH:
          _unescape(s->value_buf, quote, *p);
          state = V_QUOTED;
          break;
        case V_AFTER_QUOTE:
          if (_delimiter(s, p, &next))
            goto done;
          state = V_JUNK;
          break;
        case V_JUNK:
          if (_delimiter(s, p, &next))
            {
              failed = true;
              goto done;
            }
          break;
        }
    }
  next = s->end;
  failed = state == V_QUOTED || state == V_BACKSLASH || state == V_JUNK;
done:
  if (failed)
    {
      s->value = start;
      s->value_len = next - start;
      s->value_in_buf = false;
      s->value_was_quoted = false;
      return;
    }
  if (s->value_in_buf)
    {
      s->value = s->value_buf->str;
      s->value_len = s->value_buf->len;
    }
  else
    {
      s->value = vstart;
      s->value_len = vend - vstart;
    }
  s->cur = next;
}

bool
kv_scanner_next(KvScanner *s)
{
  if (s->cur >= s->end)
    return false;
  if (!_find_key(s))
    return false;
  s->value_was_quoted = false;
  const char *next;
  while (s->cur < s->end && *s->cur == ' ' && !_delimiter(s, s->cur, &next))
    s->cur++;
  _decode_value(s);
  return true;
}
