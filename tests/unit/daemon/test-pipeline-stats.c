/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The stats rows of a pipeline (src/daemon/pipeline-stats.h): messages
 * delivered on every worker and on a thread that is not one are all
 * counted once, per source, destination statement and driver, and the
 * CSV, query names and Prometheus text come out in syslog-ng's shapes.
 */
#include "daemon/pipeline-stats.h"
#include "sluice/internal-log.h"
#include "sluice/msg-format.h"

#include "fake-source.h"

#include <criterion/criterion.h>
#include <glib.h>
#include <string.h>

static long
sink_write(void *dest, LogQueueItem *items, size_t n)
{
  return (long) n;
}

static const LogWriterOps sink_writer_ops = { sink_write, NULL, NULL, NULL };

static void
sink_free(LogDestDriver *d)
{
  free(d);
}

static const LogDestOps sink_ops = { NULL, sink_free };

static LogDestDriver *
sink_new_dest(const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  LogDestDriver *d = calloc(1, sizeof(*d));
  d->ops = &sink_ops;
  d->writer_ops = &sink_writer_ops;
  d->driver = "sink";
  d->log_fifo_size = 100000;
  return d;
}

static const LogDriverFactory fake_factory = {
  .def = { .kind = CFG_OBJ_SOURCE, .name = "fake", .min_args = 0, .max_args = 0 },
  .new_source = fake_new_source,
};
static const LogDriverFactory sink_factory = {
  .def = { .kind = CFG_OBJ_DESTINATION, .name = "sink", .min_args = 0, .max_args = 0 },
  .new_dest = sink_new_dest,
};
static const LogDriverFactory *const factories[] = { &fake_factory, &sink_factory, NULL };

#define PER_CALL 1000

typedef struct Feed
{
  LogPipeline *pl;
  int source;
} Feed;

/* PER_CALL messages from source, then the batches pushed as after a read */
static void
_feed(void *arg)
{
  Feed *f = arg;
  MsgFormatOptions o;
  msg_format_options_defaults(&o);
  LogStamp now = { .sec = 1795342443 };
  const char *line = "<14>Nov 22 10:00:00 h app: u";
  for (int i = 0; i < PER_CALL; i++)
    log_pipeline_deliver(f->pl, f->source, msg_format_parse(&o, line, strlen(line), &now));
  log_pipeline_flush(f->pl);
}

static void
_name_row(const StatsRow *row, void *ud)
{
  GString *out = ud;
  stats_row_name(row, out);
  g_string_append_printf(out, "=%" G_GUINT64_FORMAT "\n", (guint64) row->value);
}

Test(pipeline_stats, every_thread_counts_once_in_every_format)
{
  sluice_log_set_stderr(false, SLUICE_LOG_ERROR);
  const char *text = "@version: 3.38\n"
                     "source s_a { fake(); }; source s_b { fake(); };\n"
                     "destination d_x { sink(); sink(); };\n"
                     "log { source(s_a); source(s_b); destination(d_x); };\n";
  CfgError err = { 0 };
  CfgTree *tree = cfg_parse_string("test.conf", text, strlen(text), NULL, &err);
  cr_assert_not_null(tree, "%s", err.message);
  CfgGlobalOptions global;
  cr_assert(cfg_global_options_load(&global, tree, &err), "%s", err.message);
  LogPipeline *pl = log_pipeline_new(tree, &global, factories, &err);
  cr_assert_not_null(pl, "%s", err.message);
  const char *perr;
  WorkerPool *pool = worker_pool_start(3, &perr);
  char *serr = NULL;
  cr_assert(log_pipeline_start(pl, pool, &serr), "%s", serr);

  /* s_a: 3 workers x 2 runs; s_b: once from this (non-worker) thread */
  Feed a = { pl, log_pipeline_source_id(pl, "s_a") }, b = { pl, log_pipeline_source_id(pl, "s_b") };
  worker_pool_run_everywhere(pool, _feed, &a);
  worker_pool_run_everywhere(pool, _feed, &a);
  _feed(&b);
  cr_assert_eq(log_pipeline_stop(pl, 5000), 0);

  GString *csv = g_string_new(NULL);
  stats_format_csv(pl, csv);
  const uint64_t na = 6 * PER_CALL, nb = PER_CALL, n = na + nb;
  char *want = g_strdup_printf("SourceName;SourceId;SourceInstance;State;Type;Number\n"
                               "center;;received;a;processed;%" G_GUINT64_FORMAT "\n"
                               "center;;queued;a;processed;%" G_GUINT64_FORMAT "\n"
                               "source;s_a;;a;processed;%" G_GUINT64_FORMAT "\n"
                               "source;s_b;;a;processed;%" G_GUINT64_FORMAT "\n"
                               "destination;d_x;;a;processed;%" G_GUINT64_FORMAT "\n"
                               "dst.sink;d_x#0;;a;dropped;0\n"
                               "dst.sink;d_x#0;;a;processed;%" G_GUINT64_FORMAT "\n"
                               "dst.sink;d_x#0;;a;queued;0\n"
                               "dst.sink;d_x#0;;a;written;%" G_GUINT64_FORMAT "\n"
                               "dst.sink;d_x#1;;a;dropped;0\n"
                               "dst.sink;d_x#1;;a;processed;%" G_GUINT64_FORMAT "\n"
                               "dst.sink;d_x#1;;a;queued;0\n"
                               "dst.sink;d_x#1;;a;written;%" G_GUINT64_FORMAT "\n",
                               (guint64) n, (guint64) (2 * n), (guint64) na, (guint64) nb, (guint64) (2 * n),
                               (guint64) n, (guint64) n, (guint64) n, (guint64) n);
  cr_assert_str_eq(csv->str, want);
  g_free(want);

  GString *names = g_string_new(NULL);
  log_pipeline_foreach_stat(pl, _name_row, names);
  cr_assert(strstr(names->str, "center.received.processed=7000\n"), "%s", names->str);
  cr_assert(strstr(names->str, "source.s_a.processed=6000\n"), "%s", names->str);
  cr_assert(strstr(names->str, "dst.sink.d_x#1.written=7000\n"), "%s", names->str);

  GString *prom = g_string_new(NULL);
  stats_format_prometheus(pl, prom);
  cr_assert(strstr(prom->str, "sluice_center_processed{id=\"received\"} 7000\n"), "%s", prom->str);
  cr_assert(strstr(prom->str, "sluice_source_processed{id=\"s_b\"} 1000\n"), "%s", prom->str);
  cr_assert(strstr(prom->str, "sluice_dst_sink_written{id=\"d_x#0\"} 7000\n"), "%s", prom->str);

  g_string_free(csv, TRUE);
  g_string_free(names, TRUE);
  g_string_free(prom, TRUE);
  log_pipeline_free(pl);
  worker_pool_stop(pool);
  cfg_options_free(cfg_global_options_table, &global);
  cfg_tree_free(tree);
}

/* Label values are escaped as the text format requires. */
Test(pipeline_stats, prometheus_labels_are_escaped)
{
  sluice_log_set_stderr(false, SLUICE_LOG_ERROR);
  const char *text = "@version: 3.38\nsource s { fake(); };\n"
                     "destination \"d\\\"q\" { sink(); };\nlog { source(s); destination(\"d\\\"q\"); };\n";
  CfgError err = { 0 };
  CfgTree *tree = cfg_parse_string("test.conf", text, strlen(text), NULL, &err);
  cr_assert_not_null(tree, "%s", err.message);
  CfgGlobalOptions global;
  cr_assert(cfg_global_options_load(&global, tree, &err), "%s", err.message);
  LogPipeline *pl = log_pipeline_new(tree, &global, factories, &err);
  cr_assert_not_null(pl, "%s", err.message);
  GString *prom = g_string_new(NULL);
  stats_format_prometheus(pl, prom);
  cr_assert(strstr(prom->str, "sluice_destination_processed{id=\"d\\\"q\"} 0\n"), "%s", prom->str);
  g_string_free(prom, TRUE);
  log_pipeline_free(pl);
  cfg_options_free(cfg_global_options_table, &global);
  cfg_tree_free(tree);
}
