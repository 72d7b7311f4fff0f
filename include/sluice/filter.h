/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_FILTER_H
#define SLUICE_FILTER_H

/*
 * Filter expressions, compiled once from the configuration tree and
 * evaluated inline on the I/O worker for every message (design.md,
 * "Performance rules" 5 and 6).
 *
 * syslog-ng's filter functions: facility(), level()/priority() with lists
 * and `..` ranges, program(), host(), message(), match() with value(),
 * type(pcre|string|glob) and flags(ignore-case, prefix, substring),
 * netmask(), netmask6(), tags(), filter(NAME) references, combined with
 * and/or/not and parentheses.  PCRE2 patterns are JIT-compiled; the match
 * data is per thread.  A compiled expression is immutable and shared by
 * all workers.
 */

#include "sluice/cfg-tree.h"
#include "sluice/logmsg.h"

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

/* True when msg passes. */
bool filter_expr_eval(const FilterExpr *f, const LogMsg *msg);

void filter_expr_free(FilterExpr *f);

/* Facility and level names as syslog-ng spells them: the number, or -1. */
int filter_facility_from_name(const char *name);
int filter_level_from_name(const char *name);

#endif
