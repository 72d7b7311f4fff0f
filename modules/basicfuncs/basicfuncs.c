/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The basic template functions' registration and shared helpers. */
#include "basicfuncs.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>

void
basicfuncs_register_template_functions(void)
{
  const LogTemplateFunction *const *const tables[] = {
    tf_cond_functions,
    tf_date_functions,
    tf_getent_functions,
    tf_hash_functions,
    tf_list_functions,
    tf_numeric_functions,
    tf_string_functions,
    tf_template_functions,
  };
  for (size_t t = 0; t < G_N_ELEMENTS(tables); t++)
    for (size_t i = 0; tables[t][i]; i++)
      log_template_function_register(tables[t][i]);
}

char *
tf_error(const char *name, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  char *what = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  char *msg = g_strdup_printf("$(%s) %s", name, what);
  g_free(what);
  return msg;
}

GString *
tf_format_arg(LogTemplate *const *args, int i, const LogMsg *msg, const LogTemplateOptions *opts, int level)
{
  GString *s = log_template_scratch_get(level);
  log_template_format(args[i], msg, opts, s);
  return s;
}

/* Nested functions format their arguments on deeper scratch levels: the
 * level follows how deep the evaluation is on this thread. */
static _Thread_local int each_depth;

int
tf_level_push(void)
{
  int d = each_depth++;
  /* the first 8 below the parsers' levels, the rest above them */
  return d < LOG_TEMPLATE_SCRATCH_PARSERS ? d : LOG_TEMPLATE_SCRATCH_DEEP + (d - LOG_TEMPLATE_SCRATCH_PARSERS);
}

void
tf_level_pop(void)
{
  each_depth--;
}

void
tf_append_each(int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
               const char *sep, TfArgFunc func, GString *out)
{
  int level = tf_level_push();
  for (int i = 0; i < argc; i++)
    {
      if (i && sep)
        g_string_append(out, sep);
      GString *s = tf_format_arg(args, i, msg, opts, level);
      func(s->str, s->len, out);
    }
  tf_level_pop();
}

bool
tf_parse_int64(const char *s, int64_t *out)
{
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (end == s || *end || errno)
    return false;
  *out = v;
  return true;
}
