/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rules that set and unset values, as syslog-ng 3.38 runs them
 * (checked against it):
 *
 *   set("template" value("NAME"))  value() defaults to MESSAGE; the last
 *                                  value() wins; ts-format(), frac-digits()
 *                                  and time-zone() (send-time-zone()) shape
 *                                  dates in the template (default:
 *                                  options {})
 *   unset(value("NAME"))           MESSAGE by default; the last value() wins
 *   groupset("t" values("g*" ...)) every value set on the message whose
 *                                  name matches a glob gets the template,
 *                                  in which $_ is that value's old content;
 *                                  values() lists add up
 *   groupunset(values("g*" ...))   unsets them
 *   rename("old" "new")            moves a set value; nothing if unset
 *
 * (groupset() and groupunset() are in rewrite-group.c.)
 * Macros (PRI, DATE, ...) and "_" cannot be changed.  Changing PROGRAM or
 * PID drops the header as received, so ${MSGHDR} follows them.
 */
#include "rewrite.h"

#include <stdlib.h>
#include <string.h>

/* ---- set() ------------------------------------------------------------- */

typedef struct SetOptions
{
  char *value;
  const CfgNode *condition;
  int ts_format;
  int64_t frac_digits;
  char *time_zone;
} SetOptions;

static const CfgOption set_table[] = {
  { .name = "value", .type = CFG_OPT_STRING, .offset = offsetof(SetOptions, value), .def_str = "MESSAGE" },
  REWRITE_CONDITION_OPTION(SetOptions),
  { .name = "ts-format", .type = CFG_OPT_ENUM, .offset = offsetof(SetOptions, ts_format), .def_int = -1,
    .names = rewrite_ts_formats },
  { .name = "frac-digits", .type = CFG_OPT_INT, .offset = offsetof(SetOptions, frac_digits), .def_int = -1,
    .min = 0, .max = 6 },
  { .name = "time-zone", .type = CFG_OPT_STRING, .offset = offsetof(SetOptions, time_zone) },
  /* syslog-ng's other name for it (local-time-zone() is left out: it only
   * matters for file names, which set() has none of) */
  { .name = "send-time-zone", .type = CFG_OPT_STRING, .offset = offsetof(SetOptions, time_zone) },
  { .name = NULL },
};

typedef struct RewriteSet
{
  RewriteRule rule;
  NVHandle handle;
  LogTemplate *tmpl;
  LogTemplateOptions topts;
  const char *literal; /* interned expansion of a template without macros */
  size_t literal_len;
} RewriteSet;

static bool
_set_process(LogProcessor *p, LogMsg **pmsg)
{
  RewriteSet *self = (RewriteSet *) p;
  if (!rewrite_rule_applies(&self->rule, pmsg))
    return true;
  if (self->literal)
    {
      /* interned: it outlives every message, so nothing is copied */
      LogMsg *msg = log_msg_make_writable(pmsg);
      log_msg_set_value_ref(msg, self->handle, self->literal, self->literal_len);
      rewrite_value_changed(msg, self->handle);
      return true;
    }
  GString *buf = rewrite_scratch(0);
  log_template_format(self->tmpl, *pmsg, &self->topts, buf);
  LogMsg *msg = log_msg_make_writable(pmsg);
  log_msg_set_value(msg, self->handle, buf->str, (ssize_t) buf->len);
  rewrite_value_changed(msg, self->handle);
  return true;
}

static void
_set_free(LogProcessor *p)
{
  RewriteSet *self = (RewriteSet *) p;
  rewrite_rule_deinit(&self->rule);
  log_template_unref(self->tmpl);
  free(self);
}

static const LogProcessorOps set_ops = { .process = _set_process, .free = _set_free };

static LogProcessor *
_set_new(const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  SetOptions o;
  RewriteSet *self = calloc(1, sizeof(*self));
  bool ok = rewrite_options_apply(set_table, call, &o, err);
  if (ok)
    {
      ok = rewrite_rule_init(&self->rule, &set_ops, call, o.condition, err)
           && rewrite_value_option_handle(call, o.value, &self->handle, err)
           && rewrite_template_options(&self->topts, o.ts_format, o.frac_digits, o.time_zone, call, ctx, err)
           && (self->tmpl = rewrite_template_compile(call->args[0].str, call, &call->args[0].loc, err));
    }
  cfg_options_free(set_table, &o);
  if (!ok)
    {
      self->rule.super.ops = &set_ops;
      _set_free(&self->rule.super);
      return NULL;
    }
  char *lit = rewrite_template_literal(self->tmpl, &self->literal_len);
  if (lit && strlen(lit) == self->literal_len) /* interning needs a C string */
    self->literal = g_intern_string(lit);
  g_free(lit);
  return &self->rule.super;
}

const LogDriverFactory rewrite_set_factory = {
  .def = { CFG_OBJ_REWRITE, "set", set_table, sizeof(SetOptions), 1, 1 },
  .new_processor = _set_new,
};

/* ---- unset() ----------------------------------------------------------- */

typedef struct UnsetOptions
{
  char *value;
  const CfgNode *condition;
} UnsetOptions;

static const CfgOption unset_table[] = {
  { .name = "value", .type = CFG_OPT_STRING, .offset = offsetof(UnsetOptions, value), .def_str = "MESSAGE" },
  REWRITE_CONDITION_OPTION(UnsetOptions),
  { .name = NULL },
};

typedef struct RewriteUnset
{
  RewriteRule rule;
  NVHandle handle;
} RewriteUnset;

static bool
_unset_process(LogProcessor *p, LogMsg **pmsg)
{
  RewriteUnset *self = (RewriteUnset *) p;
  if (!rewrite_rule_applies(&self->rule, pmsg) || !log_msg_is_value_set(*pmsg, self->handle))
    return true;
  LogMsg *msg = log_msg_make_writable(pmsg);
  log_msg_unset_value(msg, self->handle);
  rewrite_value_changed(msg, self->handle);
  return true;
}

static void
_rule_free(LogProcessor *p)
{
  rewrite_rule_deinit((RewriteRule *) p);
  free(p);
}

static const LogProcessorOps unset_ops = { .process = _unset_process, .free = _rule_free };

static LogProcessor *
_unset_new(const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  (void) ctx;
  UnsetOptions o;
  RewriteUnset *self = calloc(1, sizeof(*self));
  self->rule.super.ops = &unset_ops;
  bool ok = rewrite_options_apply(unset_table, call, &o, err);
  if (ok)
    {
      ok = rewrite_rule_init(&self->rule, &unset_ops, call, o.condition, err)
           && rewrite_value_option_handle(call, o.value, &self->handle, err);
    }
  cfg_options_free(unset_table, &o);
  if (!ok)
    {
      _rule_free(&self->rule.super);
      return NULL;
    }
  return &self->rule.super;
}

const LogDriverFactory rewrite_unset_factory = {
  .def = { CFG_OBJ_REWRITE, "unset", unset_table, sizeof(UnsetOptions), 0, 0 },
  .new_processor = _unset_new,
};

/* ---- rename() ---------------------------------------------------------- */

typedef struct RenameOptions
{
  const CfgNode *condition;
} RenameOptions;

static const CfgOption rename_table[] = {
  REWRITE_CONDITION_OPTION(RenameOptions),
  { .name = NULL },
};

typedef struct RewriteRename
{
  RewriteRule rule;
  NVHandle from, to;
} RewriteRename;

static bool
_rename_process(LogProcessor *p, LogMsg **pmsg)
{
  RewriteRename *self = (RewriteRename *) p;
  if (!rewrite_rule_applies(&self->rule, pmsg) || self->from == self->to || !log_msg_is_value_set(*pmsg, self->from))
    return true;
  LogMsg *msg = log_msg_make_writable(pmsg);
  size_t len;
  /* the value stays where it is (the message keeps it alive): only the
   * name changes */
  const char *v = log_msg_get_value(msg, self->from, &len);
  log_msg_set_value_ref(msg, self->to, v, len);
  log_msg_unset_value(msg, self->from);
  rewrite_value_changed(msg, self->to);
  rewrite_value_changed(msg, self->from);
  return true;
}

static const LogProcessorOps rename_ops = { .process = _rename_process, .free = _rule_free };

static LogProcessor *
_rename_new(const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  (void) ctx;
  RenameOptions o;
  RewriteRename *self = calloc(1, sizeof(*self));
  self->rule.super.ops = &rename_ops;
  bool ok = rewrite_options_apply(rename_table, call, &o, err)
            && rewrite_rule_init(&self->rule, &rename_ops, call, o.condition, err)
            && rewrite_value_handle(call->args[0].str, &call->args[0].loc, &self->from, err)
            && rewrite_value_handle(call->args[1].str, &call->args[1].loc, &self->to, err);
  cfg_options_free(rename_table, &o);
  if (!ok)
    {
      _rule_free(&self->rule.super);
      return NULL;
    }
  return &self->rule.super;
}

const LogDriverFactory rewrite_rename_factory = {
  .def = { CFG_OBJ_REWRITE, "rename", rename_table, sizeof(RenameOptions), 2, 2 },
  .new_processor = _rename_new,
};
