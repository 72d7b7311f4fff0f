/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The queue side of a reload (log_pipeline_stop_handover): messages queued
 * for a destination that cannot write go to the new configuration's
 * destination of the same name, in order, none lost or repeated; a
 * destination the new configuration drops writes out what it can.
 */
#include "sluice/handover.h"
#include "sluice/internal-log.h"
#include "sluice/msg-format.h"
#include "sluice/pipeline.h"

#include "fake-source.h"

#include <criterion/criterion.h>
#include <glib.h>
#include <stdatomic.h>
#include <string.h>

/* "flaky": fails every write while `down` is set, else records MESSAGE. */
static atomic_bool down;
static GMutex written_lock;
static GString *written;
static atomic_int attempts;

static long
flaky_write(void *dest, LogQueueItem *items, size_t n)
{
  atomic_fetch_add(&attempts, 1);
  if (atomic_load(&down))
    return -EIO;
  g_mutex_lock(&written_lock);
  for (size_t i = 0; i < n; i++)
    {
      size_t len;
      const char *m = log_msg_get_value(items[i].msg, LM_V_MESSAGE, &len);
      g_string_append_printf(written, "%s:%.*s;", (const char *) dest + sizeof(LogDestDriver), (int) len, m);
    }
  g_mutex_unlock(&written_lock);
  return (long) n;
}

typedef struct FlakyDest
{
  LogDestDriver super;
  char name[16];
} FlakyDest;

static const LogWriterOps flaky_writer_ops = { flaky_write, NULL, NULL, NULL };

static void
flaky_free(LogDestDriver *d)
{
  free(d);
}

static const LogDestOps flaky_ops = { NULL, flaky_free };

static LogDestDriver *
flaky_new_dest(const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  FlakyDest *d = calloc(1, sizeof(*d));
  d->super.ops = &flaky_ops;
  d->super.writer_ops = &flaky_writer_ops;
  d->super.driver = "flaky";
  d->super.time_reopen = 1;
  g_strlcpy(d->name, call->args[0].str, sizeof(d->name));
  return &d->super;
}

static const LogDriverFactory fake_factory = {
  .def = { .kind = CFG_OBJ_SOURCE, .name = "fake", .min_args = 0, .max_args = 0 },
  .new_source = fake_new_source,
};
static const LogDriverFactory flaky_factory = {
  .def = { .kind = CFG_OBJ_DESTINATION, .name = "flaky", .min_args = 1, .max_args = 1 },
  .new_dest = flaky_new_dest,
};
static const LogDriverFactory *const factories[] = { &fake_factory, &flaky_factory, NULL };

typedef struct Conf
{
  CfgTree *tree;
  CfgGlobalOptions global;
  LogPipeline *pl;
} Conf;

static void
conf_load(Conf *c, const char *body)
{
  char *text = g_strdup_printf("@version: 3.38\nsource s { fake(); };\n%s\n", body);
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

static void
send_n(Conf *c, int from, int n)
{
  MsgFormatOptions o;
  msg_format_options_defaults(&o);
  LogStamp now = { .sec = 1795342443 };
  int id = log_pipeline_source_id(c->pl, "s");
  for (int i = from; i < from + n; i++)
    {
      char line[64];
      snprintf(line, sizeof(line), "<14>Nov 22 10:00:00 h app: %d", i);
      log_pipeline_deliver(c->pl, id, msg_format_parse(&o, line, strlen(line), &now));
    }
}

static void
setup(void)
{
  sluice_log_set_stderr(false, SLUICE_LOG_ERROR);
  written = g_string_new("");
  atomic_store(&attempts, 0);
}

TestSuite(reload, .init = setup);

/* what `dest` got, in order, as "from..to" runs */
static char *
expect_range(const char *dest, int from, int to)
{
  GString *s = g_string_new("");
  for (int i = from; i <= to; i++)
    g_string_append_printf(s, "%s:%d;", dest, i);
  return g_string_free(s, FALSE);
}

Test(reload, queued_messages_go_to_the_destination_of_the_same_name)
{
  const char *a = "destination d { flaky(\"d\"); };\nlog { source(s); destination(d); };";
  const char *b = "destination x { flaky(\"x\"); };\ndestination d { flaky(\"d\"); };\n"
                  "log { source(s); destination(x); destination(d); };";
  const char *perr;
  WorkerPool *pool = worker_pool_start(1, &perr);
  Conf old, next;
  conf_load(&old, a);
  char *err = NULL;
  cr_assert(log_pipeline_start(old.pl, pool, &err), "%s", err);
  atomic_store(&down, true);
  send_n(&old, 0, 500);
  /* the writer has failed at least once and now waits for time-reopen */
  while (atomic_load(&attempts) == 0)
    g_usleep(1000);
  /* a batch the writer holds and cannot write is not counted written */
  LogPipelineStats st;
  log_pipeline_get_stats(old.pl, &st);
  cr_assert_eq(st.written, 0);

  conf_load(&next, b);
  handover_begin();
  /* nothing left behind: the writer waiting for time-reopen let go of
   * its queue (a drain would have given up on all 500) */
  cr_assert_eq(log_pipeline_stop_handover(old.pl, next.pl, 1000), 0);
  atomic_store(&down, false);
  cr_assert(log_pipeline_start(next.pl, pool, &err), "%s", err);
  handover_end();
  conf_free(&old);
  send_n(&next, 500, 10);
  cr_assert_eq(log_pipeline_stop(next.pl, 5000), 0);
  conf_free(&next);
  worker_pool_stop(pool);

  /* d: 0..509 in order, once each; x: only what came after the reload */
  GString *d = g_string_new(""), *x = g_string_new("");
  char **parts = g_strsplit(written->str, ";", -1);
  for (char **p = parts; *p && **p; p++)
    g_string_append_printf(**p == 'd' ? d : x, "%s;", *p);
  g_strfreev(parts);
  char *want_d = expect_range("d", 0, 509), *want_x = expect_range("x", 500, 509);
  cr_assert_str_eq(d->str, want_d);
  cr_assert_str_eq(x->str, want_x);
  g_free(want_d);
  g_free(want_x);
  g_string_free(d, TRUE);
  g_string_free(x, TRUE);
  g_string_free(written, TRUE);
}

Test(reload, a_destination_the_new_file_drops_writes_out_its_queue)
{
  const char *a = "destination gone { flaky(\"g\"); };\nlog { source(s); destination(gone); };";
  const char *b = "destination d { flaky(\"d\"); };\nlog { source(s); destination(d); };";
  const char *perr;
  WorkerPool *pool = worker_pool_start(1, &perr);
  Conf old, next;
  conf_load(&old, a);
  char *err = NULL;
  atomic_store(&down, false);
  cr_assert(log_pipeline_start(old.pl, pool, &err), "%s", err);
  send_n(&old, 0, 100);
  conf_load(&next, b);
  handover_begin();
  cr_assert_eq(log_pipeline_stop_handover(old.pl, next.pl, 5000), 0);
  cr_assert(log_pipeline_start(next.pl, pool, &err), "%s", err);
  handover_end();
  conf_free(&old);
  cr_assert_eq(log_pipeline_stop(next.pl, 5000), 0);
  conf_free(&next);
  worker_pool_stop(pool);
  char *want = expect_range("g", 0, 99);
  cr_assert_str_eq(written->str, want);
  g_free(want);
  g_string_free(written, TRUE);
}
