/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Helpers for the file module's suites (and logstore()'s, with
 * Rig.factories): build a destination from a configuration text (with
 * @DIR@ standing for a fresh temporary directory), make messages from
 * syslog lines, and call the writer ops directly on the test's thread, as
 * the LogWriter thread would.
 */
#ifndef SLUICE_TEST_FILE_TEST_H
#define SLUICE_TEST_FILE_TEST_H

#include "file/file-dest.h"
#include "modules.h"
#include "sluice/logwriter.h"
#include "sluice/internal-log.h"
#include "sluice/msg-format.h"

#include <criterion/criterion.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <time.h>

typedef struct Rig
{
  char *dir;
  CfgTree *tree;
  CfgGlobalOptions global;
  LogDestDriver *drv;
  FileDest *d;                               /* drv, when it is a file() kind */
  const LogDriverFactory *const *factories; /* NULL: the file module's */
  CfgError err;
} Rig;

static inline char *
rig_path(Rig *r, const char *rel)
{
  return g_build_filename(r->dir, rel, NULL);
}

/* Build destination "d" of text; false with r->err on a refused config. */
static inline bool
rig_try(Rig *r, const char *text)
{
  /* the test runs the destination's writer ops itself (sluice/threads.h) */
  log_writer_act_as_writer();
  sluice_log_set_stderr(false, SLUICE_LOG_ERROR);
  if (!r->dir)
    r->dir = g_dir_make_tmp("sluice-file-XXXXXX", NULL);
  cr_assert_not_null(r->dir);
  GString *conf = g_string_new("@version: 3.38\n");
  g_string_append(conf, text);
  char *dir_esc = g_strdup(r->dir);
  while (strstr(conf->str, "@DIR@"))
    {
      size_t at = (size_t) (strstr(conf->str, "@DIR@") - conf->str);
      g_string_erase(conf, (gssize) at, 5);
      g_string_insert(conf, (gssize) at, dir_esc);
    }
  g_free(dir_esc);
  r->tree = cfg_parse_string("test.conf", conf->str, conf->len, NULL, &r->err);
  g_string_free(conf, TRUE);
  cr_assert_not_null(r->tree, "%s", r->err.message);
  cr_assert(cfg_global_options_load(&r->global, r->tree, &r->err), "%s", r->err.message);
  const CfgNode *stmt = cfg_tree_lookup(r->tree, CFG_OBJ_DESTINATION, "d");
  cr_assert_not_null(stmt, "the test config needs a destination d");
  cr_assert_geq(stmt->n_children, 1);
  const CfgNode *call = stmt->children[0];
  const LogDriverFactory *const *factories = r->factories ? r->factories : file_driver_factories;
  const LogDriverFactory *f = NULL;
  for (size_t i = 0; factories[i]; i++)
    if (cfg_name_equal(factories[i]->def.name, call->name))
      f = factories[i];
  cr_assert_not_null(f, "no driver %s", call->name);
  LogDriverContext ctx = { &r->global, r->tree, "d" };
  r->drv = f->new_dest(call, &ctx, &r->err);
  r->d = (FileDest *) r->drv;
  return r->drv != NULL;
}

static inline void
rig_build(Rig *r, const char *text)
{
  cr_assert(rig_try(r, text), "refused: %s", r->err.message);
  char *error = NULL;
  cr_assert(!r->drv->ops->start || r->drv->ops->start(r->drv, &error));
}

static inline void
rig_free(Rig *r)
{
  if (r->drv)
    {
      r->drv->writer_ops->finish(r->drv);
      r->drv->ops->free(r->drv);
    }
  if (r->tree)
    {
      cfg_options_free(cfg_global_options_table, &r->global);
      cfg_tree_free(r->tree);
    }
  cfg_error_clear(&r->err);
  if (r->dir)
    {
      char *cmd = g_strdup_printf("rm -rf '%s'", r->dir);
      cr_assert_eq(system(cmd), 0);
      g_free(cmd);
      g_free(r->dir);
    }
  memset(r, 0, sizeof(*r));
}

/* A message parsed from a syslog line, received 2026-03-10 12:00:00 UTC. */
static inline LogMsg *
make_msg(const char *line)
{
  MsgFormatOptions o;
  msg_format_options_defaults(&o);
  o.recv_tz = tz_get("UTC", NULL);
  LogStamp recvd = { .sec = 1773144000, .usec = 0, .gmtoff = 0 };
  return msg_format_parse(&o, line, strlen(line), &recvd);
}

typedef struct Batch
{
  LogQueueItem items[512];
  size_t n;
} Batch;

static inline void
batch_add(Batch *b, const char *line)
{
  cr_assert_lt(b->n, G_N_ELEMENTS(b->items));
  b->items[b->n].msg = make_msg(line);
  b->items[b->n].ack = false;
  b->n++;
}

static inline void
batch_free(Batch *b)
{
  for (size_t i = 0; i < b->n; i++)
    log_msg_unref(b->items[i].msg);
  b->n = 0;
}

static inline long
rig_write(Rig *r, LogQueueItem *items, size_t n)
{
  return r->drv->writer_ops->write_batch(r->drv, items, n);
}

/* The whole file at dir/rel, or NULL when it does not exist. */
static inline char *
rig_read(Rig *r, const char *rel)
{
  char *p = rig_path(r, rel);
  char *text = NULL;
  g_file_get_contents(p, &text, NULL, NULL);
  g_free(p);
  return text;
}

static inline void
assert_file(Rig *r, const char *rel, const char *expected)
{
  char *text = rig_read(r, rel);
  cr_assert_not_null(text, "%s was not written", rel);
  cr_assert_str_eq(text, expected, "%s", rel);
  g_free(text);
}

static inline int64_t
mono_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t) ts.tv_sec;
}

#endif
