/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The compiled form of filter expressions, shared by src/filter/. */
#ifndef SLUICE_FILTER_INTERNAL_H
#define SLUICE_FILTER_INTERNAL_H

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
} FilterKind;

typedef enum FilterMatchType
{
  FILTER_MATCH_PCRE,
  FILTER_MATCH_STRING,
  FILTER_MATCH_GLOB,
} FilterMatchType;

struct FilterExpr
{
  FilterKind kind;
  FilterExpr *left, *right; /* AND, OR; NOT uses left */
  uint32_t bits;            /* FACILITY, LEVEL: bit n set for number n */

  /* MATCH */
  NVHandle handle;         /* the value matched; LM_V_NONE: $MSGHDR$MESSAGE */
  LogTemplate *subject;    /* for LM_V_NONE */
  FilterMatchType type;
  uint32_t match_flags;    /* FILTER_MF_* */
  char *pattern;
  size_t pattern_len;
  pcre2_code *re;
  GPatternSpec *glob;

  /* NETMASK */
  int family;
  uint8_t net[16], mask[16];

  /* TAGS */
  LogTagId *tags;
  size_t n_tags;
};

enum
{
  FILTER_MF_IGNORE_CASE = 1u << 0,
  FILTER_MF_PREFIX = 1u << 1,
  FILTER_MF_SUBSTRING = 1u << 2,
};

FilterExpr *filter_match_compile(const CfgNode *call, NVHandle handle, CfgError *err);
bool filter_match_eval(const FilterExpr *f, const LogMsg *msg);
void filter_match_free(FilterExpr *f);

FilterExpr *filter_netmask_compile(const CfgNode *call, bool ipv6, CfgError *err);
bool filter_netmask_eval(const FilterExpr *f, const LogMsg *msg);

FilterExpr *filter_tags_compile(const CfgNode *call, CfgError *err);

#endif
