/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * grouping-by(key() scope() where() having() aggregate() trigger()
 * timeout() inject-mode() persist-name() max-contexts()): groups messages
 * into contexts by key() on the correlation thread of db-parser()
 * (correlation.h), and when a context closes (its timeout() passes with
 * no new message of that key, or trigger() passes on it after a message)
 * makes one message of it with aggregate() when having() passes.
 *
 * It is a rule of the correlation engine: context-id key(), scope(),
 * context-timeout timeout(), one timeout action with condition having()
 * and the message aggregate(value("NAME" "TEMPLATE")... tags("T"...)
 * inherit-mode(none|last-message|context)) (context by default, as in
 * syslog-ng 3.38), and trigger() closing the context.  where() runs on
 * the worker: a message it refuses goes on untouched and is not grouped.
 * The aggregates re-enter the log path after the parser; with
 * inject-mode(aggregate-only) every message leaves the path (grouped or
 * refused by where(), as in syslog-ng 3.38) and only the aggregates go on;
 * with pass-through (the default) both do.
 * inject-mode(internal) sends the aggregates to the internal() source
 * instead (nowhere when none runs).  sort-key() orders a context's
 * messages by its template before having() and the aggregate see them.
 */
#include "correlation.h"
#include "dbparser.h"
#include "pdb.h"

#include "sluice/cfg-options.h"
#include "sluice/filter.h"
#include "sluice/pipeline.h"

#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const scope_names[] = { "process", "program", "host", "global", NULL };
static const char *const inject_names[] = { "pass-through", "aggregate-only", "internal", NULL };
static const char *const inherit_names[] = { "none", "last-message", "context", NULL };

typedef struct GroupingAggregateOptions
{
  char **value;
  char **tags;
  int inherit_mode;
} GroupingAggregateOptions;

static const CfgOption aggregate_options[] = {
  { .name = "value", .type = CFG_OPT_STRING_LIST, .offset = offsetof(GroupingAggregateOptions, value) },
  { .name = "tags", .type = CFG_OPT_STRING_LIST, .offset = offsetof(GroupingAggregateOptions, tags) },
  { .name = "inherit-mode", .type = CFG_OPT_ENUM, .offset = offsetof(GroupingAggregateOptions, inherit_mode),
    .names = inherit_names, .def_int = PDB_INHERIT_CONTEXT },
  { .name = NULL },
};

typedef struct GroupingOptions
{
  char *key;
  int scope;
  const CfgNode *where, *having, *trigger;
  GroupingAggregateOptions aggregate;
  int64_t timeout;
  int inject_mode;
  char *persist_name;
  char *sort_key;
  int64_t max_contexts;
} GroupingOptions;

#define OFF(f) offsetof(GroupingOptions, f)
static const CfgOption grouping_options[] = {
  { .name = "key", .type = CFG_OPT_TEMPLATE, .offset = OFF(key) },
  { .name = "scope", .type = CFG_OPT_ENUM, .offset = OFF(scope), .names = scope_names },
  { .name = "where", .type = CFG_OPT_EXPR, .offset = OFF(where) },
  { .name = "having", .type = CFG_OPT_EXPR, .offset = OFF(having) },
  { .name = "trigger", .type = CFG_OPT_EXPR, .offset = OFF(trigger) },
  { .name = "aggregate", .type = CFG_OPT_BLOCK, .offset = OFF(aggregate), .sub = aggregate_options },
  { .name = "timeout", .type = CFG_OPT_INT, .offset = OFF(timeout), .min = 1, .max = 31 * 86400 },
  { .name = "inject-mode", .type = CFG_OPT_ENUM, .offset = OFF(inject_mode), .names = inject_names },
  { .name = "persist-name", .type = CFG_OPT_STRING, .offset = OFF(persist_name) },
  { .name = "sort-key", .type = CFG_OPT_TEMPLATE, .offset = OFF(sort_key) },
  { .name = "max-contexts", .type = CFG_OPT_INT, .offset = OFF(max_contexts),
    .def_int = CORR_DEFAULT_MAX_CONTEXTS, .min = 1, .max = 100000000 },
  { .name = NULL },
};
#undef OFF

typedef struct GroupingBy
{
  LogProcessor super;
  FilterExpr *where;
  bool aggregate_only;
  bool inject_internal; /* inject-mode(internal): the aggregates go to internal() */
  PdbRule rule;  /* the engine's rule: id "grouping-by" */
  PdbAction *action;
  CorrState *corr;
  char corr_name[256];
} GroupingBy;

static void
_free(LogProcessor *p)
{
  GroupingBy *self = (GroupingBy *) p;
  corr_state_unref(self->corr);
  filter_expr_free(self->where);
  filter_expr_free(self->rule.close_when);
  log_template_unref(self->rule.context_id);
  if (self->rule.sort_key)
    log_template_unref(self->rule.sort_key);
  if (self->action)
    {
      filter_expr_free(self->action->condition);
      g_array_free(self->action->tags, TRUE);
      for (guint i = 0; i < self->action->values->len; i++)
        log_template_unref(g_array_index(self->action->values, PdbValue, i).tmpl);
      g_array_free(self->action->values, TRUE);
      g_free(self->action);
    }
  if (self->rule.actions)
    g_ptr_array_free(self->rule.actions, TRUE);
  if (self->rule.examples)
    g_ptr_array_free(self->rule.examples, TRUE);
  if (self->rule.tags)
    g_array_free(self->rule.tags, TRUE);
  if (self->rule.values)
    g_array_free(self->rule.values, TRUE);
  free(self);
}

static bool
_process(LogProcessor *p, LogMsg **pmsg)
{
  GroupingBy *self = (GroupingBy *) p;
  /* aggregate-only: every message leaves the path, grouped or not, as in
   * syslog-ng 3.38 */
  if (self->where && !filter_expr_eval(self->where, *pmsg))
    return !self->aggregate_only;
  log_msg_write_protect(*pmsg);
  corr_submit(self->corr, &self->rule, log_msg_ref(*pmsg), self);
  return !self->aggregate_only;
}

static const PdbRule *
_lookup(const void *rules, const char *id)
{
  const PdbRule *r = rules;
  return strcmp(r->id, id) == 0 ? r : NULL;
}

static void
_emit(void *emitter, LogMsg *msg)
{
  GroupingBy *self = emitter;
  corr_emit_from(&self->super, self->inject_internal, msg);
}

static bool
_start(LogProcessor *p, char **error)
{
  (void) error;
  GroupingBy *self = (GroupingBy *) p;
  corr_state_attach(self->corr, _lookup, &self->rule, _emit, self);
  return true;
}

static void
_stop(LogProcessor *p)
{
  GroupingBy *self = (GroupingBy *) p;
  corr_state_detach(self->corr, self);
}

static void
_stats(LogProcessor *p, void (*row)(void *ud, const char *instance, const char *type, uint64_t value),
       void *ud)
{
  GroupingBy *self = (GroupingBy *) p;
  CorrCounters c;
  corr_state_counters(self->corr, &c);
  row(ud, self->corr_name, "contexts", c.contexts);
  row(ud, self->corr_name, "contexts_dropped", c.contexts_dropped);
  row(ud, self->corr_name, "queue_dropped", c.queue_dropped);
  row(ud, self->corr_name, "messages_dropped", c.messages_dropped);
  row(ud, self->corr_name, "expired", c.expired);
  row(ud, self->corr_name, "emitted", c.emitted);
}

static void
_flush(LogProcessor *p)
{
  (void) p;
  corr_flush();
}

static const LogProcessorOps grouping_ops = {
  .process = _process, .free = _free, .start = _start, .stop = _stop, .flush = _flush, .stats = _stats,
};

static const CfgLocation *
_where_given(const CfgNode *call, const char *name)
{
  const CfgNode *opt = cfg_option_given(call, name);
  return opt ? &opt->loc : &call->loc;
}

/* value("NAME" "TEMPLATE") may come several times in aggregate(): read
 * them from the tree in order (the option table keeps the last one). */
static bool
_aggregate_values(GroupingBy *self, const CfgNode *call, CfgError *err)
{
  for (size_t i = 0; i < call->n_children; i++)
    {
      const CfgNode *agg = call->children[i];
      if (agg->kind != CFG_NODE_CALL || !cfg_name_equal(agg->name, "aggregate"))
        continue;
      for (size_t k = 0; k < agg->n_children; k++)
        {
          const CfgNode *v = agg->children[k];
          if (v->kind != CFG_NODE_CALL || !cfg_name_equal(v->name, "value"))
            continue;
          if (v->n_args != 2)
            {
              cfg_error_set(err, &v->loc, "grouping-by(): aggregate(value()) takes a name and a template");
              return false;
            }
          char *e = NULL;
          LogTemplate *t = log_template_compile(v->args[1].str, &e);
          if (!t)
            {
              cfg_error_set(err, &v->loc, "grouping-by(): bad aggregate value template \"%s\": %s",
                            v->args[1].str, e ? e : "?");
              g_free(e);
              return false;
            }
          PdbValue pv = { log_msg_get_value_handle(v->args[0].str, -1), t };
          g_array_append_val(self->action->values, pv);
        }
    }
  return true;
}

static bool
_setup(GroupingBy *self, const GroupingOptions *o, const CfgNode *call, CfgError *err)
{
  if (!o->key)
    {
      cfg_error_set(err, &call->loc, "grouping-by() needs key(), the template that groups messages");
      return false;
    }
  if (!cfg_option_given(call, "timeout"))
    {
      cfg_error_set(err, &call->loc, "grouping-by() needs timeout(), in seconds");
      return false;
    }
  if (o->sort_key)
    {
      char *se = NULL;
      self->rule.sort_key = log_template_compile(o->sort_key, &se);
      if (!self->rule.sort_key)
        {
          cfg_error_set(err, _where_given(call, "sort-key"), "grouping-by(): bad sort-key() \"%s\": %s",
                        o->sort_key, se ? se : "?");
          g_free(se);
          return false;
        }
    }
  self->aggregate_only = o->inject_mode == 1;
  self->inject_internal = o->inject_mode == 2;
  char *e = NULL;
  self->rule.context_id = log_template_compile(o->key, &e);
  if (!self->rule.context_id)
    {
      cfg_error_set(err, _where_given(call, "key"), "grouping-by(): bad key() \"%s\": %s", o->key,
                    e ? e : "?");
      g_free(e);
      return false;
    }
  if (o->where && !(self->where = filter_expr_compile(o->where, err)))
    return false;
  if (o->trigger && !(self->rule.close_when = filter_expr_compile(o->trigger, err)))
    return false;
  self->action = g_new0(PdbAction, 1);
  self->action->trigger = PDB_TRIGGER_TIMEOUT;
  self->action->inherit = (PdbInherit) o->aggregate.inherit_mode;
  self->action->tags = g_array_new(FALSE, FALSE, sizeof(LogTagId));
  self->action->values = g_array_new(FALSE, FALSE, sizeof(PdbValue));
  g_ptr_array_add(self->rule.actions, self->action);
  if (o->having && !(self->action->condition = filter_expr_compile(o->having, err)))
    return false;
  for (size_t i = 0; o->aggregate.tags && o->aggregate.tags[i]; i++)
    {
      LogTagId t = log_tags_get_by_name(o->aggregate.tags[i]);
      g_array_append_val(self->action->tags, t);
    }
  if (!_aggregate_values(self, call, err))
    return false;
  self->rule.context_timeout = (int) o->timeout;
  self->rule.scope = (PdbScope) o->scope;
  if (o->persist_name)
    snprintf(self->corr_name, sizeof(self->corr_name), "%s", o->persist_name);
  else
    snprintf(self->corr_name, sizeof(self->corr_name), "grouping-by(%s)", o->key);
  self->corr = corr_state_get(self->corr_name, (size_t) o->max_contexts);
  return true;
}

static LogProcessor *
_new(const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  (void) ctx;
  GroupingOptions o;
  cfg_options_defaults(grouping_options, &o);
  GroupingBy *self = calloc(1, sizeof(*self));
  self->super.ops = &grouping_ops;
  self->super.driver = "grouping-by";
  self->super.loc = call->loc;
  self->rule.id = "grouping-by";
  self->rule.actions = g_ptr_array_new();
  self->rule.examples = g_ptr_array_new();
  self->rule.tags = g_array_new(FALSE, FALSE, sizeof(LogTagId));
  self->rule.values = g_array_new(FALSE, FALSE, sizeof(PdbValue));
  bool ok =
    cfg_options_apply(grouping_options, call, &o, "grouping-by()", err) && _setup(self, &o, call, err);
  cfg_options_free(grouping_options, &o);
  if (!ok)
    {
      _free(&self->super);
      return NULL;
    }
  return &self->super;
}

const LogDriverFactory grouping_by_factory = {
  .def = { .kind = CFG_OBJ_PARSER, .name = "grouping-by", .options = grouping_options,
           .struct_size = sizeof(GroupingOptions), .min_args = 0, .max_args = 0 },
  .new_processor = _new,
};
