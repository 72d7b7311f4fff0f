/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * $(template NAME) and $(template $EXPR [FALLBACK]): a named template
 * (template NAME {} in the configuration) expanded in place, as syslog-ng
 * 3.38 does it:
 *
 *   - a NAME without '$' is looked up when the configuration is read, and
 *     must exist ("Unknown template function or template"); further
 *     arguments are ignored;
 *   - a NAME with '$' is a template: each message's expansion names the
 *     template to use, and when there is none the second argument, if any,
 *     is expanded instead.  Sluice compiles every named template of the
 *     configuration for it when the configuration is read, so a message
 *     only looks a name up.
 *
 * The named templates come from log_template_get_named_source(), which the
 * pipeline builder sets.  A template that reaches itself through
 * $(template) is refused (syslog-ng would recurse forever), and in the
 * dynamic form a template being compiled further up is left out.
 */
#include "basicfuncs.h"

#include <string.h>

typedef struct TemplateState
{
  LogTemplate *fixed;   /* the static form */
  GHashTable *by_name;  /* the dynamic form: name -> LogTemplate */
} TemplateState;

/* The names whose templates are being compiled on this thread, innermost
 * last (a short stack: nesting is bounded by the template compiler). */
static _Thread_local GPtrArray *compiling;

static bool
_is_compiling(const char *name)
{
  for (guint i = 0; compiling && i < compiling->len; i++)
    if (strcmp(g_ptr_array_index(compiling, i), name) == 0)
      return true;
  return false;
}

static LogTemplate *
_compile_named(const char *name, const char *text, char **error)
{
  if (!compiling)
    compiling = g_ptr_array_new();
  g_ptr_array_add(compiling, (gpointer) name);
  LogTemplate *t = log_template_compile(text, error);
  g_ptr_array_remove_index(compiling, compiling->len - 1);
  if (compiling->len == 0)
    {
      g_ptr_array_free(compiling, TRUE);
      compiling = NULL;
    }
  return t;
}

static void
_state_free(void *p)
{
  TemplateState *st = p;
  if (!st)
    return;
  log_template_unref(st->fixed);
  if (st->by_name)
    g_hash_table_destroy(st->by_name);
  g_free(st);
}

typedef struct CompileAll
{
  const LogTemplateNamedSource *src;
  GHashTable *by_name;
  char *error;
} CompileAll;

static void
_compile_one(const char *name, void *user)
{
  CompileAll *ca = user;
  if (ca->error || _is_compiling(name) || g_hash_table_contains(ca->by_name, name))
    return;
  const char *text = ca->src->text(ca->src->data, name);
  if (!text)
    return;
  char *error = NULL;
  LogTemplate *t = _compile_named(name, text, &error);
  if (!t)
    {
      ca->error = g_strdup_printf("template %s: %s", name, error);
      g_free(error);
      return;
    }
  g_hash_table_insert(ca->by_name, g_strdup(name), t);
}

static char *
_template_prepare(int argc, char **argv, void **state)
{
  if (argc < 2)
    return tf_error(argv[0], "requires one argument, that specifies the template name to be invoked");
  const LogTemplateNamedSource *src = log_template_get_named_source();
  const char *name = argv[1];
  TemplateState *st = g_new0(TemplateState, 1);
  char *err = NULL;
  if (strchr(name, '$'))
    {
      st->by_name = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify) log_template_unref);
      if (src && src->each_name)
        {
          CompileAll ca = { src, st->by_name, NULL };
          src->each_name(src->data, _compile_one, &ca);
          if (ca.error)
            err = tf_error(argv[0], "%s", ca.error);
          g_free(ca.error);
        }
    }
  else
    {
      const char *text = src ? src->text(src->data, name) : NULL;
      if (!text)
        err = tf_error(argv[0], "Unknown template function or template \"%s\"", name);
      else if (_is_compiling(name))
        err = tf_error(argv[0], "template %s references itself", name);
      else
        {
          char *error = NULL;
          st->fixed = _compile_named(name, text, &error);
          if (!st->fixed)
            err = tf_error(argv[0], "template %s: %s", name, error);
          g_free(error);
        }
    }
  if (err)
    {
      _state_free(st);
      return err;
    }
  *state = st;
  return NULL;
}

static void
_template_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
               GString *out)
{
  const TemplateState *st = state;
  if (st->fixed)
    {
      log_template_format(st->fixed, msg, opts, out);
      return;
    }
  int level = tf_level_push();
  GString *name = tf_format_arg(args, 0, msg, opts, level);
  const LogTemplate *t = g_hash_table_lookup(st->by_name, name->str);
  tf_level_pop();
  if (t)
    log_template_format(t, msg, opts, out);
  else if (argc > 1)
    log_template_format(args[1], msg, opts, out);
}

static const LogTemplateFunction template_f = { "template", _template_prepare, _template_call, _state_free };

const LogTemplateFunction *const tf_template_functions[] = { &template_f, NULL };
