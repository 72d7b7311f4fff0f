/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "cfg-internal.h"
#include "sluice/cfg-drivers.h"
#include "sluice/cfg-syslogng.h"

#include <glib.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

const CfgDriverDef *
cfg_driver_find(const CfgDriverDef *const *defs, CfgObjectKind kind, const char *name)
{
  for (int i = 0; defs[i]; i++)
    if (defs[i]->kind == kind && cfg_name_equal(defs[i]->name, name))
      return defs[i];
  return NULL;
}

typedef struct Checker
{
  const CfgDriverDef *const *defs;
  bool check_filters;
  CfgError *err;
} Checker;

static bool
_fail(Checker *c, const CfgLocation *loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static bool
_fail(Checker *c, const CfgLocation *loc, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  char *msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  cfg_error_set(c->err, loc, "%s", msg);
  g_free(msg);
  return false;
}

static bool
_unknown(Checker *c, const CfgNode *call, CfgObjectKind kind)
{
  GPtrArray *names = g_ptr_array_new();
  for (int i = 0; c->defs[i]; i++)
    if (c->defs[i]->kind == kind)
      g_ptr_array_add(names, (gpointer) c->defs[i]->name);
  g_ptr_array_add(names, NULL);
  const char *near = cfg_nearest_name(call->name, (const char *const *) names->pdata);
  char what[48];
  if (kind == CFG_OBJ_FILTER)
    snprintf(what, sizeof(what), "filter function");
  else
    snprintf(what, sizeof(what), "%s driver", cfg_object_kind_name(kind));
  bool ok;
  char *scl = cfg_scl_file_defining(cfg_object_kind_name(kind), call->name);
  if (scl)
    ok = _fail(c, &call->loc, "'%s()' is a %s of the configuration library (scl/%s): add @include \"scl.conf\"",
               call->name, kind == CFG_OBJ_FILTER ? "filter" : cfg_object_kind_name(kind), scl);
  else if (cfg_syslogng_knows_driver(kind, call->name))
    ok = _fail(c, &call->loc, "'%s()' is a syslog-ng %s that Sluice does not support yet", call->name,
               kind == CFG_OBJ_FILTER ? "filter function" : cfg_object_kind_name(kind));
  else if (near)
    ok = _fail(c, &call->loc, "unknown %s '%s'; did you mean '%s'?", what, call->name, near);
  else
    ok = _fail(c, &call->loc, "%s '%s' is not supported by Sluice", what, call->name);
  g_free(scl);
  g_ptr_array_free(names, TRUE);
  return ok;
}

static bool
_check_call(Checker *c, const CfgNode *call, CfgObjectKind kind)
{
  const CfgDriverDef *def = cfg_driver_find(c->defs, kind, call->name);
  if (!def)
    return _unknown(c, call, kind);
  if ((int) call->n_args < def->min_args || (int) call->n_args > def->max_args)
    {
      if (def->max_args == 0)
        return _fail(c, &call->args[0].loc, "%s() takes no positional arguments", call->name);
      return _fail(c, &call->loc, "%s() takes %d to %d positional arguments, got %zu", call->name, def->min_args,
                   def->max_args, call->n_args);
    }
  if (!def->options)
    {
      if (call->n_children > 0 && kind != CFG_OBJ_FILTER)
        return _fail(c, &call->children[0]->loc, "%s() takes no options", call->name);
      return true;
    }
  /* apply into a scratch struct: the same code the daemon will run */
  void *scratch = g_malloc0(def->struct_size ? def->struct_size : 1);
  char *what = g_strdup_printf("%s()", call->name);
  cfg_options_defaults(def->options, scratch);
  /* (what rows inherit from options {} does not matter for the check) */
  bool ok = cfg_options_apply_inherit(def->options, call, scratch, what, NULL, c->err);
  cfg_options_free(def->options, scratch);
  g_free(what);
  g_free(scratch);
  return ok;
}

static bool _check_node(Checker *c, const CfgNode *n, CfgObjectKind in);

static bool
_check_expr(Checker *c, const CfgNode *e)
{
  if (!e)
    return true;
  if (e->kind == CFG_NODE_CALL)
    return !c->check_filters || _check_call(c, e, CFG_OBJ_FILTER);
  for (size_t i = 0; i < e->n_children; i++)
    if (!_check_expr(c, e->children[i]))
      return false;
  return true;
}

/* in: the kind of object whose body n is part of (NONE in log paths). */
static bool
_check_node(Checker *c, const CfgNode *n, CfgObjectKind in)
{
  switch (n->kind)
    {
    case CFG_NODE_OPTIONS:
    case CFG_NODE_REF:
      return true;
    case CFG_NODE_CALL:
      if (in == CFG_OBJ_NONE || in == CFG_OBJ_TEMPLATE)
        return true; /* log-path flags(), checked by the resolver */
      if (in == CFG_OBJ_FILTER)
        return _check_expr(c, n);
      return _check_call(c, n, in);
    case CFG_NODE_DEFINE:
    case CFG_NODE_INLINE:
      in = n->obj;
      if (in == CFG_OBJ_FILTER)
        return _check_expr(c, n->n_children ? n->children[0] : NULL);
      break;
    case CFG_NODE_BRANCH:
      if (!_check_expr(c, n->cond))
        return false;
      break;
    case CFG_NODE_CHANNEL:
    case CFG_NODE_JUNCTION:
      /* log-path items, also inside a parser statement (app-parser()) */
      in = CFG_OBJ_NONE;
      break;
    case CFG_NODE_AND:
    case CFG_NODE_OR:
    case CFG_NODE_NOT:
    case CFG_NODE_CMP:
      return _check_expr(c, n);
    default:
      break;
    }
  for (size_t i = 0; i < n->n_children; i++)
    if (!_check_node(c, n->children[i], in))
      return false;
  return true;
}

bool
cfg_check_drivers(const CfgTree *tree, const CfgDriverDef *const *defs, CfgError *err)
{
  Checker c = { defs, false, err };
  for (int i = 0; defs[i]; i++)
    if (defs[i]->kind == CFG_OBJ_FILTER)
      c.check_filters = true;
  return _check_node(&c, tree->root, CFG_OBJ_NONE);
}

void
cfg_error_print(const CfgError *err, FILE *out)
{
  char *head = cfg_error_format(err);
  fprintf(out, "%s\n", head ? head : "error");
  free(head);

  gchar *text = NULL;
  gsize len = 0;
  if (!err->file || err->line < 1 || !g_file_get_contents(err->file, &text, &len, NULL))
    return;
  const char *p = text, *end = text + len;
  for (int l = 1; l < err->line && p < end; l++)
    {
      const char *nl = memchr(p, '\n', (size_t) (end - p));
      p = nl ? nl + 1 : end;
    }
  if (p < end)
    {
      const char *nl = memchr(p, '\n', (size_t) (end - p));
      int n = (int) ((nl ? nl : end) - p);
      fprintf(out, "%5d | %.*s\n      | ", err->line, n, p);
      /* keep tabs so the caret lines up under the same column */
      for (int i = 0; i < err->col - 1 && i < n; i++)
        fputc(p[i] == '\t' ? '\t' : ' ', out);
      fputs("^\n", out);
    }
  g_free(text);
}

int
cfg_syntax_only(const char *path, const char *preprocess_into, const CfgDriverDef *const *defs, FILE *diag)
{
  CfgError err = { 0 };
  bool ok = true;

  if (preprocess_into)
    {
      FILE *out = fopen(preprocess_into, "w");
      if (!out)
        {
          fprintf(diag, "cannot open '%s' for writing: %s\n", preprocess_into, g_strerror(errno));
          return 1;
        }
      ok = cfg_preprocess_file_into(path, NULL, out, &err);
      if (fclose(out) != 0 && ok)
        {
          fprintf(diag, "cannot write '%s': %s\n", preprocess_into, g_strerror(errno));
          return 1;
        }
    }
  CfgTree *tree = ok ? cfg_parse_file(path, NULL, &err) : NULL;
  if (tree)
    {
      CfgGlobalOptions go;
      ok = cfg_global_options_load(&go, tree, &err) && (!defs || cfg_check_drivers(tree, defs, &err));
      cfg_options_free(cfg_global_options_table, &go);
      cfg_tree_free(tree);
    }
  else
    ok = false;
  if (!ok)
    cfg_error_print(&err, diag);
  cfg_error_clear(&err);
  return ok ? 0 : 1;
}
