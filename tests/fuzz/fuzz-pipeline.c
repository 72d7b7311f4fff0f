/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: the whole way from configuration text to a compiled
 * pipeline, as --syntax-only, a start and a reload take it: the lexer, the
 * preprocessor (@define, backtick substitution), the parser and resolver,
 * the global options, every driver's option table and constructor, and the
 * log path compiler.  Nothing is started, so nothing is bound or opened.
 * @include is disabled and the environment is not read, so the result
 * depends on the input alone.  Any input must end in a pipeline or in an
 * error with a message and a place; never a crash, a hang or a leak.
 */
#include "sluice/cfg-options.h"
#include "sluice/cfg-tree.h"
#include "sluice/driver.h"
#include "sluice/internal-log.h"
#include "sluice/pipeline.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t sink;

static void
_check_error(CfgError *err)
{
  if (!err->message || !err->file || err->line < 1 || err->col < 1)
    abort();
  char *s = cfg_error_format(err);
  sink = strlen(s);
  free(s);
  cfg_error_clear(err);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  CfgParseOptions opts = { .no_includes = true, .no_env = true };
  CfgError err = { 0 };
  CfgTree *t = cfg_parse_string("fuzz.conf", (const char *) data, size, &opts, &err);
  if (!t)
    {
      _check_error(&err);
      return 0;
    }
  CfgGlobalOptions go;
  if (cfg_global_options_load(&go, t, &err))
    {
      LogPipeline *pl = log_pipeline_new(t, &go, log_driver_factories(), &err);
      if (pl)
        log_pipeline_free(pl);
      else
        _check_error(&err);
    }
  else if (!err.message)
    abort();
  cfg_error_clear(&err);
  cfg_options_free(cfg_global_options_table, &go);
  cfg_tree_free(t);
  return 0;
}
