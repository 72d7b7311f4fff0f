/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_VALUE_PAIRS_H
#define SLUICE_VALUE_PAIRS_H

/*
 * syslog-ng's value-pairs: a set of name-value pairs picked from a message
 * by scopes, glob patterns and explicit key=value templates, with names
 * rewritten by --rekey transformations.  format-json and format-flat-json
 * use it; parsers and destinations that send structured data can too.
 *
 * Selection, as syslog-ng 3.38 does it (checked against it):
 *   - a candidate is a built-in value or name-value pair that is set, or a
 *     macro from syslog-ng's macro table;
 *   - its scopes include it or not, then every --key (include) and
 *     --exclude pattern, in the order given, that matches its name decides
 *     again: the last match wins;
 *   - macros that expand to "" are dropped; set pairs are kept even when
 *     empty unless --omit-empty-values;
 *   - key=value pairs (--pair) are always included and win over a
 *     candidate of the same name;
 *   - the --rekey sets then run in order, each on the name the previous
 *     ones left, when its glob matches that name.
 * The result is sorted as syslog-ng walks it: by name, descending, with a
 * leading '.' read as '_'.
 */

#include "sluice/template.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ValuePairs ValuePairs;

/* The type a key=TYPE(template) pair gives its value (syslog-ng's type
 * hints; int and int32 are int, float is double; int64 is checked as
 * int is, kept apart for the name a casting error gives it).  Everything
 * else is a string.  Whether the value fits the type is the writer's
 * business. */
typedef enum
{
  VP_TYPE_STRING = 0,
  VP_TYPE_LITERAL,
  VP_TYPE_INT,
  VP_TYPE_DOUBLE,
  VP_TYPE_BOOLEAN,
  VP_TYPE_LIST,
  VP_TYPE_JSON,
  VP_TYPE_DATETIME,
  VP_TYPE_INT64,
} ValuePairsType;

/* The type's name as syslog-ng's casting error gives it (int32, int64,
 * double, ...). */
const char *value_pairs_type_name(ValuePairsType type);

typedef struct ValuePairsEntry
{
  const char *name; /* after the --rekey transformations, not NUL terminated */
  const char *value;
  uint32_t name_len;
  uint32_t value_len;
  uint32_t flags; /* internal */
  ValuePairsType type;
} ValuePairsEntry;

/* Where one collection keeps its entries and the strings it made; taken
 * from a per-thread stack so nested format-json calls each get their own. */
typedef struct ValuePairsResult
{
  GArray *entries; /* ValuePairsEntry */
  GString *buf;
} ValuePairsResult;

/* Parse syslog-ng's value-pairs command line: argv[0..argc) holds options
 * (--scope, --key, --exclude, --pair, --rekey, --shift, --shift-levels,
 * --add-prefix, --replace-prefix/--replace, --omit-empty-values, each as
 * "--opt value" or "--opt=value") and key=value pairs, where the value may
 * carry a type hint: TYPE(template).  Returns a new
 * ValuePairs, or NULL with *error set to a g_malloc'd message. */
ValuePairs *value_pairs_new_from_argv(int argc, char **argv, char **error);

void value_pairs_free(ValuePairs *vp);

/* The per-thread result to collect into; give it back with
 * value_pairs_result_release() (strict LIFO). */
ValuePairsResult *value_pairs_result_acquire(void);
void value_pairs_result_release(ValuePairsResult *res);

/* Collect the pairs of msg into res (emptied first), sorted as described
 * above.  Entries point into msg, into res->buf or into static storage,
 * valid while msg lives and res is held.  Returns the entry count. */
size_t value_pairs_collect(const ValuePairs *vp, const LogMsg *msg, const LogTemplateOptions *opts,
                           ValuePairsResult *res);

/* e[0..n), as value_pairs_collect gave them, into ascending byte order of
 * their names, as syslog-ng's value_pairs_foreach hands them out
 * ($(format-welf), $(graphite-output), map-value-pairs()). */
void value_pairs_sort_ascending(ValuePairsEntry *e, size_t n);

/* A candidate whose name is known when the configuration is read: a macro
 * the scopes and patterns pick, or a key=value pair.  Resolved once per
 * ValuePairs (name rekeyed, plain values turned into handles, sorted), so
 * a message only supplies values. */
typedef struct ValuePairsFixed
{
  const char *name; /* rekeyed, NUL terminated */
  uint32_t name_len;
  uint32_t rank; /* a pair's position + 1, 0 for a macro: of equal names the highest wins */
  const LogTemplate *template;
  NVHandle handle;         /* LM_V_NONE, or the value that template expands to, read directly */
  bool template_if_escape; /* under template-escape(yes) format the template instead (pairs) */
  bool droppable;          /* left out when its value is empty */
  bool shadowed;           /* an earlier item of the same name is never left out: this one never shows */
  bool builtin;            /* a built-in value (handle): left out while it is not set */
  ValuePairsType type;
} ValuePairsFixed;

/* The fixed candidates of vp in output order, before empty ones and the
 * later of equal names are dropped; NULL when vp may pick name-value pairs
 * of the message too (their names are only known per message). */
const ValuePairsFixed *value_pairs_get_fixed(const ValuePairs *vp, size_t *n);

/* The candidates of a message that holds no name-value pair (other than
 * the built-in values) that vp picks, in output order, the built-in
 * values it picks among them (ValuePairsFixed.builtin), with the same
 * rules as value_pairs_get_fixed: for such a message value_pairs_collect
 * gives, in order, those of them that show, the first of each name.
 * value_pairs_msg_is_static() says whether msg is one. */
const ValuePairsFixed *value_pairs_get_static(const ValuePairs *vp, size_t *n);
bool value_pairs_msg_is_static(const ValuePairs *vp, const LogMsg *msg);

/* Whether f's value is read from its handle rather than formatted. */
static inline bool
value_pairs_fixed_is_direct(const ValuePairsFixed *f, const LogTemplateOptions *opts)
{
  return f->handle != LM_V_NONE && !(f->template_if_escape && opts && opts->escape);
}

/* The first byte of a name as syslog-ng shows it: a leading '.' is '_'. */
static inline char
value_pairs_name_first_char(const ValuePairsEntry *e)
{
  return e->name[0] == '.' ? '_' : e->name[0];
}

/* --leave-initial-dot: names keep their leading '.' (format-json and
 * format-flat-json show it as '_' otherwise), and are sorted with it. */
bool value_pairs_leaves_initial_dot(const ValuePairs *vp);

#endif
