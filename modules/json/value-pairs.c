/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * value-pairs: option parsing, selection and rekeying (see value-pairs.h).
 *
 * The macro candidates are compiled once per process into one shared,
 * immutable table; a ValuePairs only keeps its patterns, pairs and rekey
 * sets.  Collecting walks the message's set values once and the macro
 * table only when a scope or a pattern can select a macro, then sorts the
 * entries (a handful to a few hundred) with qsort.
 */
#include "value-pairs.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* candidate groups, as syslog-ng's scopes select them */
enum
{
  VPS_NV_PAIRS = 1 << 0,
  VPS_DOT_NV_PAIRS = 1 << 1,
  VPS_SDATA = 1 << 2,
  VPS_RFC3164 = 1 << 3,
  VPS_RFC5424 = 1 << 4,
  VPS_SELECTED_MACROS = 1 << 5,
  VPS_ALL_MACROS = 1 << 6,
};

#define VPS_MACRO_GROUPS (VPS_RFC3164 | VPS_RFC5424 | VPS_SELECTED_MACROS | VPS_ALL_MACROS)

static const struct
{
  const char *name;
  uint32_t scopes;
} scope_names[] = {
  { "none", 0 },
  { "nv-pairs", VPS_NV_PAIRS },
  { "dot-nv-pairs", VPS_DOT_NV_PAIRS },
  { "all-nv-pairs", VPS_NV_PAIRS | VPS_DOT_NV_PAIRS },
  { "rfc3164", VPS_RFC3164 },
  { "core", VPS_RFC3164 },
  { "base", VPS_RFC3164 },
  { "rfc5424", VPS_RFC3164 | VPS_RFC5424 | VPS_SDATA },
  { "syslog-proto", VPS_RFC3164 | VPS_RFC5424 | VPS_SDATA },
  { "selected-macros", VPS_RFC3164 | VPS_SELECTED_MACROS },
  { "sdata", VPS_SDATA },
  { "all-macros", VPS_ALL_MACROS },
  { "everything", VPS_ALL_MACROS | VPS_NV_PAIRS | VPS_DOT_NV_PAIRS | VPS_SDATA },
};

/* Entry flags while collecting: the strings are offsets into res->buf
 * until the end; a pair outranks a candidate of the same name. */
enum
{
  VPE_NAME_IN_BUF = 1 << 0,
  VPE_VALUE_IN_BUF = 1 << 1,
  VPE_PAIR = 1 << 2,
};

/* ---- the macro table ----------------------------------------------------- */

/* syslog-ng 3.38's macros, as all-macros/everything and the patterns see
 * them, less SYSUPTIME, RUNID, HOSTID, PROTO, DESTIP and DESTPORT, which
 * Sluice has no source for.  PROGRAM and PID are only in rfc3164. */
static const char *const date_macro_names[] = {
  "AMPM",    "DATE",  "DAY",      "FULLDATE", "HOUR",      "HOUR12",       "ISODATE",     "ISOWEEK", "MIN",
  "MONTH",   "MONTH_ABBREV", "MONTH_NAME", "MONTH_WEEK", "MSEC", "SEC", "STAMP", "TZ", "TZOFFSET", "UNIXTIME",
  "USEC",    "WEEK",  "WEEKDAY",  "WEEK_DAY", "WEEK_DAY_ABBREV", "WEEK_DAY_NAME", "YEAR", "YEAR_DAY",
};

static const struct
{
  const char *name;
  const char *template;
  uint32_t scopes;
} other_macros[] = {
  { "BSDTAG", "$BSDTAG", VPS_ALL_MACROS },
  { "FACILITY", "$FACILITY", VPS_ALL_MACROS | VPS_RFC3164 },
  { "FACILITY_NUM", "$FACILITY_NUM", VPS_ALL_MACROS },
  { "HOST", "$HOST", VPS_ALL_MACROS | VPS_RFC3164 },
  { "LEVEL", "$LEVEL", VPS_ALL_MACROS },
  { "LEVEL_NUM", "$LEVEL_NUM", VPS_ALL_MACROS },
  { "LOGHOST", "$LOGHOST", VPS_ALL_MACROS },
  { "MESSAGE", "$MESSAGE", VPS_ALL_MACROS | VPS_RFC3164 },
  { "MSG", "$MSG", VPS_ALL_MACROS },
  { "MSGHDR", "$MSGHDR", VPS_ALL_MACROS },
  { "MSGID", "$MSGID", VPS_RFC5424 },
  { "PID", "$PID", VPS_RFC3164 },
  { "PRI", "$PRI", VPS_ALL_MACROS },
  { "PRIORITY", "$PRIORITY", VPS_ALL_MACROS | VPS_RFC3164 },
  { "PROGRAM", "$PROGRAM", VPS_RFC3164 },
  { "RCPTID", "$RCPTID", VPS_ALL_MACROS },
  { "SDATA", "$SDATA", VPS_ALL_MACROS },
  { "SEQNUM", "$SEQNUM", VPS_ALL_MACROS | VPS_SELECTED_MACROS },
  { "SEVERITY", "$SEVERITY", VPS_ALL_MACROS },
  { "SEVERITY_NUM", "$SEVERITY_NUM", VPS_ALL_MACROS },
  { "SOURCEIP", "$SOURCEIP", VPS_ALL_MACROS | VPS_SELECTED_MACROS },
  { "TAG", "$TAG", VPS_ALL_MACROS },
  { "TAGS", "$TAGS", VPS_ALL_MACROS | VPS_SELECTED_MACROS },
};

typedef struct MacroCandidate
{
  char *name;
  uint32_t name_len;
  uint32_t scopes;
  LogTemplate *template;
  NVHandle handle; /* a plain value (HOST, MESSAGE, ...): read, not formatted */
} MacroCandidate;

static MacroCandidate *macros;
static size_t n_macros;
static pthread_once_t macros_once = PTHREAD_ONCE_INIT;

static void
_macro_add(const char *name, const char *template_text, uint32_t scopes)
{
  char *error = NULL;
  LogTemplate *t = log_template_compile(template_text, &error);
  g_assert(t); /* built-in macro names always compile */
  MacroCandidate *m = &macros[n_macros++];
  m->name = g_strdup(name);
  m->name_len = (uint32_t) strlen(name);
  m->scopes = scopes;
  m->template = t;
  /* "$NAME" of a built-in value slot (MSG is MESSAGE's alias) */
  static const char *const plain[] = { "$HOST", "$PROGRAM", "$PID", "$MSGID", "$MESSAGE", "$MSG" };
  for (size_t i = 0; i < G_N_ELEMENTS(plain); i++)
    if (strcmp(template_text, plain[i]) == 0)
      m->handle = log_msg_get_value_handle(template_text + 1, -1);
}

static void
_macros_init(void)
{
  static const char *const prefixes[] = { "", "S_", "R_", "P_", "C_" };
  macros = g_new0(MacroCandidate, G_N_ELEMENTS(date_macro_names) * G_N_ELEMENTS(prefixes)
                                      + G_N_ELEMENTS(other_macros) + 1);
  for (size_t i = 0; i < G_N_ELEMENTS(other_macros); i++)
    _macro_add(other_macros[i].name, other_macros[i].template, other_macros[i].scopes);
  /* rfc3164's DATE ($DATE: BSD style, with frac-digits, whatever the
   * ts-format; checked against syslog-ng); duplicates of all-macros' one
   * are dropped after sorting */
  _macro_add("DATE", "$DATE", VPS_RFC3164);
  for (size_t p = 0; p < G_N_ELEMENTS(prefixes); p++)
    for (size_t i = 0; i < G_N_ELEMENTS(date_macro_names); i++)
      {
        char *name = g_strconcat(prefixes[p], date_macro_names[i], NULL);
        char *text = g_strconcat("$", name, NULL);
        _macro_add(name, text, VPS_ALL_MACROS);
        g_free(text);
        g_free(name);
      }
}

/* ---- parsed options ------------------------------------------------------ */

typedef enum
{
  VPX_SHIFT,
  VPX_SHIFT_LEVELS,
  VPX_ADD_PREFIX,
  VPX_REPLACE_PREFIX,
} TransformKind;

typedef struct Transform
{
  TransformKind kind;
  int n;
  char *a, *b; /* prefix to add; or old and new prefix */
  size_t a_len, b_len;
} Transform;

/* A glob of '*' (any run) and '?' (one character), matched by
 * _glob_match: glib's GPatternSpec asserts on bytes that are not UTF-8,
 * and names and patterns may hold any byte. */
typedef struct Glob
{
  char *text;
  size_t len;
} Glob;

typedef struct TransformSet
{
  Glob glob;
  GArray *ops; /* Transform */
} TransformSet;

typedef struct Pattern
{
  Glob glob;
  bool include;
} Pattern;

typedef struct Pair
{
  char *name;
  LogTemplate *value;
  ValuePairsType type;
} Pair;

struct ValuePairs
{
  uint32_t scopes;
  bool omit_empty;
  GArray *patterns; /* Pattern */
  GArray *pairs;    /* Pair */
  GArray *sets;     /* TransformSet */
  /* what the patterns and scopes pick of the fixed names, decided once */
  GArray *macro_sel;           /* size_t: indices into macros[] */
  bool builtin_sel[LM_V_MAX];  /* built-in values */
  bool any_nv;                 /* name-value pairs may be picked at all */
};

void
value_pairs_free(ValuePairs *vp)
{
  if (!vp)
    return;
  for (guint i = 0; i < vp->patterns->len; i++)
    g_free(g_array_index(vp->patterns, Pattern, i).glob.text);
  for (guint i = 0; i < vp->pairs->len; i++)
    {
      Pair *p = &g_array_index(vp->pairs, Pair, i);
      g_free(p->name);
      log_template_unref(p->value);
    }
  for (guint i = 0; i < vp->sets->len; i++)
    {
      TransformSet *s = &g_array_index(vp->sets, TransformSet, i);
      g_free(s->glob.text);
      for (guint j = 0; j < s->ops->len; j++)
        {
          Transform *t = &g_array_index(s->ops, Transform, j);
          g_free(t->a);
          g_free(t->b);
        }
      g_array_free(s->ops, TRUE);
    }
  g_array_free(vp->patterns, TRUE);
  g_array_free(vp->pairs, TRUE);
  g_array_free(vp->sets, TRUE);
  if (vp->macro_sel)
    g_array_free(vp->macro_sel, TRUE);
  g_free(vp);
}

static bool _selected(const ValuePairs *vp, const char *name, uint32_t len, uint32_t groups);

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
static bool
_glob_match(const Glob *g, const char *s, size_t n)
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

static const char *const type_names[] = {
  [VP_TYPE_STRING] = "string",   [VP_TYPE_LITERAL] = "literal", [VP_TYPE_INT] = "int",
  [VP_TYPE_DOUBLE] = "double",   [VP_TYPE_BOOLEAN] = "boolean", [VP_TYPE_LIST] = "list",
  [VP_TYPE_JSON] = "json",       [VP_TYPE_DATETIME] = "datetime",
};

/* A type hint, as syslog-ng 3.38 reads one: a word of [A-Za-z0-9_] and
 * '(' open it, the value ends with ')', and the template is what lies
 * between ("int((2))" is int of "(2)").  Returns the template text, or
 * NULL with *error set for a word that names no type. */
static const char *
_type_hint(const char *v, ValuePairsType *type, size_t *inner_len, char **error)
{
  const char *p = v;
  while (g_ascii_isalnum(*p) || *p == '_')
    p++;
  *type = VP_TYPE_STRING;
  *inner_len = strlen(v);
  if (p == v || *p != '(' || v[*inner_len - 1] != ')')
    return v;
  size_t wlen = (size_t) (p - v);
  static const struct
  {
    const char *name;
    ValuePairsType type;
  } aliases[] = { { "int32", VP_TYPE_INT }, { "int64", VP_TYPE_INT }, { "float", VP_TYPE_DOUBLE } };
  bool found = false;
  for (size_t i = 0; i < G_N_ELEMENTS(type_names) && !found; i++)
    if (strlen(type_names[i]) == wlen && memcmp(type_names[i], v, wlen) == 0)
      *type = (ValuePairsType) i, found = true;
  for (size_t i = 0; i < G_N_ELEMENTS(aliases) && !found; i++)
    if (strlen(aliases[i].name) == wlen && memcmp(aliases[i].name, v, wlen) == 0)
      *type = aliases[i].type, found = true;
  if (!found)
    {
      *error = g_strdup_printf("Unknown type specified in type hinting: %.*s", (int) wlen, v);
      return NULL;
    }
  *inner_len = strlen(p + 1) - 1;
  return p + 1;
}

static char *
_add_pair(ValuePairs *vp, const char *kv)
{
  const char *eq = strchr(kv, '=');
  if (!eq)
    return g_strdup("Error parsing value-pairs: expected an equal sign in key=value pair");
  char *error = NULL;
  ValuePairsType type;
  size_t inner_len;
  const char *inner = _type_hint(eq + 1, &type, &inner_len, &error);
  if (!inner)
    return error;
  char *text = g_strndup(inner, inner_len);
  LogTemplate *t = log_template_compile(text, &error);
  g_free(text);
  if (!t)
    {
      char *msg = g_strdup_printf("Error parsing value-pairs: in the value of \"%.*s\": %s", (int) (eq - kv), kv,
                                  error);
      g_free(error);
      return msg;
    }
  Pair p = { g_strndup(kv, (gsize) (eq - kv)), t, type };
  g_array_append_val(vp->pairs, p);
  return NULL;
}

static char *
_add_scope(ValuePairs *vp, const char *names)
{
  /* syslog-ng takes several scopes in one argument, separated by commas
   * or spaces */
  char **list = g_strsplit_set(names, ", ", -1);
  char *error = NULL;
  for (char **s = list; *s && !error; s++)
    {
      if (!**s)
        continue;
      size_t i;
      for (i = 0; i < G_N_ELEMENTS(scope_names); i++)
        if (strcmp(scope_names[i].name, *s) == 0)
          break;
      if (i == G_N_ELEMENTS(scope_names))
        error = g_strdup_printf("Error parsing value-pairs: unknown scope %s", *s);
      else
        vp->scopes |= scope_names[i].scopes;
    }
  g_strfreev(list);
  return error;
}

static void
_start_set(ValuePairs *vp, const char *glob)
{
  TransformSet s = { { g_strdup(glob), strlen(glob) }, g_array_new(FALSE, TRUE, sizeof(Transform)) };
  g_array_append_val(vp->sets, s);
}

static char *
_add_transform(ValuePairs *vp, const char *opt, const char *arg, bool have_set)
{
  if (!have_set)
    return g_strdup_printf("Error parsing value-pairs: %s used without --key or --rekey", opt);
  Transform t = { 0 };
  if (strcmp(opt, "--shift") == 0 || strcmp(opt, "--shift-levels") == 0)
    {
      char *end;
      errno = 0;
      long n = strtol(arg, &end, 10);
      if (!*arg || *end || errno || n < 0 || n > INT32_MAX)
        return g_strdup_printf("Error parsing value-pairs, argument to %s is not numeric or not a positive number",
                               opt);
      t.kind = opt[7] ? VPX_SHIFT_LEVELS : VPX_SHIFT;
      t.n = (int) n;
    }
  else if (strcmp(opt, "--add-prefix") == 0)
    {
      t.kind = VPX_ADD_PREFIX;
      t.a = g_strdup(arg);
      t.a_len = strlen(arg);
    }
  else
    {
      const char *eq = strchr(arg, '=');
      if (!eq)
        return g_strdup_printf("Error parsing value-pairs: %s needs OLD=NEW, got \"%s\"", opt, arg);
      t.kind = VPX_REPLACE_PREFIX;
      t.a = g_strndup(arg, (gsize) (eq - arg));
      t.a_len = (size_t) (eq - arg);
      t.b = g_strdup(eq + 1);
      t.b_len = strlen(eq + 1);
    }
  TransformSet *s = &g_array_index(vp->sets, TransformSet, vp->sets->len - 1);
  g_array_append_val(s->ops, t);
  return NULL;
}

static const char *const options_with_arg[] = {
  "--scope", "--key", "--exclude", "--pair", "--rekey", "--shift", "--shift-levels", "--add-prefix",
  "--replace-prefix", "--replace", NULL,
};

static char *
_apply_option(ValuePairs *vp, const char *opt, const char *arg, bool *have_set)
{
  if (strcmp(opt, "--scope") == 0)
    return _add_scope(vp, arg);
  if (strcmp(opt, "--pair") == 0)
    return _add_pair(vp, arg);
  if (strcmp(opt, "--key") == 0 || strcmp(opt, "--exclude") == 0)
    {
      Pattern p = { { g_strdup(arg), strlen(arg) }, opt[2] == 'k' };
      g_array_append_val(vp->patterns, p);
      if (p.include)
        {
          /* --key starts a transformation set for its glob, as --rekey */
          _start_set(vp, arg);
          *have_set = true;
        }
      return NULL;
    }
  if (strcmp(opt, "--rekey") == 0)
    {
      _start_set(vp, arg);
      *have_set = true;
      return NULL;
    }
  const char *name = strcmp(opt, "--replace") == 0 ? "--replace-prefix" : opt;
  return _add_transform(vp, name, arg, *have_set);
}

ValuePairs *
value_pairs_new_from_argv(int argc, char **argv, char **error)
{
  ValuePairs *vp = g_new0(ValuePairs, 1);
  vp->patterns = g_array_new(FALSE, TRUE, sizeof(Pattern));
  vp->pairs = g_array_new(FALSE, TRUE, sizeof(Pair));
  vp->sets = g_array_new(FALSE, TRUE, sizeof(TransformSet));
  bool have_set = false;
  char *err = NULL;
  for (int i = 0; i < argc && !err; i++)
    {
      const char *a = argv[i];
      if (strncmp(a, "--", 2) != 0 || !a[2])
        {
          err = _add_pair(vp, a);
          continue;
        }
      if (strcmp(a, "--omit-empty-values") == 0)
        {
          vp->omit_empty = true;
          continue;
        }
      char *opt = g_strdup(a);
      char *eq = strchr(opt, '=');
      const char *arg = NULL;
      if (eq)
        {
          *eq = '\0';
          arg = eq + 1;
        }
      bool known = false;
      for (const char *const *o = options_with_arg; *o; o++)
        known = known || strcmp(*o, opt) == 0;
      if (!known)
        err = g_strdup_printf("Unknown option %s", opt);
      else if (!arg && i + 1 >= argc)
        err = g_strdup_printf("Missing argument for %s", opt);
      else
        err = _apply_option(vp, opt, arg ? arg : argv[++i], &have_set);
      g_free(opt);
    }
  if (err)
    {
      value_pairs_free(vp);
      *error = err;
      return NULL;
    }
  pthread_once(&macros_once, _macros_init);
  vp->macro_sel = g_array_new(FALSE, FALSE, sizeof(size_t));
  for (size_t i = 0; i < n_macros; i++)
    if (_selected(vp, macros[i].name, macros[i].name_len, macros[i].scopes))
      g_array_append_val(vp->macro_sel, i);
  for (NVHandle h = 1; h < LM_V_MAX; h++)
    {
      size_t len;
      const char *name = log_msg_get_value_name(h, &len);
      vp->builtin_sel[h] = name && _selected(vp, name, (uint32_t) len, VPS_NV_PAIRS);
    }
  vp->any_nv = vp->patterns->len > 0 || (vp->scopes & (VPS_NV_PAIRS | VPS_DOT_NV_PAIRS | VPS_SDATA));
  return vp;
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

static bool
_selected(const ValuePairs *vp, const char *name, uint32_t len, uint32_t groups)
{
  bool inc = (vp->scopes & groups) != 0;
  const Pattern *p = (const Pattern *) vp->patterns->data;
  /* the last matching pattern decides; one that would not change the
   * answer need not be matched */
  for (guint i = 0; i < vp->patterns->len; i++)
    if (p[i].include != inc && _glob_match(&p[i].glob, name, len))
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
      if (sets[i].ops->len == 0 || !_glob_match(&sets[i].glob, out->str, out->len))
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
  if (_selected(c->vp, name, len, groups))
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
  /* equal names: the pair first, so the duplicate after it is dropped */
  return (int) (b->flags & VPE_PAIR) - (int) (a->flags & VPE_PAIR);
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
      const MacroCandidate *m = &macros[sel[i]];
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
    _add_template(&c, p[i].name, (uint32_t) strlen(p[i].name), p[i].value, VPE_PAIR, true, p[i].type);

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
