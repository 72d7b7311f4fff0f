/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The template functions that read a correlation context
 * (LogTemplateContext, set by the correlation thread while it formats an
 * action's values, and by grouping-by()):
 *
 *   $(context-length)          the number of messages in the context (1
 *                              outside one, as in syslog-ng);
 *   $(context-values T1 T2..)  each template formatted on each message of
 *                              the context, oldest first, as a list
 *                              ("a,b,c"; items with a comma, a quote, a
 *                              backslash or white space are double-quoted
 *                              with '"' and '\' escaped).
 */
#include "dbparser.h"

#include "sluice/template.h"

#include <glib.h>

static void
_length_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg,
             const LogTemplateOptions *opts, GString *out)
{
  (void) state, (void) argc, (void) args, (void) msg, (void) opts;
  LogTemplateContext ctx = log_template_context_get();
  g_string_append_printf(out, "%zu", ctx.n ? ctx.n : (size_t) 1);
}

static void
_list_item(GString *out, const char *s, size_t len, bool first)
{
  if (!first)
    g_string_append_c(out, ',');
  bool quote = len == 0 && !first;
  for (size_t i = 0; i < len && !quote; i++)
    if (s[i] == ',' || s[i] == '"' || s[i] == '\'' || s[i] == '\\' || g_ascii_isspace(s[i]))
      quote = true;
  if (!quote)
    {
      g_string_append_len(out, s, (gssize) len);
      return;
    }
  g_string_append_c(out, '"');
  for (size_t i = 0; i < len; i++)
    {
      if (s[i] == '"' || s[i] == '\\')
        g_string_append_c(out, '\\');
      g_string_append_c(out, s[i]);
    }
  g_string_append_c(out, '"');
}

static void
_values_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg,
             const LogTemplateOptions *opts, GString *out)
{
  (void) state;
  LogTemplateContext ctx = log_template_context_get();
  const LogMsg *const *msgs = ctx.n ? ctx.msgs : &msg;
  size_t n = ctx.n ? ctx.n : 1;
  /* a nested call may set a context of its own: format without one */
  LogTemplateContext saved = log_template_context_set((LogTemplateContext) { NULL, 0 });
  GString *buf = g_string_sized_new(64);
  bool first = true;
  for (size_t m = 0; m < n; m++)
    for (int i = 0; i < argc; i++)
      {
        g_string_truncate(buf, 0);
        log_template_format(args[i], msgs[m], opts, buf);
        _list_item(out, buf->str, buf->len, first);
        first = false;
      }
  g_string_free(buf, TRUE);
  log_template_context_set(saved);
}

static const LogTemplateFunction context_length = { "context-length", NULL, _length_call, NULL };
static const LogTemplateFunction context_values = { "context-values", NULL, _values_call, NULL };

void
dbparser_register_template_functions(void)
{
  log_template_function_register(&context_length);
  log_template_function_register(&context_values);
}
