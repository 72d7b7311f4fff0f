/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * $(format-json ...) and $(format-flat-json ...): value-pairs as one JSON
 * object, byte for byte as syslog-ng 3.38 writes it.
 *
 * format-json nests dotted names the way syslog-ng's walker does, quirks
 * included: the pairs come sorted by name, descending; an open object is
 * left when the next name does not start with its path (a plain string
 * prefix test, so "a-b.c" after "a.x" still lands in "a"), objects are
 * opened for the name's tokens past the current depth, and the value goes
 * in under the last token.  A token is the text up to the next '.' that
 * is not its first byte ("a..b" is "a" then ".b"), a trailing '.' adds no
 * token, and a leading '.' is shown as '_'.  In a ".SDATA." name the
 * SD-ID is one token however many dots it holds (junos@2636.1.1.1.2.129),
 * the parameter after the last dot the next.  format-flat-json writes every
 * name whole.
 *
 * Strings are escaped as syslog-ng does: '"' and '\\' with a backslash,
 * \b \f \n \r \t by name, other bytes below 0x20 as \u00XX, valid UTF-8
 * (and 0x7f) as is, and each byte of invalid UTF-8 as the six characters
 * "\\xHH" (an escaped backslash, then xHH).
 */
#include "json-module.h"
#include "value-pairs.h"

#include "sluice/internal-log.h"
#include "sluice/scratch.h"
#include "sluice/strbuf.h"

#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define JSON_AVX2 1
#endif

/* ---- the escaper --------------------------------------------------------- */

/* 0: copy; 1: escape; 2: start of a multi-byte sequence */
static const uint8_t byte_class[256] = {
  1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
  0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
  2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
  2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
  2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
};

static const char hex_lower[] = "0123456789abcdef";

#ifdef __SSE2__
/* A bit per byte of p[0..16) that needs a closer look. */
static inline unsigned
_special_mask16(const unsigned char *p)
{
  const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\'), space = _mm_set1_epi8(0x20);
  __m128i x = _mm_loadu_si128((const __m128i *) (const void *) p);
  /* a signed compare: bytes from 0x80 up are negative, so "below 0x20"
   * catches them too */
  __m128i bad = _mm_or_si128(_mm_cmplt_epi8(x, space),
                             _mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, bslash)));
  return (unsigned) _mm_movemask_epi8(bad);
}
#endif

#ifdef JSON_AVX2
/* _safe_run for n >= 32 on a CPU with AVX2 (checked by the caller): 32
 * bytes a compare, then the last 32 overlapping. */
__attribute__((target("avx2"))) static size_t
_safe_run_avx2(const unsigned char *p, size_t n)
{
  const __m256i quote = _mm256_set1_epi8('"'), bslash = _mm256_set1_epi8('\\');
  const __m256i space = _mm256_set1_epi8(0x20);
  size_t i = 0;
  for (;; i += 32)
    {
      if (i + 32 > n)
        i = n - 32; /* those before the old i are clean: their bits are 0 */
      __m256i x = _mm256_loadu_si256((const __m256i *) (const void *) (p + i));
      __m256i specials = _mm256_or_si256(_mm256_cmpeq_epi8(x, quote), _mm256_cmpeq_epi8(x, bslash));
      __m256i bad = _mm256_or_si256(_mm256_cmpgt_epi8(space, x), specials);
      unsigned mask = (unsigned) _mm256_movemask_epi8(bad);
      if (mask)
        return i + (size_t) __builtin_ctz(mask);
      if (i + 32 == n)
        return n;
    }
}
#endif

/* Whether none of the 8 (4) bytes at p is below 0x20, '"', '\\' or from
 * 0x80 up.  A borrow may call a clean word unclean (the byte loop then
 * decides), never the other way round. */
static inline bool
_clean8(const unsigned char *p)
{
  uint64_t x;
  memcpy(&x, p, 8);
  const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
  uint64_t q = x ^ (ones * '"'), b = x ^ (ones * '\\');
  return !(((x - ones * 0x20) | (q - ones) | (b - ones) | x) & highs);
}

static inline bool
_clean4(const unsigned char *p)
{
  uint32_t x;
  memcpy(&x, p, 4);
  const uint32_t ones = 0x01010101u, highs = 0x80808080u;
  uint32_t q = x ^ (ones * '"'), b = x ^ (ones * '\\');
  return !(((x - ones * 0x20) | (q - ones) | (b - ones) | x) & highs);
}

/* How many bytes at p (at most n) go out as they are without a closer
 * look: printable ASCII other than '"' and '\\', the bulk of most values. */
static inline size_t
_safe_run(const unsigned char *p, size_t n)
{
  size_t i = 0;
#ifdef JSON_AVX2
  if (n >= 32 && __builtin_cpu_supports("avx2"))
    return _safe_run_avx2(p, n);
#endif
#ifdef __SSE2__
  if (n >= 16)
    {
      for (; i + 32 <= n; i += 32)
        {
          unsigned mask = _special_mask16(p + i) | (_special_mask16(p + i + 16) << 16);
          if (mask)
            return i + (size_t) __builtin_ctz(mask);
        }
      for (; i + 16 <= n; i += 16)
        {
          unsigned mask = _special_mask16(p + i);
          if (mask)
            return i + (size_t) __builtin_ctz(mask);
        }
      if (i < n)
        {
          /* the last 16 bytes: those before i are clean, so their bits are 0 */
          unsigned mask = _special_mask16(p + n - 16);
          return mask ? n - 16 + (size_t) __builtin_ctz(mask) : n;
        }
      return n;
    }
#endif
  /* eight bytes at a time while none is below 0x20, '"', '\\' or 0x80
   * and above (a borrow may flag a clean word: the byte loop decides) */
  for (; i + 8 <= n; i += 8)
    if (!_clean8(p + i))
      break;
  /* the short tail (the usual value is a few bytes): the last eight, or
   * the first and last four, overlapping what is known clean */
  if (i + 8 > n && i < n)
    {
      if (n >= 8 ? _clean8(p + n - 8) : n >= 4 && _clean4(p) && _clean4(p + n - 4))
        return n;
    }
  while (i < n && byte_class[p[i]] == 0)
    i++;
  return i;
}

/* Length of the valid UTF-8 sequence at p (p[0] >= 0x80), or 0: shortest
 * form only, no surrogates, nothing above U+10FFFF (glib's rules). */
static size_t
_utf8_seq_len(const unsigned char *p, const unsigned char *end)
{
  unsigned char c = p[0];
  size_t n;
  uint32_t min, cp;
  if (c >= 0xc2 && c <= 0xdf)
    n = 2, min = 0x80, cp = c & 0x1f;
  else if (c >= 0xe0 && c <= 0xef)
    n = 3, min = 0x800, cp = c & 0x0f;
  else if (c >= 0xf0 && c <= 0xf4)
    n = 4, min = 0x10000, cp = c & 0x07;
  else
    return 0;
  if ((size_t) (end - p) < n)
    return 0;
  for (size_t i = 1; i < n; i++)
    {
      if ((p[i] & 0xc0) != 0x80)
        return 0;
      cp = (cp << 6) | (p[i] & 0x3f);
    }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
    return 0;
  return n;
}

void
json_append_escaped(GString *out, const char *str, size_t len)
{
  const unsigned char *p = (const unsigned char *) str, *end = p + len;
  while (p < end)
    {
      size_t run = _safe_run(p, (size_t) (end - p));
      if (run)
        {
          str_append(out, (const char *) p, run);
          p += run;
          if (p >= end)
            break;
        }
      unsigned char c = *p;
      if (byte_class[c] == 2)
        {
          size_t n = _utf8_seq_len(p, end);
          if (n)
            {
              str_append(out, (const char *) p, n);
              p += n;
              continue;
            }
          char esc[6] = { '\\', '\\', 'x', hex_lower[c >> 4], hex_lower[c & 15] };
          str_append(out, esc, 5);
          p++;
          continue;
        }
      char esc[6] = { '\\', 0 };
      size_t n = 2;
      switch (c)
        {
        case '"':
        case '\\':
          esc[1] = (char) c;
          break;
        case '\b':
          esc[1] = 'b';
          break;
        case '\f':
          esc[1] = 'f';
          break;
        case '\n':
          esc[1] = 'n';
          break;
        case '\r':
          esc[1] = 'r';
          break;
        case '\t':
          esc[1] = 't';
          break;
        default:
          memcpy(esc + 1, "u00", 3);
          esc[4] = hex_lower[c >> 4];
          esc[5] = hex_lower[c & 15];
          n = 6;
          break;
        }
      str_append(out, esc, n);
      p++;
    }
}

/* v as a JSON string. */
static void
_append_string(GString *out, const char *v, size_t n)
{
  str_append_c(out, '"');
  json_append_escaped(out, v, n);
  str_append_c(out, '"');
}

/* A name as syslog-ng shows it: a leading '.' is '_' (but with
 * --leave-initial-dot: dot). */
static void
_append_name(GString *out, const char *name, size_t len, bool dot)
{
  if (len && name[0] == '.' && !dot)
    {
      g_string_append_c(out, '_');
      name++;
      len--;
    }
  json_append_escaped(out, name, len);
}

/* ---- typed values ------------------------------------------------------- */

/* Append e's value as its type asks, checked as syslog-ng 3.38 checks it:
 * int must read whole as strtoll does (leading blanks allowed), double as
 * strtod does; both go out as written.  boolean is true for a value
 * starting with t, T or 1 and false for f, F or 0.  list splits on ','
 * and drops empty items; literal and json go out raw, even empty.
 * Returns false when the value does not fit: the caller drops its output. */
static bool
_append_value(GString *out, const ValuePairsEntry *e, GString *tmp)
{
  const char *v = e->value;
  size_t n = e->value_len;
  switch (e->type)
    {
    case VP_TYPE_STRING:
    case VP_TYPE_DATETIME:
      break;
    case VP_TYPE_LITERAL:
    case VP_TYPE_JSON:
      str_append(out, v, n);
      return true;
    case VP_TYPE_INT:
    case VP_TYPE_INT64:
    case VP_TYPE_DOUBLE:
      {
        g_string_truncate(tmp, 0);
        g_string_append_len(tmp, v, (gssize) n);
        char *end;
        if (e->type != VP_TYPE_DOUBLE)
          (void) g_ascii_strtoll(tmp->str, &end, 10);
        else
          (void) g_ascii_strtod(tmp->str, &end);
        if (!n || end == tmp->str || *end)
          return false;
        str_append(out, v, n);
        return true;
      }
    case VP_TYPE_BOOLEAN:
      if (n && strchr("tT1", v[0]))
        str_append(out, "true", 4);
      else if (n && strchr("fF0", v[0]))
        str_append(out, "false", 5);
      else
        return false;
      return true;
    case VP_TYPE_LIST:
      {
        g_string_append_c(out, '[');
        bool first = true;
        for (size_t i = 0; i < n;)
          {
            const char *comma = memchr(v + i, ',', n - i);
            size_t end = comma ? (size_t) (comma - v) : n;
            if (end > i)
              {
                if (!first)
                  g_string_append_c(out, ',');
                first = false;
                _append_string(out, v + i, end - i);
              }
            i = end + 1;
          }
        g_string_append_c(out, ']');
        return true;
      }
    }
  _append_string(out, v, n);
  return true;
}

/* ---- the walker ---------------------------------------------------------- */

typedef struct Walker
{
  GString *out;
  GString *tmp;  /* for checking typed values */
  GString *path; /* the innermost open object's path, as shown */
  GArray *ends;  /* size_t: each open object's path length (prefixes of path) */
  GArray *first; /* gboolean per depth (0 = the top object): nothing written yet */
  LogOnError on_error;
  size_t member_at;      /* where the last key's member began, and */
  gboolean member_first; /* whether it was its object's first: to take it back */
} Walker;

static void
_member_start(Walker *w)
{
  gboolean *first = &g_array_index(w->first, gboolean, w->first->len - 1);
  if (!*first)
    g_string_append_c(w->out, ',');
  *first = FALSE;
}

/* The end of the token that starts at start: the next '.' after its first
 * byte, or len. */
static size_t
_token_end(const char *key, size_t len, size_t start)
{
  if (start + 1 >= len)
    return len;
  const char *dot = memchr(key + start + 1, '.', len - start - 1);
  return dot ? (size_t) (dot - key) : len;
}

/* A name of an SD parameter, ".SDATA.ID.PARAM" (not one that was renamed
 * to "_SDATA..."). */
static bool
_is_sdata(const char *name, size_t len)
{
  return len > 7 && memcmp(name, ".SDATA.", 7) == 0;
}

/* Close, open and separate objects for key, then write its last token and
 * the ':' its value follows; sdata: key is an SD parameter's name. */
static void
_walk_key(Walker *w, const char *key, size_t len, bool sdata)
{
  while (w->ends->len)
    {
      size_t plen = g_array_index(w->ends, size_t, w->ends->len - 1);
      if (len >= plen && memcmp(key, w->path->str, plen) == 0)
        break;
      g_string_append_c(w->out, '}');
      g_array_set_size(w->ends, w->ends->len - 1);
      g_array_set_size(w->first, w->first->len - 1);
    }
  size_t depth = w->ends->len, idx = 0, start = 0;
  /* ".SDATA.junos@2636.1.1.1.2.129.reason": the SD-ID, dots and all, is
   * one token, the parameter the last */
  const char *last_dot = sdata ? memrchr(key, '.', len) : NULL;
  for (;;)
    {
      size_t end = _token_end(key, len, start);
      if (idx == 1 && last_dot && (size_t) (last_dot - key) > end)
        end = (size_t) (last_dot - key);
      if (end + 1 >= len)
        {
          /* the last token (a trailing '.' makes no empty one) */
          w->member_at = w->out->len;
          w->member_first = g_array_index(w->first, gboolean, w->first->len - 1);
          _member_start(w);
          g_string_append_c(w->out, '"');
          json_append_escaped(w->out, key + start, MIN(end, len) - start);
          str_append(w->out, "\":", 2);
          return;
        }
      if (idx >= depth)
        {
          _member_start(w);
          g_string_append_c(w->out, '"');
          json_append_escaped(w->out, key + start, end - start);
          g_string_append_len(w->out, "\":{", 3);
          g_string_truncate(w->path, 0);
          g_string_append_len(w->path, key, (gssize) end);
          g_array_append_val(w->ends, end);
          gboolean yes = TRUE;
          g_array_append_val(w->first, yes);
        }
      idx++;
      start = end + 1;
    }
}

/* A value that did not cast to its type hint: syslog-ng 3.38's error line
 * for drop-message and drop-property (not for fallback-to-string, nor for
 * the silently-* forms).  Rate-limited as every internal event is. */
static __attribute__((noinline, cold)) void
_cast_error(const ValuePairsEntry *e, LogOnError on_error)
{
  if (on_error & LOG_ON_ERROR_SILENT || (on_error & LOG_ON_ERROR_MODE) == LOG_ON_ERROR_FALLBACK_TO_STRING)
    return;
  char *value = g_strndup(e->value, e->value_len);
  sluice_log(SLUICE_LOG_ERROR, "Casting error", "value", value, "type-hint", value_pairs_type_name(e->type), NULL);
  g_free(value);
}

/* A value that does not cast to its type hint, its key written from
 * member_at on: on-error() says what becomes of it.  Returns false when
 * the whole output goes (drop-message). */
static bool
_cast_failed(GString *out, const ValuePairsEntry *e, LogOnError on_error, size_t member_at)
{
  _cast_error(e, on_error);
  switch (on_error & LOG_ON_ERROR_MODE)
    {
    case LOG_ON_ERROR_DROP_PROPERTY:
      /* the objects opened for it stay, as in syslog-ng ("d":{}) */
      g_string_truncate(out, member_at);
      return true;
    case LOG_ON_ERROR_FALLBACK_TO_STRING:
      _append_string(out, e->value, e->value_len);
      return true;
    default:
      return false;
    }
}

static bool
_walk_entry(Walker *w, const char *key, size_t len, const ValuePairsEntry *e)
{
  _walk_key(w, key, len, _is_sdata(e->name, e->name_len));
  if (_append_value(w->out, e, w->tmp))
    return true;
  if (!_cast_failed(w->out, e, w->on_error, w->member_at))
    return false;
  if ((w->on_error & LOG_ON_ERROR_MODE) == LOG_ON_ERROR_DROP_PROPERTY)
    g_array_index(w->first, gboolean, w->first->len - 1) = w->member_first;
  return true;
}

typedef struct JsonScratch
{
  GString *key, *path, *tmp, *val;
  GArray *ends, *first;
} JsonScratch;

static _Thread_local int json_depth;
/* the outermost call's scratch: this thread's, kept (sluice/scratch.h) */
static _Thread_local JsonScratch cached_scratch;

static void
_scratch_free(JsonScratch *s)
{
  g_string_free(s->key, TRUE);
  g_string_free(s->path, TRUE);
  g_string_free(s->tmp, TRUE);
  g_string_free(s->val, TRUE);
  g_array_free(s->ends, TRUE);
  g_array_free(s->first, TRUE);
}

static void
_scratch_thread_exit(void *unused)
{
  (void) unused;
  if (cached_scratch.key)
    _scratch_free(&cached_scratch);
  memset(&cached_scratch, 0, sizeof(cached_scratch));
}

/* Scratch for one format-json call; nesting (a pair whose value is another
 * format-json) gets a fresh set, which is rare. */
static JsonScratch *
_scratch_acquire(void)
{
  JsonScratch *s = json_depth++ == 0 ? &cached_scratch : g_new0(JsonScratch, 1);
  if (!s->key)
    {
      s->key = g_string_sized_new(64);
      s->path = g_string_sized_new(64);
      s->tmp = g_string_sized_new(64);
      s->val = g_string_sized_new(256);
      s->ends = g_array_new(FALSE, FALSE, sizeof(size_t));
      s->first = g_array_new(FALSE, FALSE, sizeof(gboolean));
      if (s == &cached_scratch)
        scratch_at_exit(_scratch_thread_exit, NULL);
    }
  return s;
}

static void
_scratch_release(JsonScratch *s)
{
  if (--json_depth > 0)
    {
      _scratch_free(s);
      g_free(s);
    }
}

/* ---- the plan: fixed names resolved once --------------------------------- */

/* When a ValuePairs picks only names known at configuration time (macros,
 * key=value pairs and built-in values: the usual format-json, and --scope
 * nv-pairs on a message without name-value pairs of its own that it picks),
 * the sorting, duplicate dropping, key escaping and, where nothing can be
 * left out, the nesting are done once: a message then appends, per item,
 * ready-made text and its value, read from the message or formatted
 * straight into out.  Other messages are collected and walked. */

bool format_json_plans = true;

typedef struct PlanItem
{
  const ValuePairsFixed *f;
  /* the text before the value: ,"key": and the '"' a string opens with
   * (in a static plan the ',', '{' and '}' around it too); padded with
   * LIT_PAD zero bytes, so a short one is copied in one fixed-size move */
  char *lit;
  size_t lit_len;
  uint32_t group; /* items of one name share it: only the first that shows is written */
  bool sep;       /* lit starts with a ',' only for when a member was written before */
  bool string;    /* the value is a JSON string: lit opened its quote */
  bool direct;    /* a string read from its handle whatever the options: checked before lit is written */
} PlanItem;

#define LIT_PAD 32

typedef struct JsonFormat
{
  ValuePairs *vp;
  bool flat;
  PlanItem *items; /* NULL: collect and walk per message */
  size_t n_items;
  char *tail; /* the closing braces */
  size_t tail_len;
} JsonFormat;

enum
{
  VALUE_OK,
  VALUE_EMPTY, /* left out */
  VALUE_BAD,   /* does not fit its type: on-error() decides */
};

static int
_plan_value(GString *out, const ValuePairsFixed *f, const LogMsg *msg, const LogTemplateOptions *opts,
            JsonScratch *s)
{
  const char *v;
  size_t n;
  bool direct = value_pairs_fixed_is_direct(f, opts);
  if (f->builtin && !msg->builtin[f->handle].ptr)
    return VALUE_EMPTY;
  if (f->type == VP_TYPE_STRING || f->type == VP_TYPE_DATETIME)
    {
      if (direct)
        {
          v = log_msg_get_value(msg, f->handle, &n);
          if (!n && f->droppable)
            return VALUE_EMPTY;
          json_append_escaped(out, v, n);
          str_append_c(out, '"');
          return VALUE_OK;
        }
      /* formatted in place; copied aside only when it needs escaping */
      size_t from = out->len;
      log_template_format(f->template, msg, opts, out);
      n = out->len - from;
      if (!n && f->droppable)
        return VALUE_EMPTY;
      if (_safe_run((const unsigned char *) out->str + from, n) != n)
        {
          g_string_truncate(s->val, 0);
          g_string_append_len(s->val, out->str + from, (gssize) n);
          g_string_truncate(out, from);
          json_append_escaped(out, s->val->str, n);
        }
      str_append_c(out, '"');
      return VALUE_OK;
    }
  if (direct)
    v = log_msg_get_value(msg, f->handle, &n);
  else
    {
      g_string_truncate(s->val, 0);
      log_template_format(f->template, msg, opts, s->val);
      v = s->val->str;
      n = s->val->len;
    }
  if (!n && f->droppable)
    return VALUE_EMPTY;
  ValuePairsEntry e = { f->name, v, f->name_len, (uint32_t) MIN(n, UINT32_MAX), 0, f->type };
  if (_append_value(out, &e, s->tmp))
    return VALUE_OK;
  /* drop-message ends here; the other modes take the general path,
   * which says it */
  if ((opts->on_error & LOG_ON_ERROR_MODE) == LOG_ON_ERROR_DROP_MESSAGE)
    _cast_error(&e, opts->on_error);
  return VALUE_BAD;
}

/* The message by the plan; false (nothing written) when a value does not
 * cast and on-error() keeps the rest: the caller's general path, which
 * knows where each member begins, takes that message. */
static bool
_plan_run(const JsonFormat *jf, const LogMsg *msg, const LogTemplateOptions *opts, GString *out)
{
  JsonScratch *s = _scratch_acquire();
  size_t start = out->len;
  bool any = false;
  uint32_t shown = UINT32_MAX;
  str_append_c(out, '{');
  for (size_t i = 0; i < jf->n_items; i++)
    {
      const PlanItem *it = &jf->items[i];
      if (it->group == shown)
        continue;
      const char *v = NULL;
      size_t vn = 0;
      if (it->direct)
        {
          /* whether it shows is known before anything is written */
          const ValuePairsFixed *f = it->f;
          if (f->handle < LM_V_MAX)
            {
              v = msg->builtin[f->handle].ptr;
              vn = msg->builtin[f->handle].len;
              if (!v && f->builtin)
                continue;
            }
          else
            v = log_msg_get_value(msg, f->handle, &vn);
          if (!v)
            vn = 0;
          if (!vn && f->droppable)
            continue;
        }
      size_t mark = out->len;
      size_t skip = it->sep && !any; /* the first member: no ',' */
      size_t n = it->lit_len - skip;
      if (n <= LIT_PAD && out->len + LIT_PAD < out->allocated_len)
        {
          memcpy(out->str + out->len, it->lit + skip, LIT_PAD);
          out->len += n;
          out->str[out->len] = '\0';
        }
      else
        str_append(out, it->lit + skip, n);
      if (it->direct)
        {
          json_append_escaped(out, v, vn);
          str_append_c(out, '"');
          any = true;
          shown = it->group;
          continue;
        }
      int r = _plan_value(out, it->f, msg, opts, s);
      if (r == VALUE_EMPTY)
        {
          g_string_truncate(out, mark);
          continue;
        }
      if (r == VALUE_BAD)
        {
          g_string_truncate(out, start); /* drop-message: no output, as syslog-ng */
          _scratch_release(s);
          return (opts->on_error & LOG_ON_ERROR_MODE) == LOG_ON_ERROR_DROP_MESSAGE;
        }
      any = true;
      shown = it->group;
    }
  str_append(out, jf->tail, jf->tail_len);
  _scratch_release(s);
  return true;
}

/* The name as the walker sees it: a leading '.' is '_' (but with
 * --leave-initial-dot: dot). */
static char *
_shown_name(const ValuePairsFixed *f, bool dot)
{
  char *key = g_strndup(f->name, f->name_len);
  if (f->name_len && key[0] == '.' && !dot)
    key[0] = '_';
  return key;
}

static void
_plan_build(JsonFormat *jf)
{
  size_t n;
  const ValuePairsFixed *f = value_pairs_get_static(jf->vp, &n);
  bool dynamic = false, nested = false;
  for (size_t i = 0; i < n; i++)
    {
      if (f[i].shadowed)
        continue;
      dynamic = dynamic || f[i].droppable || f[i].builtin;
      nested = nested || (!jf->flat && f[i].name_len > 1 && memchr(f[i].name + 1, '.', f[i].name_len - 1));
    }
  if (nested && dynamic)
    return; /* which objects open depends on what shows: the walker decides per message */
  jf->items = g_new0(PlanItem, n ? n : 1);
  GString *text = g_string_new(NULL);
  Walker w = { text, NULL, g_string_new(NULL), g_array_new(FALSE, FALSE, sizeof(size_t)),
               g_array_new(FALSE, FALSE, sizeof(gboolean)) };
  gboolean yes = TRUE;
  g_array_append_val(w.first, yes);
  uint32_t group = 0;
  for (size_t i = 0; i < n; i++)
    {
      if (f[i].shadowed)
        continue;
      PlanItem *it = &jf->items[jf->n_items];
      const ValuePairsFixed *prev = jf->n_items ? it[-1].f : NULL;
      if (prev && (f[i].name_len != prev->name_len || memcmp(f[i].name, prev->name, f[i].name_len)))
        group++;
      it->f = &f[i];
      it->group = group;
      char *key = _shown_name(&f[i], value_pairs_leaves_initial_dot(jf->vp));
      g_string_truncate(text, 0);
      if (nested)
        _walk_key(&w, key, f[i].name_len, _is_sdata(f[i].name, f[i].name_len)); /* everything shows: the nesting is the same for every message */
      else
        {
          it->sep = true;
          g_string_append(text, ",\"");
          json_append_escaped(text, key, f[i].name_len);
          g_string_append(text, "\":");
        }
      g_free(key);
      it->string = f[i].type == VP_TYPE_STRING || f[i].type == VP_TYPE_DATETIME;
      it->direct = it->string && f[i].handle != LM_V_NONE && !f[i].template_if_escape;
      if (it->string)
        g_string_append_c(text, '"');
      it->lit_len = text->len;
      it->lit = g_malloc0(text->len + LIT_PAD);
      memcpy(it->lit, text->str, text->len);
      jf->n_items++;
    }
  g_string_truncate(text, 0);
  for (guint i = 0; nested && i < w.ends->len; i++)
    g_string_append_c(text, '}');
  g_string_append_c(text, '}');
  jf->tail_len = text->len;
  jf->tail = g_string_free(text, FALSE);
  g_string_free(w.path, TRUE);
  g_array_free(w.ends, TRUE);
  g_array_free(w.first, TRUE);
}

static void
_format_json_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
                  GString *out)
{
  (void) argc;
  (void) args;
  const JsonFormat *jf = state;
  if (jf->items && format_json_plans && value_pairs_msg_is_static(jf->vp, msg) && _plan_run(jf, msg, opts, out))
    return;
  ValuePairsResult *res = value_pairs_result_acquire();
  size_t n = value_pairs_collect(jf->vp, msg, opts, res);
  const ValuePairsEntry *e = (const ValuePairsEntry *) res->entries->data;
  JsonScratch *s = _scratch_acquire();
  Walker w = { out, s->tmp, s->path, s->ends, s->first, opts->on_error, 0, FALSE };
  size_t start = out->len;
  bool ok = true;
  g_array_set_size(w.ends, 0);
  g_array_set_size(w.first, 0);
  gboolean yes = TRUE;
  g_array_append_val(w.first, yes);
  g_string_append_c(out, '{');
  for (size_t i = 0; i < n; i++)
    {
      const char *key = e[i].name;
      if (e[i].name_len && key[0] == '.' && !value_pairs_leaves_initial_dot(jf->vp))
        {
          g_string_truncate(s->key, 0);
          g_string_append_c(s->key, '_');
          g_string_append_len(s->key, key + 1, (gssize) e[i].name_len - 1);
          key = s->key->str;
        }
      if (!(ok = _walk_entry(&w, key, e[i].name_len, &e[i])))
        break;
    }
  if (ok)
    {
      for (guint i = 0; i < w.ends->len; i++)
        g_string_append_c(out, '}');
      g_string_append_c(out, '}');
    }
  else
    g_string_truncate(out, start); /* a value that does not fit its type: no output, as syslog-ng */
  _scratch_release(s);
  value_pairs_result_release(res);
}

static void
_format_flat_json_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg,
                       const LogTemplateOptions *opts, GString *out)
{
  (void) argc;
  (void) args;
  const JsonFormat *jf = state;
  if (jf->items && format_json_plans && value_pairs_msg_is_static(jf->vp, msg) && _plan_run(jf, msg, opts, out))
    return;
  ValuePairsResult *res = value_pairs_result_acquire();
  size_t n = value_pairs_collect(jf->vp, msg, opts, res);
  const ValuePairsEntry *e = (const ValuePairsEntry *) res->entries->data;
  JsonScratch *s = _scratch_acquire();
  size_t start = out->len;
  g_string_append_c(out, '{');
  bool first = true;
  for (size_t i = 0; i < n; i++)
    {
      size_t member_at = out->len;
      if (!first)
        g_string_append_c(out, ',');
      g_string_append_c(out, '"');
      _append_name(out, e[i].name, e[i].name_len, value_pairs_leaves_initial_dot(jf->vp));
      str_append(out, "\":", 2);
      if (!_append_value(out, &e[i], s->tmp) && !_cast_failed(out, &e[i], opts->on_error, member_at))
        {
          g_string_truncate(out, start);
          break;
        }
      first = first && out->len == member_at; /* a dropped first member leaves the next first */
    }
  if (out->len > start)
    g_string_append_c(out, '}');
  _scratch_release(s);
  value_pairs_result_release(res);
}

static char *
_prepare(int argc, char **argv, void **state, bool flat)
{
  char *error = NULL;
  ValuePairs *vp = value_pairs_new_from_argv(argc - 1, argv + 1, &error);
  if (!vp)
    return error;
  JsonFormat *jf = g_new0(JsonFormat, 1);
  jf->vp = vp;
  jf->flat = flat;
  _plan_build(jf);
  *state = jf;
  return NULL;
}

static char *
_format_json_prepare(int argc, char **argv, void **state)
{
  return _prepare(argc, argv, state, false);
}

static char *
_format_flat_json_prepare(int argc, char **argv, void **state)
{
  return _prepare(argc, argv, state, true);
}

static void
_format_json_free(void *state)
{
  JsonFormat *jf = state;
  for (size_t i = 0; i < jf->n_items; i++)
    g_free(jf->items[i].lit);
  g_free(jf->items);
  g_free(jf->tail);
  value_pairs_free(jf->vp);
  g_free(jf);
}

static const LogTemplateFunction format_json = { "format-json", _format_json_prepare, _format_json_call,
                                                 _format_json_free };
static const LogTemplateFunction format_flat_json = { "format-flat-json", _format_flat_json_prepare,
                                                      _format_flat_json_call, _format_json_free };

void
json_register_template_functions(void)
{
  log_template_function_register(&format_json);
  log_template_function_register(&format_flat_json);
  json_register_kv_template_functions();
  json_register_graphite_template_functions();
}
