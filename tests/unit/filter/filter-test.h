/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Helpers shared by the filter suites: compile `filter f { EXPR };` and
 * parse a syslog line. */
#ifndef SLUICE_TEST_FILTER_TEST_H
#define SLUICE_TEST_FILTER_TEST_H

#include "sluice/filter.h"
#include "sluice/msg-format.h"

#include <criterion/criterion.h>
#include <glib.h>
#include <stdlib.h>
#include <string.h>

static inline FilterExpr *
ft_compile(const char *expr, CfgError *err)
{
  char *text = g_strdup_printf("@version: 3.38\nfilter f { %s };\n", expr);
  CfgTree *tree = cfg_parse_string("test.conf", text, strlen(text), NULL, err);
  g_free(text);
  if (!tree)
    return NULL;
  FilterExpr *f = filter_expr_compile_block(cfg_tree_lookup(tree, CFG_OBJ_FILTER, "f"), err);
  cfg_tree_free(tree);
  return f;
}

static inline FilterExpr *
ft_compile_ok(const char *expr)
{
  CfgError err = { 0 };
  FilterExpr *f = ft_compile(expr, &err);
  cr_assert_not_null(f, "%s: %s", expr, err.message);
  return f;
}

static inline LogMsg *
ft_parse(const char *line)
{
  MsgFormatOptions o;
  msg_format_options_defaults(&o);
  LogStamp now = { .sec = 1795342443 };
  return msg_format_parse(&o, line, strlen(line), &now);
}

/* The compile error for expr must contain part. */
static inline void
ft_check_error(const char *expr, const char *part)
{
  CfgError err = { 0 };
  FilterExpr *f = ft_compile(expr, &err);
  cr_assert_null(f, "%s compiled", expr);
  char *text = cfg_error_format(&err);
  cr_assert(strstr(text, part), "error for %s: \"%s\", expected \"%s\"", expr, text, part);
  free(text);
  cfg_error_clear(&err);
}

/* The value name holds on msg, as a new string. */
static inline char *
ft_value(const LogMsg *msg, const char *name)
{
  size_t len;
  const char *v = log_msg_get_value(msg, log_msg_get_value_handle(name, -1), &len);
  return g_strndup(v, len);
}

#endif
