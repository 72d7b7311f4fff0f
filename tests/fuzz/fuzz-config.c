/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: the configuration front end.
 *
 * Input: the bytes of a configuration file.  @include is disabled and the
 * environment is not read, so the result depends on the input alone.  A
 * parsed tree is walked completely and run through the global options
 * table; an error must come with a message and a location.
 */
#include "sluice/cfg-options.h"
#include "sluice/cfg-tree.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t sink;

static size_t
_walk(const CfgNode *n)
{
  size_t sum = n->kind + (n->name ? strlen(n->name) : 0) + (size_t) n->loc.line + (size_t) n->loc.col;
  if (n->loc.line < 1 || n->loc.col < 1 || !n->loc.file)
    abort();
  for (size_t i = 0; i < n->n_args; i++)
    sum += strlen(n->args[i].str) + (size_t) n->args[i].num;
  for (size_t i = 0; i < n->n_children; i++)
    sum += _walk(n->children[i]);
  if (n->cond)
    sum += _walk(n->cond);
  if (n->kind == CFG_NODE_REF && !n->target)
    abort();
  return sum;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  CfgParseOptions opts = { .no_includes = true, .no_env = true };
  CfgError err = { 0 };
  /* --preprocess-into's text, block expansions shown */
  size_t pre_len = 0;
  char *pre = cfg_preprocess_string("fuzz.conf", (const char *) data, size, &opts, &pre_len, &err);
  if (pre)
    {
      sink = pre_len;
      free(pre);
    }
  else if (!err.message)
    abort();
  cfg_error_clear(&err);
  CfgTree *t = cfg_parse_string("fuzz.conf", (const char *) data, size, &opts, &err);

  if (!t)
    {
      if (!err.message || !err.file || err.line < 1 || err.col < 1)
        abort();
      char *s = cfg_error_format(&err);
      sink = strlen(s);
      free(s);
      cfg_error_clear(&err);
      return 0;
    }
  sink = _walk(t->root);
  CfgGlobalOptions go;
  if (!cfg_global_options_load(&go, t, &err) && !err.message)
    abort();
  cfg_options_free(cfg_global_options_table, &go);
  cfg_error_clear(&err);
  cfg_tree_free(t);
  return 0;
}
