/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * value-pairs: selection, rekeying and collecting (see value-pairs.h);
 * parsing and the macro table are in value-pairs-options.c.
 *
 * Collecting walks the message's set values once and the macro candidates
 * the ValuePairs picked when it was parsed, then sorts the entries (a
 * handful to a few hundred) and drops duplicate names.
 */
#include "value-pairs-internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Entry flags while collecting: the strings are offsets into res->buf
 * until the end; a pair outranks a candidate of the same name. */
enum
{
  VPE_NAME_IN_BUF = 1 << 0,
  VPE_VALUE_IN_BUF = 1 << 1,
  VPE_PAIR = 1 << 2,
  VPE_PAIR_SHIFT = 8, /* a pair's position + 1, above the flags: the last of equal names wins */
};

/* ---- globs ---------------------------------------------------------------- */

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

/* Iterative wildcard match: on a mismatch, go back to the last '*' and let
 * it take one more character. */
bool
vp_glob_match(const Glob *g, const char *s, size_t n)
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

/* ---- per-thread results -------------------------------------------------- */

#define RESULT_LEVELS 8

typedef struct ResultStack
{
  ValuePairsResult r[RESULT_LEVELS];
  int depth;
  GString *name; /* rekey scratch */
} ResultStack;

static pthread_key_t results_key;
static pthread_once_t results_once = PTHREAD_ONCE_INIT;

static void
_results_free(void *p)
{
  ResultStack *s = p;
  for (int i = 0; i < RESULT_LEVELS; i++)
    if (s->r[i].entries)
      {
        g_array_free(s->r[i].entries, TRUE);
        g_string_free(s->r[i].buf, TRUE);
      }
  g_string_free(s->name, TRUE);
  g_free(s);
}

static void
_results_init(void)
{
  pthread_key_create(&results_key, _results_free);
}

static ResultStack *
_results(void)
{
  pthread_once(&results_once, _results_init);
  ResultStack *s = pthread_getspecific(results_key);
  if (!s)
    {
      s = g_new0(ResultStack, 1);
      s->name = g_string_sized_new(64);
      pthread_setspecific(results_key, s);
    }
  return s;
}

ValuePairsResult *
value_pairs_result_acquire(void)
{
  ResultStack *s = _results();
  ValuePairsResult *r;
  if (s->depth < RESULT_LEVELS)
    r = &s->r[s->depth];
  else
    r = g_new0(ValuePairsResult, 1); /* deeper nesting than any sane template: a private one */
  s->depth++;
  if (!r->entries)
    {
      r->entries = g_array_sized_new(FALSE, FALSE, sizeof(ValuePairsEntry), 32);
      r->buf = g_string_sized_new(512);
    }
  return r;
}

void
value_pairs_result_release(ValuePairsResult *res)
{
  ResultStack *s = _results();
  s->depth--;
  if (res < &s->r[0] || res >= &s->r[RESULT_LEVELS])
    {
      g_array_free(res->entries, TRUE);
      g_string_free(res->buf, TRUE);
      g_free(res);
    }
}

/* ---- collecting ---------------------------------------------------------- */

typedef struct Collect
{
  const ValuePairs *vp;
  const LogMsg *msg;
  const LogTemplateOptions *opts;
  ValuePairsResult *res;
  GString *name; /* rekey scratch */
} Collect;

bool
vp_selected(const ValuePairs *vp, const char *name, uint32_t len, uint32_t groups)
{
  bool inc = (vp->scopes & groups) != 0;
  const Pattern *p = (const Pattern *) vp->patterns->data;
  /* the last matching pattern decides; one that would not change the
   * answer need not be matched */
  for (guint i = 0; i < vp->patterns->len; i++)
    if (p[i].include != inc && vp_glob_match(&p[i].glob, name, len))
      inc = p[i].include;
  return inc;
}

/* Run the rekey sets on name; returns false when none changed it. */
static bool
_rekey(const ValuePairs *vp, const char *name, uint32_t len, GString *out)
{
  if (vp->sets->len == 0)
    return false;
  g_string_truncate(out, 0);
  g_string_append_len(out, name, len);
  bool changed = false;
  const TransformSet *sets = (const TransformSet *) vp->sets->data;
  for (guint i = 0; i < vp->sets->len; i++)
    {
      if (sets[i].ops->len == 0 || !vp_glob_match(&sets[i].glob, out->str, out->len))
        continue;
      const Transform *t = (const Transform *) sets[i].ops->data;
      for (guint j = 0; j < sets[i].ops->len; j++, t++)
        {
          changed = true;
          switch (t->kind)
            {
            case VPX_SHIFT:
              g_string_erase(out, 0, (gssize) MIN((size_t) t->n, out->len));
              break;
            case VPX_SHIFT_LEVELS:
              for (int n = 0; n < t->n; n++)
                {
                  const char *dot = strchr(out->str, '.');
                  g_string_erase(out, 0, dot ? (gssize) (dot - out->str + 1) : (gssize) out->len);
                }
              break;
            case VPX_ADD_PREFIX:
              g_string_prepend_len(out, t->a, (gssize) t->a_len);
              break;
            case VPX_REPLACE_PREFIX:
              if (out->len >= t->a_len && memcmp(out->str, t->a, t->a_len) == 0)
                {
                  g_string_erase(out, 0, (gssize) t->a_len);
                  g_string_prepend_len(out, t->b, (gssize) t->b_len);
                }
              break;
            }
        }
    }
  return changed;
}

static void
_add(Collect *c, const char *name, uint32_t name_len, const char *value, size_t value_len, uint32_t flags,
     ValuePairsType type)
{
  if (value_len == 0 && c->vp->omit_empty)
    return;
  ValuePairsEntry e = { name, value, name_len, (uint32_t) MIN(value_len, UINT32_MAX), flags, type };
  if (_rekey(c->vp, name, name_len, c->name))
    {
      e.name = (const char *) (uintptr_t) c->res->buf->len;
      e.name_len = (uint32_t) c->name->len;
      e.flags |= VPE_NAME_IN_BUF;
      g_string_append_len(c->res->buf, c->name->str, (gssize) c->name->len);
    }
  g_array_append_val(c->res->entries, e);
}

static void
_add_template(Collect *c, const char *name, uint32_t name_len, const LogTemplate *t, uint32_t flags, bool keep_empty,
              ValuePairsType type)
{
  GString *buf = c->res->buf;
  size_t start = buf->len;
  log_template_format(t, c->msg, c->opts, buf);
  size_t len = buf->len - start;
  if (len == 0 && !keep_empty)
    return;
  _add(c, name, name_len, (const char *) (uintptr_t) start, len, flags | VPE_VALUE_IN_BUF, type);
}

static bool
_add_nv(NVHandle handle, const char *name, const char *value, size_t value_len, void *user_data)
{
  Collect *c = user_data;
  uint32_t len = (uint32_t) strlen(name);
  uint32_t groups = name[0] != '.' ? VPS_NV_PAIRS
                    : log_msg_is_handle_sdata(handle) ? VPS_DOT_NV_PAIRS | VPS_SDATA
                                                        : VPS_DOT_NV_PAIRS;
  if (vp_selected(c->vp, name, len, groups))
    _add(c, name, len, value, value_len, 0, VP_TYPE_STRING);
  return true;
}

static inline int
_cmp_desc(const void *pa, const void *pb)
{
  const ValuePairsEntry *a = pa, *b = pb;
  int ca = a->name_len ? (unsigned char) value_pairs_name_first_char(a) : -1;
  int cb = b->name_len ? (unsigned char) value_pairs_name_first_char(b) : -1;
  if (ca != cb)
    return cb - ca;
  if (a->name_len > 1 && b->name_len > 1)
    {
      int r = memcmp(b->name + 1, a->name + 1, MIN(a->name_len, b->name_len) - 1);
      if (r)
        return r;
    }
  if (a->name_len != b->name_len)
    return a->name_len < b->name_len ? 1 : -1;
  /* equal names: pairs before candidates and a later pair before an
   * earlier one, as in syslog-ng; the duplicates after it are dropped */
  uint32_t ra = a->flags >> VPE_PAIR_SHIFT, rb = b->flags >> VPE_PAIR_SHIFT;
  return ra == rb ? 0 : ra < rb ? 1 : -1;
}

/* Insertion sort for the usual few dozen entries (qsort's merge sort and
 * its indirect calls cost more there), qsort beyond. */
static void
_sort(ValuePairsEntry *e, size_t n)
{
  if (n > 48)
    {
      qsort(e, n, sizeof(*e), _cmp_desc);
      return;
    }
  for (size_t i = 1; i < n; i++)
    {
      ValuePairsEntry x = e[i];
      size_t j = i;
      while (j > 0 && _cmp_desc(&e[j - 1], &x) > 0)
        {
          e[j] = e[j - 1];
          j--;
        }
      e[j] = x;
    }
}

size_t
value_pairs_collect(const ValuePairs *vp, const LogMsg *msg, const LogTemplateOptions *opts, ValuePairsResult *res)
{
  ResultStack *s = _results();
  Collect c = { vp, msg, opts, res, s->name };
  res->entries->len = 0; /* no clearing needed: entries are written whole */
  g_string_truncate(res->buf, 0);

  if (vp->any_nv)
    {
      for (NVHandle h = 1; h < LM_V_MAX; h++)
        if (msg->builtin[h].ptr && vp->builtin_sel[h])
          {
            size_t len;
            const char *name = log_msg_get_value_name(h, &len);
            _add(&c, name, (uint32_t) len, msg->builtin[h].ptr, msg->builtin[h].len, 0, VP_TYPE_STRING);
          }
      log_msg_foreach_nv(msg, _add_nv, &c);
    }
  const size_t *sel = (const size_t *) vp->macro_sel->data;
  for (guint i = 0; i < vp->macro_sel->len; i++)
    {
      const MacroCandidate *m = &vp_macros[sel[i]];
      if (m->handle)
        {
          size_t len;
          const char *v = log_msg_get_value(msg, m->handle, &len);
          if (len) /* a macro that expands to nothing is left out */
            _add(&c, m->name, m->name_len, v, len, 0, VP_TYPE_STRING);
        }
      else
        _add_template(&c, m->name, m->name_len, m->template, 0, false, VP_TYPE_STRING);
    }
  const Pair *p = (const Pair *) vp->pairs->data;
  for (guint i = 0; i < vp->pairs->len; i++)
    _add_template(&c, p[i].name, (uint32_t) strlen(p[i].name), p[i].value, VPE_PAIR | ((i + 1) << VPE_PAIR_SHIFT),
                  true, p[i].type);

  /* the buffer has stopped moving: offsets become pointers */
  ValuePairsEntry *e = (ValuePairsEntry *) res->entries->data;
  size_t n = res->entries->len;
  for (size_t i = 0; i < n; i++)
    {
      if (e[i].flags & VPE_NAME_IN_BUF)
        e[i].name = res->buf->str + (uintptr_t) e[i].name;
      if (e[i].flags & VPE_VALUE_IN_BUF)
        e[i].value = res->buf->str + (uintptr_t) e[i].value;
    }
  if (n > 1)
    {
      _sort(e, n);
      size_t w = 1;
      for (size_t i = 1; i < n; i++)
        if (e[i].name_len != e[w - 1].name_len || memcmp(e[i].name, e[w - 1].name, e[i].name_len) != 0)
          e[w++] = e[i];
      g_array_set_size(res->entries, (guint) w);
      n = w;
    }
  return n;
}
