/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Building a LogPipeline from a configuration tree: every source and
 * destination statement a log path uses gets its drivers constructed, and
 * every log path is compiled into PathElem lists.  Statements no log path
 * uses are checked (cfg_check_drivers) but not built, so they open nothing.
 */
#include "pipeline-internal.h"

#include "sluice/internal-log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const LogDriverFactory *
_factory_find(const LogDriverFactory *const *factories, CfgObjectKind kind, const char *name)
{
  for (size_t i = 0; factories[i]; i++)
    if (factories[i]->def.kind == kind && cfg_name_equal(factories[i]->def.name, name))
      return factories[i];
  return NULL;
}

/* The driver calls of a statement: a DEFINE's or INLINE's CALL children. */
static bool
_build_source(LogPipeline *pl, const CfgNode *stmt, const LogDriverFactory *const *factories, CfgError *err)
{
  SourceRT *s = calloc(1, sizeof(*s));
  s->name = stmt->name ? g_strdup(stmt->name) : g_strdup_printf("#anon-source%u", pl->sources->len);
  s->drivers = calloc(stmt->n_children + 1, sizeof(LogSourceDriver *));
  g_ptr_array_add(pl->sources, s);
  for (size_t i = 0; i < stmt->n_children; i++)
    {
      const CfgNode *call = stmt->children[i];
      if (call->kind != CFG_NODE_CALL)
        continue; /* a channel or junction: compiled with each path that names the statement */
      const LogDriverFactory *f = _factory_find(factories, CFG_OBJ_SOURCE, call->name);
      if (!f || !f->new_source)
        {
          cfg_error_set(err, &call->loc, "source driver '%s' is not supported by Sluice yet", call->name);
          return false;
        }
      LogDriverContext ctx = { pl->global, pl->tree, s->name };
      LogSourceDriver *d = f->new_source(call, &ctx, err);
      if (!d)
        return false;
      d->loc = call->loc;
      s->drivers[s->n_drivers++] = d;
    }
  /* one slot per driver, counted apart (stats-level 1); one for a
   * statement without drivers, so it still has an id */
  s->first_slot = (int) pl->slots->len;
  for (size_t i = 0; i < (s->n_drivers ? s->n_drivers : 1); i++)
    {
      SourceSlot *sl = calloc(1, sizeof(*sl));
      sl->source = (int) pl->sources->len - 1;
      sl->drv = s->n_drivers ? s->drivers[i] : NULL;
      sl->id = g_strdup_printf("%s#%zu", s->name, i);
      g_ptr_array_add(pl->slots, sl);
    }
  return true;
}

/* No two destination drivers may share a queue's name, given or
 * automatic ("d#0"), nor two names one disk-buffer file (the file's name
 * turns what it cannot hold into '_'): checked against every driver so
 * far, in either order. */
static bool
_persist_name_free(LogPipeline *pl, const char *persist, const char *name, const CfgNode *call, CfgError *err)
{
  char *stem = disk_buffer_file_stem(persist);
  bool free_name = true;
  for (guint i = 0; free_name && i < pl->drivers->len; i++)
    {
      const DriverRT *other = g_ptr_array_index(pl->drivers, i);
      char *other_stem = disk_buffer_file_stem(other->persist);
      if (strcmp(other_stem, stem) == 0)
        {
          cfg_error_set(err, &call->loc, "%s(): the queue of %s (\"%s\") and that of %s (\"%s\") would be one "
                        "disk-buffer file, %s: give each its own persist-name()",
                        call->name, name, persist, other->name, other->persist, stem);
          free_name = false;
        }
      g_free(other_stem);
    }
  g_free(stem);
  return free_name;
}

static bool
_build_dest(LogPipeline *pl, const CfgNode *stmt, const LogDriverFactory *const *factories, CfgError *err)
{
  DestRT *dest = calloc(1, sizeof(*dest));
  dest->name = stmt->name ? g_strdup(stmt->name) : g_strdup_printf("#anon-destination%u", pl->dests->len);
  dest->drivers = calloc(stmt->n_children + 1, sizeof(int));
  g_ptr_array_add(pl->dests, dest);
  for (size_t i = 0; i < stmt->n_children; i++)
    {
      const CfgNode *call = stmt->children[i];
      if (call->kind != CFG_NODE_CALL)
        continue; /* a channel or junction: compiled with each path that names the statement */
      const LogDriverFactory *f = _factory_find(factories, CFG_OBJ_DESTINATION, call->name);
      if (!f || !f->new_dest)
        {
          cfg_error_set(err, &call->loc, "destination driver '%s' is not supported by Sluice yet", call->name);
          return false;
        }
      /* the queue's name first: the driver keys what it carries across a
       * reload (a kept connection) by it too */
      const char *persist = NULL;
      char *name = g_strdup_printf("%s#%zu", dest->name, dest->n_drivers);
      if (!disk_buffer_persist_name(call, &persist, err) || !_persist_name_free(pl, persist ? persist : name, name, call, err))
        {
          g_free(name);
          return false;
        }
      LogDriverContext ctx = { pl->global, pl->tree, dest->name, persist ? persist : dest->name };
      LogDestDriver *d = f->new_dest(call, &ctx, err);
      if (!d || !disk_buffer_options_load(&d->disk_buffer, call, err))
        {
          if (d)
            d->ops->free(d);
          g_free(name);
          return false;
        }
      d->loc = call->loc;
      DriverRT *rt = calloc(1, sizeof(*rt));
      rt->drv = d;
      rt->name = name;
      rt->persist = g_strdup(persist ? persist : rt->name);
      int64_t fifo = d->log_fifo_size > 0 ? d->log_fifo_size : pl->global->log_fifo_size;
      rt->fifo_size = (uint32_t) (fifo > 0 && fifo < UINT32_MAX ? fifo : 10000);
      /* a disk queue opens its file when the pipeline starts: a reload
       * builds the new configuration while the old one still has it open,
       * and hands the open queue over by name */
      rt->q = d->disk_buffer.enabled ? log_queue_new_disk(&d->disk_buffer, rt->persist) : log_queue_new(rt->fifo_size);
      dest->drivers[dest->n_drivers++] = (int) pl->drivers->len;
      g_ptr_array_add(pl->drivers, rt);
    }
  return true;
}

/* The processor of one call of a parser or rewrite statement, or NULL
 * with *err. */
static LogProcessor *
_build_processor(LogPipeline *pl, const CfgNode *stmt, const CfgNode *call, CfgObjectKind kind,
                 const LogDriverFactory *const *factories, CfgError *err)
{
  const LogDriverFactory *f = _factory_find(factories, kind, call->name);
  if (!f || !f->new_processor)
    {
      cfg_error_set(err, &call->loc, "%s '%s' is not supported by Sluice yet", cfg_object_kind_name(kind),
                    call->name);
      return NULL;
    }
  LogDriverContext ctx = { pl->global, pl->tree, stmt->name };
  LogProcessor *proc = f->new_processor(call, &ctx, err);
  if (proc)
    proc->loc = call->loc;
  return proc;
}

/* The processors of a parser or rewrite statement, in the order its calls
 * name them (NULL-terminated), or NULL with *err.  Its channels are not
 * here: _compile_statement_seq runs a statement that has them. */
static LogProcessor **
_build_processors(LogPipeline *pl, const CfgNode *stmt, CfgObjectKind kind, const LogDriverFactory *const *factories,
                  CfgError *err)
{
  LogProcessor **procs = calloc(stmt->n_children + 1, sizeof(LogProcessor *));
  size_t n = 0;
  for (size_t i = 0; i < stmt->n_children; i++)
    {
      const CfgNode *call = stmt->children[i];
      if (call->kind != CFG_NODE_CALL)
        continue;
      if (!(procs[n++] = _build_processor(pl, stmt, call, kind, factories, err)))
        goto fail;
    }
  return procs;
fail:
  log_processors_free(procs);
  return NULL;
}

void
log_processors_free(LogProcessor **procs)
{
  for (size_t i = 0; procs && procs[i]; i++)
    procs[i]->ops->free(procs[i]);
  free(procs);
}

/* The id of the source or destination statement stmt, building it on first use. */
static int
_statement_id(LogPipeline *pl, const CfgNode *stmt, CfgObjectKind kind, const LogDriverFactory *const *factories,
              CfgError *err)
{
  gpointer v = g_hash_table_lookup(pl->by_node, stmt);
  if (v)
    return GPOINTER_TO_INT(v) - 1;
  GPtrArray *arr = kind == CFG_OBJ_SOURCE ? pl->sources : pl->dests;
  int id = (int) arr->len;
  bool ok = kind == CFG_OBJ_SOURCE ? _build_source(pl, stmt, factories, err)
                                   : _build_dest(pl, stmt, factories, err);
  if (!ok)
    return -1;
  g_hash_table_insert(pl->by_node, (gpointer) stmt, GINT_TO_POINTER(id + 1));
  return id;
}

static void
_elem_add(LogPathRT *p, PathElem e)
{
  p->elems = realloc(p->elems, (p->n_elems + 1) * sizeof(PathElem));
  p->elems[p->n_elems++] = e;
}

static void
_group_add(PathGroup *g, LogPathRT *p)
{
  g->paths = realloc(g->paths, (g->n + 1) * sizeof(LogPathRT *));
  g->paths[g->n++] = p;
}

static LogPathRT *_compile_path(LogPipeline *pl, const CfgNode *node, bool flow, const LogDriverFactory *const *f,
                                CfgError *err);

static void
_source_add(LogPathRT *p, int id)
{
  p->sources = realloc(p->sources, (p->n_sources + 1) * sizeof(int));
  p->sources[p->n_sources++] = id;
}

/* The channels of a source or destination statement: its channel {}
 * children and the channels of its junction {} children, in order. */
static GPtrArray *
_statement_channels(const CfgNode *stmt)
{
  GPtrArray *out = g_ptr_array_new();
  for (size_t i = 0; i < stmt->n_children; i++)
    {
      const CfgNode *c = stmt->children[i];
      if (c->kind == CFG_NODE_CHANNEL)
        g_ptr_array_add(out, (gpointer) c);
      else if (c->kind == CFG_NODE_JUNCTION)
        for (size_t k = 0; k < c->n_children; k++)
          g_ptr_array_add(out, c->children[k]);
    }
  return out;
}

/* The channels of a source or destination statement stmt, named in path p.
 *
 * A source statement's channel (syslog-ng's shape: channel { source {...};
 * parser {...}; }, or that in one log {} of its own) brings sources of its own, which join p, and its other
 * elements run in p on their messages only, before what follows in p, so
 * what a parser there sets reaches p's destinations (PE_SOURCE_CHANNEL).
 *
 * A destination statement's channel (channel { rewrite {...};
 * destination {...}; }) takes no source: the channels form a group of
 * nested paths after the statement's own drivers, each taking its copy of
 * the message as a nested log {} does. */
static bool
_compile_channels(LogPipeline *pl, LogPathRT *p, const CfgNode *stmt, const LogDriverFactory *const *factories,
                  CfgError *err)
{
  bool source = stmt->obj == CFG_OBJ_SOURCE;
  GPtrArray *channels = _statement_channels(stmt);
  if (!channels->len)
    {
      g_ptr_array_free(channels, TRUE);
      return true;
    }
  /* a statement named again inside its own channels would compile forever */
  if (!pl->in_channels)
    pl->in_channels = g_hash_table_new(g_direct_hash, g_direct_equal);
  if (!g_hash_table_add(pl->in_channels, (gpointer) stmt))
    {
      cfg_error_set(err, &stmt->loc, "%s statement '%s' takes itself in through its channels",
                    cfg_object_kind_name(stmt->obj), stmt->name ? stmt->name : "(inline)");
      g_ptr_array_free(channels, TRUE);
      return false;
    }
  if (channels->len && !source)
    _elem_add(p, (PathElem) { .kind = PE_GROUP });
  bool ok = true;
  for (guint i = 0; ok && i < channels->len; i++)
    {
      const CfgNode *ch = g_ptr_array_index(channels, i);
      /* syslog-ng's SCL also writes a source channel as one log path that
       * holds the sources (nodejs(): channel { log { source {...};
       * parser {...}; }; }): the same as the channel without the log */
      if (source && ch->n_children == 1 && ch->children[0]->kind == CFG_NODE_LOG && !ch->children[0]->flags)
        ch = ch->children[0];
      LogPathRT *sub = _compile_path(pl, ch, p->flow, factories, err);
      if (!sub)
        {
          ok = false;
          break;
        }
      if ((sub->n_sources == 0) == source)
        {
          cfg_error_set(err, &ch->loc,
                        source ? "a channel in source statement '%s' needs a source of its own"
                               : "a channel in destination statement '%s' cannot take a source",
                        stmt->name ? stmt->name : "(inline)");
          log_path_free(sub);
          ok = false;
          break;
        }
      if (!source)
        {
          _group_add(&p->elems[p->n_elems - 1].group, sub);
          continue;
        }
      for (size_t k = 0; k < sub->n_sources; k++)
        {
          _source_add(p, sub->sources[k]);
          SourceRT *src = g_ptr_array_index(pl->sources, sub->sources[k]);
          if (stmt->name && !src->label && g_str_has_prefix(src->name, "#anon-source"))
            src->label = g_strdup(stmt->name);
        }
      PathElem e = { .kind = PE_SOURCE_CHANNEL };
      _group_add(&e.group, sub);
      _elem_add(p, e);
    }
  g_hash_table_remove(pl->in_channels, stmt);
  g_ptr_array_free(channels, TRUE);
  return ok;
}

static bool _compile_child(LogPipeline *pl, LogPathRT *p, const CfgNode *c, const LogDriverFactory *const *factories,
                           CfgError *err);

static bool
_has_channel(const CfgNode *stmt)
{
  for (size_t i = 0; i < stmt->n_children; i++)
    if (stmt->children[i]->kind == CFG_NODE_CHANNEL)
      return true;
  return false;
}

static void
_stmt_counts_free(gpointer data)
{
  StmtCounts *c = data;
  g_free(c->name);
  g_free(c);
}

/* The counts of statement stmt in *arr, by its name as syslog-ng's
 * (an inline one "#anon-KINDN", in the order built). */
static StmtCounts *
_stmt_counts(GPtrArray **arr, unsigned *anon, const char *kind, const CfgNode *stmt)
{
  if (!*arr)
    *arr = g_ptr_array_new_with_free_func(_stmt_counts_free);
  for (guint i = 0; stmt->name && i < (*arr)->len; i++)
    {
      StmtCounts *o = g_ptr_array_index(*arr, i);
      if (strcmp(o->name, stmt->name) == 0)
        return o;
    }
  StmtCounts *c = g_new0(StmtCounts, 1);
  c->name = stmt->name ? g_strdup(stmt->name) : g_strdup_printf("#anon-%s%u", kind, (*anon)++);
  g_ptr_array_add(*arr, c);
  return c;
}

/* The parsers of stmt share one count of what they drop (a rewrite
 * drops nothing), from stats-level 1 as the filters' counts. */
static void
_count_discards(LogPipeline *pl, const CfgNode *stmt, CfgObjectKind kind, LogProcessor **procs)
{
  if (kind != CFG_OBJ_PARSER || pl->stats_level < 1)
    return;
  StmtCounts *c = _stmt_counts(&pl->parser_discards, &pl->anon_parsers, "parser", stmt);
  for (size_t k = 0; procs[k]; k++)
    procs[k]->discarded = &c->n[0];
}

/* c, a nested log {}, a junction or a channel of several in a row, as a
 * group of p.  Consecutive nested log {} paths form one group, as the
 * channels of a junction do: final and fallback act within the group.
 * Channels in a row in a path are what syslog-ng 3.38's grammar calls
 * log_forks, nested log {} paths: in log { source(s); channel {
 * filter(a); destination(da); flags(final); }; channel { filter(b);
 * destination(db); }; }; the second channel takes what the first one's
 * filter dropped (checked with syslog-ng).  They hand nothing on:
 * syslog-ng takes nothing after them, and what Sluice takes there gets
 * the message once. */
static bool
_compile_group_member(LogPipeline *pl, LogPathRT *p, const CfgNode *c, const LogDriverFactory *const *factories,
                      CfgError *err)
{
  bool one = c->kind != CFG_NODE_JUNCTION; /* a nested path (log or channel), not a junction's channels */
  PathElem *last = p->n_elems ? &p->elems[p->n_elems - 1] : NULL;
  bool extend = one && last && last->kind == PE_GROUP && last->nested_logs;
  if (!extend)
    {
      _elem_add(p, (PathElem) { .kind = PE_GROUP, .nested_logs = one });
      last = &p->elems[p->n_elems - 1];
    }
  size_t n = one ? 1 : c->n_children;
  for (size_t i = 0; i < n; i++)
    {
      const CfgNode *member = one ? c : c->children[i];
      LogPathRT *sub = _compile_path(pl, member, p->flow, factories, err);
      if (!sub)
        return false; /* the caller frees p with what it holds */
      _group_add(&last->group, sub);
    }
  return true;
}

/* Whether children[i] of node is a channel with another channel next to it. */
static bool
_channel_in_row(const CfgNode *node, size_t i)
{
  return node->children[i]->kind == CFG_NODE_CHANNEL
         && ((i > 0 && node->children[i - 1]->kind == CFG_NODE_CHANNEL)
             || (i + 1 < node->n_children && node->children[i + 1]->kind == CFG_NODE_CHANNEL));
}

/* The elements of node (a path, a channel) into p. */
static bool
_compile_children(LogPipeline *pl, LogPathRT *p, const CfgNode *node, const LogDriverFactory *const *factories,
                  CfgError *err)
{
  for (size_t i = 0; i < node->n_children; i++)
    if (!(_channel_in_row(node, i) ? _compile_group_member(pl, p, node->children[i], factories, err)
                                   : _compile_child(pl, p, node->children[i], factories, err)))
      return false;
  return true;
}

/* A parser or rewrite statement with channel {} in it (the shape of
 * syslog-ng's SCL parsers: channel { parser {...}; filter {...}; }) runs
 * in p as the sequence it writes: its calls as processors, each channel's
 * elements in turn, so a filter there ends the path for what it drops and
 * what a parser there sets goes on, as in syslog-ng.  Channels in a row
 * there stay a sequence, as in syslog-ng 3.38 (checked: of
 * channel { filter(a); ... }; channel { filter(b); ... }; nothing comes
 * out), unlike channels in a row in a path (_compile_group_member). */
static bool
_compile_statement_seq(LogPipeline *pl, LogPathRT *p, const CfgNode *stmt, CfgObjectKind kind,
                       const LogDriverFactory *const *factories, CfgError *err)
{
  for (size_t i = 0; i < stmt->n_children; i++)
    {
      const CfgNode *c = stmt->children[i];
      if (c->kind == CFG_NODE_CHANNEL)
        {
          if (!_compile_child(pl, p, c, factories, err))
            return false;
          continue;
        }
      if (c->kind != CFG_NODE_CALL)
        continue;
      LogProcessor *proc = _build_processor(pl, stmt, c, kind, factories, err);
      if (!proc)
        return false;
      LogProcessor **procs = calloc(2, sizeof(LogProcessor *));
      procs[0] = proc;
      _count_discards(pl, stmt, kind, procs);
      _elem_add(p, (PathElem) { .kind = PE_PROC, .procs = procs });
    }
  return true;
}

/* One element of a log path body (a child of LOG, CHANNEL or BRANCH). */
static bool
_compile_child(LogPipeline *pl, LogPathRT *p, const CfgNode *c, const LogDriverFactory *const *factories,
               CfgError *err)
{
  switch (c->kind)
    {
    case CFG_NODE_CALL:
      if (cfg_name_equal(c->name, "flags"))
        return true; /* already in the path's flags */
      cfg_error_set(err, &c->loc, "'%s()' is not allowed directly in a log path", c->name);
      return false;
    case CFG_NODE_REF:
    case CFG_NODE_INLINE:
      {
        const CfgNode *stmt = c->kind == CFG_NODE_REF ? c->target : c;
        if (!stmt)
          {
            cfg_error_set(err, &c->loc, "unresolved reference to %s '%s'", cfg_object_kind_name(c->obj),
                          c->name ? c->name : "");
            return false;
          }
        if (c->obj == CFG_OBJ_SOURCE)
          {
            int id = _statement_id(pl, stmt, CFG_OBJ_SOURCE, factories, err);
            if (id < 0)
              return false;
            _source_add(p, id);
            return _compile_channels(pl, p, stmt, factories, err);
          }
        if (c->obj == CFG_OBJ_DESTINATION)
          {
            int id = _statement_id(pl, stmt, CFG_OBJ_DESTINATION, factories, err);
            if (id < 0)
              return false;
            _elem_add(p, (PathElem) { .kind = PE_DEST, .dest = id });
            return _compile_channels(pl, p, stmt, factories, err);
          }
        if (c->obj == CFG_OBJ_FILTER)
          {
            FilterExpr *fe = filter_expr_compile_block(stmt, err);
            if (!fe)
              return false;
            /* counted from stats-level 1 only, as syslog-ng shows them: a
             * count shared by the workers costs its cache line */
            StmtCounts *sc = pl->stats_level >= 1
                               ? _stmt_counts(&pl->filter_counts, &pl->anon_filters, "filter", stmt) : NULL;
            _elem_add(p, (PathElem) { .kind = PE_FILTER, .filter = fe, .counts = sc ? sc->n : NULL });
            return true;
          }
        if ((c->obj == CFG_OBJ_PARSER || c->obj == CFG_OBJ_REWRITE) && _has_channel(stmt))
          return _compile_statement_seq(pl, p, stmt, c->obj, factories, err);
        if (c->obj == CFG_OBJ_PARSER || c->obj == CFG_OBJ_REWRITE)
          {
            LogProcessor **procs = _build_processors(pl, stmt, c->obj, factories, err);
            if (!procs)
              return false;
            _count_discards(pl, stmt, c->obj, procs);
            _elem_add(p, (PathElem) { .kind = PE_PROC, .procs = procs });
            for (uint32_t k = 0; procs[k]; k++)
              {
                /* where log_pipeline_inject() goes on from */
                procs[k]->pipeline = pl;
                procs[k]->path = p;
                procs[k]->elem = (uint32_t) p->n_elems - 1;
                procs[k]->index = k;
              }
            return true;
          }
        cfg_error_set(err, &c->loc, "%s statements in log paths are not supported by Sluice yet",
                      cfg_object_kind_name(c->obj));
        return false;
      }
    case CFG_NODE_CHANNEL:
      /* a channel alone in a path is a sequence of its elements; one of
       * several in a row is a member of their junction (_compile_children) */
      return _compile_children(pl, p, c, factories, err);
    case CFG_NODE_LOG:
    case CFG_NODE_JUNCTION:
      return _compile_group_member(pl, p, c, factories, err);
    case CFG_NODE_IF:
      {
        _elem_add(p, (PathElem) { .kind = PE_IF, .conds = calloc(c->n_children + 1, sizeof(FilterExpr *)) });
        PathElem *e = &p->elems[p->n_elems - 1];
        for (size_t i = 0; i < c->n_children; i++)
          {
            const CfgNode *b = c->children[i];
            FilterExpr *cond = NULL;
            if (b->cond && !(cond = filter_expr_compile(b->cond, err)))
              return false;
            LogPathRT *sub = _compile_path(pl, b, p->flow, factories, err);
            if (!sub)
              {
                filter_expr_free(cond);
                return false;
              }
            e->conds[e->group.n] = cond;
            _group_add(&e->group, sub);
          }
        return true;
      }
    default:
      cfg_error_set(err, &c->loc, "unexpected element in a log path");
      return false;
    }
}

static LogPathRT *
_compile_path(LogPipeline *pl, const CfgNode *node, bool flow, const LogDriverFactory *const *factories,
              CfgError *err)
{
  LogPathRT *p = calloc(1, sizeof(*p));
  p->flags = node->flags;
  p->flow = flow || (node->flags & CFG_LOG_FLOW_CONTROL);
  if (!_compile_children(pl, p, node, factories, err))
    {
      log_path_free(p);
      return NULL;
    }
  /* nested paths may name sources too; they are flow-controlled when
   * this path is */
  if (p->flow)
    for (size_t i = 0; i < p->n_sources; i++)
      ((SourceRT *) g_ptr_array_index(pl->sources, p->sources[i]))->flow_control = true;
  return p;
}

void
log_path_free(LogPathRT *p)
{
  if (!p)
    return;
  for (size_t i = 0; i < p->n_elems; i++)
    {
      PathElem *e = &p->elems[i];
      filter_expr_free(e->filter);
      log_processors_free(e->procs);
      for (size_t k = 0; k < e->group.n; k++)
        {
          log_path_free(e->group.paths[k]);
          if (e->conds)
            filter_expr_free(e->conds[k]);
        }
      free(e->group.paths);
      free(e->conds);
    }
  free(p->elems);
  free(p->sources);
  free(p);
}

/* A source is flow-controlled when a top-level path taking it has
 * flags(flow-control) anywhere inside. */
static bool
_path_has_flow(const LogPathRT *p)
{
  if (p->flags & CFG_LOG_FLOW_CONTROL)
    return true;
  for (size_t i = 0; i < p->n_elems; i++)
    for (size_t k = 0; k < p->elems[i].group.n; k++)
      if (_path_has_flow(p->elems[i].group.paths[k]))
        return true;
  return false;
}

static bool
_build_all(LogPipeline *pl, const CfgTree *tree, const LogDriverFactory *const *factories, CfgError *err)
{
  const CfgNode *root = tree->root;
  bool catchall_flow = false, catchall = false;
  for (size_t i = 0; i < root->n_children; i++)
    {
      const CfgNode *c = root->children[i];
      if (c->kind != CFG_NODE_LOG)
        continue;
      LogPathRT *p = _compile_path(pl, c, false, factories, err);
      if (!p)
        return false;
      if (p->n_sources == 0 && !(p->flags & CFG_LOG_CATCHALL))
        {
          /* syslog-ng 3.38 takes it silently, and it never receives anything */
          char where[256];
          snprintf(where, sizeof(where), "%s:%d:%d", c->loc.file, c->loc.line, c->loc.col);
          sluice_log(SLUICE_LOG_WARNING, "This log path has no source() and no flags(catchall): it receives nothing",
                     "location", where, NULL);
        }
      catchall |= (p->flags & CFG_LOG_CATCHALL) != 0;
      if (_path_has_flow(p))
        {
          catchall_flow |= (p->flags & CFG_LOG_CATCHALL) != 0;
          for (size_t s = 0; s < p->n_sources; s++)
            ((SourceRT *) g_ptr_array_index(pl->sources, p->sources[s]))->flow_control = true;
        }
      _group_add(&pl->top, p);
    }
  /* a catchall path reads every source statement, used elsewhere or not */
  for (size_t i = 0; catchall && i < root->n_children; i++)
    {
      const CfgNode *c = root->children[i];
      if (c->kind == CFG_NODE_DEFINE && c->obj == CFG_OBJ_SOURCE &&
          _statement_id(pl, c, CFG_OBJ_SOURCE, factories, err) < 0)
        return false;
    }
  if (catchall_flow)
    for (guint s = 0; s < pl->sources->len; s++)
      ((SourceRT *) g_ptr_array_index(pl->sources, s))->flow_control = true;
  return true;
}

/* Every parser and rewrite statement is built once, used in a log path or
 * not, as syslog-ng refuses a bad one anywhere (a pattern that does not
 * compile, a bad template). */
static bool
_check_processors(LogPipeline *pl, const CfgTree *tree, const LogDriverFactory *const *factories, CfgError *err)
{
  const CfgNode *root = tree->root;
  for (size_t i = 0; i < root->n_children; i++)
    {
      const CfgNode *c = root->children[i];
      if (c->kind != CFG_NODE_DEFINE || (c->obj != CFG_OBJ_PARSER && c->obj != CFG_OBJ_REWRITE))
        continue;
      LogProcessor **procs = _build_processors(pl, c, c->obj, factories, err);
      if (!procs)
        return false;
      log_processors_free(procs);
    }
  return true;
}

/* The template("...") text of template NAME {}, for $(template NAME). */
static const char *
_named_template_text(const void *data, const char *name)
{
  const CfgNode *block = cfg_tree_lookup(data, CFG_OBJ_TEMPLATE, name);
  const char *text = NULL;
  for (size_t i = 0; block && i < block->n_children; i++)
    {
      const CfgNode *c = block->children[i];
      if (cfg_name_equal(c->name, "template") && c->n_args == 1 && c->args[0].type != CFG_VAL_OP)
        text = c->args[0].str;
    }
  return text;
}

static void
_named_template_each(const void *data, void (*func)(const char *name, void *user), void *user)
{
  const CfgTree *tree = data;
  for (size_t i = 0; i < tree->root->n_children; i++)
    {
      const CfgNode *n = tree->root->children[i];
      if (n->kind == CFG_NODE_DEFINE && n->obj == CFG_OBJ_TEMPLATE && n->name)
        func(n->name, user);
    }
}

/* template-function NAME "TEXT";: the last one of that name */
static const char *
_template_function_text(const void *data, const char *name)
{
  const CfgTree *tree = data;
  const char *text = NULL;
  for (size_t i = 0; i < tree->root->n_children; i++)
    {
      const CfgNode *n = tree->root->children[i];
      if (n->kind == CFG_NODE_CALL && cfg_name_equal(n->name, "template-function") && n->n_args == 2
          && strcmp(n->args[0].str, name) == 0)
        text = n->args[1].str;
    }
  return text;
}

bool
log_pipeline_build(LogPipeline *pl, const CfgTree *tree, const LogDriverFactory *const *factories, CfgError *err)
{
  pl->tree = tree; /* for LogDriverContext; the tree is the caller's */
  LogTemplateNamedSource named = { _named_template_text, _named_template_each, tree, _template_function_text };
  const LogTemplateNamedSource *old = log_template_set_named_source(&named);
  bool ok = _check_processors(pl, tree, factories, err) && _build_all(pl, tree, factories, err);
  log_template_set_named_source(old);
  pl->tree = NULL;
  return ok;
}
