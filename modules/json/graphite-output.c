/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * $(graphite-output [--timestamp TEMPLATE] VALUE-PAIRS): the pairs
 * value-pairs picks, one Graphite plaintext line each,
 * "NAME VALUE TIMESTAMP\n", in ascending order of the names, as syslog-ng 3.38's
 * graphite module writes them.  TIMESTAMP is the --timestamp (-t)
 * template, $R_UNIXTIME by default; a leading '.' of a name becomes '_'
 * (after the caller's own --rekey sets).
 */
#include "json-module.h"
#include "value-pairs.h"

#include "sluice/scratch.h"

#include <stdlib.h>
#include <string.h>

typedef struct GraphiteState
{
  ValuePairs *vp;
  LogTemplate *timestamp;
} GraphiteState;

static _Thread_local GString *tls_stamp;

static void
_graphite_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
               GString *out)
{
  (void) argc, (void) args;
  GraphiteState *st = state;
  GString *stamp = scratch_gstring(&tls_stamp, 32);
  g_string_truncate(stamp, 0);
  log_template_format(st->timestamp, msg, NULL, stamp);
  ValuePairsResult *res = value_pairs_result_acquire();
  size_t n = value_pairs_collect(st->vp, msg, opts, res);
  ValuePairsEntry *e = (ValuePairsEntry *) res->entries->data;
  value_pairs_sort_ascending(e, n);
  for (size_t i = 0; i < n; i++)
    {
      g_string_append_len(out, e[i].name, e[i].name_len);
      g_string_append_c(out, ' ');
      g_string_append_len(out, e[i].value, e[i].value_len);
      g_string_append_c(out, ' ');
      g_string_append_len(out, stamp->str, (gssize) stamp->len);
      g_string_append_c(out, '\n');
    }
  value_pairs_result_release(res);
}

static void
_graphite_free(void *state)
{
  GraphiteState *st = state;
  if (!st)
    return;
  value_pairs_free(st->vp);
  if (st->timestamp)
    log_template_unref(st->timestamp);
  free(st);
}

/* --timestamp T, --timestamp=T, -t T: taken out of argv; the rest, and the
 * rekey that turns a leading '.' into '_', go to value-pairs */
static char *
_graphite_prepare(int argc, char **argv, void **state)
{
  GraphiteState *st = calloc(1, sizeof(*st));
  if (!st)
    abort();
  const char *ts = "$R_UNIXTIME";
  GPtrArray *rest = g_ptr_array_new();
  char *error = NULL;
  for (int i = 1; i < argc && !error; i++)
    {
      if (strncmp(argv[i], "--timestamp=", 12) == 0)
        ts = argv[i] + 12;
      else if (strcmp(argv[i], "--timestamp") == 0 || strcmp(argv[i], "-t") == 0)
        {
          if (i + 1 < argc)
            ts = argv[++i];
          else
            error = g_strdup("$(graphite-output): --timestamp needs a template");
        }
      else
        g_ptr_array_add(rest, argv[i]);
    }
  static char *const dot_rekey[] = { "--rekey", ".*", "--replace-prefix", ".=_" };
  for (size_t i = 0; i < G_N_ELEMENTS(dot_rekey); i++)
    g_ptr_array_add(rest, dot_rekey[i]);
  if (!error)
    st->timestamp = log_template_compile(ts, &error);
  if (!error)
    st->vp = value_pairs_new_from_argv((int) rest->len, (char **) rest->pdata, &error);
  g_ptr_array_free(rest, TRUE);
  if (error)
    {
      _graphite_free(st);
      return error;
    }
  *state = st;
  return NULL;
}

static const LogTemplateFunction graphite_output = { "graphite-output", _graphite_prepare, _graphite_call,
                                                     _graphite_free };

void
json_register_graphite_template_functions(void)
{
  log_template_function_register(&graphite_output);
}
