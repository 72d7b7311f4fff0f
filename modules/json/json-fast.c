/* SPDX-License-Identifier: GPL-2.0-or-later */
/* json-parser()'s fast path (what it takes is in json-fast.h). */
#include "sluice/strrepr.h"
#include "json/json-fast.h"

#include "parser-util.h"
#include "sluice/scratch.h"
#include "sluice/strbuf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define FAST_MAX_DEPTH 30 /* json-c refuses beyond 32 */
#define FAST_MAX_KEYS 64  /* per object, for the duplicate check */

/* The cursor is not here: each function takes it and returns where it
 * stopped (NULL: json-c must decide), so it lives in a register instead
 * of being reloaded after every byte stored into a GString. */
typedef struct FastParser
{
  const char *end;
  GString *path; /* prefix + the keys of the enclosing objects */
  char delim;
  JsonFastResult *r;
} FastParser;

/* ---- per-thread buffers --------------------------------------------------- */

/* this thread's result (sluice/scratch.h) */
static _Thread_local JsonFastResult *tls_result;

static void
_result_free(void *p)
{
  JsonFastResult *r = p;
  g_string_free(r->values, TRUE);
  g_free(r->pairs);
  g_free(r);
}

JsonFastResult *
json_fast_result(void)
{
  JsonFastResult *r = tls_result;
  if (G_UNLIKELY(!r))
    {
      r = tls_result = g_new0(JsonFastResult, 1);
      r->values = g_string_sized_new(512);
      r->cap_pairs = 32;
      r->pairs = g_new(JsonFastPair, r->cap_pairs);
      scratch_register((void **) &tls_result, _result_free);
    }
  r->values->len = 0;
  r->values->str[0] = '\0';
  r->n_pairs = 0;
  return r;
}

/* ---- lexing --------------------------------------------------------------- */

static inline bool
_is_ws(char c)
{
  /* one compare for the bytes that are no blank, the usual case */
  return (uint8_t) c <= ' ' && (c == ' ' || c == '\t' || c == '\n' || c == '\r');
}

/* Compact JSON has no blanks: callers test the byte they expect first and
 * come here only when it is not there. */
static inline const char *
_skip_ws(const char *p, const char *end)
{
  while (p < end && _is_ws(*p))
    p++;
  return p;
}

/* Bytes that end the plain run of a string or key: the quote, a
 * backslash, control bytes. */
static const bool string_stop[256] = {
  [0x00] = true, [0x01] = true, [0x02] = true, [0x03] = true, [0x04] = true, [0x05] = true, [0x06] = true,
  [0x07] = true, [0x08] = true, [0x09] = true, [0x0a] = true, [0x0b] = true, [0x0c] = true, [0x0d] = true,
  [0x0e] = true, [0x0f] = true, [0x10] = true, [0x11] = true, [0x12] = true, [0x13] = true, [0x14] = true,
  [0x15] = true, [0x16] = true, [0x17] = true, [0x18] = true, [0x19] = true, [0x1a] = true, [0x1b] = true,
  [0x1c] = true, [0x1d] = true, [0x1e] = true, [0x1f] = true, ['"'] = true, ['\\'] = true,
};

/* The end of the plain run from p: the first stop byte, or end.  Sixteen
 * bytes at a time with SSE2 (every x86-64 has it), else eight in a word:
 * there a byte below 0x20, a quote or a backslash sets the top bit of its
 * byte in stop (bits above the first such byte may be set wrongly by a
 * borrow, never below it, so the lowest set bit is exact).  Bytes from
 * 0x80 up never stop a run. */
static inline const char *
_plain_run(const char *p, const char *end)
{
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), ctl = _mm_set1_epi8(0x1f);
  while (end - p >= 16)
    {
      __m128i x = _mm_loadu_si128((const __m128i *) (const void *) p);
      __m128i stop = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, backslash)),
                                  _mm_cmpeq_epi8(_mm_max_epu8(x, ctl), ctl));
      int mask = _mm_movemask_epi8(stop);
      if (mask)
        return p + __builtin_ctz((unsigned) mask);
      p += 16;
    }
#elif __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
  while (end - p >= 8)
    {
      uint64_t w, q, b;
      memcpy(&w, p, 8);
      q = w ^ (ones * '"');
      b = w ^ (ones * '\\');
      uint64_t stop = (((w - ones * 0x20) & ~w) | ((q - ones) & ~q) | ((b - ones) & ~b)) & highs;
      if (stop)
        return p + (__builtin_ctzll(stop) >> 3);
      p += 8;
    }
#endif
  while (p < end && !string_stop[(uint8_t) *p])
    p++;
  return p;
}

/* What may follow a number or a keyword for json-c to read it as we do
 * (at the end json-c waits for more: an error for it). */
static inline bool
_at_value_end(const char *p, const char *end)
{
  if (p >= end)
    return false;
  char c = *p;
  return c == ',' || c == '}' || c == ']' || _is_ws(c);
}

/* A scalar's text: a slice of the input (or of a literal), or, when
 * slice is NULL, len bytes at off in the buffer it was written to. */
typedef struct FastValue
{
  const char *slice;
  size_t off;
  size_t len;
} FastValue;

/* A string at p (after its opening quote).  Plain: a slice of the input.
 * With \" \\ \/ \b \f \n \r \t: decoded into buf.  NULL for anything
 * else. */
static const char *
_string(const char *p, const char *end, FastValue *v, GString *buf)
{
  const char *start = p;
  p = _plain_run(start, end);
  if (G_LIKELY(p < end && *p == '"'))
    {
      v->slice = start;
      v->len = p - start;
      return p + 1;
    }
  if (p >= end || (uint8_t) *p < 0x20)
    return NULL;
  v->slice = NULL;
  v->off = buf->len;
  g_string_append_len(buf, start, p - start);
  while (p < end && *p != '"')
    {
      if ((uint8_t) *p < 0x20)
        return NULL;
      if (*p != '\\')
        {
          g_string_append_c(buf, *p++);
          continue;
        }
      if (++p >= end)
        return NULL;
      static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
      const char *k = memchr(from, *p, sizeof(from) - 1);
      if (!k)
        return NULL; /* \u and the rest: json-c's business */
      g_string_append_c(buf, to[k - from]);
      p++;
    }
  if (p >= end)
    return NULL;
  v->len = buf->len - v->off;
  return p + 1;
}

static inline const char *
_digits(const char *p, const char *end)
{
  while (p < end && *p >= '0' && *p <= '9')
    p++;
  return p;
}

/* A number as json-c prints it back: an integer of up to 18 digits as
 * written ("-0" as "0"); a decimal with at most 9 integer and 6 fraction
 * digits and no exponent as written, zero-padded to 6 places (the double
 * nearest to it is within 1e-7 of it, so "%f" of that double prints the
 * decimal itself); anything else with a fraction or exponent through
 * strtod and "%f", as json-c and syslog-ng do.  Only the strict JSON
 * form: json-c's own leniencies (01, 1., .5) go to json-c. */
static const char *
_number(const char *p, const char *end, FastValue *v, GString *buf)
{
  const char *start = p;
  if (*p == '-')
    p++;
  const char *digits = p;
  p = _digits(p, end);
  size_t n_digits = p - digits;
  if (n_digits == 0 || (n_digits > 1 && *digits == '0'))
    return NULL;
  size_t n_frac = 0;
  bool fraction = p < end && *p == '.', exponent = false;
  if (fraction)
    {
      const char *frac = ++p;
      p = _digits(p, end);
      n_frac = p - frac;
      if (n_frac == 0)
        return NULL;
    }
  if (p < end && (*p == 'e' || *p == 'E'))
    {
      p++;
      if (p < end && (*p == '+' || *p == '-'))
        p++;
      const char *exp = p;
      p = _digits(p, end);
      if (p == exp)
        return NULL;
      exponent = true;
    }
  if (!_at_value_end(p, end))
    return NULL;
  if (!fraction && !exponent)
    {
      if (n_digits > 18)
        return NULL;
      if (n_digits == 1 && *digits == '0')
        start = digits; /* "-0" is 0 */
      v->slice = start;
      v->len = p - start;
      return p;
    }
  v->slice = NULL;
  v->off = buf->len;
  if (!exponent && n_digits <= 9 && n_frac <= 6)
    {
      str_append(buf, start, p - start);
      str_append(buf, "000000", 6 - n_frac);
    }
  else
    {
      char text[64];
      if ((size_t) (p - start) >= sizeof(text))
        return NULL;
      memcpy(text, start, p - start);
      text[p - start] = '\0';
      double d = strtod(text, NULL);
      if (!isfinite(d))
        return NULL; /* what json-c makes of an overflow is its own business */
      g_string_append_printf(buf, "%f", d);
    }
  v->len = buf->len - v->off;
  return p;
}

/* The keyword word (len bytes) at p, as text; NULL when it is not
 * there whole and followed by what may end a value. */
static inline const char *
_keyword(const char *p, const char *end, const char *word, size_t len, const char *text, FastValue *v)
{
  if ((size_t) (end - p) < len || memcmp(p, word, len) != 0 || !_at_value_end(p + len, end))
    return NULL;
  v->slice = text;
  v->len = strlen(text);
  return p + len;
}

/* true, false or null at p as json-parser() sets them (null is "").  The
 * lengths are constants, so the compares are a load each. */
static const char *
_word(const char *p, const char *end, FastValue *v)
{
  switch (*p)
    {
    case 't': return _keyword(p, end, "true", 4, "true", v);
    case 'f': return _keyword(p, end, "false", 5, "false", v);
    case 'n': return _keyword(p, end, "null", 4, "", v);
    default: return NULL;
    }
}

/* A string, number, true, false or null at p (p < end). */
static inline const char *
_scalar(const char *p, const char *end, FastValue *v, GString *buf)
{
  char c = *p;
  if (c == '"')
    return _string(p + 1, end, v, buf);
  if (c == '-' || (c >= '0' && c <= '9'))
    return _number(p, end, v, buf);
  return _word(p, end, v);
}

/* ---- structure ------------------------------------------------------------ */

static inline void
_add_pair(FastParser *fp, const FastValue *v)
{
  /* an empty name is skipped, as the json-c path skips it */
  GString *path = fp->path;
  if (path->len == 0)
    return;
  JsonFastResult *r = fp->r;
  if (G_UNLIKELY(r->n_pairs == r->cap_pairs))
    {
      r->cap_pairs *= 2;
      r->pairs = g_renew(JsonFastPair, r->pairs, r->cap_pairs);
    }
  size_t i = r->n_pairs++;
  JsonFastPair *pair = &r->pairs[i];
  if (i < G_N_ELEMENTS(r->names))
    pair->handle = parser_nv_handle_memo(&r->names[i], path->str, path->len);
  else
    pair->handle = parser_nv_handle(path->str, path->len);
  pair->value = v->slice;
  pair->value_off = (uint32_t) (v->slice ? 0 : v->off);
  pair->value_len = (uint32_t) v->len;
}

/* An array of scalars as a list of str-repr words; arrays holding arrays
 * or objects are json-c's (their value is its JSON text).  p is at '['. */
static const char *
_array(FastParser *fp, const char *p)
{
  const char *end = fp->end;
  GString *values = fp->r->values;
  FastValue list = { .slice = NULL, .off = values->len };
  p = _skip_ws(p + 1, end);
  if (p < end && *p == ']')
    {
      list.len = 0;
      _add_pair(fp, &list);
      return p + 1;
    }
  GString *tmp = parser_scratch_get(PARSER_SCRATCH_EXTRA2);
  for (bool first = true;; first = false)
    {
      p = _skip_ws(p, end);
      if (p >= end || *p == '[' || *p == '{')
        return NULL;
      FastValue el;
      tmp->len = 0;
      if (!(p = _scalar(p, end, &el, tmp)))
        return NULL;
      if (!first)
        g_string_append_c(values, ',');
      str_append_repr(values, el.slice ? el.slice : tmp->str + el.off, el.len, NULL);
      p = _skip_ws(p, end);
      if (p < end && *p == ',')
        {
          p++;
          continue;
        }
      if (p < end && *p == ']')
        break;
      return NULL;
    }
  list.len = values->len - list.off;
  _add_pair(fp, &list);
  return p + 1;
}

static const char *_object(FastParser *fp, const char *p, int depth);

/* The value at p of the member whose name is fp->path now. */
static inline const char *
_member_value(FastParser *fp, const char *p, int depth)
{
  if (p >= fp->end)
    return NULL;
  if (*p == '{')
    {
      if (depth >= FAST_MAX_DEPTH)
        return NULL;
      g_string_append_c(fp->path, fp->delim);
      return _object(fp, p, depth + 1);
    }
  if (*p == '[')
    return _array(fp, p);
  FastValue v;
  if (!(p = _scalar(p, fp->end, &v, fp->r->values)))
    return NULL;
  _add_pair(fp, &v);
  return p;
}

/* The members of the object at p ('{'), named fp->path + key. */
static const char *
_object(FastParser *fp, const char *p, int depth)
{
  struct
  {
    const char *key;
    size_t len;
  } keys[FAST_MAX_KEYS];
  size_t n_keys = 0;
  uint64_t seen = 0; /* a bit per key length and end bytes */
  const char *end = fp->end;
  GString *path = fp->path;
  size_t base = path->len;

  p = _skip_ws(p + 1, end);
  if (p < end && *p == '}')
    return p + 1;
  for (;;)
    {
      if (G_UNLIKELY(p >= end || *p != '"'))
        {
          p = _skip_ws(p, end);
          if (p >= end || *p != '"')
            return NULL;
        }
      if (n_keys == FAST_MAX_KEYS)
        return NULL;
      const char *key = p + 1;
      p = _plain_run(key, end);
      if (p >= end || *p != '"')
        return NULL;
      size_t key_len = p - key;
      p++;
      /* a duplicate can only be among keys of the same length and ends */
      uint32_t mix = (uint32_t) key_len * 0x9e3779b1u;
      if (key_len)
        mix = (mix ^ ((uint32_t) (uint8_t) key[0] << 8 | (uint8_t) key[key_len - 1])) * 0x85ebca6bu;
      uint64_t bit = 1ull << (mix >> 26);
      if (seen & bit)
        for (size_t i = 0; i < n_keys; i++)
          if (keys[i].len == key_len && memcmp(keys[i].key, key, key_len) == 0)
            return NULL; /* json-c keeps the last value in the first place */
      seen |= bit;
      keys[n_keys].key = key;
      keys[n_keys++].len = key_len;

      if (G_UNLIKELY(p >= end || *p != ':'))
        {
          p = _skip_ws(p, end);
          if (p >= end || *p != ':')
            return NULL;
        }
      p++;
      if (G_UNLIKELY(p < end && _is_ws(*p)))
        p = _skip_ws(p, end);
      /* the name: no NUL after it, names go by length; a short key is
       * copied as sixteen bytes when both sides have them (no call) */
      if (G_LIKELY(key_len <= 16 && end - key >= 16 && base + 16 < path->allocated_len))
        memcpy(path->str + base, key, 16);
      else
        {
          if (base + key_len >= path->allocated_len)
            g_string_set_size(path, base + key_len);
          memcpy(path->str + base, key, key_len);
        }
      path->len = base + key_len;
      if (!(p = _member_value(fp, p, depth)))
        return NULL;
      if (G_UNLIKELY(p < end && _is_ws(*p)))
        p = _skip_ws(p, end);
      if (p < end && *p == ',')
        {
          p++;
          continue;
        }
      if (p < end && *p == '}')
        {
          path->len = base;
          return p + 1;
        }
      return NULL;
    }
}

bool
json_fast_parse(const char *input, size_t len, const char *prefix, size_t prefix_len, char delim, JsonFastResult *r)
{
  FastParser fp = { .end = input + len, .delim = delim, .r = r };
  fp.path = parser_scratch_get(PARSER_SCRATCH_NAME);
  str_append(fp.path, prefix, prefix_len);
  const char *p = _skip_ws(input, fp.end);
  if (p >= fp.end || *p != '{' || !(p = _object(&fp, p, 1)))
    return false;
  /* json-c reads on through blanks and comments after the object: a '/'
   * there may make it wait for a comment's end, and fail */
  p = _skip_ws(p, fp.end);
  return p >= fp.end || *p != '/';
}
