/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A source driver made of others: see include/sluice/source-group.h. */
#include "sluice/source-group.h"

#include "sluice/cfg-tree.h"
#include "sluice/threads.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>

struct LogSourceGroup
{
  LogSourceDriver super;
  GPtrArray *members; /* LogSourceDriver */
  size_t started;     /* members[0..started) run */
};

static void
_group_stop(LogSourceDriver *d)
{
  LogSourceGroup *g = (LogSourceGroup *) d;
  assert_main_thread();
  while (g->started > 0)
    {
      LogSourceDriver *m = g_ptr_array_index(g->members, --g->started);
      m->ops->stop(m);
    }
}

static bool
_group_start(LogSourceDriver *d, const LogSourceEnv *env, char **error)
{
  LogSourceGroup *g = (LogSourceGroup *) d;
  assert_main_thread();
  for (g->started = 0; g->started < g->members->len; g->started++)
    {
      LogSourceDriver *m = g_ptr_array_index(g->members, g->started);
      if (!m->ops->start(m, env, error))
        {
          _group_stop(d);
          return false;
        }
    }
  return true;
}

static void
_member_free(gpointer p)
{
  LogSourceDriver *m = p;
  m->ops->free(m);
}

static void
_group_free(LogSourceDriver *d)
{
  LogSourceGroup *g = (LogSourceGroup *) d;
  g_ptr_array_free(g->members, TRUE);
  free(g);
}

static const LogSourceOps group_ops = { _group_start, _group_stop, _group_free };

LogSourceGroup *
log_source_group_new(const CfgNode *call)
{
  LogSourceGroup *g = calloc(1, sizeof(*g));
  if (!g)
    abort();
  g->super.ops = &group_ops;
  g->super.driver = g_intern_string(call->name); /* outlives the tree */
  g->super.loc = call->loc;
  g->members = g_ptr_array_new_with_free_func(_member_free);
  return g;
}

void
log_source_group_add(LogSourceGroup *g, LogSourceDriver *member)
{
  g_ptr_array_add(g->members, member);
}

LogSourceDriver *
log_source_group_driver(LogSourceGroup *g)
{
  return &g->super;
}

LogSourceDriver *
log_source_group_member(LogSourceGroup *g, size_t i)
{
  g_assert(i < g->members->len);
  return g_ptr_array_index(g->members, i);
}

size_t
log_source_group_size(const LogSourceGroup *g)
{
  return g->members->len;
}

const LogDriverFactory *
log_driver_factory_find(const LogDriverFactory *const *list, CfgObjectKind kind, const char *name)
{
  for (size_t i = 0; list[i]; i++)
    if (list[i]->def.kind == kind && strcmp(list[i]->def.name, name) == 0)
      return list[i];
  return NULL;
}

bool
log_source_group_build(LogSourceGroup *g, const LogDriverFactory *const *list, CfgNode *call,
                       const LogDriverContext *ctx, CfgError *err)
{
  const LogDriverFactory *f = log_driver_factory_find(list, CFG_OBJ_SOURCE, call->name);
  g_assert(f && f->new_source);
  LogSourceDriver *m = f->new_source(call, ctx, err);
  cfg_node_free(call);
  if (!m)
    return false;
  log_source_group_add(g, m);
  return true;
}
