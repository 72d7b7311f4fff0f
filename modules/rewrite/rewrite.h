/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Rewrite rules (modules/rewrite): what every rule shares.
 *
 * A rule is a LogProcessor built from one call in a rewrite {} block.  It
 * is immutable once built and runs on any I/O worker: per-message work
 * goes into per-thread scratch strings (rewrite_scratch), so a rule makes
 * no malloc per message once the thread's buffers have grown.  A rule
 * with condition(...) changes only the messages its filter expression
 * passes; the others go on unchanged.  A rule never ends a log path.
 */
#ifndef SLUICE_REWRITE_H
#define SLUICE_REWRITE_H

#include "sluice/driver.h"
#include "sluice/filter.h"
#include "sluice/strbuf.h"
#include "sluice/template.h"

#include <glib.h>
#include <string.h>

typedef struct RewriteRule
{
  LogProcessor super;
  FilterExpr *condition; /* NULL: every message */
  bool condition_stores; /* it has match(... flags(store-matches)) */
} RewriteRule;

/* The condition() option every rule's table has (field: const CfgNode *). */
#define REWRITE_CONDITION_OPTION(st) \
  { .name = "condition", .type = CFG_OPT_EXPR, .offset = offsetof(st, condition) }

/* Fills the common part: ops, the driver name and the compiled condition
 * (cond may be NULL).  Returns false with *err when the expression does
 * not compile; r is then still safe to pass to rewrite_rule_deinit. */
bool rewrite_rule_init(RewriteRule *r, const LogProcessorOps *ops, const CfgNode *call, const CfgNode *cond,
                       CfgError *err);
void rewrite_rule_deinit(RewriteRule *r);

/* True when *pmsg passes the rule's condition (or the rule has none).  A
 * condition whose match() has flags(store-matches) stores its groups, so
 * the rule can use them ($1 in set()'s template), as in syslog-ng: *pmsg
 * is then made writable (the processor owns its reference). */
static inline bool
rewrite_rule_applies(const RewriteRule *r, LogMsg **pmsg)
{
  if (!r->condition)
    return true;
  if (!r->condition_stores)
    return filter_expr_eval(r->condition, *pmsg);
  bool owned = true;
  return filter_expr_eval_store(r->condition, pmsg, &owned);
}

/* Sets opts to table's defaults, then applies call's options to it;
 * errors name the call ("unknown option 'x' in set()").  The caller frees
 * opts with cfg_options_free either way. */
bool rewrite_options_apply(const CfgOption *table, const CfgNode *call, void *opts, CfgError *err);

/* The option child of call called name (the last one), or NULL: for the
 * location of an error about its value. */
const CfgNode *rewrite_option_node(const CfgNode *call, const char *name);

/* The handle of the value a rule changes.  A leading '$' is dropped (and
 * warned about, as syslog-ng does); macros (PRI, DATE, TAGS...) and "_"
 * are refused as read-only.  loc: where the name was written. */
bool rewrite_value_handle(const char *name, const CfgLocation *loc, NVHandle *out, CfgError *err);

/* The handle of the value() option of set(), unset() and subst() (name,
 * "MESSAGE" when the call has none), as rewrite_value_handle, and like
 * syslog-ng 3.38 refusing a name under .SDATA. that cannot be an
 * SD-ID.PARAM (rewrite_sdata_name_valid); rename(), groupset() and
 * groupunset() take such names, in 3.38 too. */
bool rewrite_value_option_handle(const CfgNode *call, const char *name, NVHandle *out, CfgError *err);

/* False for a name that starts with ".SDATA." and has no dot after that
 * prefix except, perhaps, as its last character (".SDATA.foo",
 * ".SDATA.foo."), the names syslog-ng 3.38 calls "not a valid name for a
 * name-value pair" in a rewrite rule's value(). */
bool rewrite_sdata_name_valid(const char *name);

/* Compiles a rule's template argument; the error names the rule. */
LogTemplate *rewrite_template_compile(const char *text, const CfgNode *call, const CfgLocation *loc,
                                      CfgError *err);

/* ts-format() names in CfgTsFormat's order (NULL-terminated). */
extern const char *const rewrite_ts_formats[];

/* The options a rule's template is formatted with: ts_format (index into
 * rewrite_ts_formats), frac_digits and zone as the call gave them (-1, -1,
 * NULL: not given), else options {}'s, else syslog-ng's defaults. */
bool rewrite_template_options(LogTemplateOptions *topts, int ts_format, int64_t frac_digits, const char *zone,
                              const CfgNode *call, const LogDriverContext *ctx, CfgError *err);

/* After handle changed on msg: a new PROGRAM or PID makes ${MSGHDR}
 * follow them instead of the header as received, as in syslog-ng. */
static inline void
rewrite_value_changed(LogMsg *msg, NVHandle handle)
{
  if (handle == LM_V_PROGRAM || handle == LM_V_PID)
    log_msg_unset_value(msg, LM_V_LEGACY_MSGHDR);
}

/* When t has no macros: its text as expanded (g_malloc'd, *len bytes,
 * NUL-terminated), so a rule can skip formatting it per message.  NULL
 * otherwise. */
char *rewrite_template_literal(const LogTemplate *t, size_t *len);

/* Per-thread scratch string number i (0..REWRITE_SCRATCH_MAX-1), emptied.
 * Owned by the thread, freed when it ends. */
enum
{
  REWRITE_SCRATCH_MAX = 3
};
GString *rewrite_scratch(int i);

extern const LogDriverFactory rewrite_set_factory;
extern const LogDriverFactory rewrite_unset_factory;
extern const LogDriverFactory rewrite_groupset_factory;
extern const LogDriverFactory rewrite_groupunset_factory;
extern const LogDriverFactory rewrite_rename_factory;
extern const LogDriverFactory rewrite_subst_factory;
extern const LogDriverFactory rewrite_set_tag_factory;
extern const LogDriverFactory rewrite_clear_tag_factory;
extern const LogDriverFactory rewrite_set_severity_factory;
extern const LogDriverFactory rewrite_set_facility_factory;
extern const LogDriverFactory rewrite_set_pri_factory;

#endif
