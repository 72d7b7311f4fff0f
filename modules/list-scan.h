/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_LIST_SCAN_H
#define SLUICE_LIST_SCAN_H

/*
 * Reading syslog-ng's lists (the $(list-*) functions' text, and what
 * tags-parser() parses), as syslog-ng 3.38 reads them: comma-separated
 * elements; one that starts with '"' or '\'' is quoted, with backslash
 * escapes b f n r t, the quote and backslash; a quoted element not closed
 * before the end or a comma is taken raw, through the next comma; empty
 * unquoted elements are skipped.  The full rules are at the top of
 * basicfuncs/tf-list.c, which also writes lists.
 */

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct ListScanner
{
  const char *p, *end;
  GString *buf; /* a quoted element decoded */
} ListScanner;

/* Scan list (a GString the caller keeps while scanning); buf holds
 * decoded quoted elements. */
void list_scanner_init(ListScanner *sc, const GString *list, GString *buf);

/* The next element: true with it in *s, *len (valid until the next call),
 * false at the end. */
bool list_scanner_next(ListScanner *sc, const char **s, size_t *len);

#endif
