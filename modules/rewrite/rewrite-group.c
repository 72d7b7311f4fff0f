/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * groupset("template" values("glob" ...)) and groupunset(values("glob" ...)),
 * as syslog-ng 3.38 runs them (checked against it): the globs are matched
 * against the name of every value the message holds (HOST, PROGRAM,
 * MESSAGE... when set, name-value pairs, structured data, the $0..$N of a
 * subst()); values() lists add up.  In groupset's template $_ is the old
 * content of the value being set.
 */
#include "rewrite.h"
#include "sluice/glob.h"

#include <stdlib.h>
#include <string.h>

typedef struct GroupOptions
{
  char **values;
  const CfgNode *condition;
} GroupOptions;

static const CfgOption group_table[] = {
  { .name = "values", .type = CFG_OPT_STRING_LIST, .offset = offsetof(GroupOptions, values) },
  REWRITE_CONDITION_OPTION(GroupOptions),
  { .name = NULL },
};

typedef struct RewriteGroup
{
  RewriteRule rule;
  Glob *globs;
  size_t n_globs;
  LogTemplate *tmpl;  /* groupset; NULL for groupunset */
  LogTemplateOptions topts;
  NVHandle underscore; /* "_" */
} RewriteGroup;

static bool
_name_matches(const RewriteGroup *self, NVHandle h)
{
  size_t len;
  const char *name = log_msg_get_value_name(h, &len);
  if (!name)
    return false;
  for (size_t i = 0; i < self->n_globs; i++)
    if (glob_match(&self->globs[i], name, len))
      return true;
  return false;
}

/* The handles of msg's values whose names match, collected in buf (a
 * scratch string used as an array) before anything changes them.
 * Returns how many. */
static size_t
_collect(const RewriteGroup *self, const LogMsg *msg, GString *buf)
{
  for (NVHandle h = LM_V_NONE + 1; h < LM_V_MAX; h++)
    if (log_msg_is_value_set(msg, h) && _name_matches(self, h))
      g_string_append_len(buf, (const char *) &h, sizeof(h));
  for (uint32_t i = 0; i < msg->nv_len; i++)
    if (msg->nv[i].ptr && _name_matches(self, msg->nv[i].handle))
      g_string_append_len(buf, (const char *) &msg->nv[i].handle, sizeof(NVHandle));
  return buf->len / sizeof(NVHandle);
}

static bool
_group_process(LogProcessor *p, LogMsg **pmsg)
{
  RewriteGroup *self = (RewriteGroup *) p;
  if (!rewrite_rule_applies(&self->rule, pmsg))
    return true;
  GString *hbuf = rewrite_scratch(2);
  size_t n = _collect(self, *pmsg, hbuf);
  if (n == 0)
    return true;
  LogMsg *msg = log_msg_make_writable(pmsg);
  if (!self->tmpl)
    {
      /* all at once: one by one, a message of thousands of pairs that
       * match costs thousands of moves of the pairs behind each */
      const NVHandle *hs = (const NVHandle *) hbuf->str; /* g_malloc'd: aligned */
      log_msg_unset_values(msg, hs, n);
      for (size_t i = 0; i < n; i++)
        rewrite_value_changed(msg, hs[i]);
      return true;
    }
  for (size_t i = 0; i < n; i++)
    {
      NVHandle h;
      memcpy(&h, hbuf->str + i * sizeof(h), sizeof(h));
      size_t len;
      const char *old = log_msg_get_value(msg, h, &len);
      log_msg_set_nv_ref(msg, self->underscore, old, len);
      GString *out = rewrite_scratch(0);
      log_template_format(self->tmpl, msg, &self->topts, out);
      log_msg_set_value(msg, h, out->str, (ssize_t) out->len);
      rewrite_value_changed(msg, h);
    }
  if (self->tmpl)
    log_msg_unset_value(msg, self->underscore);
  return true;
}

static void
_group_free(LogProcessor *p)
{
  RewriteGroup *self = (RewriteGroup *) p;
  rewrite_rule_deinit(&self->rule);
  for (size_t i = 0; i < self->n_globs; i++)
    glob_clear(&self->globs[i]);
  free(self->globs);
  log_template_unref(self->tmpl);
  free(self);
}

static const LogProcessorOps group_ops = { .process = _group_process, .free = _group_free };

/* Every values() of call, not only the last: syslog-ng adds them up. */
static void
_collect_globs(RewriteGroup *self, const CfgNode *call)
{
  for (size_t i = 0; i < call->n_children; i++)
    {
      const CfgNode *c = call->children[i];
      if (c->kind != CFG_NODE_CALL || !cfg_name_equal(c->name, "values"))
        continue;
      self->globs = realloc(self->globs, (self->n_globs + c->n_args) * sizeof(Glob));
      for (size_t k = 0; k < c->n_args; k++)
        self->globs[self->n_globs++] = glob_new(c->args[k].str);
    }
}

static LogProcessor *
_group_new(const CfgNode *call, const LogDriverContext *ctx, bool with_template, CfgError *err)
{
  GroupOptions o;
  RewriteGroup *self = calloc(1, sizeof(*self));
  self->rule.super.ops = &group_ops;
  bool ok = rewrite_options_apply(group_table, call, &o, err)
            && rewrite_rule_init(&self->rule, &group_ops, call, o.condition, err);
  cfg_options_free(group_table, &o);
  if (ok && with_template)
    {
      self->underscore = log_msg_get_value_handle("_", -1);
      ok = rewrite_template_options(&self->topts, -1, -1, NULL, call, ctx, err)
           && (self->tmpl = rewrite_template_compile(call->args[0].str, call, &call->args[0].loc, err)) != NULL;
    }
  if (!ok)
    {
      _group_free(&self->rule.super);
      return NULL;
    }
  _collect_globs(self, call);
  return &self->rule.super;
}

static LogProcessor *
_groupset_new(const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  return _group_new(call, ctx, true, err);
}

static LogProcessor *
_groupunset_new(const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  return _group_new(call, ctx, false, err);
}

const LogDriverFactory rewrite_groupset_factory = {
  .def = { CFG_OBJ_REWRITE, "groupset", group_table, sizeof(GroupOptions), 1, 1 },
  .new_processor = _groupset_new,
};

const LogDriverFactory rewrite_groupunset_factory = {
  .def = { CFG_OBJ_REWRITE, "groupunset", group_table, sizeof(GroupOptions), 0, 0 },
  .new_processor = _groupunset_new,
};
