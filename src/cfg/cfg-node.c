/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "cfg-internal.h"

#include <string.h>

static const char *const object_kind_names[CFG_OBJ_MAX] = {
  [CFG_OBJ_NONE] = "object",
  [CFG_OBJ_SOURCE] = "source",
  [CFG_OBJ_DESTINATION] = "destination",
  [CFG_OBJ_FILTER] = "filter",
  [CFG_OBJ_PARSER] = "parser",
  [CFG_OBJ_REWRITE] = "rewrite",
  [CFG_OBJ_TEMPLATE] = "template",
};

const char *
cfg_object_kind_name(CfgObjectKind obj)
{
  if ((int) obj < 0 || obj >= CFG_OBJ_MAX)
    return "object";
  return object_kind_names[obj];
}

CfgNode *
cfg_node_new(CfgNodeKind kind, const CfgLocation *loc)
{
  CfgNode *n = g_new0(CfgNode, 1);
  n->kind = kind;
  if (loc)
    n->loc = *loc;
  return n;
}

void
cfg_node_free(CfgNode *node)
{
  if (!node)
    return;
  for (size_t i = 0; i < node->n_args; i++)
    g_free(node->args[i].str);
  g_free(node->args);
  for (size_t i = 0; i < node->n_children; i++)
    cfg_node_free(node->children[i]);
  g_free(node->children);
  cfg_node_free(node->cond);
  g_free(node->name);
  g_free(node);
}

void
cfg_node_add_child(CfgNode *node, CfgNode *child)
{
  /* grow by doubling: capacity is the next power of two above n */
  size_t n = node->n_children;
  if ((n & (n - 1)) == 0)
    node->children = g_renew(CfgNode *, node->children, n ? n * 2 : 1);
  node->children[node->n_children++] = child;
}

void
cfg_node_add_arg(CfgNode *node, CfgValueType type, const char *str, int64_t num, const CfgLocation *loc)
{
  size_t n = node->n_args;
  if ((n & (n - 1)) == 0)
    node->args = g_renew(CfgValue, node->args, n ? n * 2 : 1);
  node->args[n] = (CfgValue) { type, g_strdup(str), num, *loc };
  node->n_args++;
}

CfgNode *
cfg_node_copy(const CfgNode *n)
{
  if (!n)
    return NULL;
  CfgNode *c = cfg_node_new(n->kind, &n->loc);
  c->obj = n->obj;
  c->name = g_strdup(n->name);
  c->flags = n->flags;
  for (size_t i = 0; i < n->n_args; i++)
    cfg_node_add_arg(c, n->args[i].type, n->args[i].str, n->args[i].num, &n->args[i].loc);
  for (size_t i = 0; i < n->n_children; i++)
    cfg_node_add_child(c, cfg_node_copy(n->children[i]));
  c->cond = cfg_node_copy(n->cond);
  return c;
}

CfgNode *
cfg_call_new(const char *name, const char *arg, const CfgLocation *loc)
{
  CfgNode *n = cfg_node_new(CFG_NODE_CALL, loc);
  n->name = g_strdup(name);
  if (arg)
    cfg_node_add_arg(n, CFG_VAL_STRING, arg, 0, loc);
  return n;
}

CfgNode *
cfg_call_add_option(CfgNode *call, const char *name, CfgValueType type, const char *str, int64_t num)
{
  CfgNode *o = cfg_node_new(CFG_NODE_CALL, &call->loc);
  o->name = g_strdup(name);
  cfg_node_add_arg(o, type, str, num, &call->loc);
  cfg_node_add_child(call, o);
  return o;
}

void
cfg_tree_free(CfgTree *tree)
{
  if (!tree)
    return;
  cfg_node_free(tree->root);
  g_free(tree->version);
  g_strfreev(tree->files);
  g_free(tree);
}

CfgNode *
cfg_tree_lookup(const CfgTree *tree, CfgObjectKind obj, const char *name)
{
  for (size_t i = 0; i < tree->root->n_children; i++)
    {
      CfgNode *n = tree->root->children[i];
      if (n->kind == CFG_NODE_DEFINE && n->obj == obj && strcmp(n->name, name) == 0)
        return n;
    }
  return NULL;
}

/* The stages in order; the preprocessor owns the file names until the
 * tree takes them over. */
static CfgTree *
_parse(CfgPre *pre, bool ok, CfgError *err)
{
  CfgTree *tree = NULL;
  GArray *tokens = ok ? cfg_lex(pre, err) : NULL;
  CfgNode *root = tokens ? cfg_parse_tokens(tokens, pre, err) : NULL;
  if (root && cfg_resolve(root, cfg_pre_allows_dups(pre), err))
    {
      tree = g_new0(CfgTree, 1);
      tree->root = root;
      tree->version = g_steal_pointer(&pre->version);
      g_ptr_array_add(pre->files, NULL);
      tree->files = (char **) g_ptr_array_free(pre->files, FALSE);
      pre->files = NULL;
    }
  else
    cfg_node_free(root);
  if (tokens)
    cfg_tokens_free(tokens);
  cfg_pre_destroy(pre);
  return tree;
}

CfgTree *
cfg_parse_file(const char *path, const CfgParseOptions *opts, CfgError *err)
{
  CfgPre pre;
  cfg_pre_init(&pre, opts, err);
  return _parse(&pre, cfg_pre_file(&pre, path), err);
}

CfgTree *
cfg_parse_string(const char *name, const char *text, size_t len, const CfgParseOptions *opts, CfgError *err)
{
  CfgPre pre;
  cfg_pre_init(&pre, opts, err);
  return _parse(&pre, cfg_pre_text(&pre, name, text, len), err);
}
