/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_CFG_DRIVERS_H
#define SLUICE_CFG_DRIVERS_H

/*
 * The driver check: before anything starts, every driver call in every
 * source, destination, parser and rewrite (named or inline) must name a
 * driver Sluice has, with positional arguments it takes and options its
 * table knows.  A configuration using something Sluice does not have is
 * refused with the name and place, never half-run.
 *
 * Modules describe their drivers with CfgDriverDef (one registration table
 * per module); the daemon passes all of them here.
 */

#include "sluice/cfg-options.h"
#include "sluice/cfg-tree.h"

#include <stdio.h>

typedef struct CfgDriverDef
{
  CfgObjectKind kind;        /* SOURCE, DESTINATION, PARSER, REWRITE or FILTER */
  const char *name;          /* "tcp", "file", "csv-parser", "facility" */
  const CfgOption *options;  /* NULL: takes no options */
  size_t struct_size;        /* size of the struct options point into */
  int min_args, max_args;    /* positional arguments, e.g. file("/path"): 1, 1 */
} CfgDriverDef;

/* Checks every driver call in tree against defs (NULL-terminated array of
 * pointers).  FILTER functions in filter expressions are checked only when
 * defs has at least one FILTER entry.  Returns false with *err at the first
 * unknown driver ("unknown source driver 'tpc'; did you mean 'tcp'?"),
 * wrong argument count or bad option. */
bool cfg_check_drivers(const CfgTree *tree, const CfgDriverDef *const *defs, CfgError *err);

/* The definition of kind/name in defs, or NULL. */
const CfgDriverDef *cfg_driver_find(const CfgDriverDef *const *defs, CfgObjectKind kind, const char *name);

/* Prints "file:line:col: message" and, when the file can be read, the
 * line and a caret under the column, to out. */
void cfg_error_print(const CfgError *err, FILE *out);

/* sluice --syntax-only [--preprocess-into FILE]: parses path (writing the
 * preprocessed text to preprocess_into when it is not NULL), loads the
 * global options and checks drivers against defs (NULL: skip that).
 * Errors go to diag.  Returns the process exit code: 0 or 1. */
int cfg_syntax_only(const char *path, const char *preprocess_into, const CfgDriverDef *const *defs, FILE *diag);

#endif
