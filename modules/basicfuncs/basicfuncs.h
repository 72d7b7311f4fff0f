/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_BASICFUNCS_H
#define SLUICE_BASICFUNCS_H

/* syslog-ng's basic template functions, each file one family; the
 * behaviour of each (argument joining, odd inputs) is syslog-ng 3.38's,
 * checked by tests/oracle/tfunc-oracle.py. */

#include "sluice/template.h"

#include <stdbool.h>

/* The registration tables of the families, NULL-terminated. */
extern const LogTemplateFunction *const tf_cond_functions[];
extern const LogTemplateFunction *const tf_date_functions[];
extern const LogTemplateFunction *const tf_getent_functions[];
extern const LogTemplateFunction *const tf_hash_functions[];
extern const LogTemplateFunction *const tf_list_functions[];
extern const LogTemplateFunction *const tf_numeric_functions[];
extern const LogTemplateFunction *const tf_string_functions[];
extern const LogTemplateFunction *const tf_template_functions[];

/* Register every basic function (configuration time). */
void basicfuncs_register_template_functions(void);

/* A compile error for prepare: "$(name) " then the printf text; the
 * template compiler takes the g_malloc'd string. */
char *tf_error(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Scratch levels for nested calls: a function takes one with
 * tf_level_push() before formatting its arguments (so a function inside
 * an argument uses the next one) and gives it back with tf_level_pop(). */
int tf_level_push(void);
void tf_level_pop(void);

/* Format args[i] into the per-thread scratch string of level (see
 * log_template_scratch_get; emptied first) and return it. */
GString *tf_format_arg(LogTemplate *const *args, int i, const LogMsg *msg, const LogTemplateOptions *opts,
                       int level);

/* Append each argument, transformed by func, to out with sep between. */
typedef void (*TfArgFunc)(const char *s, size_t len, GString *out);
void tf_append_each(int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
                    const char *sep, TfArgFunc func, GString *out);

/* Compile the filter expression of $(name (EXPR) ...) (if, grep,
 * filter): NULL with *cond set, or the error message for prepare. */
typedef struct FilterExpr FilterExpr;
char *tf_compile_condition(const char *name, const char *expr, FilterExpr **cond);

/* Parse a decimal int64 (leading whitespace allowed, nothing after);
 * false when s is not one. */
bool tf_parse_int64(const char *s, int64_t *out);

#endif
