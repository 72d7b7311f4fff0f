/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_CONTEXT_DB_H
#define SLUICE_CONTEXT_DB_H

/*
 * The database of add-contextual-data(): a CSV text of
 * "selector,name,value" lines, read as syslog-ng 3.38 reads it (fields
 * split at ',', "" and '' quotes, a doubled quote inside quotes is one,
 * blanks around a field dropped, exactly three fields, empty lines
 * skipped).  The value is a template.  Lines of one selector keep the
 * order of the file; a selector is compared as it is or, with
 * ignore_case, without regard to ASCII case.
 *
 * The text comes from a file an operator writes; the loader bounds what
 * it takes (CONTEXT_DB_MAX_BYTES) and names the line of the first error.
 */

#include "sluice/logmsg.h"
#include "sluice/template.h"

#include <stdbool.h>
#include <stddef.h>

#define CONTEXT_DB_MAX_BYTES (64u << 20)

typedef struct ContextRecord
{
  NVHandle handle;     /* prefix + name */
  LogTemplate *value;
} ContextRecord;

typedef struct ContextDb ContextDb;

/* The database in text (len bytes); the names get prefix (may be NULL).
 * NULL with *error ("line N: ...") when a line is not a record or a value
 * does not compile. */
ContextDb *context_db_load(const char *text, size_t len, const char *prefix, bool ignore_case, char **error);

/* The records of selector (len bytes, not NUL-terminated), in file order;
 * NULL when it has none.  *n gets their number. */
const ContextRecord *context_db_lookup(const ContextDb *db, const char *selector, size_t len, size_t *n);

/* Every selector, as first written, in the order of the file (syslog-ng's
 * order for selector(filters())); *n gets their number. */
const char *const *context_db_selectors(const ContextDb *db, size_t *n);

size_t context_db_size(const ContextDb *db);

void context_db_free(ContextDb *db);

#endif
