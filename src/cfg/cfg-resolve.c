/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Resolution: one name table per object kind, filled from every top-level
 * definition before any reference is looked at, so objects may be used
 * before they are defined.  Duplicate names are errors, as in syslog-ng,
 * unless allow-config-dups is set or @version is below 3.3: then the last
 * definition wins and the earlier ones leave the tree; unknown references are errors
 * naming the nearest defined name (syslog-ng only finds those when
 * starting), and log-path flags are checked against syslog-ng's list
 * (it only warns about unknown ones; we refuse them).
 */
#include "cfg-internal.h"
#include "sluice/cfg-options.h"

#include <string.h>

static const char *const log_flag_names[] = { "final", "fallback", "catchall", "flow-control",
                                              "drop-unmatched", NULL };

typedef struct Resolver
{
  GHashTable *names[CFG_OBJ_MAX]; /* name -> DEFINE node */
  CfgError *err;
} Resolver;

static bool
_fail(Resolver *r, const CfgLocation *loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static bool
_fail(Resolver *r, const CfgLocation *loc, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  char *msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  cfg_error_set(r->err, loc, "%s", msg);
  g_free(msg);
  return false;
}

/* Take the top-level statement n out of root and free it. */
static void
_drop_statement(CfgNode *root, CfgNode *n)
{
  for (size_t i = 0; i < root->n_children; i++)
    if (root->children[i] == n)
      {
        memmove(&root->children[i], &root->children[i + 1], (root->n_children - i - 1) * sizeof(CfgNode *));
        root->n_children--;
        break;
      }
  cfg_node_free(n);
}

static bool
_collect(Resolver *r, CfgNode *root, bool allow_dups)
{
  for (size_t i = 0; i < root->n_children; i++)
    {
      CfgNode *n = root->children[i];
      if (n->kind != CFG_NODE_DEFINE)
        continue;
      CfgNode *prev = g_hash_table_lookup(r->names[n->obj], n->name);
      if (prev && !allow_dups)
        return _fail(r, &n->loc, "duplicate %s '%s'; first defined at %s:%d:%d (syslog-ng takes it with "
                     "@define allow-config-dups 1, the last one winning)", cfg_object_kind_name(n->obj),
                     n->name, prev->loc.file, prev->loc.line, prev->loc.col);
      if (prev)
        {
          /* the table's key is the name prev owns */
          g_hash_table_remove(r->names[n->obj], n->name);
          _drop_statement(root, prev);
          i--; /* prev stood before n */
        }
      g_hash_table_insert(r->names[n->obj], n->name, n);
    }
  return true;
}

static bool
_resolve_ref(Resolver *r, CfgNode *ref)
{
  ref->target = g_hash_table_lookup(r->names[ref->obj], ref->name);
  if (ref->target)
    return true;

  guint n = 0;
  const char **names = (const char **) g_hash_table_get_keys_as_array(r->names[ref->obj], &n);
  const char *near = cfg_nearest_name(ref->name, names);
  bool ok = _fail(r, &ref->loc, "unknown %s '%s'%s%s%s", cfg_object_kind_name(ref->obj), ref->name,
                  near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
  g_free(names);
  return ok;
}

static bool
_log_flags(Resolver *r, CfgNode *log, const CfgNode *call)
{
  if (call->n_children > 0)
    return _fail(r, &call->children[0]->loc, "flags() takes flag names, not '%s()'", call->children[0]->name);
  for (size_t i = 0; i < call->n_args; i++)
    {
      const CfgValue *v = &call->args[i];
      int found = -1;
      for (int k = 0; log_flag_names[k] && found < 0; k++)
        if (v->type == CFG_VAL_IDENT && cfg_name_equal(v->str, log_flag_names[k]))
          found = k;
      /* syslog-ng 3.38 takes catch-all as catchall's other spelling */
      if (found < 0 && v->type == CFG_VAL_IDENT && cfg_name_equal(v->str, "catch-all"))
        found = 2;
      if (found < 0)
        {
          const char *near = cfg_nearest_name(v->str, log_flag_names);
          return _fail(r, &v->loc, "unknown log path flag '%s'%s%s%s", v->str, near ? "; did you mean '" : "",
                       near ? near : "", near ? "'?" : "");
        }
      log->flags |= 1u << found;
    }
  return true;
}

static bool
_walk(Resolver *r, CfgNode *n)
{
  if (n->kind == CFG_NODE_REF && !_resolve_ref(r, n))
    return false;
  if (n->cond && !_walk(r, n->cond))
    return false;
  for (size_t i = 0; i < n->n_children; i++)
    {
      CfgNode *c = n->children[i];
      /* flags() of a log path or a channel (final, fallback in a junction) */
      if ((n->kind == CFG_NODE_LOG || n->kind == CFG_NODE_CHANNEL) && c->kind == CFG_NODE_CALL)
        {
          if (!_log_flags(r, n, c))
            return false;
        }
      else if (!_walk(r, c))
        return false;
    }
  return true;
}

/* A filter that reaches itself through filter() references would recurse
 * forever when evaluated. */
static bool
_filter_cycle(Resolver *r, const CfgNode *n, GPtrArray *path, GHashTable *done)
{
  if (n->kind == CFG_NODE_REF && n->target && !g_hash_table_contains(done, n->target))
    {
      for (guint i = 0; i < path->len; i++)
        if (path->pdata[i] == n->target)
          return !_fail(r, &n->loc, "filter '%s' refers to itself through filter() references", n->name);
      g_ptr_array_add(path, n->target);
      bool cyc = _filter_cycle(r, n->target, path, done);
      g_ptr_array_remove_index(path, path->len - 1);
      /* checked once: diamonds of references stay linear */
      g_hash_table_add(done, n->target);
      return cyc;
    }
  for (size_t i = 0; i < n->n_children; i++)
    if (_filter_cycle(r, n->children[i], path, done))
      return true;
  return false;
}

bool
cfg_resolve(CfgNode *root, bool allow_dups, CfgError *err)
{
  Resolver r = { .err = err };
  for (int k = 0; k < CFG_OBJ_MAX; k++)
    r.names[k] = g_hash_table_new(g_str_hash, g_str_equal);

  bool ok = _collect(&r, root, allow_dups) && _walk(&r, root);
  GHashTable *done = g_hash_table_new(g_direct_hash, g_direct_equal);
  for (size_t i = 0; ok && i < root->n_children; i++)
    {
      CfgNode *n = root->children[i];
      if (n->kind == CFG_NODE_DEFINE && n->obj == CFG_OBJ_FILTER)
        {
          GPtrArray *path = g_ptr_array_new();
          g_ptr_array_add(path, n);
          ok = !_filter_cycle(&r, n, path, done);
          g_ptr_array_free(path, TRUE);
        }
    }
  g_hash_table_destroy(done);
  for (int k = 0; k < CFG_OBJ_MAX; k++)
    g_hash_table_destroy(r.names[k]);
  return ok;
}
