/* SPDX-License-Identifier: GPL-2.0-or-later */
/* json-parser()'s fast path (what it takes is in json-fast.h). */
#include "json/json-fast.h"

#include "kvformat/parser-util.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define FAST_MAX_DEPTH 30 /* json-c refuses beyond 32 */
#define FAST_MAX_KEYS 64  /* per object, for the duplicate check */

typedef struct FastParser
{
  const char *p;
  const char *end;
  GString *path; /* prefix + the keys of the enclosing objects */
  char delim;
  JsonFastResult *r;
} FastParser;

/* ---- per-thread buffers --------------------------------------------------- */

static pthread_key_t result_key;
static pthread_once_t result_once = PTHREAD_ONCE_INIT;

static void
_result_free(void *p)
{
  JsonFastResult *r = p;
  g_string_free(r->values, TRUE);
  g_free(r->pairs);
  g_free(r);
}

static void
_result_init(void)
{
  pthread_key_create(&result_key, _result_free);
}

JsonFastResult *
json_fast_result(void)
{
  pthread_once(&result_once, _result_init);
  JsonFastResult *r = pthread_getspecific(result_key);
  if (!r)
    {
      r = g_new0(JsonFastResult, 1);
      r->values = g_string_sized_new(512);
      r->cap_pairs = 32;
      r->pairs = g_new(JsonFastPair, r->cap_pairs);
      pthread_setspecific(result_key, r);
    }
  g_string_truncate(r->values, 0);
  r->n_pairs = 0;
  return r;
}

/* g_string_append_len without its generic insert path: names and values
 * are appended a few bytes at a time, many times per message. */
static inline void
_append(GString *s, const char *p, size_t n)
{
  if (s->len + n < s->allocated_len)
    {
      memcpy(s->str + s->len, p, n);
      s->len += n;
      s->str[s->len] = '\0';
    }
  else
    g_string_append_len(s, p, n);
}

static inline void
_truncate(GString *s, size_t len)
{
  s->len = len;
  s->str[len] = '\0';
}

/* ---- lexing --------------------------------------------------------------- */

static inline void
_skip_ws(FastParser *fp)
{
  /* compact JSON has no blanks: one test for the usual case */
  if (fp->p < fp->end && (uint8_t) *fp->p > ' ')
    return;
  while (fp->p < fp->end && (*fp->p == ' ' || *fp->p == '\t' || *fp->p == '\n' || *fp->p == '\r'))
    fp->p++;
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

/* What may follow a number or a keyword for json-c to read it as we do. */
static inline bool
_at_value_end(const FastParser *fp)
{
  if (fp->p >= fp->end)
    return false; /* json-c waits for more: an error for it */
  char c = *fp->p;
  return c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* A string at fp->p (after its opening quote).  Plain: *slice and *len
 * point into the input.  With \" \\ \/ \b \f \n \r \t: decoded, appended
 * to buf, *slice NULL.  False for anything else. */
static bool
_string(FastParser *fp, const char **slice, size_t *len, GString *buf)
{
  const char *start = fp->p;
  const char *p = _plain_run(start, fp->end);
  if (p >= fp->end || (uint8_t) *p < 0x20)
    return false;
  if (*p == '"')
    {
      *slice = start;
      *len = p - start;
      fp->p = p + 1;
      return true;
    }
  size_t base = buf->len;
  g_string_append_len(buf, start, p - start);
  while (p < fp->end && *p != '"')
    {
      if ((uint8_t) *p < 0x20)
        return false;
      if (*p != '\\')
        {
          g_string_append_c(buf, *p++);
          continue;
        }
      if (++p >= fp->end)
        return false;
      static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
      const char *k = memchr(from, *p, sizeof(from) - 1);
      if (!k)
        return false; /* \u and the rest: json-c's business */
      g_string_append_c(buf, to[k - from]);
      p++;
    }
  if (p >= fp->end)
    return false;
  *slice = NULL;
  *len = buf->len - base;
  fp->p = p + 1;
  return true;
}

/* "%f" of a decimal with at most 9 integer and 6 fraction digits and no
 * exponent, without strtod and printf: the double nearest to it is within
 * 1e-7 of it, so printing that double to 6 places gives the decimal
 * itself, zero-padded.  False for other forms. */
static bool
_plain_decimal(const char *start, const char *end, GString *buf)
{
  const char *dot = memchr(start, '.', end - start);
  if (!dot)
    return false;
  const char *digits = *start == '-' ? start + 1 : start;
  size_t int_digits = dot - digits, frac_digits = end - dot - 1;
  if (int_digits > 9 || frac_digits > 6 || memchr(dot, 'e', end - dot) || memchr(dot, 'E', end - dot))
    return false;
  _append(buf, start, end - start);
  _append(buf, "000000", 6 - frac_digits);
  return true;
}

/* A number as json-c prints it back: an integer of up to 18 digits as
 * written ("-0" as "0"), anything with a fraction or exponent through
 * strtod and "%f", as json-c and syslog-ng do.  Only the strict JSON
 * form: json-c's own leniencies (01, 1., .5) go to json-c. */
static bool
_number(FastParser *fp, const char **slice, size_t *len, GString *buf)
{
  const char *start = fp->p, *p = start;
  if (p < fp->end && *p == '-')
    p++;
  const char *digits = p;
  while (p < fp->end && *p >= '0' && *p <= '9')
    p++;
  size_t n_digits = p - digits;
  if (n_digits == 0 || (n_digits > 1 && *digits == '0'))
    return false;
  bool is_double = false;
  if (p < fp->end && *p == '.')
    {
      const char *frac = ++p;
      while (p < fp->end && *p >= '0' && *p <= '9')
        p++;
      if (p == frac)
        return false;
      is_double = true;
    }
  if (p < fp->end && (*p == 'e' || *p == 'E'))
    {
      p++;
      if (p < fp->end && (*p == '+' || *p == '-'))
        p++;
      const char *exp = p;
      while (p < fp->end && *p >= '0' && *p <= '9')
        p++;
      if (p == exp)
        return false;
      is_double = true;
    }
  fp->p = p;
  if (!_at_value_end(fp))
    return false;
  if (!is_double)
    {
      if (n_digits > 18)
        return false;
      if (n_digits == 1 && *digits == '0')
        start = digits; /* "-0" is 0 */
      *slice = start;
      *len = p - start;
      return true;
    }
  size_t base = buf->len;
  if (_plain_decimal(start, p, buf))
    {
      *slice = NULL;
      *len = buf->len - base;
      return true;
    }
  char text[64];
  if ((size_t) (p - start) >= sizeof(text))
    return false;
  memcpy(text, start, p - start);
  text[p - start] = '\0';
  double d = strtod(text, NULL);
  if (!isfinite(d))
    return false; /* what json-c makes of an overflow is its own business */
  g_string_append_printf(buf, "%f", d);
  *slice = NULL;
  *len = buf->len - base;
  return true;
}

/* A string, number, true, false or null at fp->p: its text as json-parser()
 * sets it (null is ""). */
static bool
_scalar(FastParser *fp, const char **slice, size_t *len, GString *buf)
{
  static const struct
  {
    const char *word;
    size_t len;
    const char *text;
  } words[] = { { "true", 4, "true" }, { "false", 5, "false" }, { "null", 4, "" } };

  if (fp->p >= fp->end)
    return false;
  char c = *fp->p;
  if (c == '"')
    {
      fp->p++;
      return _string(fp, slice, len, buf);
    }
  if (c == '-' || (c >= '0' && c <= '9'))
    return _number(fp, slice, len, buf);
  for (size_t i = 0; i < G_N_ELEMENTS(words); i++)
    if ((size_t) (fp->end - fp->p) >= words[i].len && memcmp(fp->p, words[i].word, words[i].len) == 0)
      {
        fp->p += words[i].len;
        if (!_at_value_end(fp))
          return false;
        *slice = words[i].text;
        *len = strlen(words[i].text);
        return true;
      }
  return false;
}

/* ---- structure ------------------------------------------------------------ */

static void
_add_pair(FastParser *fp, const char *slice, size_t value_off, size_t value_len)
{
  /* an empty name is skipped, as the json-c path skips it */
  if (fp->path->len == 0)
    return;
  JsonFastResult *r = fp->r;
  if (r->n_pairs == r->cap_pairs)
    {
      r->cap_pairs *= 2;
      r->pairs = g_renew(JsonFastPair, r->pairs, r->cap_pairs);
    }
  size_t i = r->n_pairs++;
  JsonFastPair *pair = &r->pairs[i];
  if (i < G_N_ELEMENTS(r->names))
    pair->handle = parser_nv_handle_memo(&r->names[i], fp->path->str, fp->path->len);
  else
    pair->handle = parser_nv_handle(fp->path->str, fp->path->len);
  pair->value = slice;
  pair->value_off = (uint32_t) value_off;
  pair->value_len = (uint32_t) value_len;
}

/* An array of scalars as a list of str-repr words; arrays holding arrays
 * or objects are json-c's (their value is its JSON text). */
static bool
_array(FastParser *fp)
{
  GString *values = fp->r->values;
  size_t base = values->len;
  fp->p++;
  _skip_ws(fp);
  if (fp->p < fp->end && *fp->p == ']')
    {
      fp->p++;
      _add_pair(fp, NULL, base, 0);
      return true;
    }
  GString *tmp = parser_scratch_get(PARSER_SCRATCH_EXTRA2);
  for (bool first = true;; first = false)
    {
      _skip_ws(fp);
      if (fp->p >= fp->end || *fp->p == '[' || *fp->p == '{')
        return false;
      const char *slice;
      size_t len;
      g_string_truncate(tmp, 0);
      if (!_scalar(fp, &slice, &len, tmp))
        return false;
      if (!first)
        g_string_append_c(values, ',');
      parser_append_str_repr(values, slice ? slice : tmp->str, len, NULL);
      _skip_ws(fp);
      if (fp->p < fp->end && *fp->p == ',')
        {
          fp->p++;
          continue;
        }
      if (fp->p < fp->end && *fp->p == ']')
        {
          fp->p++;
          break;
        }
      return false;
    }
  _add_pair(fp, NULL, base, values->len - base);
  return true;
}

static bool _object(FastParser *fp, int depth);

/* The value of the member whose name is fp->path now. */
static bool
_member_value(FastParser *fp, int depth)
{
  if (fp->p >= fp->end)
    return false;
  if (*fp->p == '{')
    {
      if (depth >= FAST_MAX_DEPTH)
        return false;
      g_string_append_c(fp->path, fp->delim);
      return _object(fp, depth + 1);
    }
  if (*fp->p == '[')
    return _array(fp);
  const char *slice;
  size_t len;
  size_t off = fp->r->values->len;
  if (!_scalar(fp, &slice, &len, fp->r->values))
    return false;
  _add_pair(fp, slice, off, len);
  return true;
}

/* The members of the object at fp->p ('{'), named fp->path + key. */
static bool
_object(FastParser *fp, int depth)
{
  struct
  {
    const char *key;
    size_t len;
  } keys[FAST_MAX_KEYS];
  size_t n_keys = 0;
  uint64_t seen = 0; /* a bit per key length and end bytes */
  size_t base = fp->path->len;

  fp->p++;
  _skip_ws(fp);
  if (fp->p < fp->end && *fp->p == '}')
    {
      fp->p++;
      return true;
    }
  for (;;)
    {
      _skip_ws(fp);
      if (fp->p >= fp->end || *fp->p != '"' || n_keys == FAST_MAX_KEYS)
        return false;
      fp->p++;
      const char *key = fp->p;
      fp->p = _plain_run(key, fp->end);
      if (fp->p >= fp->end || *fp->p != '"')
        return false;
      size_t key_len = fp->p - key;
      fp->p++;
      /* a duplicate can only be among keys of the same length and ends */
      uint32_t mix = (uint32_t) key_len * 0x9e3779b1u;
      if (key_len)
        mix = (mix ^ ((uint32_t) (uint8_t) key[0] << 8 | (uint8_t) key[key_len - 1])) * 0x85ebca6bu;
      uint64_t bit = 1ull << (mix >> 26);
      if (seen & bit)
        for (size_t i = 0; i < n_keys; i++)
          if (keys[i].len == key_len && memcmp(keys[i].key, key, key_len) == 0)
            return false; /* json-c keeps the last value in the first place */
      seen |= bit;
      keys[n_keys].key = key;
      keys[n_keys++].len = key_len;

      _skip_ws(fp);
      if (fp->p >= fp->end || *fp->p != ':')
        return false;
      fp->p++;
      _skip_ws(fp);
      _truncate(fp->path, base);
      _append(fp->path, key, key_len);
      if (!_member_value(fp, depth))
        return false;
      _skip_ws(fp);
      if (fp->p < fp->end && *fp->p == ',')
        {
          fp->p++;
          continue;
        }
      if (fp->p < fp->end && *fp->p == '}')
        {
          fp->p++;
          _truncate(fp->path, base);
          return true;
        }
      return false;
    }
}

bool
json_fast_parse(const char *input, size_t len, const char *prefix, size_t prefix_len, char delim, JsonFastResult *r)
{
  FastParser fp = { .p = input, .end = input + len, .delim = delim, .r = r };
  fp.path = parser_scratch_get(PARSER_SCRATCH_NAME);
  if (prefix_len)
    g_string_append_len(fp.path, prefix, prefix_len);
  _skip_ws(&fp);
  if (fp.p >= fp.end || *fp.p != '{' || !_object(&fp, 1))
    return false;
  /* json-c reads on through blanks and comments after the object: a '/'
   * there may make it wait for a comment's end, and fail */
  _skip_ws(&fp);
  return fp.p >= fp.end || *fp.p != '/';
}
