/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * value-pairs: the command line (scopes, patterns, key=value pairs with
 * type hints, rekey sets) and the table of macro candidates, which is
 * compiled once per process and then shared read-only.  What a parsed
 * ValuePairs picks among the fixed names (macros, built-in values) is
 * decided here, once, so collecting only looks at the message.
 */
#include "value-pairs-internal.h"

#include "sluice/cfg-options.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

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

/* ---- the macro table ----------------------------------------------------- */

/* syslog-ng 3.38's macros, as all-macros/everything and the patterns see
 * them, less SYSUPTIME, RUNID, PROTO, DESTIP and DESTPORT, which
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
  { "HOSTID", "$HOSTID", VPS_ALL_MACROS },
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

MacroCandidate *vp_macros;
size_t vp_n_macros;
static pthread_once_t macros_once = PTHREAD_ONCE_INIT;

static void
_macro_add(const char *name, const char *template_text, uint32_t scopes)
{
  char *error = NULL;
  LogTemplate *t = log_template_compile(template_text, &error);
  g_assert(t); /* built-in macro names always compile */
  MacroCandidate *m = &vp_macros[vp_n_macros++];
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
  vp_macros = g_new0(MacroCandidate, G_N_ELEMENTS(date_macro_names) * G_N_ELEMENTS(prefixes)
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

void
vp_macros_init(void)
{
  pthread_once(&macros_once, _macros_init);
}

void
value_pairs_free(ValuePairs *vp)
{
  if (!vp)
    return;
  for (guint i = 0; i < vp->patterns->len; i++)
    glob_clear(&g_array_index(vp->patterns, Pattern, i).glob);
  for (guint i = 0; i < vp->pairs->len; i++)
    {
      Pair *p = &g_array_index(vp->pairs, Pair, i);
      g_free(p->name);
      log_template_unref(p->value);
    }
  for (guint i = 0; i < vp->sets->len; i++)
    {
      TransformSet *s = &g_array_index(vp->sets, TransformSet, i);
      glob_clear(&s->glob);
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
  if (vp->fixed)
    {
      for (guint i = 0; i < vp->fixed->len; i++)
        g_free((char *) g_array_index(vp->fixed, ValuePairsFixed, i).name);
      g_array_free(vp->fixed, TRUE);
    }
  if (vp->statics)
    {
      /* the built-in values' names are its own, the others fixed's */
      for (guint i = 0; i < vp->statics->len; i++)
        if (g_array_index(vp->statics, ValuePairsFixed, i).builtin)
          g_free((char *) g_array_index(vp->statics, ValuePairsFixed, i).name);
      g_array_free(vp->statics, TRUE);
    }
  g_free(vp);
}

static const char *const type_names[] = {
  [VP_TYPE_STRING] = "string",   [VP_TYPE_LITERAL] = "literal", [VP_TYPE_INT] = "int",
  [VP_TYPE_DOUBLE] = "double",   [VP_TYPE_BOOLEAN] = "boolean", [VP_TYPE_LIST] = "list",
  [VP_TYPE_JSON] = "json",       [VP_TYPE_DATETIME] = "datetime", [VP_TYPE_INT64] = "int64",
};

const char *
value_pairs_type_name(ValuePairsType type)
{
  return type == VP_TYPE_INT ? "int32" : type_names[type];
}

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
  } aliases[] = { { "int32", VP_TYPE_INT }, { "float", VP_TYPE_DOUBLE } };
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
        if (cfg_name_equal(scope_names[i].name, *s)) /* - and _ alike, as syslog-ng */
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
  TransformSet s = { glob_new(glob), g_array_new(FALSE, TRUE, sizeof(Transform)) };
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
      Pattern p = { glob_new(arg), opt[2] == 'k' };
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

/* -s none is --scope none, and so on (syslog-ng 3.38's letters, checked
 * with it: there is none for --shift-levels) */
static const char *
_short_option(char c)
{
  switch (c)
    {
    case 's': return "--scope";
    case 'k': return "--key";
    case 'x': return "--exclude";
    case 'p': return "--pair";
    case 'r': return "--rekey";
    case 'A': return "--add-prefix";
    case 'S': return "--shift";
    case 'R': return "--replace-prefix";
    default: return NULL;
    }
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
      if (strcmp(a, "--") == 0)
        continue; /* the end of the options: what follows is read as ever */
      if (a[0] == '-' && a[1] && a[1] != '-')
        {
          /* syslog-ng 3.38's short options, each with its argument next */
          const char *opt = a[2] ? NULL : _short_option(a[1]);
          if (!opt)
            err = g_strdup_printf("Unknown option %s", a);
          else if (i + 1 >= argc)
            err = g_strdup_printf("Missing argument for %s", a);
          else
            err = _apply_option(vp, opt, argv[++i], &have_set);
          continue;
        }
      if (strncmp(a, "--", 2) != 0)
        {
          /* a bare word is a key, as syslog-ng 3.38 reads one ("PROG*"
           * is --key PROG*); with '=' it is a pair */
          err = strchr(a, '=') ? _add_pair(vp, a) : _apply_option(vp, "--key", a, &have_set);
          continue;
        }
      if (strcmp(a, "--omit-empty-values") == 0)
        {
          vp->omit_empty = true;
          continue;
        }
      if (strcmp(a, "--leave-initial-dot") == 0)
        {
          vp->leave_initial_dot = true;
          continue;
        }
      /* syslog-ng 3.38 takes --auto-cast, --cast and --no-cast and writes
       * every value as it would without them (the SCL's format-cim and
       * format-gelf give --auto-cast, slack() and discord() --cast) */
      if (strcmp(a, "--auto-cast") == 0 || strcmp(a, "--cast") == 0 || strcmp(a, "--no-cast") == 0)
        continue;
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
  vp_fixed_build(vp);
  /* TRANSPORT is left out whatever picks it: Sluice's sources set it
   * (syslog-ng 4's names) where syslog-ng 3.38 sets no such value, so 3.38
   * never writes it, under nv-pairs nor under a pattern (checked with
   * tcp(), udp(), network() and syslog() in compare-nv-pairs) */
  for (NVHandle h = 1; h < LM_V_MAX; h++)
    {
      size_t len;
      const char *name = log_msg_get_value_name(h, &len);
      vp->builtin_sel[h] =
          h != LM_V_TRANSPORT && name && vp_selected(vp, name, (uint32_t) len, VPS_NV_PAIRS);
    }
  vp->any_nv = vp->patterns->len > 0 || (vp->scopes & (VPS_NV_PAIRS | VPS_DOT_NV_PAIRS | VPS_SDATA));
  vp_static_build(vp);
  return vp;
}

