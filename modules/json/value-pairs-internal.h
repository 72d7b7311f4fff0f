/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_VALUE_PAIRS_INTERNAL_H
#define SLUICE_VALUE_PAIRS_INTERNAL_H

/* Shared by value-pairs-options.c (parsing, the macro table) and
 * value-pairs.c (selection and collecting). */

#include "value-pairs.h"

#include "sluice/glob.h"

#include <stdbool.h>

/* candidate groups, as syslog-ng's scopes select them */
enum
{
  VPS_NV_PAIRS = 1 << 0,
  VPS_DOT_NV_PAIRS = 1 << 1,
  VPS_SDATA = 1 << 2,
  VPS_RFC3164 = 1 << 3,
  VPS_RFC5424 = 1 << 4,
  VPS_SELECTED_MACROS = 1 << 5,
  VPS_ALL_MACROS = 1 << 6,
};

typedef struct MacroCandidate
{
  char *name;
  uint32_t name_len;
  uint32_t scopes;
  LogTemplate *template;
  NVHandle handle; /* a plain value (HOST, MESSAGE, ...): read, not formatted */
} MacroCandidate;

/* The macro candidates, compiled once (vp_macros_init) and then shared
 * read-only by every thread. */
extern MacroCandidate *vp_macros;
extern size_t vp_n_macros;
void vp_macros_init(void);

typedef enum
{
  VPX_SHIFT,
  VPX_SHIFT_LEVELS,
  VPX_ADD_PREFIX,
  VPX_REPLACE_PREFIX,
} TransformKind;

typedef struct Transform
{
  TransformKind kind;
  int n;
  char *a, *b; /* prefix to add; or old and new prefix */
  size_t a_len, b_len;
} Transform;

/* A glob of '*' (any run) and '?' (one character), matched by
 * _glob_match: glib's GPatternSpec asserts on bytes that are not UTF-8,
 * and names and patterns may hold any byte. */
typedef struct TransformSet
{
  Glob glob;
  GArray *ops; /* Transform */
} TransformSet;

typedef struct Pattern
{
  Glob glob;
  bool include;
} Pattern;

typedef struct Pair
{
  char *name;
  LogTemplate *value;
  ValuePairsType type;
} Pair;

struct ValuePairs
{
  uint32_t scopes;
  bool omit_empty;
  bool leave_initial_dot; /* --leave-initial-dot: a name's leading '.' is not shown as '_' */
  GArray *patterns; /* Pattern */
  GArray *pairs;    /* Pair */
  GArray *sets;     /* TransformSet */
  /* what the patterns and scopes pick of the fixed names, decided once */
  GArray *fixed;               /* ValuePairsFixed: macros and pairs, sorted */
  bool builtin_sel[LM_V_MAX];  /* built-in values */
  bool any_nv;                 /* name-value pairs may be picked at all */
  /* with any_nv: fixed and the picked built-in values, sorted as fixed
   * (value_pairs_get_static); names shared with fixed */
  GArray *statics;
};

/* Whether scopes and patterns pick name, a candidate of groups (VPS_*). */
bool vp_selected(const ValuePairs *vp, const char *name, uint32_t len, uint32_t groups);

/* Fill vp->fixed from the macro table and the pairs (after parsing). */
void vp_fixed_build(ValuePairs *vp);

/* Fill vp->statics (after builtin_sel and any_nv are known). */
void vp_static_build(ValuePairs *vp);

#endif
