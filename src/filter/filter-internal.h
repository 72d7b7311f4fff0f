/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The compiled form of filter expressions, shared by src/filter/. */
#ifndef SLUICE_FILTER_INTERNAL_H
#define SLUICE_FILTER_INTERNAL_H

#include "sluice/glob.h"
#include "sluice/filter.h"
#include "sluice/template.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <glib.h>
#include <pcre2.h>
#include <stddef.h>
#include <stdint.h>

typedef enum FilterKind
{
  FILTER_AND,
  FILTER_OR,
  FILTER_NOT,
  FILTER_FACILITY,
  FILTER_LEVEL,
  FILTER_MATCH,
  FILTER_NETMASK,
  FILTER_TAGS,
  FILTER_CMP,
  FILTER_SOURCE,
  FILTER_IN_LIST,
  FILTER_RATE_LIMIT,
} FilterKind;

typedef enum FilterMatchType
{
  FILTER_MATCH_PCRE,
  FILTER_MATCH_STRING,
  FILTER_MATCH_GLOB,
} FilterMatchType;

typedef struct FilterStrSet FilterStrSet;
typedef struct FilterRateLimit FilterRateLimit;
typedef struct FilterCmp FilterCmp;

/* What one evaluation may change: with pmsg, a match with
 * flags(store-matches) stores its groups into *pmsg (made writable first,
 * taking a reference when *owned is false); without it nothing is stored.
 * opts: the template options comparisons format with (NULL: defaults). */
typedef struct FilterEvalCtx
{
  LogMsg **pmsg;
  bool *owned;
  const LogTemplateOptions *opts;
} FilterEvalCtx;

struct FilterExpr
{
  FilterKind kind;
  bool stores;              /* this node or one below has flags(store-matches) */
  FilterExpr *left, *right; /* AND, OR; NOT uses left */
  uint32_t bits;            /* FACILITY, LEVEL: bit n set for number n */

  /* MATCH */
  NVHandle handle;         /* the value matched; LM_V_NONE: $MSGHDR$MESSAGE */
  LogTemplate *subject;    /* for LM_V_NONE: template(), else $MSGHDR$MESSAGE */
  FilterMatchType type;
  uint32_t match_flags;    /* FILTER_MF_* */
  char *pattern;
  size_t pattern_len;
  pcre2_code *re;
  bool jit;                /* re is JIT-compiled: matched with pcre2_jit_match */
  Glob glob;

  /* NETMASK */
  int family;
  uint8_t net[16], mask[16];

  /* TAGS */
  LogTagId *tags;
  size_t n_tags;

  /* MATCH with flags(store-matches): the handles of the named groups */
  NVHandle *group_handles; /* [group number], LM_V_NONE for unnamed */
  uint32_t n_groups;       /* capture groups in the pattern */

  FilterCmp *cmp;          /* CMP */
  FilterStrSet *set;       /* IN_LIST (handle: the value looked up) */
  FilterRateLimit *rate;   /* RATE_LIMIT */
};

enum
{
  FILTER_MF_IGNORE_CASE = 1u << 0,
  FILTER_MF_PREFIX = 1u << 1,
  FILTER_MF_SUBSTRING = 1u << 2,
  FILTER_MF_UTF8 = 1u << 3,
  FILTER_MF_STORE_MATCHES = 1u << 4,
  FILTER_MF_GLOBAL = 1u << 5,
  FILTER_MF_DISABLE_JIT = 1u << 6,
  FILTER_MF_DUP_NAMES = 1u << 7,
};

FilterExpr *filter_match_compile(const CfgNode *call, NVHandle handle, CfgError *err);
bool filter_match_eval(const FilterExpr *f, const LogMsg *msg, const FilterEvalCtx *ctx);
void filter_match_free(FilterExpr *f);

/* filter-cmp.c: CFG_NODE_CMP */
FilterExpr *filter_cmp_compile(const CfgNode *node, CfgError *err);
bool filter_cmp_eval(const FilterExpr *f, const LogMsg *msg, const LogTemplateOptions *opts);
void filter_cmp_free(FilterCmp *c);

/* filter-list.c: source(), in-list(), rate-limit() */
FilterExpr *filter_source_compile(const CfgNode *call, CfgError *err);
bool filter_source_eval(const FilterExpr *f, const LogMsg *msg);
FilterExpr *filter_in_list_compile(const CfgNode *call, CfgError *err);
bool filter_in_list_eval(const FilterExpr *f, const LogMsg *msg);
void filter_str_set_free(FilterStrSet *set);
FilterExpr *filter_rate_limit_compile(const CfgNode *call, CfgError *err);
bool filter_rate_limit_eval(const FilterExpr *f, const LogMsg *msg, const LogTemplateOptions *opts);
void filter_rate_limit_free(FilterRateLimit *r);

FilterExpr *filter_netmask_compile(const CfgNode *call, bool ipv6, CfgError *err);
bool filter_netmask_eval(const FilterExpr *f, const LogMsg *msg);

FilterExpr *filter_tags_compile(const CfgNode *call, CfgError *err);

#endif
