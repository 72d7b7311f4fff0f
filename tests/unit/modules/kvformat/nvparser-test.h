/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_NVPARSER_TEST_H
#define SLUICE_NVPARSER_TEST_H

/*
 * Helpers of the kv-parser, csv-parser and json-parser suites: a processor
 * built from configuration text as the pipeline builds it, messages with
 * a given MESSAGE, and value checks.
 */

#include "sluice/cfg-tree.h"
#include "sluice/driver.h"

#include <criterion/criterion.h>
#include <glib.h>
#include <string.h>

/* The first call of "parser p { ... };" in text (which may hold template {}
 * blocks too) built by f; NULL with *err on a configuration error. */
static inline LogProcessor *
nvt_build(const LogDriverFactory *f, const char *text, CfgError *err)
{
  CfgParseOptions po = { .no_includes = true, .no_env = true };
  CfgTree *tree = cfg_parse_string("test.conf", text, strlen(text), &po, err);
  if (!tree)
    return NULL;
  CfgNode *def = cfg_tree_lookup(tree, CFG_OBJ_PARSER, "p");
  cr_assert(def && def->n_children >= 1, "no parser p in %s", text);
  LogDriverContext ctx = { .global = NULL, .tree = tree, .stmt_name = "p" };
  LogProcessor *p = f->new_processor(def->children[0], &ctx, err);
  cfg_tree_free(tree);
  return p;
}

static inline LogProcessor *
nvt_new(const LogDriverFactory *f, const char *text)
{
  CfgError err = { 0 };
  LogProcessor *p = nvt_build(f, text, &err);
  cr_assert(p, "%s: %s", text, err.message ? err.message : "?");
  return p;
}

/* Building text must fail with an error containing want. */
static inline void
nvt_assert_error(const LogDriverFactory *f, const char *text, const char *want)
{
  CfgError err = { 0 };
  LogProcessor *p = nvt_build(f, text, &err);
  cr_assert_null(p, "accepted: %s", text);
  cr_assert(err.message && strstr(err.message, want), "%s: error '%s' lacks '%s'", text,
            err.message ? err.message : "(none)", want);
  cfg_error_clear(&err);
}

/* A message whose MESSAGE is text[0..len) (len < 0: strlen). */
static inline LogMsg *
nvt_msg(const char *text, ssize_t len)
{
  LogMsg *msg = log_msg_new(256);
  log_msg_set_value(msg, LM_V_MESSAGE, text, len);
  log_msg_set_value(msg, LM_V_PROGRAM, "prog", -1);
  return msg;
}

/* Run p on *pmsg write-protected, as the pipeline hands over a shared
 * message. */
static inline bool
nvt_run(LogProcessor *p, LogMsg **pmsg)
{
  log_msg_write_protect(*pmsg);
  return p->ops->process(p, pmsg);
}

/* The value called name, or "(unset)"; g_free it. */
static inline char *
nvt_value(const LogMsg *msg, const char *name)
{
  NVHandle h = log_msg_get_value_handle(name, -1);
  if (!log_msg_is_value_set(msg, h))
    return g_strdup("(unset)");
  size_t len;
  const char *v = log_msg_get_value(msg, h, &len);
  return g_strndup(v, len);
}

#define nvt_assert_value(msg, name, want)                                                                       \
  do                                                                                                            \
    {                                                                                                           \
      char *got_ = nvt_value((msg), (name));                                                                    \
      cr_assert_str_eq(got_, (want), "value %s", (name));                                                       \
      g_free(got_);                                                                                             \
    }                                                                                                           \
  while (0)

#endif
