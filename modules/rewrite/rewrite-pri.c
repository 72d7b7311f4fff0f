/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * set-tag(), clear-tag(), set-severity(), set-facility() and set-pri(),
 * each taking a template, as syslog-ng 3.38 runs them (checked against
 * it):
 *
 *   set-tag("t$HOST")     the expanded text is the tag's name
 *   set-severity("...")   a decimal number 0..7 (strtol's syntax: "+5",
 *                         " 5" and "05" pass, "0x5" and "5x" do not) or a
 *                         level name in any case ("WARN", "panic")
 *   set-facility("...")   a number 0..127 or a facility name ("LOCAL3")
 *   set-pri("...")        a number 0..1023
 *
 * Anything else leaves the message as it was, as in syslog-ng, which
 * says so in a debug message per message; Sluice says it once per rule,
 * as a warning, so that a bad template is noticed without flooding the
 * log.
 */
#include "rewrite.h"

#include "sluice/internal-log.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct TemplateRuleOptions
{
  const CfgNode *condition;
} TemplateRuleOptions;

static const CfgOption template_rule_table[] = {
  REWRITE_CONDITION_OPTION(TemplateRuleOptions),
  { .name = NULL },
};

typedef enum
{
  RW_SET_TAG,
  RW_CLEAR_TAG,
  RW_SET_SEVERITY,
  RW_SET_FACILITY,
  RW_SET_PRI,
} TemplateRuleKind;

typedef struct RewriteTemplateRule
{
  RewriteRule rule;
  TemplateRuleKind kind;
  LogTemplate *tmpl;
  bool literal;   /* the template has no macros: tag is resolved already */
  LogTagId tag;
  atomic_bool warned; /* a bad value has been reported */
  char *location;     /* "file:line:col", for that report */
} RewriteTemplateRule;

/* ---- tags --------------------------------------------------------------- */

static LogTagId
_tag_of(const RewriteTemplateRule *self, const LogMsg *msg)
{
  if (self->literal)
    return self->tag;
  GString *buf = rewrite_scratch(0);
  log_template_format(self->tmpl, msg, NULL, buf);
  return log_tags_get_by_name(buf->str);
}

static bool
_tag_process(LogProcessor *p, LogMsg **pmsg)
{
  RewriteTemplateRule *self = (RewriteTemplateRule *) p;
  if (!rewrite_rule_applies(&self->rule, pmsg))
    return true;
  LogTagId id = _tag_of(self, *pmsg);
  bool set = self->kind == RW_SET_TAG;
  if (log_msg_has_tag(*pmsg, id) == set)
    return true;
  LogMsg *msg = log_msg_make_writable(pmsg);
  if (set)
    log_msg_set_tag(msg, id);
  else
    log_msg_clear_tag(msg, id);
  return true;
}

/* ---- priority ----------------------------------------------------------- */

/* text as a number in [0, max], or -1 */
static int
_number(const char *text, int max)
{
  char *end;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (end == text || *end != '\0' || errno != 0 || v < 0 || v > max)
    return -1;
  return (int) v;
}

/* a level or facility name in any case, or -1 */
static int
_name(const char *text, size_t len, int (*lookup)(const char *))
{
  char lower[32];
  if (len == 0 || len >= sizeof(lower))
    return -1;
  for (size_t i = 0; i <= len; i++)
    lower[i] = (char) g_ascii_tolower(text[i]);
  return lookup(lower);
}

static void
_warn_once(RewriteTemplateRule *self, const char *value)
{
  if (atomic_exchange_explicit(&self->warned, true, memory_order_relaxed))
    return;
  static const char *const what[] = { [RW_SET_SEVERITY] = "severity", [RW_SET_FACILITY] = "facility",
                                      [RW_SET_PRI] = "pri" };
  char text[80];
  snprintf(text, sizeof(text), "invalid value passed to %s() (reported once per rule)", self->rule.super.driver);
  sluice_log(SLUICE_LOG_WARNING, text, what[self->kind], value, "location", self->location, NULL);
}

/* The new PRI for msg, or -1 to leave it. */
static int
_new_pri(RewriteTemplateRule *self, const LogMsg *msg)
{
  GString *buf = rewrite_scratch(0);
  log_template_format(self->tmpl, msg, NULL, buf);
  int n, pri;
  switch (self->kind)
    {
    case RW_SET_SEVERITY:
      n = _number(buf->str, 7);
      if (n < 0)
        n = _name(buf->str, buf->len, filter_level_from_name);
      pri = n < 0 ? -1 : (msg->pri & ~7) | n;
      break;
    case RW_SET_FACILITY:
      n = _number(buf->str, 127);
      if (n < 0)
        n = _name(buf->str, buf->len, filter_facility_from_name);
      pri = n < 0 ? -1 : (n << 3) | (msg->pri & 7);
      break;
    default:
      pri = _number(buf->str, 1023);
      break;
    }
  if (pri < 0)
    _warn_once(self, buf->str);
  return pri;
}

static bool
_pri_process(LogProcessor *p, LogMsg **pmsg)
{
  RewriteTemplateRule *self = (RewriteTemplateRule *) p;
  if (!rewrite_rule_applies(&self->rule, pmsg))
    return true;
  int pri = _new_pri(self, *pmsg);
  if (pri < 0 || pri == (*pmsg)->pri)
    return true;
  log_msg_make_writable(pmsg)->pri = (uint16_t) pri;
  return true;
}

/* ---- construction ------------------------------------------------------- */

static void
_template_rule_free(LogProcessor *p)
{
  RewriteTemplateRule *self = (RewriteTemplateRule *) p;
  rewrite_rule_deinit(&self->rule);
  log_template_unref(self->tmpl);
  g_free(self->location);
  free(self);
}

static const LogProcessorOps tag_ops = { .process = _tag_process, .free = _template_rule_free };
static const LogProcessorOps pri_ops = { .process = _pri_process, .free = _template_rule_free };

static LogProcessor *
_template_rule_new(const CfgNode *call, TemplateRuleKind kind, CfgError *err)
{
  const LogProcessorOps *ops = kind == RW_SET_TAG || kind == RW_CLEAR_TAG ? &tag_ops : &pri_ops;
  TemplateRuleOptions o;
  RewriteTemplateRule *self = calloc(1, sizeof(*self));
  self->rule.super.ops = ops;
  self->kind = kind;
  /* the configuration tree does not outlive the build */
  self->location = g_strdup_printf("%s:%d:%d", call->loc.file, call->loc.line, call->loc.col);
  bool ok = rewrite_options_apply(template_rule_table, call, &o, err)
            && rewrite_rule_init(&self->rule, ops, call, o.condition, err)
            && (self->tmpl = rewrite_template_compile(call->args[0].str, call, &call->args[0].loc, err));
  cfg_options_free(template_rule_table, &o);
  if (!ok)
    {
      _template_rule_free(&self->rule.super);
      return NULL;
    }
  self->literal = log_template_is_literal(self->tmpl);
  if (self->literal && ops == &tag_ops)
    {
      size_t len;
      char *name = rewrite_template_literal(self->tmpl, &len);
      self->tag = log_tags_get_by_name(name);
      g_free(name);
    }
  return &self->rule.super;
}

#define TEMPLATE_RULE(fn, kind)                                                  \
  static LogProcessor *fn(const CfgNode *call, const LogDriverContext *ctx, CfgError *err) \
  {                                                                              \
    (void) ctx;                                                                  \
    return _template_rule_new(call, kind, err);                                  \
  }

TEMPLATE_RULE(_set_tag_new, RW_SET_TAG)
TEMPLATE_RULE(_clear_tag_new, RW_CLEAR_TAG)
TEMPLATE_RULE(_set_severity_new, RW_SET_SEVERITY)
TEMPLATE_RULE(_set_facility_new, RW_SET_FACILITY)
TEMPLATE_RULE(_set_pri_new, RW_SET_PRI)

#define TEMPLATE_RULE_DEF(n) { CFG_OBJ_REWRITE, n, template_rule_table, sizeof(TemplateRuleOptions), 1, 1 }

const LogDriverFactory rewrite_set_tag_factory = { .def = TEMPLATE_RULE_DEF("set-tag"), .new_processor = _set_tag_new };
const LogDriverFactory rewrite_clear_tag_factory = { .def = TEMPLATE_RULE_DEF("clear-tag"),
                                                     .new_processor = _clear_tag_new };
const LogDriverFactory rewrite_set_severity_factory = { .def = TEMPLATE_RULE_DEF("set-severity"),
                                                        .new_processor = _set_severity_new };
const LogDriverFactory rewrite_set_facility_factory = { .def = TEMPLATE_RULE_DEF("set-facility"),
                                                        .new_processor = _set_facility_new };
const LogDriverFactory rewrite_set_pri_factory = { .def = TEMPLATE_RULE_DEF("set-pri"), .new_processor = _set_pri_new };
