/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_DBPARSER_PDB_H
#define SLUICE_DBPARSER_PDB_H

/*
 * A pattern database (syslog-ng's patterndb XML, versions 3 to 6) loaded
 * into radix trees: one tree of program patterns whose values are the
 * rulesets' message trees.  Loaded once, read-only afterwards, shared by
 * every thread.
 */

#include "sluice/logmsg.h"
#include "sluice/template.h"

#include <glib.h>

#include <stdbool.h>
#include <stddef.h>

typedef struct PatternDb PatternDb;
struct FilterExpr;
struct CfgTree;

/* ---- rules (read-only once loaded) ------------------------------------- */

typedef struct PdbValue
{
  NVHandle handle;
  LogTemplate *tmpl;
} PdbValue;

/* context-scope(): which messages share a context besides its id */
typedef enum
{
  PDB_SCOPE_PROCESS, /* the same HOST, PROGRAM and PID (the default) */
  PDB_SCOPE_PROGRAM, /* the same HOST and PROGRAM */
  PDB_SCOPE_HOST,    /* the same HOST */
  PDB_SCOPE_GLOBAL,  /* every message */
} PdbScope;

typedef enum
{
  PDB_INHERIT_NONE,    /* a new message with the trigger's stamp */
  PDB_INHERIT_LAST,    /* a copy of the context's last message */
  PDB_INHERIT_CONTEXT, /* that copy, with the values of the older ones it lacks */
} PdbInherit;

typedef enum
{
  PDB_TRIGGER_MATCH,
  PDB_TRIGGER_TIMEOUT,
} PdbTrigger;

/* <action trigger="" condition="" rate="N/M"><message ...> */
typedef struct PdbAction
{
  int id; /* its place in the rule (rate limits are per action) */
  PdbTrigger trigger;
  struct FilterExpr *condition; /* NULL: always */
  struct CfgTree *condition_tree;
  uint32_t rate, rate_quantum; /* rate 0: no limit; rate messages per rate_quantum seconds */
  PdbInherit inherit;
  GArray *tags;   /* LogTagId */
  GArray *values; /* PdbValue */
  /* <create-context context-id="" context-timeout="" context-scope="">
   * around the <message>: the message opens a context of its own (the
   * rule's: its timeout actions run there) instead of being sent on.
   * NULL: a plain <message> action. */
  LogTemplate *cc_id;
  int cc_timeout; /* seconds; -1: the rule's context-timeout */
  PdbScope cc_scope;
} PdbAction;

/* <example>: for sluice-pdbtool test */
typedef struct PdbExample
{
  char *program; /* may be NULL */
  char *message;
  GPtrArray *names, *values; /* char *, the <test_value>s in file order */
  char *where;               /* "file:line:col" of the <example> */
} PdbExample;

typedef struct PdbRule
{
  const char *id;         /* interned: a message may keep it past the database */
  const char *class_name; /* interned; NULL: "system" */
  GArray *tags;     /* LogTagId, the class tag first */
  GArray *values;   /* PdbValue */
  LogTemplate *context_id; /* NULL: no context */
  int context_timeout;     /* seconds; 0 with a context-id: syslog-ng's default of 0 */
  PdbScope scope;
  GPtrArray *actions;  /* PdbAction */
  GPtrArray *examples; /* PdbExample */
  GPtrArray *patterns; /* char *: the rule's message patterns as written (pdbtool dictionary) */
  /* grouping-by(trigger()): after a message is added, the context closes
   * (its timeout actions run) when this passes on it; NULL: never */
  struct FilterExpr *close_when;
  /* grouping-by(sort-key()): a context's messages are put in the order of
   * this template, formatted on each, before its timeout actions run;
   * NULL: the order they came in */
  LogTemplate *sort_key;
} PdbRule;

/* True when a match of rule needs the correlation thread: it has a
 * context or an action. */
static inline bool
pdb_rule_correlates(const PdbRule *r)
{
  return r->context_id || r->actions->len;
}

/* pdb_rule_by_id for a CorrRuleLookup (rules: the PatternDb). */
const PdbRule *pdb_rule_lookup(const void *db, const char *id);

/* Every rule, in file order. */
const GPtrArray *pdb_rules(const PatternDb *db);
/* The rule with this id, or NULL. */
const PdbRule *pdb_rule_by_id(const PatternDb *db, const char *id);
/* True when some rule correlates. */
bool pdb_correlates(const PatternDb *db);

/* Pattern files larger than this are refused. */
#define PDB_MAX_FILE_SIZE (64u << 20)

/* Load the file at path; parser names get prefix (may be NULL).  Returns
 * NULL with *error (g_free) as "path:line:col: what". */
PatternDb *pdb_load_file(const char *path, const char *prefix, char **error);

/* The same from memory; name is used in messages. */
PatternDb *pdb_load_buffer(const char *name, const char *data, size_t len, const char *prefix, char **error);

void pdb_free(PatternDb *db);

/* Number of rules loaded (for tests and messages). */
size_t pdb_rule_count(const PatternDb *db);

/* Classify *pmsg: program and message are the texts looked up (the
 * program tree, then the message tree of the ruleset found).  On a match
 * it sets the parsed values, .classifier.class, .classifier.rule_id, the
 * rule's tags and values; when the ruleset has no matching rule it sets
 * .classifier.class "unknown" and the tag .classifier.unknown.  *pmsg is
 * made writable when something is set.  Returns whether a rule matched.
 * The texts are copied first, so they may point into *pmsg. */
bool pdb_process(const PatternDb *db, LogMsg **pmsg, const char *program, size_t program_len,
                 const char *message, size_t message_len);

/* The same, giving the rule matched in *rule (NULL when none). */
bool pdb_process_rule(const PatternDb *db, LogMsg **pmsg, const char *program, size_t program_len,
                      const char *message, size_t message_len, const PdbRule **rule);

/* A buffer of this thread's own, freed when the thread ends, that
 * pdb_process does not use (db-parser() formats its program-template()
 * there). */
GString *pdb_thread_buffer(void);

/* The id of the rule that message would match under program, or NULL
 * (for tests; no message is changed). */
const char *pdb_lookup_rule_id(const PatternDb *db, const char *program, const char *message);

#endif
