/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * $(if (CONDITION) THEN ELSE), $(or A B ...) and $(tag NAME ...).
 *
 * The condition is a syslog-ng filter expression, parsed by the
 * configuration parser and compiled once.  Filter functions (program(),
 * match(), level(), ...) go to the filter compiler; and/or/not and the
 * comparisons, which only templates have, are evaluated here: == != < <=
 * > >= compare numbers, and when a side is not a number (e.g. "") only !=
 * holds, as in syslog-ng 3.38; eq ne lt le gt ge compare strings.  The
 * template compiler leaves the quotes inside the parentheses, so operands
 * may hold spaces and ${...}.  filter(NAME) references are refused (a
 * template has no configuration to look the name up in).
 */
#include "basicfuncs.h"

#include "sluice/cfg-tree.h"
#include "sluice/filter.h"

#include <stdlib.h>
#include <string.h>

typedef enum
{
  COND_AND,
  COND_OR,
  COND_NOT,
  COND_CMP,
  COND_FILTER,
} CondKind;

typedef enum
{
  CMP_EQ,
  CMP_NE,
  CMP_LT,
  CMP_LE,
  CMP_GT,
  CMP_GE,
} CmpOp;

typedef struct Cond Cond;
struct Cond
{
  CondKind kind;
  Cond *a, *b;
  FilterExpr *filter;
  LogTemplate *lhs, *rhs;
  CmpOp op;
  bool numeric;
};

static void
_cond_free(Cond *c)
{
  if (!c)
    return;
  _cond_free(c->a);
  _cond_free(c->b);
  if (c->filter)
    filter_expr_free(c->filter);
  log_template_unref(c->lhs);
  log_template_unref(c->rhs);
  g_free(c);
}

static bool
_cmp_op(const char *name, CmpOp *op, bool *numeric)
{
  static const char *const num[] = { "==", "!=", "<", "<=", ">", ">=" };
  static const char *const str[] = { "eq", "ne", "lt", "le", "gt", "ge" };
  for (int i = 0; i < 6; i++)
    if (strcmp(name, num[i]) == 0 || strcmp(name, str[i]) == 0)
      {
        *op = (CmpOp) i;
        *numeric = name[0] < 'a';
        return true;
      }
  return false;
}

static Cond *
_cond_compile(const CfgNode *n, char **error)
{
  Cond *c = g_new0(Cond, 1);
  switch (n->kind)
    {
    case CFG_NODE_AND:
    case CFG_NODE_OR:
      c->kind = n->kind == CFG_NODE_AND ? COND_AND : COND_OR;
      if (n->n_children != 2 || !(c->a = _cond_compile(n->children[0], error))
          || !(c->b = _cond_compile(n->children[1], error)))
        goto fail;
      return c;
    case CFG_NODE_NOT:
      c->kind = COND_NOT;
      if (n->n_children != 1 || !(c->a = _cond_compile(n->children[0], error)))
        goto fail;
      return c;
    case CFG_NODE_CMP:
      c->kind = COND_CMP;
      if (n->n_args != 2 || !_cmp_op(n->name, &c->op, &c->numeric))
        {
          *error = g_strdup_printf("unknown comparison '%s'", n->name);
          goto fail;
        }
      if (!(c->lhs = log_template_compile(n->args[0].str, error))
          || !(c->rhs = log_template_compile(n->args[1].str, error)))
        goto fail;
      return c;
    case CFG_NODE_CALL:
      {
        CfgError err = { 0 };
        c->kind = COND_FILTER;
        c->filter = filter_expr_compile(n, &err);
        if (!c->filter)
          {
            *error = g_strdup(err.message ? err.message : "invalid filter expression");
            cfg_error_clear(&err);
            goto fail;
          }
        return c;
      }
    default:
      *error = g_strdup("only filter functions, comparisons and and/or/not can be used here");
      goto fail;
    }
fail:
  _cond_free(c);
  return NULL;
}

static bool
_number(const char *s, double *out)
{
  char *end;
  *out = g_ascii_strtod(s, &end);
  return end != s && *end == '\0';
}

static bool
_cond_eval(const Cond *c, const LogMsg *msg, const LogTemplateOptions *opts, int level)
{
  switch (c->kind)
    {
    case COND_AND:
      return _cond_eval(c->a, msg, opts, level) && _cond_eval(c->b, msg, opts, level);
    case COND_OR:
      return _cond_eval(c->a, msg, opts, level) || _cond_eval(c->b, msg, opts, level);
    case COND_NOT:
      return !_cond_eval(c->a, msg, opts, level);
    case COND_FILTER:
      return filter_expr_eval(c->filter, msg);
    case COND_CMP:
      break;
    }
  GString *l = log_template_scratch_get(level), *r = log_template_scratch_get(level + 1);
  log_template_format(c->lhs, msg, opts, l);
  log_template_format(c->rhs, msg, opts, r);
  int cmp;
  if (c->numeric)
    {
      double a, b;
      if (!_number(l->str, &a) || !_number(r->str, &b))
        return c->op == CMP_NE;
      cmp = a < b ? -1 : a > b;
    }
  else
    cmp = strcmp(l->str, r->str);
  switch (c->op)
    {
    case CMP_EQ:
      return cmp == 0;
    case CMP_NE:
      return cmp != 0;
    case CMP_LT:
      return cmp < 0;
    case CMP_LE:
      return cmp <= 0;
    case CMP_GT:
      return cmp > 0;
    case CMP_GE:
      return cmp >= 0;
    }
  return false;
}

static char *
_if_prepare(int argc, char **argv, void **state)
{
  if (argc != 4)
    return tf_error(argv[0], "requires three arguments");
  char *text = g_strdup_printf("filter f { %s; };", argv[1]);
  CfgParseOptions po = { .no_includes = true, .no_env = true };
  CfgError err = { 0 };
  CfgTree *tree = cfg_parse_string("$(if)", text, strlen(text), &po, &err);
  g_free(text);
  char *error = NULL;
  Cond *cond = NULL;
  if (!tree)
    error = g_strdup(err.message ? err.message : "syntax error");
  else
    {
      CfgNode *def = tree->root->n_children == 1 ? tree->root->children[0] : NULL;
      if (!def || def->kind != CFG_NODE_DEFINE || def->n_children == 0)
        error = g_strdup("no expression");
      else
        {
          cond = _cond_compile(def->children[0], &error);
          /* several ';'-separated expressions must all match */
          for (size_t i = 1; cond && i < def->n_children; i++)
            {
              Cond *more = _cond_compile(def->children[i], &error);
              if (!more)
                {
                  _cond_free(cond);
                  cond = NULL;
                  break;
                }
              Cond *and = g_new0(Cond, 1);
              and->kind = COND_AND;
              and->a = cond;
              and->b = more;
              cond = and;
            }
        }
      cfg_tree_free(tree);
    }
  cfg_error_clear(&err);
  if (!cond)
    {
      char *msg = tf_error(argv[0], "Error parsing conditional filter expression: %s", error);
      g_free(error);
      return msg;
    }
  *state = cond;
  return NULL;
}

static void
_if_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
         GString *out)
{
  (void) argc;
  int l0 = tf_level_push(), l1 = tf_level_push();
  (void) l1;
  bool yes = _cond_eval(state, msg, opts, l0);
  tf_level_pop();
  tf_level_pop();
  log_template_format(args[yes ? 1 : 2], msg, opts, out);
}

static void
_if_free(void *state)
{
  _cond_free(state);
}

/* The first argument that is not empty. */
static void
_or_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
         GString *out)
{
  (void) state;
  for (int i = 0; i < argc; i++)
    {
      size_t before = out->len;
      log_template_format(args[i], msg, opts, out);
      if (out->len > before)
        return;
    }
}

/* $(tag NAME [IF-SET IF-UNSET]), as syslog-ng 4 documents it (3.38 has
 * none): "1" or "0", or the second or third argument (templates here),
 * depending on whether the message has tag NAME. */
static char *
_tag_prepare(int argc, char **argv, void **state)
{
  if (argc != 2 && argc != 4)
    return tf_error(argv[0], "usage: $(tag NAME [VALUE-IF-SET VALUE-IF-UNSET])");
  *state = GUINT_TO_POINTER(log_tags_get_by_name(argv[1]) + 1);
  return NULL;
}

static void
_tag_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
          GString *out)
{
  bool set = log_msg_has_tag(msg, (LogTagId) (GPOINTER_TO_UINT(state) - 1));
  if (argc == 3)
    log_template_format(args[set ? 1 : 2], msg, opts, out);
  else
    g_string_append_c(out, set ? '1' : '0');
}

static const LogTemplateFunction if_f = { "if", _if_prepare, _if_call, _if_free };
static const LogTemplateFunction or_f = { "or", NULL, _or_call, NULL };
static const LogTemplateFunction tag_f = { "tag", _tag_prepare, _tag_call, NULL };

const LogTemplateFunction *const tf_cond_functions[] = { &if_f, &or_f, &tag_f, NULL };
