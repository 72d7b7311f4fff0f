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

#include <glib.h>

#include <stdbool.h>
#include <stddef.h>

typedef struct PatternDb PatternDb;

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

/* A buffer of this thread's own, freed when the thread ends, that
 * pdb_process does not use (db-parser() formats its program-template()
 * there). */
GString *pdb_thread_buffer(void);

/* The id of the rule that message would match under program, or NULL
 * (for tests; no message is changed). */
const char *pdb_lookup_rule_id(const PatternDb *db, const char *program, const char *message);

#endif
