/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Helpers of the rewrite suites: build one rule from configuration text
 * the way the daemon does (driver check, then the factory), run it on a
 * message, read values back. */
#ifndef REWRITE_TEST_H
#define REWRITE_TEST_H

#include "modules.h"
#include "sluice/cfg-drivers.h"
#include "sluice/driver.h"
#include "sluice/logmsg.h"

#include <criterion/criterion.h>
#include <glib.h>
#include <string.h>

/* Builds the first call of `rewrite r { RULE; };` (after `extra`, which
 * may define filters).  Returns NULL with the error's text in *error (a
 * "line:col: message" string, g_free) when the check or the factory
 * refuses it. */
static inline LogProcessor *
rw_build_with(const char *extra, const char *rule, char **error)
{
  char *text = g_strdup_printf("%s\nrewrite r { %s; };\n", extra ? extra : "", rule);
  CfgError err = { 0 };
  LogProcessor *p = NULL;
  CfgTree *tree = cfg_parse_string("test.conf", text, strlen(text), NULL, &err);
  if (tree)
    {
      const CfgDriverDef *defs[32];
      size_t n = 0;
      for (size_t i = 0; rewrite_driver_factories[i] && n < 31; i++)
        defs[n++] = &rewrite_driver_factories[i]->def;
      defs[n] = NULL;
      if (cfg_check_drivers(tree, defs, &err))
        {
          const CfgNode *call = cfg_tree_lookup(tree, CFG_OBJ_REWRITE, "r")->children[0];
          for (size_t i = 0; rewrite_driver_factories[i]; i++)
            if (cfg_name_equal(rewrite_driver_factories[i]->def.name, call->name))
              {
                CfgGlobalOptions go;
                cfg_global_options_load(&go, tree, &err);
                LogDriverContext ctx = { &go, tree, "r" };
                p = rewrite_driver_factories[i]->new_processor(call, &ctx, &err);
                cfg_options_free(cfg_global_options_table, &go);
              }
        }
      /* the rule must not keep pointers into the tree */
      cfg_tree_free(tree);
    }
  if (!p && error)
    *error = g_strdup_printf("%d:%d: %s", err.line, err.col, err.message ? err.message : "(no message)");
  cfg_error_clear(&err);
  g_free(text);
  return p;
}

static inline LogProcessor *
rw_build(const char *rule)
{
  char *error = NULL;
  LogProcessor *p = rw_build_with(NULL, rule, &error);
  cr_assert(p, "'%s' refused: %s", rule, error ? error : "");
  return p;
}

/* Asserts that rule is refused with an error containing `what` at
 * line:col `where` (e.g. "2:13"; the rule sits on line 2). */
static inline void
rw_assert_refused(const char *rule, const char *where, const char *what)
{
  char *error = NULL;
  LogProcessor *p = rw_build_with(NULL, rule, &error);
  cr_assert_null(p, "'%s' accepted", rule);
  cr_assert(strstr(error, what), "'%s': got '%s', want '%s'", rule, error, what);
  cr_assert(strncmp(error, where, strlen(where)) == 0 && error[strlen(where)] == ':', "'%s': got '%s', want at %s",
            rule, error, where);
  g_free(error);
}

/* A message with name=value pairs from "a=1 b=2" (no spaces in values)
 * and the given PRI. */
static inline LogMsg *
rw_msg(const char *pairs, int pri)
{
  LogMsg *m = log_msg_new(256);
  m->pri = (uint16_t) pri;
  char **kv = g_strsplit(pairs, " ", -1);
  for (char **p = kv; *p; p++)
    {
      char *eq = strchr(*p, '=');
      if (!eq)
        continue;
      *eq = '\0';
      log_msg_set_value_by_name(m, *p, eq + 1, -1);
    }
  g_strfreev(kv);
  return m;
}

/* The value of name as a new string, or NULL when unset. */
static inline char *
rw_get(const LogMsg *m, const char *name)
{
  NVHandle h = log_msg_get_value_handle(name, -1);
  if (!log_msg_is_value_set(m, h))
    return NULL;
  size_t len;
  const char *v = log_msg_get_value(m, h, &len);
  return g_strndup(v, len);
}

#define rw_assert_value(m, name, want)                                                         \
  do                                                                                           \
    {                                                                                          \
      char *got_ = rw_get((m), (name));                                                        \
      const char *want_ = (want);                                                              \
      if (want_)                                                                               \
        cr_assert(got_ && strcmp(got_, want_) == 0, "%s: got '%s', want '%s'", (name),         \
                  got_ ? got_ : "(unset)", want_);                                             \
      else                                                                                     \
        cr_assert_null(got_, "%s: got '%s', want unset", (name), got_);                        \
      g_free(got_);                                                                            \
    }                                                                                          \
  while (0)

/* Runs p on m (returned, possibly a copy) and checks it never ends the path. */
static inline LogMsg *
rw_run(LogProcessor *p, LogMsg *m)
{
  cr_assert(p->ops->process(p, &m), "a rewrite rule ended the log path");
  return m;
}

/* Builds rule, runs it on a message from pairs/pri, frees the rule. */
static inline LogMsg *
rw_apply(const char *rule, const char *pairs, int pri)
{
  LogProcessor *p = rw_build(rule);
  LogMsg *m = rw_run(p, rw_msg(pairs, pri));
  p->ops->free(p);
  return m;
}

#endif
