/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "sluice/cfg-options.h"
#include "sluice/internal-log.h"

#include "sluice/timeutil.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>

static char
_fold(char c)
{
  return c == '_' ? '-' : c;
}

bool
cfg_name_equal(const char *a, const char *b)
{
  for (; *a && *b; a++, b++)
    if (_fold(*a) != _fold(*b))
      return false;
  return *a == *b;
}

const CfgNode *
cfg_option_given(const CfgNode *call, const char *name)
{
  const CfgNode *found = NULL;
  for (size_t i = 0; call && i < call->n_children; i++)
    if (call->children[i]->kind == CFG_NODE_CALL && cfg_name_equal(call->children[i]->name, name))
      found = call->children[i];
  return found;
}

size_t
cfg_name_distance(const char *a, const char *b)
{
  size_t la = strlen(a), lb = strlen(b);
  size_t *row = g_new(size_t, lb + 1);
  for (size_t j = 0; j <= lb; j++)
    row[j] = j;
  for (size_t i = 1; i <= la; i++)
    {
      size_t diag = row[0];
      row[0] = i;
      for (size_t j = 1; j <= lb; j++)
        {
          size_t up = row[j];
          size_t cost = _fold(a[i - 1]) == _fold(b[j - 1]) ? 0 : 1;
          size_t best = MIN(up + 1, row[j - 1] + 1);
          row[j] = MIN(best, diag + cost);
          diag = up;
        }
    }
  size_t d = row[lb];
  g_free(row);
  return d;
}

const char *
cfg_nearest_name(const char *name, const char *const *candidates)
{
  if (!candidates)
    return NULL;
  size_t limit = MAX((size_t) 2, strlen(name) / 3);
  const char *best = NULL;
  size_t best_d = limit + 1;
  for (int i = 0; candidates[i]; i++)
    {
      size_t d = cfg_name_distance(name, candidates[i]);
      if (d < best_d)
        {
          best = candidates[i];
          best_d = d;
        }
    }
  return best;
}

bool
cfg_parse_number(const char *text, bool allow_suffix, int64_t *out)
{
  const char *p = text;
  bool neg = false;
  int base = 10;

  if (*p == '+' || *p == '-')
    neg = *p++ == '-';
  if (!g_ascii_isdigit(*p))
    return false;
  if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && g_ascii_isxdigit(p[2]))
    {
      base = 16;
      p += 2;
    }
  else if (p[0] == '0' && g_ascii_isdigit(p[1]))
    {
      /* "0644" is octal, but "08" is eight: syslog-ng's octal rule does
       * not match it and the decimal one does */
      const char *q = p;
      while (*q >= '0' && *q <= '7')
        q++;
      if (!g_ascii_isdigit(*q))
        base = 8;
    }

  uint64_t v = 0;
  for (; g_ascii_isxdigit(*p); p++)
    {
      int d = g_ascii_xdigit_value(*p);
      if (d >= base)
        break;
      if (v > ((uint64_t) INT64_MAX - (uint64_t) d) / (uint64_t) base)
        return false;
      v = v * (uint64_t) base + (uint64_t) d;
    }
  if (*p && allow_suffix && base != 16)
    {
      uint64_t unit = 1000;
      int power;
      switch (g_ascii_tolower(*p))
        {
        case 'k': power = 1; break;
        case 'm': power = 2; break;
        case 'g': power = 3; break;
        default: return false;
        }
      p++;
      if (g_ascii_tolower(*p) == 'i')
        {
          unit = 1024;
          p++;
        }
      if (g_ascii_tolower(*p) == 'b')
        p++;
      for (int i = 0; i < power; i++)
        {
          if (v > (uint64_t) INT64_MAX / unit)
            return false;
          v *= unit;
        }
    }
  if (*p)
    return false;
  *out = neg ? -(int64_t) v : (int64_t) v;
  return true;
}

const CfgOption *
cfg_options_find(const CfgOption *table, const char *name)
{
  /* syslog-ng 3.38's old names, taken wherever the new one is */
  static const char *const old_names[][2] = {
    { "sync", "flush-lines" },
    { "sync-freq", "flush-lines" },
  };
  for (const CfgOption *o = table; o->name; o++)
    if (cfg_name_equal(o->name, name))
      return o;
  for (size_t i = 0; i < G_N_ELEMENTS(old_names); i++)
    if (cfg_name_equal(name, old_names[i][0]))
      return cfg_options_find(table, old_names[i][1]);
  return NULL;
}

const char *
cfg_options_nearest(const CfgOption *table, const char *name)
{
  GPtrArray *names = g_ptr_array_new();
  for (const CfgOption *o = table; o->name; o++)
    g_ptr_array_add(names, (gpointer) o->name);
  g_ptr_array_add(names, NULL);
  const char *near = cfg_nearest_name(name, (const char *const *) names->pdata);
  g_ptr_array_free(names, TRUE);
  return near;
}

#define FIELD(base, opt, type) ((type *) ((char *) (base) + (opt)->offset))

void
cfg_options_defaults(const CfgOption *table, void *base)
{
  for (const CfgOption *o = table; o->name; o++)
    switch (o->type)
      {
      case CFG_OPT_BOOL: *FIELD(base, o, bool) = o->def_int != 0; break;
      case CFG_OPT_INT:
      case CFG_OPT_SIZE: *FIELD(base, o, int64_t) = o->def_int; break;
      case CFG_OPT_ENUM: *FIELD(base, o, int) = (int) o->def_int; break;
      case CFG_OPT_FLAGS: *FIELD(base, o, uint32_t) = (uint32_t) o->def_int; break;
      case CFG_OPT_STRING:
      case CFG_OPT_TEMPLATE: *FIELD(base, o, char *) = g_strdup(o->def_str); break;
      case CFG_OPT_STRING_LIST:
      case CFG_OPT_PAIRS: *FIELD(base, o, char **) = NULL; break;
      case CFG_OPT_BLOCK:
        if (!o->detached)
          cfg_options_defaults(o->sub, FIELD(base, o, char));
        break;
      case CFG_OPT_EXPR: *FIELD(base, o, const CfgNode *) = NULL; break;
      case CFG_OPT_REMOVED:
      case CFG_OPT_RAW:
      case CFG_OPT_IGNORED: break;
      }
}

void
cfg_options_free(const CfgOption *table, void *base)
{
  for (const CfgOption *o = table; o->name; o++)
    switch (o->type)
      {
      case CFG_OPT_STRING:
      case CFG_OPT_TEMPLATE: g_clear_pointer(FIELD(base, o, char *), g_free); break;
      case CFG_OPT_STRING_LIST:
      case CFG_OPT_PAIRS: g_clear_pointer(FIELD(base, o, char **), g_strfreev); break;
      case CFG_OPT_BLOCK:
        if (!o->detached)
          cfg_options_free(o->sub, FIELD(base, o, char));
        break;
      default: break;
      }
}

static bool
_fail(CfgError *err, const CfgLocation *loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static bool
_fail(CfgError *err, const CfgLocation *loc, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  char *msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  cfg_error_set(err, loc, "%s", msg);
  g_free(msg);
  return false;
}

static int
_name_index(const char *const *names, const char *v)
{
  for (int i = 0; names && names[i]; i++)
    if (cfg_name_equal(names[i], v))
      return i;
  return -1;
}

static bool
_bad_name(const CfgOption *o, const CfgValue *v, CfgError *err)
{
  const char *near = cfg_nearest_name(v->str, o->names);
  return _fail(err, &v->loc, "unknown value '%s' for option '%s'%s%s%s", v->str, o->name,
               near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
}

/* A yes/no value: a number, yes/on or no/off; false for anything else. */
static bool
_bool_value(const CfgValue *v, bool *out)
{
  if (v->type == CFG_VAL_NUMBER)
    *out = v->num != 0;
  else if (v->type == CFG_VAL_IDENT && (cfg_name_equal(v->str, "yes") || cfg_name_equal(v->str, "on")))
    *out = true;
  else if (v->type == CFG_VAL_IDENT && (cfg_name_equal(v->str, "no") || cfg_name_equal(v->str, "off")))
    *out = false;
  else
    return false;
  return true;
}

static bool
_set_bool(const CfgOption *o, const CfgValue *v, void *base, CfgError *err)
{
  if (!_bool_value(v, FIELD(base, o, bool)))
    return _fail(err, &v->loc, "option '%s' takes yes or no, got '%s'", o->name, v->str);
  return true;
}

static bool
_set_int(const CfgOption *o, const CfgValue *v, void *base, CfgError *err)
{
  if (v->type != CFG_VAL_NUMBER)
    return _fail(err, &v->loc, "option '%s' takes a number, got '%s'", o->name, v->str);
  if (o->min < o->max && (v->num < o->min || v->num > o->max))
    return _fail(err, &v->loc, "%s(%s) is out of range; it must be between %lld and %lld", o->name, v->str,
                 (long long) o->min, (long long) o->max);
  *FIELD(base, o, int64_t) = v->num;
  return true;
}

static bool
_set_string(const CfgOption *o, const CfgNode *call, void *base, CfgError *err)
{
  const char *s;
  if (call->n_args == 0 && o->empty_ok)
    s = "";
  else if (call->n_args == 1 && call->args[0].type != CFG_VAL_OP)
    s = call->args[0].str;
  else
    return _fail(err, &call->loc, "option '%s' takes one string", o->name);
  char **field = FIELD(base, o, char *);
  g_free(*field);
  *field = g_strdup(s);
  return true;
}

static bool
_set_list(const CfgOption *o, const CfgNode *call, void *base, CfgError *err)
{
  GPtrArray *list = g_ptr_array_new();
  for (size_t i = 0; i < call->n_args; i++)
    {
      if (call->args[i].type == CFG_VAL_OP)
        {
          g_ptr_array_add(list, NULL);
          g_strfreev((char **) g_ptr_array_free(list, FALSE));
          return _fail(err, &call->args[i].loc, "option '%s' takes a list of strings", o->name);
        }
      g_ptr_array_add(list, g_strdup(call->args[i].str));
    }
  g_ptr_array_add(list, NULL);
  char ***field = FIELD(base, o, char **);
  g_strfreev(*field);
  *field = (char **) g_ptr_array_free(list, FALSE);
  return true;
}

/* name => value ...: appended to what the option already holds */
static bool
_set_pairs(const CfgOption *o, const CfgNode *call, void *base, CfgError *err)
{
  for (size_t i = 0; i < call->n_args; i += 3)
    if (i + 2 >= call->n_args || call->args[i].type == CFG_VAL_OP || call->args[i + 1].type != CFG_VAL_OP
        || strcmp(call->args[i + 1].str, "=>") != 0 || call->args[i + 2].type == CFG_VAL_OP)
      return _fail(err, &call->args[i].loc, "option '%s' takes \"name\" => \"value\" pairs", o->name);
  char ***field = FIELD(base, o, char **);
  guint had = *field ? g_strv_length(*field) : 0;
  char **list = g_new0(char *, had + (call->n_args / 3) * 2 + 1);
  for (guint i = 0; i < had; i++)
    list[i] = (*field)[i];
  for (size_t i = 0, k = had; i < call->n_args; i += 3)
    {
      list[k++] = g_strdup(call->args[i].str);
      list[k++] = g_strdup(call->args[i + 2].str);
    }
  g_free(*field);
  *field = list;
  return true;
}

static bool
_set_flags(const CfgOption *o, const CfgNode *call, void *base, CfgError *err)
{
  for (size_t i = 0; i < call->n_args; i++)
    {
      int k = _name_index(o->names, call->args[i].str);
      if (k < 0 || call->args[i].type == CFG_VAL_OP)
        return _bad_name(o, &call->args[i], err);
      *FIELD(base, o, uint32_t) |= 1u << k;
    }
  return true;
}

static bool
_apply_value(const CfgOption *o, const CfgNode *call, void *base, CfgError *err)
{
  if (o->type == CFG_OPT_REMOVED)
    return _fail(err, &call->loc, "option '%s' is not supported: %s", o->name, o->def_str);
  if (o->type == CFG_OPT_RAW)
    return true;
  if (o->type == CFG_OPT_IGNORED || o->warning)
    {
      char where[256];
      snprintf(where, sizeof(where), "%s:%d:%d", call->loc.file, call->loc.line, call->loc.col);
      sluice_log(SLUICE_LOG_WARNING, o->warning ? o->warning : o->def_str, "location", where, NULL);
      if (o->type == CFG_OPT_IGNORED)
        return true;
    }
  if (o->type == CFG_OPT_BLOCK)
    {
      if (call->n_args == 1 && call->n_children == 0 && o->def_str)
        {
          /* stats(600): the old spelling of stats(freq(600)) */
          const CfgOption *sub = cfg_options_find(o->sub, o->def_str);
          CfgNode alias = *call;
          alias.name = (char *) o->def_str;
          return sub && _apply_value(sub, &alias, FIELD(base, o, char), err);
        }
      if (call->n_args > 0)
        return _fail(err, &call->args[0].loc, "option '%s' takes only options like 'name(value)'", o->name);
      if (o->detached)
        {
          void *scratch = g_malloc0((gsize) o->def_int);
          cfg_options_defaults(o->sub, scratch);
          bool ok = cfg_options_apply(o->sub, call, scratch, o->name, err);
          const char *problem = ok && o->check ? o->check(o, scratch) : NULL;
          cfg_options_free(o->sub, scratch);
          g_free(scratch);
          return ok && (!problem || _fail(err, &call->loc, "%s(): %s", o->name, problem));
        }
      return cfg_options_apply(o->sub, call, FIELD(base, o, char), o->name, err);
    }
  if (o->type == CFG_OPT_EXPR)
    {
      /* the parser reads condition(...) as one expression child */
      if (call->n_args > 0 || call->n_children != 1)
        return _fail(err, &call->loc, "option '%s' takes one filter expression", o->name);
      *FIELD(base, o, const CfgNode *) = call->children[0];
      return true;
    }
  if (call->n_children > 0)
    return _fail(err, &call->children[0]->loc, "option '%s' has no option '%s'", o->name, call->children[0]->name);
  switch (o->type)
    {
    case CFG_OPT_STRING:
    case CFG_OPT_TEMPLATE: return _set_string(o, call, base, err);
    case CFG_OPT_STRING_LIST: return _set_list(o, call, base, err);
    case CFG_OPT_PAIRS: return _set_pairs(o, call, base, err);
    case CFG_OPT_FLAGS: return _set_flags(o, call, base, err);
    default: break;
    }
  if (call->n_args != 1)
    return _fail(err, &call->loc, "option '%s' takes exactly one value, got %zu", o->name, call->n_args);
  const CfgValue *v = &call->args[0];
  switch (o->type)
    {
    case CFG_OPT_BOOL: return _set_bool(o, v, base, err);
    case CFG_OPT_ENUM:
      {
        int k = _name_index(o->names, v->str);
        /* an enum whose first values are no and yes (use-dns()) takes every
         * spelling of a yes/no option for them */
        bool b;
        if (k < 0 && o->names[0] && o->names[1] && !strcmp(o->names[0], "no") && !strcmp(o->names[1], "yes")
            && _bool_value(v, &b))
          k = b ? 1 : 0;
        if (k < 0 || v->type == CFG_VAL_OP)
          return _bad_name(o, v, err);
        *FIELD(base, o, int) = k;
        return true;
      }
    default: return _set_int(o, v, base, err);
    }
}

bool
cfg_option_apply_one(const CfgOption *table, const CfgNode *call, void *base, const char *what, CfgError *err)
{
  const CfgOption *o = cfg_options_find(table, call->name);
  if (!o)
    {
      const char *near = cfg_options_nearest(table, call->name);
      return _fail(err, &call->loc, "unknown option '%s' in %s%s%s%s", call->name, what,
                   near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
    }
  if (!_apply_value(o, call, base, err))
    return false;
  const char *problem = o->check && !o->detached ? o->check(o, FIELD(base, o, char)) : NULL;
  if (problem)
    return _fail(err, &call->loc, "%s(): %s", o->name, problem);
  return true;
}

static bool
_has_inherit(const CfgOption *table)
{
  for (const CfgOption *o = table; o->name; o++)
    if (o->inherit)
      return true;
  return false;
}

static bool
_apply(const CfgOption *table, const CfgNode *node, void *base, const char *what, CfgError *err)
{
  for (size_t i = 0; i < node->n_children; i++)
    {
      const CfgNode *c = node->children[i];
      if (c->kind != CFG_NODE_CALL)
        return _fail(err, &c->loc, "unexpected block in %s", what);
      if (!cfg_option_apply_one(table, c, base, what, err))
        return false;
    }
  return true;
}

bool
cfg_options_apply(const CfgOption *table, const CfgNode *node, void *base, const char *what, CfgError *err)
{
  /* rows that default from options {} would silently keep their own
   * defaults here: such a table goes through cfg_options_apply_inherit */
  if (_has_inherit(table))
    g_error("%s: option table with inheriting rows applied without options {}", what);
  return _apply(table, node, base, what, err);
}

/* Whether the call gives row o, by its name or an alias's (a row of the
 * same field). */
static bool
_row_given(const CfgOption *table, const CfgOption *o, const CfgNode *call)
{
  if (!call)
    return false;
  for (const CfgOption *a = table; a->name; a++)
    if (a->offset == o->offset && a->type == o->type && cfg_option_given(call, a->name))
      return true;
  return false;
}

static void
_inherit(const CfgOption *table, const CfgNode *call, void *base, const CfgGlobalOptions *g)
{
  if (!g)
    return;
  for (const CfgOption *o = table; o->name; o++)
    {
      if (!o->inherit || _row_given(table, o, call))
        continue;
      const CfgOption *go = cfg_options_find(cfg_global_options_table, o->inherit);
      if (!go || go->type != o->type)
        g_error("option %s inherits %s, which is no options {} option of its type", o->name, o->inherit);
      const void *from = (const char *) g + go->offset;
      switch (o->type)
        {
        case CFG_OPT_BOOL: *FIELD(base, o, bool) = *(const bool *) from; break;
        case CFG_OPT_INT:
        case CFG_OPT_SIZE: *FIELD(base, o, int64_t) = *(const int64_t *) from; break;
        case CFG_OPT_ENUM: *FIELD(base, o, int) = *(const int *) from; break;
        case CFG_OPT_FLAGS: *FIELD(base, o, uint32_t) = *(const uint32_t *) from; break;
        case CFG_OPT_STRING:
        case CFG_OPT_TEMPLATE:
          g_free(*FIELD(base, o, char *));
          *FIELD(base, o, char *) = g_strdup(*(char *const *) from);
          break;
        default: g_error("option %s: inheriting a value of this type is not built", o->name);
        }
    }
}

bool
cfg_options_apply_inherit(const CfgOption *table, const CfgNode *node, void *base, const char *what,
                          const CfgGlobalOptions *g, CfgError *err)
{
  if (!_apply(table, node, base, what, err))
    return false;
  _inherit(table, node, base, g);
  return true;
}

void
cfg_options_inherit_all(const CfgOption *table, void *base, const CfgGlobalOptions *g)
{
  _inherit(table, NULL, base, g);
}

/* ---- shared by the drivers' tables -------------------------------------- */

const char *const cfg_facility_names[] = {
  "kern",   "user",   "mail",   "daemon", "auth",   "syslog",   "lpr",     "news",
  "uucp",   "cron",   "authpriv", "ftp",  "ntp",    "security", "console", "solaris-cron",
  "local0", "local1", "local2", "local3", "local4", "local5",   "local6",  "local7",
  NULL,
};

const char *const cfg_use_dns_names[] = { "no", "yes", "persist-only", NULL };
const char *const cfg_yes_no_names[] = { "no", "yes", NULL };

const char *const cfg_level_names[] = { "emerg", "alert", "crit",  "err",   "warning", "notice",
                                        "info",  "debug", "panic", "error", "warn",    NULL };
const int cfg_level_codes[] = { 0, 1, 2, 3, 4, 5, 6, 7, 0, 3, 4 };

const char *
cfg_check_port(const CfgOption *opt, const void *field)
{
  const char *p = *(char *const *) field;
  if (!p || !*p)
    return "expects a port number or a service name";
  char *end;
  long v = strtol(p, &end, 10);
  if (*end == '\0' && (v < 1 || v > 65535))
    return "expects a port number between 1 and 65535";
  return NULL;
}

const char *
cfg_check_time_zone(const CfgOption *opt, const void *field)
{
  const char *z = *(char *const *) field;
  if (!z || !tz_get(z, NULL))
    return "expects a time zone name like \"Europe/Budapest\" or \"+01:00\"";
  return NULL;
}
