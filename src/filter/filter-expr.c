/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Filter expressions: see include/sluice/filter.h. */
#include "sluice/filter.h"

#include "filter-internal.h"
#include "sluice/cfg-options.h"

#include <stdlib.h>
#include <string.h>

/* ---- names -------------------------------------------------------------- */

static const char *const facility_names[] = {
  "kern", "user", "mail", "daemon", "auth", "syslog", "lpr", "news", "uucp", "cron", "authpriv", "ftp",
  "ntp", "security", "console", "solaris-cron", "local0", "local1", "local2", "local3", "local4", "local5",
  "local6", "local7", NULL,
};

static const char *const level_names[] = {
  "emerg", "alert", "crit", "err", "warning", "notice", "info", "debug", NULL,
};

static int
_name_index(const char *const *names, const char *name)
{
  for (int i = 0; names[i]; i++)
    if (strcmp(names[i], name) == 0)
      return i;
  return -1;
}

int
filter_facility_from_name(const char *name)
{
  return _name_index(facility_names, name);
}

int
filter_level_from_name(const char *name)
{
  int i = _name_index(level_names, name);
  if (i >= 0)
    return i;
  if (strcmp(name, "panic") == 0)
    return 0;
  if (strcmp(name, "error") == 0)
    return 3;
  if (strcmp(name, "warn") == 0)
    return 4;
  return -1;
}

/* ---- facility() and level() -------------------------------------------- */

typedef int (*NameToNum)(const char *name);

/* One list item: a name, a number (facility(3)), or a range a..b. */
static bool
_bits_add(const CfgNode *call, const CfgValue *v, NameToNum to_num, int max, uint32_t *bits, int *range_from,
          CfgError *err)
{
  int n;
  if (v->type == CFG_VAL_OP && strcmp(v->str, "..") == 0)
    {
      if (*range_from < 0)
        {
          cfg_error_set(err, &v->loc, "'..' needs a name on each side in %s()", call->name);
          return false;
        }
      *range_from = -2 - *range_from; /* mark: the next item closes the range */
      return true;
    }
  if (v->type == CFG_VAL_NUMBER)
    n = v->num >= 0 && v->num <= max ? (int) v->num : -1; /* 2^32 + 2 is not mail */
  else
    n = to_num(v->str);
  if (n < 0 || n > max)
    {
      const char *const *names = to_num == filter_facility_from_name ? facility_names : level_names;
      const char *near = cfg_nearest_name(v->str, names);
      if (near)
        cfg_error_set(err, &v->loc, "unknown %s '%s' in %s(); did you mean '%s'?",
                      to_num == filter_facility_from_name ? "facility" : "level", v->str, call->name, near);
      else
        cfg_error_set(err, &v->loc, "unknown %s '%s' in %s()",
                      to_num == filter_facility_from_name ? "facility" : "level", v->str, call->name);
      return false;
    }
  if (*range_from <= -2)
    {
      int from = -2 - *range_from;
      int lo = from < n ? from : n, hi = from < n ? n : from;
      for (int i = lo; i <= hi; i++)
        *bits |= 1u << i;
    }
  else
    *bits |= 1u << n;
  *range_from = n;
  return true;
}

static FilterExpr *
_compile_bits(const CfgNode *call, FilterKind kind, CfgError *err)
{
  NameToNum to_num = kind == FILTER_FACILITY ? filter_facility_from_name : filter_level_from_name;
  int max = kind == FILTER_FACILITY ? 23 : 7;
  if (call->n_args == 0 || call->n_children)
    {
      cfg_error_set(err, &call->loc, "%s() takes a list of %s names", call->name,
                    kind == FILTER_FACILITY ? "facility" : "level");
      return NULL;
    }
  uint32_t bits = 0;
  int range_from = -1;
  for (size_t i = 0; i < call->n_args; i++)
    {
      /* "info..err" may also come as one identifier */
      const CfgValue *v = &call->args[i];
      const char *dots = v->type == CFG_VAL_IDENT ? strstr(v->str, "..") : NULL;
      if (dots)
        {
          char *lo = g_strndup(v->str, (gsize) (dots - v->str));
          CfgValue a = { .type = CFG_VAL_IDENT, .str = lo, .loc = v->loc };
          CfgValue op = { .type = CFG_VAL_OP, .str = (char *) "..", .loc = v->loc };
          CfgValue b = { .type = CFG_VAL_IDENT, .str = (char *) dots + 2, .loc = v->loc };
          bool ok = _bits_add(call, &a, to_num, max, &bits, &range_from, err) &&
                    _bits_add(call, &op, to_num, max, &bits, &range_from, err) &&
                    _bits_add(call, &b, to_num, max, &bits, &range_from, err);
          g_free(lo);
          if (!ok)
            return NULL;
        }
      else if (!_bits_add(call, v, to_num, max, &bits, &range_from, err))
        return NULL;
    }
  if (range_from <= -2)
    {
      cfg_error_set(err, &call->loc, "'..' needs a name on each side in %s()", call->name);
      return NULL;
    }
  FilterExpr *f = calloc(1, sizeof(*f));
  f->kind = kind;
  f->bits = bits;
  return f;
}

/* ---- the tree ----------------------------------------------------------- */

static const char *const function_names[] = {
  "facility", "level", "priority", "program", "host", "message", "match", "netmask", "netmask6", "tags",
  "filter", "source", "in-list", "rate-limit", NULL,
};

static FilterExpr *
_compile_call(const CfgNode *call, CfgError *err)
{
  const char *name = call->name;
  if (cfg_name_equal(name, "facility"))
    return _compile_bits(call, FILTER_FACILITY, err);
  if (cfg_name_equal(name, "level") || cfg_name_equal(name, "priority"))
    return _compile_bits(call, FILTER_LEVEL, err);
  if (cfg_name_equal(name, "program"))
    return filter_match_compile(call, LM_V_PROGRAM, err);
  if (cfg_name_equal(name, "host"))
    return filter_match_compile(call, LM_V_HOST, err);
  if (cfg_name_equal(name, "message"))
    return filter_match_compile(call, LM_V_MESSAGE, err);
  if (cfg_name_equal(name, "match"))
    return filter_match_compile(call, LM_V_NONE, err);
  if (cfg_name_equal(name, "netmask"))
    return filter_netmask_compile(call, false, err);
  if (cfg_name_equal(name, "netmask6"))
    return filter_netmask_compile(call, true, err);
  if (cfg_name_equal(name, "tags"))
    return filter_tags_compile(call, err);
  if (cfg_name_equal(name, "source"))
    return filter_source_compile(call, err);
  if (cfg_name_equal(name, "in-list"))
    return filter_in_list_compile(call, err);
  if (cfg_name_equal(name, "rate-limit"))
    return filter_rate_limit_compile(call, err);
  const char *near = cfg_nearest_name(name, function_names);
  if (near)
    cfg_error_set(err, &call->loc, "unknown filter function '%s'; did you mean '%s'?", name, near);
  else
    cfg_error_set(err, &call->loc, "unknown filter function '%s'", name);
  return NULL;
}

static FilterExpr *
_binary(FilterKind kind, FilterExpr *a, FilterExpr *b)
{
  FilterExpr *f = calloc(1, sizeof(*f));
  f->kind = kind;
  f->left = a;
  f->right = b;
  f->stores = a->stores || (b && b->stores);
  return f;
}

FilterExpr *
filter_expr_compile(const CfgNode *node, CfgError *err)
{
  switch (node->kind)
    {
    case CFG_NODE_AND:
    case CFG_NODE_OR:
      {
        if (node->n_children != 2)
          break;
        FilterExpr *a = filter_expr_compile(node->children[0], err);
        if (!a)
          return NULL;
        FilterExpr *b = filter_expr_compile(node->children[1], err);
        if (!b)
          {
            filter_expr_free(a);
            return NULL;
          }
        return _binary(node->kind == CFG_NODE_AND ? FILTER_AND : FILTER_OR, a, b);
      }
    case CFG_NODE_NOT:
      {
        if (node->n_children != 1)
          break;
        FilterExpr *a = filter_expr_compile(node->children[0], err);
        return a ? _binary(FILTER_NOT, a, NULL) : NULL;
      }
    case CFG_NODE_REF:
      if (node->obj != CFG_OBJ_FILTER || !node->target)
        break;
      return filter_expr_compile_block(node->target, err);
    case CFG_NODE_CALL:
      return _compile_call(node, err);
    case CFG_NODE_CMP:
      return filter_cmp_compile(node, err);
    default:
      break;
    }
  cfg_error_set(err, &node->loc, "this is not a filter expression");
  return NULL;
}

FilterExpr *
filter_expr_compile_block(const CfgNode *define, CfgError *err)
{
  FilterExpr *all = NULL;
  for (size_t i = 0; i < define->n_children; i++)
    {
      FilterExpr *f = filter_expr_compile(define->children[i], err);
      if (!f)
        {
          filter_expr_free(all);
          return NULL;
        }
      all = all ? _binary(FILTER_AND, all, f) : f;
    }
  if (!all)
    {
      cfg_error_set(err, &define->loc, "empty filter");
      return NULL;
    }
  return all;
}

/* The message as it is now: a store may have replaced it with a copy. */
static inline const LogMsg *
_current(const LogMsg *msg, const FilterEvalCtx *ctx)
{
  return ctx->pmsg ? *ctx->pmsg : msg;
}

/* Bit n of bits, for 0 <= n <= max only. */
static inline bool
_bit_set(uint32_t bits, int n, int max)
{
  return n >= 0 && n <= max && ((bits >> n) & 1u);
}

static bool
_eval(const FilterExpr *f, const LogMsg *msg, const FilterEvalCtx *ctx)
{
  switch (f->kind)
    {
    case FILTER_AND:
      return _eval(f->left, msg, ctx) && _eval(f->right, _current(msg, ctx), ctx);
    case FILTER_OR:
      return _eval(f->left, msg, ctx) || _eval(f->right, _current(msg, ctx), ctx);
    case FILTER_NOT:
      return !_eval(f->left, msg, ctx);
    case FILTER_FACILITY:
      /* A PRI above 191 (syslog-ng keeps it as sent, and so do we) gives a
       * facility past local7 that no name or number in the list can mean;
       * shifting by 32 or more would also be undefined. */
      return _bit_set(f->bits, log_msg_facility(msg), 23);
    case FILTER_LEVEL:
      return _bit_set(f->bits, log_msg_severity(msg), 7);
    case FILTER_MATCH:
      return filter_match_eval(f, msg, ctx);
    case FILTER_NETMASK:
      return filter_netmask_eval(f, msg);
    case FILTER_TAGS:
      for (size_t i = 0; i < f->n_tags; i++)
        if (log_msg_has_tag(msg, f->tags[i]))
          return true;
      return false;
    case FILTER_CMP:
      return filter_cmp_eval(f, msg, ctx->opts);
    case FILTER_SOURCE:
      return filter_source_eval(f, msg);
    case FILTER_IN_LIST:
      return filter_in_list_eval(f, msg);
    case FILTER_RATE_LIMIT:
      return filter_rate_limit_eval(f, msg, ctx->opts);
    }
  return false;
}

bool
filter_expr_check_statements(const CfgTree *tree, CfgError *err)
{
  for (size_t i = 0; i < tree->root->n_children; i++)
    {
      const CfgNode *n = tree->root->children[i];
      if (n->kind != CFG_NODE_DEFINE || n->obj != CFG_OBJ_FILTER)
        continue;
      FilterExpr *f = filter_expr_compile_block(n, err);
      if (!f)
        return false;
      filter_expr_free(f);
    }
  return true;
}

bool
filter_expr_eval(const FilterExpr *f, const LogMsg *msg)
{
  FilterEvalCtx ctx = { 0 };
  return _eval(f, msg, &ctx);
}

bool
filter_expr_eval_with_options(const FilterExpr *f, const LogMsg *msg, const LogTemplateOptions *opts)
{
  FilterEvalCtx ctx = { .opts = opts };
  return _eval(f, msg, &ctx);
}

bool
filter_expr_stores(const FilterExpr *f)
{
  return f->stores;
}

bool
filter_expr_eval_store(const FilterExpr *f, LogMsg **pmsg, bool *owned)
{
  FilterEvalCtx ctx = { .pmsg = pmsg, .owned = owned };
  return _eval(f, *pmsg, &ctx);
}

void
filter_expr_free(FilterExpr *f)
{
  if (!f)
    return;
  filter_expr_free(f->left);
  filter_expr_free(f->right);
  filter_match_free(f);
  filter_cmp_free(f->cmp);
  filter_str_set_free(f->set);
  filter_rate_limit_free(f->rate);
  free(f->tags);
  free(f);
}
