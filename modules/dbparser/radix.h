/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_DBPARSER_RADIX_H
#define SLUICE_DBPARSER_RADIX_H

/*
 * The pattern tree of db-parser() (modules/dbparser): a radix tree of
 * literal text and parsers (@TYPE:name:param@), looked up the way
 * syslog-ng 3.38's patterndb looks up its own:
 *
 *  - at each node the literal child whose first byte is the next input
 *    byte is tried first, then the parser children in the order their
 *    patterns were added; the first one that leads to a node with a value
 *    wins (no search for a longer alternative);
 *  - a parser match is only kept when the rest of the input then matches
 *    below it: otherwise the next parser is tried (backtracking);
 *  - when no complete match exists, the lookup is run again accepting the
 *    deepest-first node with a value whose text is a prefix of the input
 *    (a "partial" match: pattern "foo" matches "foo bar");
 *  - a CR before an LF the pattern has is skipped in the input.
 *
 * A built tree is read-only: any number of threads may look up at once.
 */

#include "sluice/logmsg.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct RNode RNode;
typedef struct RParser RParser;

/* Where one parser matched, relative to the start of the key. */
typedef struct RMatch
{
  const RParser *parser;
  uint32_t ofs, len; /* the value stored: key[ofs, ofs + len) */
} RMatch;

typedef struct RMatches
{
  RMatch *m;
  size_t n, cap;
} RMatches;

/* Limits that keep a hostile pattern file bounded. */
#define RADIX_MAX_PATTERN_LEN 16384 /* bytes of one pattern */
#define RADIX_MAX_PARSERS 512       /* parsers in one pattern */
#define RADIX_MAX_STEPS 200000      /* parser attempts in one lookup */

RNode *radix_new(void);
/* The value of the root itself: what an empty key, and any key that no
 * pattern matches even partially, finds (the program tree's fallback). */
void radix_set_root_value(RNode *root, void *value);
/* Frees the tree; free_value (may be NULL) is called on each value. */
void radix_free(RNode *root, void (*free_value)(void *));

/* Add pattern (NUL terminated) with value.  Returns true, or false with
 * *error (g_free) naming the problem: an unknown parser type, a parser
 * missing its parameter, a bad PCRE, an '@' not escaped as "@@".  prefix
 * goes before each parser's name.  *duplicate is set when the tree
 * already had a value there (the first one is kept, as in syslog-ng). */
bool radix_insert(RNode *root, const char *pattern, void *value, const char *prefix, bool *duplicate,
                  char **error);

/* Look key[0, len) up; returns the value of the node found, or NULL.
 * matches (may be NULL) gets the parser matches along the way, outermost
 * first; its array is grown as needed and kept by the caller (free with
 * radix_matches_clear). */
void *radix_lookup(const RNode *root, const char *key, size_t len, RMatches *matches);

void radix_matches_clear(RMatches *m);

/* The handle of the name a parser stores its match under (0: none). */
NVHandle radix_parser_handle(const RParser *p);

#endif
