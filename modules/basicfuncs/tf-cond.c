/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * $(if (CONDITION) THEN ELSE), $(or A B ...), $(tag NAME ...) and
 * $(grep (CONDITION) VALUE...).
 *
 * The condition is a syslog-ng filter expression, parsed by the
 * configuration parser and compiled once by the filter compiler, which
 * also holds the comparisons (== != < <= > >= and eq ne lt le gt ge with
 * syslog-ng 3.38's typing rules: src/filter/filter-cmp.c), so a condition
 * here and a filter in a log path evaluate alike.  The template compiler
 * leaves the quotes inside the parentheses, so operands may hold spaces
 * and ${...}.  filter(NAME) references are refused (a template has no
 * configuration to look the name up in).
 */
#include "basicfuncs.h"

#include "sluice/cfg-tree.h"
#include "sluice/filter.h"

#include <stdlib.h>
#include <string.h>

char *
tf_compile_condition(const char *name, const char *expr, FilterExpr **cond)
{
  char *text = g_strdup_printf("filter f { %s; };", expr);
  CfgParseOptions po = { .no_includes = true, .no_env = true };
  CfgError err = { 0 };
  CfgTree *tree = cfg_parse_string("$(if)", text, strlen(text), &po, &err);
  g_free(text);
  char *error = NULL;
  *cond = NULL;
  if (!tree)
    error = g_strdup(err.message ? err.message : "syntax error");
  else
    {
      CfgNode *def = tree->root->n_children == 1 ? tree->root->children[0] : NULL;
      if (!def || def->kind != CFG_NODE_DEFINE || def->n_children == 0)
        error = g_strdup("no expression");
      else if (!(*cond = filter_expr_compile_block(def, &err))) /* ';'-separated parts must all match */
        error = g_strdup(err.message ? err.message : "invalid filter expression");
      cfg_tree_free(tree);
    }
  cfg_error_clear(&err);
  if (*cond)
    return NULL;
  char *msg = tf_error(name, "Error parsing conditional filter expression: %s", error);
  g_free(error);
  return msg;
}

static char *
_if_prepare(int argc, char **argv, void **state)
{
  if (argc != 4)
    return tf_error(argv[0], "requires three arguments");
  FilterExpr *cond;
  char *err = tf_compile_condition(argv[0], argv[1], &cond);
  if (!err)
    *state = cond;
  return err;
}

static void
_if_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
         GString *out)
{
  (void) argc;
  bool yes = filter_expr_eval_with_options(state, msg, opts);
  log_template_format(args[yes ? 1 : 2], msg, opts, out);
}

static void
_if_free(void *state)
{
  filter_expr_free(state);
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

/* $(grep [--max-count N] (CONDITION) VALUE...), also named
 * $(context-lookup): the VALUEs of the messages of a correlation context
 * (log_template_context_get: a PatternDB action's, a grouping-by()
 * aggregate's; outside one the message alone) that match CONDITION,
 * oldest first, at most N of them (0 or less: all), joined with ',' (as they are,
 * not as a list), as syslog-ng 3.38 writes them. */
typedef struct GrepState
{
  FilterExpr *cond;
  int64_t max_count;
  int n_values;
  int *values; /* indexes into args of the VALUEs */
} GrepState;

static void
_grep_free(void *p)
{
  GrepState *st = p;
  if (!st)
    return;
  filter_expr_free(st->cond);
  g_free(st->values);
  g_free(st);
}

/* Options anywhere, as glib's option parser takes them; "--" ends them. */
static char *
_grep_prepare(int argc, char **argv, void **state)
{
  int *pos = g_new0(int, argc);
  int n = 0;
  int64_t max_count = 0;
  bool options_done = false;
  for (int i = 1; i < argc; i++)
    {
      const char *o = argv[i];
      if (options_done || o[0] != '-' || !o[1])
        {
          pos[n++] = i;
          continue;
        }
      const char *count = NULL;
      if (strcmp(o, "--") == 0)
        options_done = true;
      else if (strcmp(o, "--max-count") == 0 || strcmp(o, "-m") == 0)
        {
          if (i + 1 >= argc)
            {
              g_free(pos);
              return g_strdup_printf("Missing argument for %s", o);
            }
          count = argv[++i];
        }
      else if (strncmp(o, "--max-count=", 12) == 0)
        count = o + 12;
      else
        {
          g_free(pos);
          return g_strdup_printf("Unknown option %s", o);
        }
      /* syslog-ng 3.38 crashes on a count that is no number */
      if (count && !tf_parse_int64(count, &max_count))
        {
          g_free(pos);
          return g_strdup_printf("Cannot parse integer value \"%s\" for --max-count", count);
        }
    }
  if (n < 2)
    {
      g_free(pos);
      return tf_error(argv[0], "requires at least two arguments");
    }
  GrepState *st = g_new0(GrepState, 1);
  st->max_count = max_count;
  char *err = tf_compile_condition(argv[0], argv[pos[0]], &st->cond);
  if (err)
    {
      g_free(pos);
      g_free(st);
      return err;
    }
  st->n_values = n - 1;
  st->values = g_new0(int, n - 1);
  for (int k = 1; k < n; k++)
    st->values[k - 1] = pos[k] - 1; /* args[] skips argv[0] */
  g_free(pos);
  *state = st;
  return NULL;
}

static void
_grep_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
           GString *out)
{
  (void) argc;
  const GrepState *st = state;
  LogTemplateContext ctx = log_template_context_get();
  const LogMsg *const *msgs = ctx.n ? ctx.msgs : &msg;
  size_t n = ctx.n ? ctx.n : 1;
  int64_t found = 0;
  for (size_t m = 0; m < n && (st->max_count <= 0 || found < st->max_count); m++)
    {
      if (!filter_expr_eval_with_options(st->cond, msgs[m], opts))
        continue;
      for (int i = 0; i < st->n_values; i++)
        {
          if (found || i)
            g_string_append_c(out, ',');
          log_template_format(args[st->values[i]], msgs[m], opts, out);
        }
      found++;
    }
}

static const LogTemplateFunction if_f = { "if", _if_prepare, _if_call, _if_free };
static const LogTemplateFunction or_f = { "or", NULL, _or_call, NULL };
static const LogTemplateFunction tag_f = { "tag", _tag_prepare, _tag_call, NULL };
static const LogTemplateFunction grep_f = { "grep", _grep_prepare, _grep_call, _grep_free };
static const LogTemplateFunction context_lookup_f = { "context-lookup", _grep_prepare, _grep_call, _grep_free };

const LogTemplateFunction *const tf_cond_functions[] = { &if_f, &or_f, &tag_f, &grep_f, &context_lookup_f, NULL };
