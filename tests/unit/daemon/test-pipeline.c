/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Routing through log paths with fake drivers: "fake" sources deliver
 * nothing by themselves (the test delivers), "rec" destinations record the
 * MESSAGE of each message they are given, in order.
 */
#include "sluice/internal-log.h"
#include "sluice/logqueue-disk.h"
#include "sluice/msg-format.h"
#include "sluice/pipeline.h"

#include "daemon/pipeline-stats.h"
#include "daemon/source-local.h"
#include "fake-source.h"

#include <criterion/criterion.h>
#include <glib.h>
#include <string.h>

/* ---- fake drivers ------------------------------------------------------- */

typedef struct RecDest
{
  LogDestDriver super;
  GString *log; /* "name:MESSAGE;" per message */
  char *name;
} RecDest;

static GMutex rec_lock;

static long
rec_write(void *dest, LogQueueItem *items, size_t n)
{
  RecDest *d = dest;
  g_mutex_lock(&rec_lock);
  for (size_t i = 0; i < n; i++)
    {
      size_t len;
      const char *m = log_msg_get_value(items[i].msg, LM_V_MESSAGE, &len);
      g_string_append_printf(d->log, "%s:%.*s;", d->name, (int) len, m);
    }
  g_mutex_unlock(&rec_lock);
  return (long) n;
}

static const LogWriterOps rec_writer_ops = { rec_write, NULL, NULL, NULL };

static GString *all_writes; /* every RecDest appends here */

static void
rec_free(LogDestDriver *d)
{
  g_free(((RecDest *) d)->name);
  free(d);
}

static const LogDestOps rec_ops = { NULL, rec_free };

static LogDestDriver *
rec_new_dest(const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  RecDest *d = calloc(1, sizeof(*d));
  d->super.ops = &rec_ops;
  d->super.writer_ops = &rec_writer_ops;
  d->super.driver = "rec";
  d->super.log_fifo_size = 10000;
  d->log = all_writes;
  d->name = g_strdup(call->n_args ? call->args[0].str : "?");
  return &d->super;
}

static const LogDriverFactory fake_factory = {
  .def = { .kind = CFG_OBJ_SOURCE, .name = "fake", .min_args = 0, .max_args = 0 },
  .new_source = fake_new_source,
};
/* rec() takes what the pipeline reads of every destination */
static const CfgOption rec_options[] = { LOG_DEST_PERSIST_NAME_OPTION, { 0 } };
static const LogDriverFactory rec_factory = {
  .def = { .kind = CFG_OBJ_DESTINATION, .name = "rec", .options = rec_options, .min_args = 1, .max_args = 1 },
  .new_dest = rec_new_dest,
};
/* rewrite append("x"): MESSAGE += x; parser need("x"): passes when MESSAGE
 * contains x. */
typedef struct FakeProc
{
  LogProcessor super;
  char *arg;
} FakeProc;

static bool
append_process(LogProcessor *p, LogMsg **pmsg)
{
  const char *arg = ((FakeProc *) p)->arg;
  size_t len;
  const char *m = log_msg_get_value(*pmsg, LM_V_MESSAGE, &len);
  char *v = g_strdup_printf("%.*s%s", (int) len, m, arg);
  log_msg_set_value(log_msg_make_writable(pmsg), LM_V_MESSAGE, v, -1);
  g_free(v);
  return true;
}

static bool
need_process(LogProcessor *p, LogMsg **pmsg)
{
  size_t len;
  const char *m = log_msg_get_value(*pmsg, LM_V_MESSAGE, &len);
  return g_strstr_len(m, (gssize) len, ((FakeProc *) p)->arg) != NULL;
}

/* probe(): notes whether the message it gets may be changed in place
 * ('w') or is shared and would be copied ('c'). */
static GString *probes;

static bool
probe_process(LogProcessor *p, LogMsg **pmsg)
{
  (void) p;
  g_string_append_c(probes, log_msg_is_writable(*pmsg) ? 'w' : 'c');
  return true;
}

/* chatty(x): logs an event for each message whose MESSAGE begins with x,
 * as a parser or a queue that logs while a message is delivered */
static bool
chatty_process(LogProcessor *p, LogMsg **pmsg)
{
  const char *arg = ((FakeProc *) p)->arg;
  if (g_str_has_prefix(log_msg_get_value(*pmsg, LM_V_MESSAGE, NULL), arg))
    sluice_log(SLUICE_LOG_WARNING, "chatty saw it", NULL);
  return true;
}

static void
fake_proc_free(LogProcessor *p)
{
  g_free(((FakeProc *) p)->arg);
  free(p);
}

static const LogProcessorOps append_ops = { append_process, fake_proc_free };
static const LogProcessorOps need_ops = { need_process, fake_proc_free };
static const LogProcessorOps probe_ops = { probe_process, fake_proc_free };
static const LogProcessorOps chatty_ops = { chatty_process, fake_proc_free };

static LogProcessor *
fake_new_processor(const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  if (strcmp(call->args[0].str, "bad") == 0)
    {
      cfg_error_set(err, &call->args[0].loc, "a bad argument");
      return NULL;
    }
  FakeProc *p = calloc(1, sizeof(*p));
  p->super.ops = strcmp(call->name, "append") == 0   ? &append_ops
                 : strcmp(call->name, "probe") == 0  ? &probe_ops
                 : strcmp(call->name, "chatty") == 0 ? &chatty_ops
                                                     : &need_ops;
  p->super.driver = call->name;
  p->arg = g_strdup(call->args[0].str);
  return &p->super;
}

static const LogDriverFactory append_factory = {
  .def = { .kind = CFG_OBJ_REWRITE, .name = "append", .min_args = 1, .max_args = 1 },
  .new_processor = fake_new_processor,
};
static const LogDriverFactory need_factory = {
  .def = { .kind = CFG_OBJ_PARSER, .name = "need", .min_args = 1, .max_args = 1 },
  .new_processor = fake_new_processor,
};
static const LogDriverFactory probe_factory = {
  .def = { .kind = CFG_OBJ_REWRITE, .name = "probe", .min_args = 1, .max_args = 1 },
  .new_processor = fake_new_processor,
};
static const LogDriverFactory chatty_factory = {
  .def = { .kind = CFG_OBJ_REWRITE, .name = "chatty", .min_args = 1, .max_args = 1 },
  .new_processor = fake_new_processor,
};
/* the last place is internal()'s (run_start) */
static const LogDriverFactory *factories[] = { &fake_factory,  &rec_factory,    &append_factory, &need_factory,
                                               &probe_factory, &chatty_factory, NULL,           NULL };

/* ---- helpers ------------------------------------------------------------ */

typedef struct Run
{
  CfgTree *tree;
  CfgGlobalOptions global;
  LogPipeline *pl;
  WorkerPool *pool;
} Run;

static void
run_start(Run *r, const char *body)
{
  sluice_log_set_stderr(false, SLUICE_LOG_ERROR);
  factories[G_N_ELEMENTS(factories) - 2] = local_driver_factories[1];
  all_writes = g_string_new("");
  char *text = g_strdup_printf("@version: 3.38\n"
                               "source s1 { fake(); }; source s2 { fake(); };\n"
                               "destination a { rec(\"a\"); }; destination b { rec(\"b\"); };\n"
                               "destination c { rec(\"c\"); };\n%s\n",
                               body);
  CfgError err = { 0 };
  r->tree = cfg_parse_string("test.conf", text, strlen(text), NULL, &err);
  g_free(text);
  cr_assert_not_null(r->tree, "%s", err.message);
  cr_assert(cfg_global_options_load(&r->global, r->tree, &err), "%s", err.message);
  r->pl = log_pipeline_new(r->tree, &r->global, factories, &err);
  cr_assert_not_null(r->pl, "%s", err.message);
  const char *perr;
  r->pool = worker_pool_start(1, &perr);
  char *serr = NULL;
  cr_assert(log_pipeline_start(r->pl, r->pool, &serr), "%s", serr);
}

static void
send_line(Run *r, const char *source, const char *line)
{
  MsgFormatOptions o;
  msg_format_options_defaults(&o);
  LogStamp now = { .sec = 1795342443 };
  int id = log_pipeline_source_id(r->pl, source);
  cr_assert_geq(id, 0, "no source %s", source);
  log_pipeline_deliver(r->pl, id, msg_format_parse(&o, line, strlen(line), &now));
}

/* Stop and return what the destinations got. */
static char *
run_finish(Run *r)
{
  cr_assert_eq(log_pipeline_stop(r->pl, 5000), 0);
  log_pipeline_free(r->pl);
  worker_pool_stop(r->pool);
  cfg_options_free(cfg_global_options_table, &r->global);
  cfg_tree_free(r->tree);
  return g_string_free(all_writes, FALSE);
}

static void
expect_routes(const char *body, const char *const *lines, const char *expected)
{
  Run r;
  run_start(&r, body);
  for (size_t i = 0; lines[i]; i += 2)
    send_line(&r, lines[i], lines[i + 1]);
  char *got = run_finish(&r);
  /* destinations write on their own threads: compare per destination */
  for (const char *d = "abc"; *d; d++)
    {
      GString *want = g_string_new(""), *have = g_string_new("");
      char **wp = g_strsplit(expected, ";", -1), **hp = g_strsplit(got, ";", -1);
      for (char **p = wp; *p; p++)
        if ((*p)[0] == *d)
          g_string_append_printf(want, "%s;", *p);
      for (char **p = hp; *p; p++)
        if ((*p)[0] == *d)
          g_string_append_printf(have, "%s;", *p);
      cr_assert_str_eq(have->str, want->str, "destination %c for:\n%s", *d, body);
      g_strfreev(wp);
      g_strfreev(hp);
      g_string_free(want, TRUE);
      g_string_free(have, TRUE);
    }
  g_free(got);
}

#define KERN "<3>Nov 22 10:00:00 h kernel: k"
#define MAIL "<22>Nov 22 10:00:00 h postfix: m"
#define USER "<14>Nov 22 10:00:00 h app: u"

/* ---- tests -------------------------------------------------------------- */

Test(pipeline, sources_pick_their_paths_and_fan_out)
{
  const char *lines[] = { "s1", KERN, "s2", MAIL, NULL };
  expect_routes("log { source(s1); destination(a); destination(b); };"
                "log { source(s2); destination(b); };",
                lines, "a:k;b:k;b:m;");
}

/* syslog-ng 3.38 takes a top-level path without a source (and without
 * flags(catchall)); it receives nothing, and the others go on as before */
Test(pipeline, a_path_without_a_source_is_taken_and_receives_nothing)
{
  const char *lines[] = { "s1", KERN, "s1", MAIL, NULL };
  expect_routes("log { destination(a); };"
                "log { filter { facility(kern); }; destination(c); };"
                "log { source(s1); destination(b); };",
                lines, "b:k;b:m;");
}

Test(pipeline, filters_stop_a_path_where_they_stand)
{
  const char *lines[] = { "s1", KERN, "s1", MAIL, NULL };
  expect_routes("filter f_kern { facility(kern); };"
                "log { source(s1); destination(a); filter(f_kern); destination(b); };",
                lines, "a:k;a:m;b:k;");
}

Test(pipeline, rewrites_change_their_own_path_only)
{
  const char *lines[] = { "s1", KERN, NULL };
  /* a and the nested path see the rewrite made before them; c, a sibling
   * top-level path, sees the message as it came; the rewrite after a
   * destination does not reach back into it */
  expect_routes("rewrite r1 { append(\"1\"); append(\"2\"); };"
                "log { source(s1); rewrite(r1); destination(a); rewrite { append(\"3\"); };"
                "  log { rewrite { append(\"4\"); }; destination(b); };"
                "  log { destination(b); }; };"
                "log { source(s1); destination(c); };",
                lines, "a:k12;b:k1234;b:k123;c:k;");
}

/* The only path that sees a message changes it in place (no copy); a path
 * with another after it (or a fallback path that may still run) works on a
 * copy, and so does every path after one that shared the message. */
Test(pipeline, only_the_last_path_to_see_a_message_changes_it_in_place)
{
  static const struct
  {
    const char *body;
    const char *routes;
    const char *probes;
  } cases[] = {
    { "log { source(s1); rewrite { probe(\"\"); append(\"1\"); }; destination(a); };", "a:k1;", "w" },
    { "log { source(s1); rewrite { probe(\"\"); append(\"1\"); }; destination(a); };"
      "log { source(s2); destination(b); };", "a:k1;", "w" },
    { "log { source(s1); destination(b); };"
      "log { source(s1); rewrite { probe(\"\"); append(\"1\"); }; destination(a); };", "a:k1;b:k;", "c" },
    { "log { source(s1); rewrite { probe(\"\"); append(\"1\"); }; destination(a); };"
      "log { source(s1); destination(b); };", "a:k1;b:k;", "c" },
    { "log { source(s1); rewrite { probe(\"\"); append(\"1\"); }; destination(a); filter(f_mail); };"
      "log { source(s1); destination(b); flags(fallback); };", "a:k1;b:k;", "c" },
    { "log { source(s1); filter(f_mail); destination(a); };"
      "log { source(s1); rewrite { probe(\"\"); append(\"1\"); }; destination(b); flags(fallback); };", "b:k1;", "c" },
    { "log { source(s1); rewrite { probe(\"\"); append(\"1\"); }; destination(a);"
      "  rewrite { probe(\"\"); append(\"2\"); }; destination(b); };", "a:k1;b:k12;", "wc" },
    { "log { source(s1); rewrite { probe(\"\"); append(\"1\"); };"
      "  log { rewrite { probe(\"\"); append(\"2\"); }; destination(a); };"
      "  destination(b); };", "a:k12;b:k1;", "wc" },
  };
  const char *lines[] = { "s1", KERN, NULL };
  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++)
    {
      probes = g_string_new("");
      char *body = g_strdup_printf("filter f_mail { facility(mail); }; %s", cases[i].body);
      expect_routes(body, lines, cases[i].routes);
      cr_assert_str_eq(probes->str, cases[i].probes, "case %zu: %s", i, cases[i].body);
      g_free(body);
      g_string_free(probes, TRUE);
    }
}

Test(pipeline, a_parser_that_fails_ends_the_path)
{
  const char *lines[] = { "s1", KERN, "s1", MAIL, NULL };
  expect_routes("parser p { need(\"k\"); };"
                "log { source(s1); parser(p); destination(a); flags(final); };"
                "log { source(s1); destination(b); };",
                lines, "a:k;b:m;");
}

Test(pipeline, unknown_processors_are_refused_by_name)
{
  sluice_log_set_stderr(false, SLUICE_LOG_ERROR);
  const char *text = "@version: 3.38\nsource s1 { fake(); };\n"
                     "log { source(s1); rewrite { nope(\"x\"); }; };\n";
  CfgError err = { 0 };
  CfgTree *tree = cfg_parse_string("test.conf", text, strlen(text), NULL, &err);
  cr_assert_not_null(tree, "%s", err.message);
  CfgGlobalOptions g;
  cr_assert(cfg_global_options_load(&g, tree, &err), "%s", err.message);
  cr_assert_null(log_pipeline_new(tree, &g, factories, &err));
  cr_assert(strstr(err.message, "rewrite driver 'nope' is not supported"), "%s", err.message);
  cfg_error_clear(&err);
  cfg_options_free(cfg_global_options_table, &g);
  cfg_tree_free(tree);
}

/* as syslog-ng, a broken parser or rewrite statement is refused even when
 * no log path uses it */
Test(pipeline, unused_processors_are_built_to_be_checked)
{
  sluice_log_set_stderr(false, SLUICE_LOG_ERROR);
  const char *text = "@version: 3.38\nsource s1 { fake(); };\ndestination a { rec(\"a\"); };\n"
                     "rewrite r_unused { append(\"bad\"); };\n"
                     "log { source(s1); destination(a); };\n";
  CfgError err = { 0 };
  CfgTree *tree = cfg_parse_string("test.conf", text, strlen(text), NULL, &err);
  cr_assert_not_null(tree, "%s", err.message);
  CfgGlobalOptions g;
  cr_assert(cfg_global_options_load(&g, tree, &err), "%s", err.message);
  cr_assert_null(log_pipeline_new(tree, &g, factories, &err));
  cr_assert(strstr(err.message, "a bad argument"), "%s", err.message);
  cfg_error_clear(&err);
  cfg_options_free(cfg_global_options_table, &g);
  cfg_tree_free(tree);
}

Test(pipeline, final_stops_later_paths)
{
  const char *lines[] = { "s1", KERN, "s1", MAIL, NULL };
  expect_routes("log { source(s1); filter { facility(kern); }; destination(a); flags(final); };"
                "log { source(s1); destination(b); };",
                lines, "a:k;b:m;");
}

Test(pipeline, fallback_takes_only_what_nothing_else_took)
{
  const char *lines[] = { "s1", KERN, "s1", USER, NULL };
  expect_routes("log { source(s1); destination(c); flags(fallback); };"
                "log { source(s1); filter { facility(kern); }; destination(a); };",
                lines, "a:k;c:u;");
}

Test(pipeline, catchall_takes_every_source)
{
  const char *lines[] = { "s1", KERN, "s2", MAIL, NULL };
  expect_routes("log { destination(a); flags(catchall); };", lines, "a:k;a:m;");
}

Test(pipeline, nested_paths_fork_and_final_acts_among_siblings)
{
  const char *lines[] = { "s1", KERN, "s1", MAIL, "s1", USER, NULL };
  expect_routes("log { source(s1);"
                "  log { filter { facility(kern); }; destination(a); flags(final); };"
                "  log { filter { facility(kern, mail); }; destination(b); };"
                "  log { destination(c); flags(fallback); };"
                "};",
                lines, "a:k;b:m;c:u;");
}

Test(pipeline, junction_channels)
{
  const char *lines[] = { "s1", KERN, "s1", MAIL, NULL };
  expect_routes("log { source(s1); junction {"
                "  channel { filter { facility(kern); }; destination(a); };"
                "  channel { destination(b); };"
                "}; destination(c); };",
                lines, "a:k;b:k;b:m;c:k;c:k;c:m;");
  /* what comes out of each channel goes on after the junction, as in
   * syslog-ng 3.38 (checked): k twice (both channels let it through), m
   * once; a channel's rewrite shows after the junction; nothing that no
   * channel lets through; final stops the later channels */
  expect_routes("log { source(s1); junction {"
                "  channel { filter { facility(kern); }; rewrite { append(\"!\"); }; };"
                "  channel { filter { facility(mail); }; flags(final); };"
                "  channel { destination(b); };"
                "}; destination(c); };",
                lines, "c:k!;b:k;c:k;c:m;");
}

Test(pipeline, if_elif_else_and_pass_through)
{
  const char *lines[] = { "s1", KERN, "s1", MAIL, "s1", USER, NULL };
  expect_routes("log { source(s1);"
                "  if (facility(kern)) { destination(a); }"
                "  elif (facility(mail)) { destination(b); }"
                "  else { destination(c); };"
                "};"
                "log { source(s2); if (facility(kern)) { destination(a); }; destination(b); };",
                lines, "a:k;b:m;c:u;");
  const char *lines2[] = { "s2", KERN, "s2", MAIL, NULL };
  expect_routes("log { source(s2); if (facility(kern)) { destination(a); }; destination(b); };", lines2,
                "a:k;b:k;b:m;");
}

Test(pipeline, inline_source_and_destination)
{
  const char *lines[] = { NULL };
  Run r;
  run_start(&r, "log { source { fake(); }; destination { rec(\"a\"); }; };");
  cr_assert_eq(log_pipeline_source_id(r.pl, "#anon-source0"), 0);
  g_free(run_finish(&r));
  (void) lines;
}

Test(pipeline, flow_control_messages_are_acked_when_written)
{
  Run r;
  run_start(&r, "log { source(s1); destination(a); destination(b); flags(flow-control); };");
  LogWindow *w = log_window_new(10, NULL, NULL);
  MsgFormatOptions o;
  msg_format_options_defaults(&o);
  LogStamp now = { .sec = 1795342443 };
  for (int i = 0; i < 5; i++)
    {
      LogMsg *msg = msg_format_parse(&o, KERN, strlen(KERN), &now);
      log_msg_ack_begin(msg, w);
      log_pipeline_deliver(r.pl, log_pipeline_source_id(r.pl, "s1"), msg);
    }
  g_free(run_finish(&r));
  cr_assert_eq(atomic_load(&w->free), 10, "both destinations acked every message");
  log_window_orphan(w);
}

/* Channels in a row in a path are nested paths, as in syslog-ng 3.38
 * (checked there): each takes the message in turn, final stops the later
 * ones; inside a channel too (network-load-balancer()'s shape).  What
 * follows them (syslog-ng refuses that) gets the message once.  One
 * channel alone is a sequence of its elements, and so are channels in a
 * row in a parser statement (syslog-ng: nothing comes out of two that
 * filter apart). */
Test(pipeline, channels_in_a_row_are_nested_paths)
{
  const char *lines[] = { "s1", KERN, "s1", MAIL, "s1", USER, NULL };
  expect_routes("log { source(s1);"
                "  channel { filter { facility(kern); }; destination(a); flags(final); };"
                "  channel { filter { facility(mail); }; destination(b); flags(final); };"
                "};",
                lines, "a:k;b:m;");
  expect_routes("log { source(s1); channel {"
                "  channel { filter { facility(kern); }; destination(a); flags(final); };"
                "  channel { filter { facility(mail); }; destination(b); flags(final); };"
                "}; };",
                lines, "a:k;b:m;");
  expect_routes("destination lb { channel {"
                "  channel { filter { facility(kern); }; destination(a); flags(final); };"
                "  channel { filter { not facility(kern); }; destination(b); flags(final); };"
                "}; };\n"
                "log { source(s1); destination(lb); };",
                lines, "a:k;b:m;b:u;");
  expect_routes("log { source(s1); channel { filter { facility(kern); }; destination(a); }; destination(c); };", lines,
                "a:k;c:k;");
  expect_routes("log { source(s1); channel { destination(a); }; channel { destination(b); }; destination(c); };",
                lines, "a:k;a:m;a:u;b:k;b:m;b:u;c:k;c:m;c:u;");
  expect_routes("parser p2 { channel { filter { facility(kern); }; }; channel { filter { facility(mail); }; }; };\n"
                "log { source(s1); parser(p2); destination(a); };",
                lines, "");
}

/* A source statement's channel brings its own sources, and its filters
 * and rewrites run on their messages only; syslog-ng's SCL also writes it
 * as one log path holding the sources (nodejs()): the same routes. */
Test(pipeline, a_source_channel_as_one_log_path_routes_as_the_channel)
{
  const char *lines[] = { "s1", KERN, "s1", MAIL, "s2", USER, NULL };
  expect_routes("source s3 { channel { source(s1); filter { facility(kern); }; rewrite { append(\"!\"); }; }; };\n"
                "log { source(s3); source(s2); destination(a); };",
                lines, "a:k!;a:u;");
  expect_routes("source s3 { channel { log { source(s1); filter { facility(kern); }; rewrite { append(\"!\"); }; };"
                " }; };\n"
                "log { source(s3); source(s2); destination(a); };",
                lines, "a:k!;a:u;");
}

static void
expect_error(const char *body, const char *part)
{
  char *text = g_strdup_printf("@version: 3.38\nsource s1 { fake(); };\n%s\n", body);
  CfgError err = { 0 };
  CfgTree *tree = cfg_parse_string("test.conf", text, strlen(text), NULL, &err);
  g_free(text);
  cr_assert_not_null(tree, "%s", err.message);
  CfgGlobalOptions g;
  cr_assert(cfg_global_options_load(&g, tree, &err));
  LogPipeline *pl = log_pipeline_new(tree, &g, factories, &err);
  cr_assert_null(pl, "accepted: %s", body);
  char *msg = cfg_error_format(&err);
  cr_assert(strstr(msg, part), "error \"%s\", expected \"%s\"", msg, part);
  free(msg);
  cfg_error_clear(&err);
  cfg_options_free(cfg_global_options_table, &g);
  cfg_tree_free(tree);
}

Test(pipeline, unsupported_things_are_refused_with_their_place)
{
  expect_error("destination d { rec(\"x\"); };\nlog { source(s1); parser { csv-parser(); }; destination(d); };",
               "test.conf:4:");
  /* a channel of a source statement brings its own source; one of a
   * destination statement takes the statement's messages only */
  expect_error("source s2 { fake(); channel { filter { level(err); }; }; };\n"
               "log { source(s2); destination { rec(\"x\"); }; };",
               "test.conf:3:21: a channel in source statement 's2' needs a source of its own");
  expect_error("destination d { rec(\"x\"); channel { source(s1); destination { rec(\"y\"); }; }; };\n"
               "log { source(s1); destination(d); };",
               "test.conf:3:27: a channel in destination statement 'd' cannot take a source");
  /* a statement that takes itself in through its channels (compiled forever) */
  expect_error("destination d { rec(\"x\"); channel { destination(d); }; };\nlog { source(s1); destination(d); };",
               "test.conf:3:1: destination statement 'd' takes itself in through its channels");
  expect_error("source s2 { fake(); channel { source(s2); }; };\nlog { source(s2); destination { rec(\"x\"); }; };",
               "test.conf:3:1: source statement 's2' takes itself in through its channels");
  /* persist-name() names a queue (its disk buffer's file): one each, given
   * or automatic, in either order, and one file each */
  expect_error("destination d { rec(\"x\" persist-name(\"q\")); };\n"
               "destination e { rec(\"y\" persist-name(\"q\")); };\nlog { source(s1); destination(d); destination(e); };",
               "test.conf:4:17: rec(): the queue of e#0 (\"q\") and that of d#0 (\"q\") would be one disk-buffer "
               "file, sluice-q: give each its own persist-name()");
  expect_error("destination d { rec(\"x\"); rec(\"y\" persist-name(\"d#0\")); };\nlog { source(s1); destination(d); };",
               "the queue of d#1 (\"d#0\") and that of d#0 (\"d#0\") would be one");
  expect_error("destination e { rec(\"y\" persist-name(\"d#0\")); };\ndestination d { rec(\"x\"); };\n"
               "log { source(s1); destination(e); destination(d); };",
               "the queue of d#0 (\"d#0\") and that of e#0 (\"d#0\") would be one");
  expect_error("destination d { rec(\"x\"); rec(\"y\" persist-name(\"d_0\")); };\nlog { source(s1); destination(d); };",
               "would be one disk-buffer file, sluice-d_0");
  expect_error("destination d { rec(\"x\" persist-name(\"\")); };\nlog { source(s1); destination(d); };",
               "test.conf:3:25: rec(): persist-name() takes one name");
}

Test(pipeline, statistics_count_per_source_and_destination)
{
  Run r;
  run_start(&r, "log { source(s1); destination(a); };\nlog { source(s2); filter { level(err); }; destination(b); };");
  send_line(&r, "s1", USER);
  send_line(&r, "s1", USER);
  send_line(&r, "s2", KERN);
  send_line(&r, "s2", USER); /* filtered out */
  cr_assert_eq(log_pipeline_stop(r.pl, 5000), 0);
  GString *line = g_string_new("Log statistics; ");
  log_pipeline_format_stats(r.pl, line);
  cr_assert_str_eq(line->str,
                   "Log statistics; processed='source(s1)=2', processed='source(s2)=2', "
                   "dropped='dst.rec(a#0)=0', processed='dst.rec(a#0)=2', queued='dst.rec(a#0)=0', "
                   "written='dst.rec(a#0)=2', "
                   "dropped='dst.rec(b#0)=0', processed='dst.rec(b#0)=1', queued='dst.rec(b#0)=0', "
                   "written='dst.rec(b#0)=1', "
                   "processed='center(received)=4', processed='center(queued)=3'");
  g_string_free(line, TRUE);
  log_pipeline_free(r.pl);
  worker_pool_stop(r.pool);
  cfg_options_free(cfg_global_options_table, &r.global);
  cfg_tree_free(r.tree);
  g_string_free(all_writes, TRUE);
}

/* internal(): messages injected into it (inject-mode(internal)) and events
 * logged on other threads at once, while its path logs on delivery.  Both
 * used to be delivered under a lock: an event under the log's lock and
 * then internal()'s, an injected message under internal()'s and, when its
 * delivery logged, then the log's: the two threads (or even the injecting
 * one alone) hung.  Now both are queued for the source's worker. */
#define INTERNAL_N 2000

static gpointer
inject_thread(gpointer data)
{
  for (int i = 0; i < INTERNAL_N; i++)
    {
      LogMsg *m = log_msg_new(64);
      log_msg_set_value(m, LM_V_MESSAGE, "inject", -1);
      cr_assert(internal_source_post(m));
    }
  return NULL;
}

static int
count_of(const char *text, const char *needle)
{
  int n = 0;
  for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
    n++;
  return n;
}

Test(pipeline, internal_takes_injected_messages_and_events_from_any_thread, .timeout = 60)
{
  sluice_log_set_rate_limit(0);
  Run r;
  run_start(&r, "source si { internal(); };"
                "log { source(si); rewrite { chatty(\"inject\"); }; destination(a); };");
  GThread *t = g_thread_new("inject", inject_thread, NULL);
  for (int i = 0; i < INTERNAL_N; i++)
    sluice_log(SLUICE_LOG_WARNING, "an event", NULL);
  g_thread_join(t);
  /* the events chatty logs on delivery come in a later round of the
   * worker: wait for one (10 s at most) before the stop, or a worker that
   * ran late delivered everything in its last round and they all came
   * after the stop */
  for (int i = 0; i < 1000; i++)
    {
      g_mutex_lock(&rec_lock);
      bool seen = strstr(all_writes->str, "a:chatty saw it;") != NULL;
      g_mutex_unlock(&rec_lock);
      if (seen)
        break;
      g_usleep(10000);
    }
  char *got = run_finish(&r);
  sluice_log_set_rate_limit(SLUICE_LOG_RATE_LIMIT);
  cr_assert_eq(count_of(got, "a:inject;"), INTERNAL_N);
  cr_assert_eq(count_of(got, "a:an event;"), INTERNAL_N);
  /* those logged while the last ones went through come after the stop */
  cr_assert_gt(count_of(got, "a:chatty saw it;"), 0);
  g_free(got);
}

/* internal() holds what its worker has not delivered yet up to its
 * log-fifo-size() (syslog-ng 3.38's default for it: 10000), and drops and
 * counts the rest: with its worker held back, messages injected far
 * beyond that leave the queue at the cap, the rest in its "dropped" row,
 * and the drops are said once.  Unbounded, the queue took them all. */
typedef struct Gate
{
  GMutex lock;
  GCond cond;
  bool held;
  bool open;
} Gate;

static void
gate_job(void *arg)
{
  Gate *g = arg;
  g_mutex_lock(&g->lock);
  g->held = true;
  g_cond_broadcast(&g->cond);
  while (!g->open)
    g_cond_wait(&g->cond, &g->lock);
  g_mutex_unlock(&g->lock);
}

static void
noop_job(void *arg)
{
  (void) arg;
}

static void
internal_dropped_row(const StatsRow *row, void *user_data)
{
  if (strcmp(row->component, "src.internal") == 0 && strcmp(row->type, "dropped") == 0)
    *(int64_t *) user_data = (int64_t) row->value;
}

static int64_t
internal_dropped(LogPipeline *pl)
{
  int64_t dropped = -1;
  log_pipeline_foreach_stat(pl, internal_dropped_row, &dropped);
  return dropped;
}

/* Hold pool's one worker back (gate_job) until gate_open. */
static void
gate_hold(Gate *g, WorkerPool *pool)
{
  g->held = g->open = false;
  g_mutex_init(&g->lock);
  g_cond_init(&g->cond);
  worker_post(worker_pool_pick(pool), gate_job, g);
  g_mutex_lock(&g->lock);
  while (!g->held)
    g_cond_wait(&g->cond, &g->lock);
  g_mutex_unlock(&g->lock);
}

static void
gate_open(Gate *g, WorkerPool *pool)
{
  g_mutex_lock(&g->lock);
  g->open = true;
  g_cond_broadcast(&g->cond);
  g_mutex_unlock(&g->lock);
  /* the drain (and its line about the drops) is done once a later job ran */
  worker_run(worker_pool_pick(pool), noop_job, NULL);
  g_mutex_clear(&g->lock);
  g_cond_clear(&g->cond);
}

static void
inject(int n)
{
  for (int i = 0; i < n; i++)
    {
      LogMsg *m = log_msg_new(64);
      log_msg_set_value(m, LM_V_MESSAGE, "inject", -1);
      cr_assert(internal_source_post(m));
    }
}

/* internal() written as call holds cap messages: inject over of them */
static void
internal_bounds(const char *call, int cap, int over)
{
  Run r;
  /* a's queue (log-fifo-size 10000) takes the injected ones, b the line */
  char *body = g_strdup_printf("source si { %s; };"
                               "log { source(si); parser { need(\"inject\"); }; destination(a); };"
                               "log { source(si); parser { need(\"queue is full\"); }; destination(b); };",
                               call);
  run_start(&r, body);
  g_free(body);
  Gate g;
  gate_hold(&g, r.pool);
  inject(over);
  cr_assert_eq(internal_dropped(r.pl), over - cap, "dropped %" G_GINT64_FORMAT, internal_dropped(r.pl));
  gate_open(&g, r.pool);
  cr_assert_eq(log_pipeline_stop(r.pl, 5000), 0);
  cr_assert_eq(internal_dropped(r.pl), over - cap);
  log_pipeline_free(r.pl);
  worker_pool_stop(r.pool);
  cfg_options_free(cfg_global_options_table, &r.global);
  cfg_tree_free(r.tree);
  char *got = g_string_free(all_writes, FALSE);
  cr_assert_eq(count_of(got, "a:inject;"), cap);
  /* said once, through internal() itself after the drain */
  char *line = g_strdup_printf("b:The internal() source's queue is full, messages dropped; dropped='%d'", over - cap);
  cr_assert_eq(count_of(got, line), 1, "%s in %s", line, got);
  g_free(line);
  g_free(got);
}

Test(pipeline, internal_bounds_its_queue_and_counts_what_it_drops, .timeout = 60)
{
  internal_bounds("internal()", 10000, 25000);
}

/* log-fifo-size() sets the cap (the global one does not: 3.38's
 * internal() has its own default) */
Test(pipeline, internal_log_fifo_size_sets_its_cap, .timeout = 60)
{
  internal_bounds("internal(log-fifo-size(50))", 50, 120);
}

/* A reload keeps the "dropped" row of internal(), as every source
 * driver's counts, by its place in the statement of the same name. */
Test(pipeline, internal_dropped_goes_on_across_a_reload, .timeout = 60)
{
  Run r;
  run_start(&r, "source si { internal(log-fifo-size(5)); };"
                "log { source(si); parser { need(\"inject\"); }; destination(a); };");
  Gate g;
  gate_hold(&g, r.pool);
  inject(8);
  gate_open(&g, r.pool);
  cr_assert_eq(internal_dropped(r.pl), 3);

  const char *text = "@version: 3.38\n"
                     "source s1 { fake(); };\n"
                     "destination a { rec(\"a\"); };\n"
                     "source si { internal(log-fifo-size(5)); };"
                     "log { source(si); parser { need(\"inject\"); }; destination(a); };";
  CfgError err = { 0 };
  CfgTree *tree = cfg_parse_string("test.conf", text, strlen(text), NULL, &err);
  cr_assert_not_null(tree, "%s", err.message);
  CfgGlobalOptions global;
  cr_assert(cfg_global_options_load(&global, tree, &err), "%s", err.message);
  LogPipeline *next = log_pipeline_new(tree, &global, factories, &err);
  cr_assert_not_null(next, "%s", err.message);
  cr_assert_eq(log_pipeline_stop_handover(r.pl, next, 5000), 0);
  char *serr = NULL;
  cr_assert(log_pipeline_start(next, r.pool, &serr), "%s", serr);
  cr_assert_eq(internal_dropped(next), 3, "after the reload: %" G_GINT64_FORMAT, internal_dropped(next));
  gate_hold(&g, r.pool);
  inject(7);
  gate_open(&g, r.pool);
  cr_assert_eq(internal_dropped(next), 5);
  cr_assert_eq(log_pipeline_stop(next, 5000), 0);
  log_pipeline_free(next);
  cfg_options_free(cfg_global_options_table, &global);
  cfg_tree_free(tree);
  log_pipeline_free(r.pl);
  worker_pool_stop(r.pool);
  cfg_options_free(cfg_global_options_table, &r.global);
  cfg_tree_free(r.tree);
  char *got = g_string_free(all_writes, FALSE);
  cr_assert_eq(count_of(got, "a:inject;"), 10);
  g_free(got);
}
