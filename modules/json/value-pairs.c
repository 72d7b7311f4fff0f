/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * value-pairs: selection, rekeying and collecting (see value-pairs.h);
 * parsing and the macro table are in value-pairs-options.c.
 *
 * Collecting walks the message's set values once and the fixed candidates
 * (the macros the ValuePairs picked and its key=value pairs, rekeyed and
 * sorted when it was parsed, see vp_fixed_build), then sorts the entries
 * (a handful to a few hundred) and drops duplicate names.  A ValuePairs
 * without name-value pairs lets its user skip collecting altogether
 * (value_pairs_get_fixed).
 */
#include "value-pairs-internal.h"

#include "sluice/scratch.h"

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

/* ---- per-thread results -------------------------------------------------- */

#define RESULT_LEVELS 8

typedef struct ResultStack
{
  ValuePairsResult r[RESULT_LEVELS];
  int depth;
  GString *name; /* rekey scratch */
} ResultStack;

/* this thread's results (sluice/scratch.h) */
static _Thread_local ResultStack *tls_results;

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

static ResultStack *
_results(void)
{
  ResultStack *s = tls_results;
  if (G_UNLIKELY(!s))
    {
      s = tls_results = g_new0(ResultStack, 1);
      s->name = g_string_sized_new(64);
      scratch_register((void **) &tls_results, _results_free);
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
    if (p[i].include != inc && glob_match(&p[i].glob, name, len))
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
      if (sets[i].ops->len == 0 || !glob_match(&sets[i].glob, out->str, out->len))
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
              /* each level takes at least a byte: a huge count ends with the name */
              for (int n = 0; n < t->n && out->len; n++)
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
_add_entry(Collect *c, const char *name, uint32_t name_len, const char *value, size_t value_len, uint32_t flags,
           ValuePairsType type)
{
  ValuePairsEntry e = { name, value, name_len, (uint32_t) MIN(value_len, UINT32_MAX), flags, type };
  g_array_append_val(c->res->entries, e);
}

/* A name-value pair or built-in value: rekeyed here, per message. */
static void
_add(Collect *c, const char *name, uint32_t name_len, const char *value, size_t value_len)
{
  if (value_len == 0 && c->vp->omit_empty)
    return;
  uint32_t flags = 0;
  if (_rekey(c->vp, name, name_len, c->name))
    {
      name = (const char *) (uintptr_t) c->res->buf->len;
      name_len = (uint32_t) c->name->len;
      flags = VPE_NAME_IN_BUF;
      g_string_append_len(c->res->buf, c->name->str, (gssize) c->name->len);
    }
  _add_entry(c, name, name_len, value, value_len, flags, VP_TYPE_STRING);
}

/* A fixed candidate: its name is rekeyed already, its value read or
 * formatted now. */
static void
_add_fixed(Collect *c, const ValuePairsFixed *f)
{
  uint32_t flags = f->rank ? VPE_PAIR | (f->rank << VPE_PAIR_SHIFT) : 0;
  size_t len;
  if (value_pairs_fixed_is_direct(f, c->opts))
    {
      const char *v = log_msg_get_value(c->msg, f->handle, &len);
      if (len || !f->droppable)
        _add_entry(c, f->name, f->name_len, v, len, flags, f->type);
      return;
    }
  GString *buf = c->res->buf;
  size_t start = buf->len;
  log_template_format(f->template, c->msg, c->opts, buf);
  len = buf->len - start;
  if (len || !f->droppable)
    _add_entry(c, f->name, f->name_len, (const char *) (uintptr_t) start, len, flags | VPE_VALUE_IN_BUF, f->type);
}

/* The candidate groups a name-value pair belongs to. */
static uint32_t
_nv_groups(NVHandle handle, const char *name)
{
  if (name[0] != '.')
    return VPS_NV_PAIRS;
  return log_msg_is_handle_sdata(handle) ? VPS_DOT_NV_PAIRS | VPS_SDATA : VPS_DOT_NV_PAIRS;
}

static bool
_add_nv(NVHandle handle, const char *name, const char *value, size_t value_len, void *user_data)
{
  Collect *c = user_data;
  uint32_t len = (uint32_t) strlen(name);
  if (vp_selected(c->vp, name, len, _nv_groups(handle, name)))
    _add(c, name, len, value, value_len);
  return true;
}

/* syslog-ng's order: names descending, a leading '.' read as '_' (as it
 * is shown, unless --leave-initial-dot: dot); of equal names the higher
 * rank first (pairs before candidates, a later pair before an earlier
 * one); the duplicates after the first are dropped. */
static inline int
_cmp_names(const char *an, uint32_t al, uint32_t ar, const char *bn, uint32_t bl, uint32_t br, bool dot)
{
  int ca = al ? (unsigned char) (an[0] == '.' && !dot ? '_' : an[0]) : -1;
  int cb = bl ? (unsigned char) (bn[0] == '.' && !dot ? '_' : bn[0]) : -1;
  if (ca != cb)
    return cb - ca;
  if (al > 1 && bl > 1)
    {
      int r = memcmp(bn + 1, an + 1, MIN(al, bl) - 1);
      if (r)
        return r;
    }
  if (al != bl)
    return al < bl ? 1 : -1;
  return ar == br ? 0 : ar < br ? 1 : -1;
}

static inline int
_cmp_desc(const void *pa, const void *pb, void *dot)
{
  const ValuePairsEntry *a = pa, *b = pb;
  return _cmp_names(a->name, a->name_len, a->flags >> VPE_PAIR_SHIFT, b->name, b->name_len,
                    b->flags >> VPE_PAIR_SHIFT, *(const bool *) dot);
}

/* Of equal names and ranks a built-in value comes first, as it is added
 * before the macros when collecting. */
static int
_cmp_fixed(const void *pa, const void *pb, void *dot)
{
  const ValuePairsFixed *a = pa, *b = pb;
  int r = _cmp_names(a->name, a->name_len, a->rank, b->name, b->name_len, b->rank, *(const bool *) dot);
  return r ? r : (int) b->builtin - (int) a->builtin;
}

/* Insertion sort for the usual few dozen entries (qsort's merge sort and
 * its indirect calls cost more there), qsort beyond. */
static void
_sort(ValuePairsEntry *e, size_t n, bool dot)
{
  if (n > 48)
    {
      qsort_r(e, n, sizeof(*e), _cmp_desc, &dot);
      return;
    }
  for (size_t i = 1; i < n; i++)
    {
      ValuePairsEntry x = e[i];
      size_t j = i;
      while (j > 0 && _cmp_desc(&e[j - 1], &x, &dot) > 0)
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
            _add(&c, name, (uint32_t) len, msg->builtin[h].ptr, msg->builtin[h].len);
          }
      log_msg_foreach_nv(msg, _add_nv, &c);
    }
  const ValuePairsFixed *f = (const ValuePairsFixed *) vp->fixed->data;
  for (guint i = 0; i < vp->fixed->len; i++)
    if (!f[i].shadowed)
      _add_fixed(&c, &f[i]);

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
      _sort(e, n, vp->leave_initial_dot);
      size_t w = 1;
      for (size_t i = 1; i < n; i++)
        if (e[i].name_len != e[w - 1].name_len || memcmp(e[i].name, e[w - 1].name, e[i].name_len) != 0)
          e[w++] = e[i];
      g_array_set_size(res->entries, (guint) w);
      n = w;
    }
  return n;
}

/* ---- the fixed candidates ------------------------------------------------ */

/* The handle of the value t expands to when t is just "$NAME" or
 * "${NAME}" of a value (not a macro), else LM_V_NONE. */
static NVHandle
_plain_value(const LogTemplate *t)
{
  const char *text = log_template_get_text(t);
  size_t len = strlen(text);
  const char *name;
  size_t n;
  if (len >= 4 && text[0] == '$' && text[1] == '{' && text[len - 1] == '}')
    {
      name = text + 2;
      n = len - 3;
      /* not "${A}${B}", nor "${A:-default}" */
      if (memchr(name, '}', n) || memchr(name, ':', n))
        return LM_V_NONE;
    }
  else if (len >= 2 && text[0] == '$')
    {
      name = text + 1;
      n = len - 1;
      for (size_t i = 0; i < n; i++)
        if (!g_ascii_isalnum(name[i]) && name[i] != '_')
          return LM_V_NONE;
    }
  else
    return LM_V_NONE;
  char *copy = g_strndup(name, n);
  NVHandle h = log_template_is_macro_name(copy) ? LM_V_NONE : log_msg_get_value_handle(copy, (ssize_t) n);
  g_free(copy);
  return h;
}

static void
_fixed_add(ValuePairs *vp, ValuePairsFixed *f, const char *name, uint32_t len, GString *scratch, GArray *to)
{
  if (_rekey(vp, name, len, scratch))
    {
      name = scratch->str;
      len = (uint32_t) scratch->len;
    }
  f->name = g_strndup(name, len);
  f->name_len = len;
  g_array_append_val(to, *f);
}

/* Sort fixed candidates into output order and mark the shadowed ones. */
static void
_sort_fixed(GArray *fixed, bool dot)
{
  ValuePairsFixed *f = (ValuePairsFixed *) fixed->data;
  size_t n = fixed->len;
  if (n > 1)
    qsort_r(f, n, sizeof(*f), _cmp_fixed, &dot);
  /* of equal names, those after one that always shows never show (a
   * built-in value may be unset) */
  bool winner = false;
  for (size_t i = 0; i < n; i++)
    {
      bool same = i > 0 && f[i].name_len == f[i - 1].name_len
                  && memcmp(f[i].name, f[i - 1].name, f[i].name_len) == 0;
      if (!same)
        winner = false;
      f[i].shadowed = winner;
      winner = winner || (!f[i].droppable && !f[i].builtin);
    }
}

void
vp_fixed_build(ValuePairs *vp)
{
  vp_macros_init();
  vp->fixed = g_array_new(FALSE, TRUE, sizeof(ValuePairsFixed));
  GString *scratch = g_string_new(NULL);
  for (size_t i = 0; i < vp_n_macros; i++)
    {
      const MacroCandidate *m = &vp_macros[i];
      if (!vp_selected(vp, m->name, m->name_len, m->scopes))
        continue;
      /* a macro that expands to nothing is left out */
      ValuePairsFixed f = { .template = m->template, .handle = m->handle, .droppable = true };
      _fixed_add(vp, &f, m->name, m->name_len, scratch, vp->fixed);
    }
  const Pair *p = (const Pair *) vp->pairs->data;
  for (guint i = 0; i < vp->pairs->len; i++)
    {
      ValuePairsFixed f = { .rank = i + 1,
                            .template = p[i].value,
                            .handle = _plain_value(p[i].value),
                            .template_if_escape = true,
                            .droppable = vp->omit_empty,
                            .type = p[i].type };
      _fixed_add(vp, &f, p[i].name, (uint32_t) strlen(p[i].name), scratch, vp->fixed);
    }
  g_string_free(scratch, TRUE);
  _sort_fixed(vp->fixed, vp->leave_initial_dot);
}

void
vp_static_build(ValuePairs *vp)
{
  if (!vp->any_nv)
    return;
  vp->statics = g_array_new(FALSE, TRUE, sizeof(ValuePairsFixed));
  g_array_append_vals(vp->statics, vp->fixed->data, vp->fixed->len);
  GString *scratch = g_string_new(NULL);
  for (NVHandle h = 1; h < LM_V_MAX; h++)
    {
      size_t len;
      const char *name = log_msg_get_value_name(h, &len);
      if (!vp->builtin_sel[h])
        continue;
      /* shown when set, even empty unless --omit-empty-values */
      ValuePairsFixed f = { .handle = h, .builtin = true, .droppable = vp->omit_empty };
      _fixed_add(vp, &f, name, (uint32_t) len, scratch, vp->statics);
    }
  g_string_free(scratch, TRUE);
  _sort_fixed(vp->statics, vp->leave_initial_dot);
}

const ValuePairsFixed *
value_pairs_get_fixed(const ValuePairs *vp, size_t *n)
{
  if (vp->any_nv)
    return NULL;
  *n = vp->fixed->len;
  return (const ValuePairsFixed *) vp->fixed->data;
}

/* ---- ascending order ----------------------------------------------------- */

static int
_by_name(const ValuePairsEntry *x, const ValuePairsEntry *y)
{
  size_t n = x->name_len < y->name_len ? x->name_len : y->name_len;
  int c = memcmp(x->name, y->name, n);
  if (c)
    return c;
  return x->name_len < y->name_len ? -1 : x->name_len > y->name_len;
}

/* Reversed they are nearly sorted (collect sorts descending, a leading '.'
 * counted as '_'): an insertion sort then moves only the '.' names, and
 * allocates nothing. */
void
value_pairs_sort_ascending(ValuePairsEntry *e, size_t n)
{
  for (size_t i = 0, j = n ? n - 1 : 0; i < j; i++, j--)
    {
      ValuePairsEntry t = e[i];
      e[i] = e[j];
      e[j] = t;
    }
  for (size_t i = 1; i < n; i++)
    {
      ValuePairsEntry t = e[i];
      size_t j = i;
      for (; j > 0 && _by_name(&e[j - 1], &t) > 0; j--)
        e[j] = e[j - 1];
      e[j] = t;
    }
}

bool
value_pairs_leaves_initial_dot(const ValuePairs *vp)
{
  return vp->leave_initial_dot;
}

const ValuePairsFixed *
value_pairs_get_static(const ValuePairs *vp, size_t *n)
{
  const GArray *a = vp->statics ? vp->statics : vp->fixed;
  *n = a->len;
  return (const ValuePairsFixed *) a->data;
}

typedef struct Picked
{
  const ValuePairs *vp;
  bool any;
} Picked;

static bool
_nv_picked(NVHandle handle, const char *name, const char *value, size_t value_len, void *user_data)
{
  (void) value;
  (void) value_len;
  Picked *p = user_data;
  p->any = vp_selected(p->vp, name, (uint32_t) strlen(name), _nv_groups(handle, name));
  return !p->any;
}

bool
value_pairs_msg_is_static(const ValuePairs *vp, const LogMsg *msg)
{
  if (!vp->any_nv)
    return true;
  Picked p = { vp, false };
  log_msg_foreach_nv(msg, _nv_picked, &p);
  return !p.any;
}
