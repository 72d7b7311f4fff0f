/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_FILTER_H
#define SLUICE_FILTER_H

/*
 * Filter expressions, compiled once from the configuration tree and
 * evaluated inline on the I/O worker for every message (docs/architecture.md,
 * "Performance rules" 5 and 6).
 *
 * syslog-ng's filter functions: facility(), level()/priority() with lists
 * and `..` ranges, program(), host(), message(), match() with value(),
 * type(pcre|string|glob) and flags(ignore-case/icase, prefix, substring,
 * utf8, newline, global, disable-jit, dup-names, store-matches),
 * netmask(), netmask6(), tags(), source(NAME), in-list("file" value(V)),
 * rate-limit(template(T) rate(N)) (syslog-ng 4's), filter(NAME)
 * references, and comparisons between templates (== != < <= > >= and
 * eq ne lt le gt ge, syslog-ng 3.38's typing: src/filter/filter-cmp.c),
 * combined with and/or/not and parentheses.  PCRE2 patterns are
 * JIT-compiled; the match data is per thread.  A compiled expression is
 * immutable and shared by all workers (rate-limit's buckets are locked).
 */

#include "sluice/cfg-tree.h"
#include "sluice/logmsg.h"
#include "sluice/template.h"

#include <stdbool.h>

typedef struct FilterExpr FilterExpr;

/* Compile the expression node (AND/OR/NOT/CALL/REF, as the parser makes
 * them; a REF's target DEFINE holds its expression as its only child).
 * Returns the expression, or NULL with *err naming the place and what is
 * wrong (an unknown function gets the nearest known name). */
FilterExpr *filter_expr_compile(const CfgNode *node, CfgError *err);

/* Compile the expression of a filter DEFINE (or inline filter) node: the
 * conjunction of its children. */
FilterExpr *filter_expr_compile_block(const CfgNode *define, CfgError *err);

/* True when msg passes.  Nothing is stored: a match with
 * flags(store-matches) only matches. */
bool filter_expr_eval(const FilterExpr *f, const LogMsg *msg);

/* The same, with the template options comparisons format their operands
 * with ($(if) passes its destination's); NULL means the defaults. */
bool filter_expr_eval_with_options(const FilterExpr *f, const LogMsg *msg, const LogTemplateOptions *opts);

/* True when f stores values into the message (a pcre match with
 * flags(store-matches)): evaluate it with filter_expr_eval_store. */
bool filter_expr_stores(const FilterExpr *f);

/* Evaluate f on *pmsg and store what its matches store ($0..$N and named
 * groups).  *pmsg is made writable (log_msg_make_writable) only when a
 * store happens; *owned says whether the caller holds a reference of its
 * own to *pmsg: when it does not, one is taken first and *owned set, so
 * the caller then unrefs *pmsg when done (as with LogProcessor). */
bool filter_expr_eval_store(const FilterExpr *f, LogMsg **pmsg, bool *owned);

void filter_expr_free(FilterExpr *f);

/* Compile (and free) every filter statement of tree, used in a log path
 * or not, as syslog-ng refuses a configuration with a broken filter
 * anywhere.  Returns false with *err at the first one that fails. */
bool filter_expr_check_statements(const CfgTree *tree, CfgError *err);

/* Facility and level names as syslog-ng spells them: the number, or -1. */
int filter_facility_from_name(const char *name);
int filter_level_from_name(const char *name);

/* Tests: the clock rate-limit() reads (monotonic microseconds); NULL
 * restores the real one. */
void filter_rate_limit_set_clock(int64_t (*now_us)(void));

#endif
