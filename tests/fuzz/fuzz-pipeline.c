/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: the whole way from configuration text to a compiled
 * pipeline, as --syntax-only, a start and a reload take it: the lexer, the
 * preprocessor (@define, backtick substitution), the parser and resolver,
 * the global options, every driver's option table and constructor, and the
 * log path compiler.  Nothing is started, so nothing is bound or opened.
 * @include finds names only in a directory the target writes at start
 * (snippets, a directory of them, a FIFO and a file that includes itself),
 * and the environment is not read, so the result depends on the input
 * alone.  Any input must end in a pipeline or in an error with a message
 * and a place; never a crash, a hang or a leak.
 */
#include "sluice/cfg-options.h"
#include "sluice/cfg-tree.h"
#include "sluice/driver.h"
#include "sluice/internal-log.h"
#include "sluice/pipeline.h"

#include <glib.h>
#include <glib/gstdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static char *include_dir;
static const char *include_path[2];

static void
_put(const char *name, const char *text)
{
  char *path = g_build_filename(include_dir, name, NULL);
  char *dir = g_path_get_dirname(path);
  g_mkdir_with_parents(dir, 0700);
  if (!g_file_set_contents(path, text, -1, NULL))
    abort();
  g_free(dir);
  g_free(path);
}

static void
_remove_include_dir(void)
{
  const char *names[] = { "conf.d/10-a.conf", "conf.d/20-b.conf", "conf.d", "src.conf", "defs.conf", "self.conf",
                          "fifo.conf", NULL };
  for (size_t i = 0; names[i]; i++)
    {
      char *path = g_build_filename(include_dir, names[i], NULL);
      g_remove(path);
      g_free(path);
    }
  g_rmdir(include_dir);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
  include_dir = g_dir_make_tmp("fuzz-pipeline-XXXXXX", NULL);
  if (!include_dir)
    abort();
  _put("src.conf", "source s_inc { tcp(ip(127.0.0.1) port(5514)); };\n");
  _put("defs.conf", "@define port 5515\n@define host \"127.0.0.1\"\n");
  _put("self.conf", "@include \"self.conf\"\n");
  _put("conf.d/10-a.conf", "destination d_inc { file(\"/dev/null\"); };\n");
  _put("conf.d/20-b.conf", "log { source(s_inc); destination(d_inc); };\n");
  char *fifo = g_build_filename(include_dir, "fifo.conf", NULL);
  mkfifo(fifo, 0600);
  g_free(fifo);
  include_path[0] = include_dir;
  atexit(_remove_include_dir);
  return 0;
}

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
  CfgParseOptions opts = { .include_path = include_path, .include_path_only = true, .no_env = true };
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
