/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_GLOB_H
#define SLUICE_GLOB_H

/*
 * Shell globs as syslog-ng matches names with them (GPatternSpec's
 * language: '*' any run of characters, '?' one character, everything else
 * itself, no escapes), over bytes that need not be valid UTF-8: a '?'
 * takes one UTF-8 character, or one byte where there is none.  For the
 * value-pairs patterns of $(format-json) and friends and $(list-search
 * --mode glob).  An iterative match: on a mismatch it goes back to the
 * last '*' and lets it take one more character, so a pattern never costs
 * more than its length times the subject's.
 */

#include <stdbool.h>
#include <stddef.h>

typedef struct Glob
{
  char *text; /* the pattern (not NUL-terminated necessarily) */
  size_t len;
} Glob;

/* True when glob g matches s[0..n). */
bool glob_match(const Glob *g, const char *s, size_t n);

/* A glob of its own copy of pattern (a C string); glob_clear frees it.
 * GLib's GPatternSpec is not used for globs of outside bytes: it aborts
 * the process on a pattern or a subject that is not valid UTF-8. */
Glob glob_new(const char *pattern);
void glob_clear(Glob *g);

/* glob_match of a C-string pattern on a C string. */
bool glob_match_str(const char *pattern, const char *s);

#endif
