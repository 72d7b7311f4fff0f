/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The set(), subst(), unset(), groupset(), groupunset(), rename(),
 * set-tag(), clear-tag(), set-severity(), set-facility() and set-pri()
 * rewrite rules (modules/rewrite): registration table and what the rules
 * share (rewrite.h).
 */
#include "modules.h"
#include "rewrite.h"

#include "sluice/internal-log.h"
#include "sluice/scratch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const LogDriverFactory *const rewrite_driver_factories[] = {
  &rewrite_set_factory,          &rewrite_unset_factory,        &rewrite_groupset_factory,
  &rewrite_groupunset_factory,   &rewrite_rename_factory,       &rewrite_subst_factory,
  &rewrite_set_tag_factory,      &rewrite_clear_tag_factory,    &rewrite_set_severity_factory,
  &rewrite_set_facility_factory, &rewrite_set_pri_factory,      NULL,
};

bool
rewrite_rule_init(RewriteRule *r, const LogProcessorOps *ops, const CfgNode *call, const CfgNode *cond,
                  CfgError *err)
{
  r->super.ops = ops;
  r->super.driver = g_intern_string(call->name);
  r->super.loc = call->loc;
  r->condition = NULL;
  r->condition_stores = false;
  if (!cond)
    return true;
  r->condition = filter_expr_compile(cond, err);
  if (!r->condition)
    return false;
  r->condition_stores = filter_expr_stores(r->condition);
  return true;
}

void
rewrite_rule_deinit(RewriteRule *r)
{
  if (r->condition)
    filter_expr_free(r->condition);
  r->condition = NULL;
}

bool
rewrite_options_apply(const CfgOption *table, const CfgNode *call, void *opts, CfgError *err)
{
  char what[64];
  snprintf(what, sizeof(what), "%s()", call->name);
  cfg_options_defaults(table, opts);
  return cfg_options_apply(table, call, opts, what, err);
}

const CfgNode *
rewrite_option_node(const CfgNode *call, const char *name)
{
  const CfgNode *found = NULL;
  for (size_t i = 0; i < call->n_children; i++)
    if (call->children[i]->kind == CFG_NODE_CALL && cfg_name_equal(call->children[i]->name, name))
      found = call->children[i];
  return found;
}

bool
rewrite_value_handle(const char *name, const CfgLocation *loc, NVHandle *out, CfgError *err)
{
  if (name[0] == '$')
    {
      /* syslog-ng accepts value("$HOST") with this warning */
      char where[256];
      snprintf(where, sizeof(where), "%s:%d:%d", loc->file, loc->line, loc->col);
      sluice_log(SLUICE_LOG_WARNING,
                 "Value references in rewrite rules should not use the '$' prefix, those are only needed in "
                 "templates",
                 "value", name, "location", where, NULL);
      name++;
    }
  if (!name[0])
    {
      cfg_error_set(err, loc, "a rewrite rule needs the name of a value, got ''");
      return false;
    }
  /* HOST and MESSAGE are values even where the template has a macro of
   * the same name (for chained hostnames, say) */
  NVHandle h = log_msg_get_value_handle(name, -1);
  if (strcmp(name, "_") == 0 || (h >= LM_V_MAX && log_template_is_macro_name(name)))
    {
      cfg_error_set(err, loc, "%s is read-only, it cannot be changed in rewrite rules", name);
      return false;
    }
  *out = h;
  return true;
}

bool
rewrite_sdata_name_valid(const char *name)
{
  static const char prefix[] = ".SDATA.";
  size_t plen = sizeof(prefix) - 1;
  if (strncmp(name, prefix, plen) != 0)
    return true;
  /* a dot after the SD-ID, with at least one character after it */
  for (const char *c = name + plen; *c; c++)
    if (*c == '.' && c[1])
      return true;
  return false;
}

bool
rewrite_value_option_handle(const CfgNode *call, const char *name, NVHandle *out, CfgError *err)
{
  const CfgNode *vopt = rewrite_option_node(call, "value");
  const CfgLocation *loc = vopt && vopt->n_args ? &vopt->args[0].loc : &call->loc;
  if (!rewrite_value_handle(name, loc, out, err))
    return false;
  const char *bare = name[0] == '$' ? name + 1 : name;
  if (!rewrite_sdata_name_valid(bare))
    {
      cfg_error_set(err, loc,
                    "%s(): value(\"%s\"): %s is not a valid name for a name-value pair, perhaps a misspelled "
                    ".SDATA reference?",
                    call->name, name, bare);
      return false;
    }
  return true;
}

LogTemplate *
rewrite_template_compile(const char *text, const CfgNode *call, const CfgLocation *loc, CfgError *err)
{
  char *terr = NULL;
  LogTemplate *t = log_template_compile(text, &terr);
  if (!t)
    {
      cfg_error_set(err, loc, "error compiling the template of %s(): %s", call->name, terr ? terr : "invalid");
      g_free(terr);
    }
  return t;
}

const char *const rewrite_ts_formats[] = { "rfc3164", "bsd", "rfc3339", "iso", "unix", "full", NULL };

bool
rewrite_template_options(LogTemplateOptions *topts, int ts_format, int64_t frac_digits, const char *zone,
                         const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  const CfgGlobalOptions *g = ctx ? ctx->global : NULL;
  log_template_options_defaults(topts);
  topts->on_error = cfg_global_on_error(g);
  int fmt = ts_format >= 0 ? ts_format : g ? g->ts_format : 0;
  int64_t frac = frac_digits >= 0 ? frac_digits : g ? g->frac_digits : 0;
  const char *e = log_template_options_set_ts_format(topts, rewrite_ts_formats[fmt >= 0 && fmt < 6 ? fmt : 0]);
  if (!e)
    e = log_template_options_set_frac_digits(topts, (int) frac);
  if (e)
    {
      cfg_error_set(err, &call->loc, "%s(): %s", call->name, e);
      return false;
    }
  if (!zone && g)
    zone = g->send_time_zone ? g->send_time_zone : g->time_zone;
  if (!zone)
    return true;
  const char *zerr = NULL;
  topts->send_tz = tz_get(zone, &zerr);
  if (topts->send_tz)
    return true;
  const CfgNode *opt = rewrite_option_node(call, "time-zone");
  if (!opt)
    opt = rewrite_option_node(call, "send-time-zone");
  cfg_error_set(err, opt ? &opt->loc : &call->loc, "%s(): unknown time zone '%s': %s", call->name, zone,
                zerr ? zerr : "not a zone");
  return false;
}

char *
rewrite_template_literal(const LogTemplate *t, size_t *len)
{
  if (!log_template_is_literal(t))
    return NULL;
  /* "a$$b" is "a$b": the template expands it, with any message */
  LogMsg *blank = log_msg_new(0);
  GString *out = g_string_new(NULL);
  log_template_format(t, blank, NULL, out);
  log_msg_unref(blank);
  *len = out->len;
  return g_string_free(out, FALSE);
}

/* ---- per-thread scratch ------------------------------------------------- */

/* this thread's buffers, made as they are first asked for (sluice/scratch.h) */
static _Thread_local GString *tls_scratch[REWRITE_SCRATCH_MAX];

GString *
rewrite_scratch(int i)
{
  GString *s = scratch_gstring(&tls_scratch[i], 256);
  g_string_truncate(s, 0);
  return s;
}
