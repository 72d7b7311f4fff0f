/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The stats rows of a pipeline (src/daemon/pipeline-stats.h): messages
 * delivered on every worker and on a thread that is not one are all
 * counted once, per source, destination statement and driver, and the
 * CSV, query names and Prometheus text come out in syslog-ng's shapes;
 * stats-level 1 to 3 add per-driver and per-host/sender/program/facility/
 * severity/tag rows, stats-max-dynamics bounds them, and a reload carries
 * every counter on.
 */
#include "daemon/pipeline-stats.h"
#include "sluice/handover.h"
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
                               "dst.sink;d_x#0;;a;memory_usage;0\n"
                               "dst.sink;d_x#0;;a;written;%" G_GUINT64_FORMAT "\n"
                               "dst.sink;d_x#1;;a;dropped;0\n"
                               "dst.sink;d_x#1;;a;processed;%" G_GUINT64_FORMAT "\n"
                               "dst.sink;d_x#1;;a;queued;0\n"
                               "dst.sink;d_x#1;;a;memory_usage;0\n"
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

/* ---- stats-level 1..3 ------------------------------------------------- */

typedef struct Conf
{
  CfgTree *tree;
  CfgGlobalOptions global;
  LogPipeline *pl;
} Conf;

static void
conf_load(Conf *c, const char *options)
{
  char *text = g_strdup_printf("@version: 3.38\noptions { %s };\nsource s_a { fake(); fake(); };\n"
                               "destination d { sink(); };\nlog { source(s_a); destination(d); };\n",
                               options);
  CfgError err = { 0 };
  c->tree = cfg_parse_string("test.conf", text, strlen(text), NULL, &err);
  g_free(text);
  cr_assert_not_null(c->tree, "%s", err.message);
  cr_assert(cfg_global_options_load(&c->global, c->tree, &err), "%s", err.message);
  c->pl = log_pipeline_new(c->tree, &c->global, factories, &err);
  cr_assert_not_null(c->pl, "%s", err.message);
}

static void
conf_free(Conf *c)
{
  log_pipeline_free(c->pl);
  cfg_options_free(cfg_global_options_table, &c->global);
  cfg_tree_free(c->tree);
}

/* n lines of the given host and program from driver k of s_a */
static void
send_from(Conf *c, int k, int n, const char *line)
{
  MsgFormatOptions o;
  msg_format_options_defaults(&o);
  LogStamp now = { .sec = 1795342443 };
  int slot = log_pipeline_source_id(c->pl, "s_a") + k;
  for (int i = 0; i < n; i++)
    log_pipeline_deliver(c->pl, slot, msg_format_parse(&o, line, strlen(line), &now));
}

static char *
csv_of(Conf *c)
{
  GString *csv = g_string_new(NULL);
  stats_format_csv(c->pl, csv);
  return g_string_free(csv, FALSE);
}

#define HAS(csv, row) cr_assert(strstr(csv, row "\n"), "no row %s in\n%s", row, csv)
#define HAS_NOT(csv, row) cr_assert_null(strstr(csv, row), "row %s in\n%s", row, csv)

#define L_H1 "<14>Nov 22 10:00:00 h1 app1: x"
#define L_H2 "<165>Nov 22 10:00:00 h2 app2: y"

Test(pipeline_stats, levels_add_driver_host_and_program_rows)
{
  sluice_log_set_stderr(false, SLUICE_LOG_ERROR);
  const char *perr;
  WorkerPool *pool = worker_pool_start(1, &perr);
  static const char *const levels[] = { "stats-level(0);", "stats-level(1);", "stats-level(2);",
                                        "stats-level(3);" };
  for (int level = 0; level < 4; level++)
    {
      Conf c;
      conf_load(&c, levels[level]);
      char *serr = NULL;
      cr_assert(log_pipeline_start(c.pl, pool, &serr), "%s", serr);
      send_from(&c, 0, 3, L_H1);
      send_from(&c, 1, 2, L_H2);
      char *csv = csv_of(&c);
      HAS(csv, "source;s_a;;a;processed;5");
      if (level >= 1)
        {
          HAS(csv, "src.fake;s_a#0;;a;processed;3");
          HAS(csv, "src.fake;s_a#1;;a;processed;2");
          HAS(csv, "src.fake;s_a#1;;a;stamp;1795342443");
        }
      else
        HAS_NOT(csv, "src.fake;");
      if (level >= 2)
        {
          HAS(csv, "src.host;;h1;d;processed;3");
          HAS(csv, "src.host;;h2;d;processed;2");
          cr_assert(strstr(csv, "src.host;;h2;d;stamp;1"), "%s", csv);
        }
      else
        HAS_NOT(csv, "src.host");
      if (level >= 3)
        {
          HAS(csv, "src.host;s_a#0;h1;d;processed;3");
          HAS(csv, "src.program;;app1;d;processed;3");
          HAS(csv, "src.program;;app2;d;processed;2");
          HAS(csv, "src.facility;;1;a;processed;3");
          HAS(csv, "src.facility;;20;a;processed;2");
          HAS(csv, "src.facility;;0;a;processed;0");
          HAS(csv, "src.severity;;6;a;processed;3");
          HAS(csv, "src.severity;;5;a;processed;2");
        }
      else
        HAS_NOT(csv, "src.program");
      g_free(csv);
      cr_assert_eq(log_pipeline_stop(c.pl, 5000), 0);
      conf_free(&c);
    }
  worker_pool_stop(pool);
}

Test(pipeline_stats, max_dynamics_bounds_the_rows)
{
  sluice_log_set_stderr(false, SLUICE_LOG_ERROR);
  const char *perr;
  WorkerPool *pool = worker_pool_start(1, &perr);
  Conf c;
  conf_load(&c, "stats(level(2) max-dynamics(1));");
  char *serr = NULL;
  cr_assert(log_pipeline_start(c.pl, pool, &serr), "%s", serr);
  send_from(&c, 0, 3, L_H1);
  send_from(&c, 0, 2, L_H2);
  char *csv = csv_of(&c);
  HAS(csv, "src.host;;h1;d;processed;3");
  HAS_NOT(csv, "src.host;;h2");
  g_free(csv);
  cr_assert_eq(log_pipeline_stop(c.pl, 5000), 0);
  conf_free(&c);
  worker_pool_stop(pool);
}

Test(pipeline_stats, a_reload_carries_the_counters_on)
{
  sluice_log_set_stderr(false, SLUICE_LOG_ERROR);
  const char *perr;
  WorkerPool *pool = worker_pool_start(1, &perr);
  Conf old, next;
  conf_load(&old, "stats-level(3);");
  char *serr = NULL;
  cr_assert(log_pipeline_start(old.pl, pool, &serr), "%s", serr);
  send_from(&old, 0, 3, L_H1);
  send_from(&old, 1, 2, L_H2);
  conf_load(&next, "stats-level(3);");
  handover_begin();
  cr_assert_eq(log_pipeline_stop_handover(old.pl, next.pl, 5000), 0);
  cr_assert(log_pipeline_start(next.pl, pool, &serr), "%s", serr);
  handover_end();
  conf_free(&old);
  send_from(&next, 0, 1, L_H1);
  char *csv = csv_of(&next);
  HAS(csv, "center;;received;a;processed;6");
  HAS(csv, "center;;queued;a;processed;6");
  HAS(csv, "source;s_a;;a;processed;6");
  HAS(csv, "src.fake;s_a#0;;a;processed;4");
  HAS(csv, "src.fake;s_a#1;;a;processed;2");
  HAS(csv, "src.host;;h1;d;processed;4");
  HAS(csv, "src.program;;app2;d;processed;2");
  HAS(csv, "src.facility;;1;a;processed;4");
  g_free(csv);
  cr_assert_eq(log_pipeline_stop(next.pl, 5000), 0);
  /* the queue went over with its counts too */
  csv = csv_of(&next);
  HAS(csv, "dst.sink;d#0;;a;written;6");
  g_free(csv);
  conf_free(&next);
  worker_pool_stop(pool);
}

/* ---- hostile names ---------------------------------------------------- */

static char *
csv_field(const char *field)
{
  GString *s = g_string_new(NULL);
  stats_csv_field(s, field);
  return g_string_free(s, FALSE);
}

static char *
prom_value(const char *value)
{
  GString *s = g_string_new(NULL);
  stats_prometheus_label_value(s, value);
  return g_string_free(s, FALSE);
}

#define FIELD_IS(fn, in, expected)                                                                                     \
  do                                                                                                                   \
    {                                                                                                                  \
      char *got = fn(in);                                                                                              \
      cr_assert_str_eq(got, expected, "%s of \"%s\"", #fn, in);                                                        \
      g_free(got);                                                                                                     \
    }                                                                                                                  \
  while (0)

/* syslog-ng-ctl's shapes: a field with ';' or '"' is quoted with \" inside,
 * control characters, backslashes and bytes that are not UTF-8 are written
 * as escapes, UTF-8 stands for itself. */
Test(pipeline_stats, csv_fields_are_quoted_and_escaped)
{
  FIELD_IS(csv_field, "plain.host", "plain.host");
  FIELD_IS(csv_field, "", "");
  FIELD_IS(csv_field, "a;b", "\"a;b\"");
  FIELD_IS(csv_field, "say \"hi\"", "\"say \\\"hi\\\"\"");
  FIELD_IS(csv_field, "x\n.\n", "x\\n.\\n");
  FIELD_IS(csv_field, ".", ".");
  FIELD_IS(csv_field, "cr\r tab\t bs\b ff\f nul-ish\x01", "cr\\r tab\\t bs\\b ff\\f nul-ish\\x01");
  FIELD_IS(csv_field, "back\\slash", "back\\\\slash");
  FIELD_IS(csv_field, "bad\xff\xfe utf8 \xc3", "bad\\xff\\xfe utf8 \\xc3");
  FIELD_IS(csv_field, "\xc3\xa1rv\xc3\xadz", "\xc3\xa1rv\xc3\xadz");
  FIELD_IS(csv_field, "both;\n\xff", "\"both;\\n\\xff\"");
}

/* The exposition format: \\, \" and \n; a byte that is not UTF-8 as the
 * text \xHH (so the value is valid UTF-8), anything else as it is. */
Test(pipeline_stats, prometheus_label_values_are_utf8_on_one_line)
{
  FIELD_IS(prom_value, "a;b", "a;b");
  FIELD_IS(prom_value, "x\n.\n", "x\\n.\\n");
  FIELD_IS(prom_value, "q\"b\\s", "q\\\"b\\\\s");
  FIELD_IS(prom_value, "bad\xff\xc3", "bad\\\\xff\\\\xc3");
  FIELD_IS(prom_value, "\xc3\xa1", "\xc3\xa1");
}

/* Split a CSV line on the separators outside quotes; -1 when a quote is
 * left open or a backslash escapes nothing. */
static int
csv_count_fields(const char *line)
{
  int n = 1;
  bool quoted = false;
  for (const char *p = line; *p; p++)
    {
      if (*p == '\\')
        {
          if (!p[1])
            return -1;
          p++;
        }
      else if (*p == '"')
        quoted = !quoted;
      else if (*p == ';' && !quoted)
        n++;
    }
  return quoted ? -1 : n;
}

static const char *const hostile_hosts[] = {
  "a;b", "x\n.\n", ".", "q\"uote", "bad\xff\xfe\xc3", "back\\slash", "tab\there\r",
};

typedef struct NameCheck
{
  int rows;
  int hostile;
} NameCheck;

/* Every query name is one line, never ".", and valid UTF-8. */
static void
check_name(const StatsRow *row, void *ud)
{
  NameCheck *nc = ud;
  GString *name = g_string_new(NULL);
  stats_row_name(row, name);
  cr_assert_null(strpbrk(name->str, "\n\r"), "query name with a line break: %s", name->str);
  cr_assert_str_neq(name->str, ".");
  cr_assert(g_utf8_validate(name->str, -1, NULL), "query name not UTF-8: %s", name->str);
  nc->rows++;
  if (strcmp(row->component, "src.host") == 0)
    nc->hostile++;
  g_string_free(name, TRUE);
}

/* Host names from the network cannot add rows to the CSV, cut a control
 * reply at a "." line, or put bytes that are not UTF-8 in the Prometheus
 * text. */
Test(pipeline_stats, hostile_host_names_stay_in_their_rows)
{
  sluice_log_set_stderr(false, SLUICE_LOG_ERROR);
  const char *perr;
  WorkerPool *pool = worker_pool_start(1, &perr);
  Conf c;
  conf_load(&c, "stats-level(2);");
  char *serr = NULL;
  cr_assert(log_pipeline_start(c.pl, pool, &serr), "%s", serr);
  MsgFormatOptions o;
  msg_format_options_defaults(&o);
  LogStamp now = { .sec = 1795342443 };
  int slot = log_pipeline_source_id(c.pl, "s_a");
  size_t n_hosts = G_N_ELEMENTS(hostile_hosts);
  for (size_t i = 0; i < n_hosts; i++)
    {
      LogMsg *msg = msg_format_parse(&o, L_H1, strlen(L_H1), &now);
      log_msg_set_value(msg, LM_V_HOST, hostile_hosts[i], -1);
      log_pipeline_deliver(c.pl, slot, msg);
    }

  /* the rows without the dynamic ones, then with them: each host adds
   * exactly its two rows (processed, stamp) */
  NameCheck nc = { 0 };
  log_pipeline_foreach_stat(c.pl, check_name, &nc);
  cr_assert_eq(nc.hostile, 2 * (int) n_hosts, "%d src.host rows", nc.hostile);

  char *csv = csv_of(&c);
  char **lines = g_strsplit(csv, "\n", -1);
  int n_lines = (int) g_strv_length(lines) - 1; /* after the last "\n" */
  cr_assert_str_eq(lines[n_lines], "");
  cr_assert_eq(n_lines, 1 + nc.rows, "%d lines for %d rows:\n%s", n_lines, nc.rows, csv);
  for (int i = 0; i < n_lines; i++)
    {
      cr_assert_eq(csv_count_fields(lines[i]), 6, "line %d: %s", i, lines[i]);
      cr_assert_str_neq(lines[i], ".");
      cr_assert(g_utf8_validate(lines[i], -1, NULL), "line %d not UTF-8: %s", i, lines[i]);
    }
  HAS(csv, "src.host;;\"a;b\";d;processed;1");
  HAS(csv, "src.host;;x\\n.\\n;d;processed;1");
  HAS(csv, "src.host;;bad\\xff\\xfe\\xc3;d;processed;1");
  g_strfreev(lines);
  g_free(csv);

  GString *prom = g_string_new(NULL);
  stats_format_prometheus(c.pl, prom);
  cr_assert(g_utf8_validate(prom->str, -1, NULL), "%s", prom->str);
  GRegex *re = g_regex_new("^[a-zA-Z_:][a-zA-Z0-9_:]*\\{([a-z]+=\"([^\"\\\\\\n]|\\\\[\\\\\"n])*\",?)*\\} [0-9]+$",
                           0, 0, NULL);
  lines = g_strsplit(prom->str, "\n", -1);
  n_lines = (int) g_strv_length(lines) - 1;
  cr_assert_eq(n_lines, nc.rows, "%d lines for %d rows:\n%s", n_lines, nc.rows, prom->str);
  for (int i = 0; i < n_lines; i++)
    cr_assert(g_regex_match(re, lines[i], 0, NULL), "line %d: %s", i, lines[i]);
  cr_assert(strstr(prom->str, "{id=\"\",instance=\"bad\\\\xff\\\\xfe\\\\xc3\"}"), "%s", prom->str);
  g_strfreev(lines);
  g_regex_unref(re);
  g_string_free(prom, TRUE);

  cr_assert_eq(log_pipeline_stop(c.pl, 5000), 0);
  conf_free(&c);
  worker_pool_stop(pool);
}

static bool
_pick_all(const StatsRow *row, void *ud)
{
  return true;
}

static bool
_pick_s_b(const StatsRow *row, void *ud)
{
  return strcmp(row->component, "source") == 0 && strcmp(row->id, "s_b") == 0;
}

static bool
_row_is(LogPipeline *pl, const char *line, bool quiet)
{
  GString *names = g_string_new(NULL);
  log_pipeline_foreach_stat(pl, _name_row, names);
  bool found = strstr(names->str, line) != NULL;
  if (!found && !quiet)
    cr_log_error("%s", names->str);
  g_string_free(names, TRUE);
  return found;
}

static bool
_has_row(LogPipeline *pl, const char *line)
{
  return _row_is(pl, line, false);
}

/* A reset writes no counter: reads give the value less its mark, rows not
 * picked go on, a reset row counts on from 0, and the periodic line reads
 * the same values. */
Test(pipeline_stats, a_reset_counts_from_zero_without_writing_the_counters)
{
  sluice_log_set_stderr(false, SLUICE_LOG_ERROR);
  const char *text = "@version: 3.38\n"
                     "source s_a { fake(); }; source s_b { fake(); };\n"
                     "destination d_x { sink(); };\n"
                     "log { source(s_a); source(s_b); destination(d_x); };\n";
  CfgError err = { 0 };
  CfgTree *tree = cfg_parse_string("test.conf", text, strlen(text), NULL, &err);
  cr_assert_not_null(tree, "%s", err.message);
  CfgGlobalOptions global;
  cr_assert(cfg_global_options_load(&global, tree, &err), "%s", err.message);
  LogPipeline *pl = log_pipeline_new(tree, &global, factories, &err);
  cr_assert_not_null(pl, "%s", err.message);
  const char *perr;
  WorkerPool *pool = worker_pool_start(2, &perr);
  char *serr = NULL;
  cr_assert(log_pipeline_start(pl, pool, &serr), "%s", serr);
  Feed a = { pl, log_pipeline_source_id(pl, "s_a") }, b = { pl, log_pipeline_source_id(pl, "s_b") };
  worker_pool_run_everywhere(pool, _feed, &a);
  _feed(&b);
  cr_assert(_has_row(pl, "source.s_a.processed=2000\n"));
  /* what was queued before the reset and written after it counts after
   * it (as in syslog-ng): let the writer catch up first */
  for (int i = 0; i < 500 && !_row_is(pl, "dst.sink.d_x#0.written=3000\n", true); i++)
    g_usleep(10000);
  cr_assert(_has_row(pl, "dst.sink.d_x#0.written=3000\n"));

  log_pipeline_reset_stats(pl, NULL, _pick_all, NULL);
  cr_assert(_has_row(pl, "source.s_a.processed=0\n"));
  cr_assert(_has_row(pl, "center.received.processed=0\n"));
  cr_assert(_has_row(pl, "dst.sink.d_x#0.processed=0\n"));

  _feed(&b);
  worker_pool_run_everywhere(pool, _feed, &a);
  cr_assert_eq(log_pipeline_stop(pl, 5000), 0);
  cr_assert(_has_row(pl, "source.s_a.processed=2000\n"));
  cr_assert(_has_row(pl, "source.s_b.processed=1000\n"));
  cr_assert(_has_row(pl, "center.received.processed=3000\n"));
  cr_assert(_has_row(pl, "dst.sink.d_x#0.written=3000\n"));
  /* a queue's length is a level: never reset */
  cr_assert(_has_row(pl, "dst.sink.d_x#0.queued=0\n"));

  log_pipeline_reset_stats(pl, NULL, _pick_s_b, NULL);
  cr_assert(_has_row(pl, "source.s_b.processed=0\n"));
  cr_assert(_has_row(pl, "source.s_a.processed=2000\n"));
  cr_assert(_has_row(pl, "center.received.processed=3000\n"));

  GString *line = g_string_new(NULL);
  log_pipeline_format_stats(pl, line);
  cr_assert(strstr(line->str, "processed='source(s_b)=0'"), "%s", line->str);
  cr_assert(strstr(line->str, "processed='source(s_a)=2000'"), "%s", line->str);
  cr_assert(strstr(line->str, "processed='center(received)=3000'"), "%s", line->str);
  g_string_free(line, TRUE);

  log_pipeline_free(pl);
  worker_pool_stop(pool);
  cfg_options_free(cfg_global_options_table, &global);
  cfg_tree_free(tree);
}
