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
 * token, and a leading '.' is shown as '_'.  format-flat-json writes every
 * name whole.
 *
 * Strings are escaped as syslog-ng does: '"' and '\\' with a backslash,
 * \b \f \n \r \t by name, other bytes below 0x20 as \u00XX, valid UTF-8
 * (and 0x7f) as is, and each byte of invalid UTF-8 as the six characters
 * "\\xHH" (an escaped backslash, then xHH).
 */
#include "json-module.h"
#include "value-pairs.h"

#include <pthread.h>
#include <string.h>

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

/* g_string_append_len without the library call when the room is there:
 * the writer appends many short pieces per message. */
static inline void
_append(GString *out, const char *p, size_t n)
{
  if (out->len + n < out->allocated_len)
    {
      memcpy(out->str + out->len, p, n);
      out->len += n;
      out->str[out->len] = '\0';
    }
  else
    g_string_append_len(out, p, (gssize) n);
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
      const unsigned char *run = p;
      /* eight bytes at a time while none is below 0x20, '"', '\\' or
       * 0x80 and above */
      while (end - p >= 8)
        {
          uint64_t x;
          memcpy(&x, p, 8);
          const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
          uint64_t q = x ^ (ones * '"'), b = x ^ (ones * '\\');
          uint64_t special = ((x - ones * 0x20) | (q - ones) | (b - ones) | x) & highs;
          if (special)
            break;
          p += 8;
        }
      while (p < end && byte_class[*p] == 0)
        p++;
      if (p > run)
        _append(out, (const char *) run, (size_t) (p - run));
      if (p >= end)
        break;
      unsigned char c = *p;
      if (byte_class[c] == 2)
        {
          size_t n = _utf8_seq_len(p, end);
          if (n)
            {
              _append(out, (const char *) p, n);
              p += n;
              continue;
            }
          char esc[6] = { '\\', '\\', 'x', hex_lower[c >> 4], hex_lower[c & 15] };
          _append(out, esc, 5);
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
      _append(out, esc, n);
      p++;
    }
}

/* A name as syslog-ng shows it: a leading '.' is '_'. */
static void
_append_name(GString *out, const char *name, size_t len)
{
  if (len && name[0] == '.')
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
      _append(out, v, n);
      return true;
    case VP_TYPE_INT:
    case VP_TYPE_DOUBLE:
      {
        g_string_truncate(tmp, 0);
        g_string_append_len(tmp, v, (gssize) n);
        char *end;
        if (e->type == VP_TYPE_INT)
          (void) g_ascii_strtoll(tmp->str, &end, 10);
        else
          (void) g_ascii_strtod(tmp->str, &end);
        if (!n || end == tmp->str || *end)
          return false;
        _append(out, v, n);
        return true;
      }
    case VP_TYPE_BOOLEAN:
      if (n && strchr("tT1", v[0]))
        _append(out, "true", 4);
      else if (n && strchr("fF0", v[0]))
        _append(out, "false", 5);
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
                g_string_append_c(out, '"');
                json_append_escaped(out, v + i, end - i);
                g_string_append_c(out, '"');
              }
            i = end + 1;
          }
        g_string_append_c(out, ']');
        return true;
      }
    }
  g_string_append_c(out, '"');
  json_append_escaped(out, v, n);
  g_string_append_c(out, '"');
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

static bool
_walk_entry(Walker *w, const char *key, size_t len, const ValuePairsEntry *e)
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
  for (;;)
    {
      size_t end = _token_end(key, len, start);
      if (end + 1 >= len)
        {
          /* the last token (a trailing '.' makes no empty one) */
          _member_start(w);
          g_string_append_c(w->out, '"');
          json_append_escaped(w->out, key + start, MIN(end, len) - start);
          _append(w->out, "\":", 2);
          return _append_value(w->out, e, w->tmp);
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

typedef struct JsonScratch
{
  GString *key, *path, *tmp;
  GArray *ends, *first;
} JsonScratch;

static _Thread_local int json_depth;
static _Thread_local JsonScratch cached_scratch;
static pthread_key_t scratch_key;
static pthread_once_t scratch_key_once = PTHREAD_ONCE_INIT;

static void
_scratch_free(JsonScratch *s)
{
  g_string_free(s->key, TRUE);
  g_string_free(s->path, TRUE);
  g_string_free(s->tmp, TRUE);
  g_array_free(s->ends, TRUE);
  g_array_free(s->first, TRUE);
}

/* Frees this thread's cached scratch when the thread ends (a key
 * destructor runs while the thread's _Thread_local data is still there). */
static void
_scratch_thread_exit(void *unused)
{
  (void) unused;
  if (cached_scratch.key)
    _scratch_free(&cached_scratch);
  memset(&cached_scratch, 0, sizeof(cached_scratch));
}

static void
_scratch_key_init(void)
{
  pthread_key_create(&scratch_key, _scratch_thread_exit);
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
      s->ends = g_array_new(FALSE, FALSE, sizeof(size_t));
      s->first = g_array_new(FALSE, FALSE, sizeof(gboolean));
      if (s == &cached_scratch)
        {
          pthread_once(&scratch_key_once, _scratch_key_init);
          pthread_setspecific(scratch_key, (void *) 1);
        }
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

static void
_format_json_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
                  GString *out)
{
  (void) argc;
  (void) args;
  ValuePairsResult *res = value_pairs_result_acquire();
  size_t n = value_pairs_collect(state, msg, opts, res);
  const ValuePairsEntry *e = (const ValuePairsEntry *) res->entries->data;
  JsonScratch *s = _scratch_acquire();
  Walker w = { out, s->tmp, s->path, s->ends, s->first };
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
      if (e[i].name_len && key[0] == '.')
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
  ValuePairsResult *res = value_pairs_result_acquire();
  size_t n = value_pairs_collect(state, msg, opts, res);
  const ValuePairsEntry *e = (const ValuePairsEntry *) res->entries->data;
  JsonScratch *s = _scratch_acquire();
  size_t start = out->len;
  g_string_append_c(out, '{');
  for (size_t i = 0; i < n; i++)
    {
      if (i)
        g_string_append_c(out, ',');
      g_string_append_c(out, '"');
      _append_name(out, e[i].name, e[i].name_len);
      _append(out, "\":", 2);
      if (!_append_value(out, &e[i], s->tmp))
        {
          g_string_truncate(out, start);
          break;
        }
    }
  if (out->len > start)
    g_string_append_c(out, '}');
  _scratch_release(s);
  value_pairs_result_release(res);
}

static char *
_format_json_prepare(int argc, char **argv, void **state)
{
  char *error = NULL;
  ValuePairs *vp = value_pairs_new_from_argv(argc - 1, argv + 1, &error);
  if (!vp)
    return error;
  *state = vp;
  return NULL;
}

static void
_format_json_free(void *state)
{
  value_pairs_free(state);
}

static const LogTemplateFunction format_json = { "format-json", _format_json_prepare, _format_json_call,
                                                 _format_json_free };
static const LogTemplateFunction format_flat_json = { "format-flat-json", _format_json_prepare,
                                                      _format_flat_json_call, _format_json_free };

void
json_register_template_functions(void)
{
  log_template_function_register(&format_json);
  log_template_function_register(&format_flat_json);
}
