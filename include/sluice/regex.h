/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_REGEX_H
#define SLUICE_REGEX_H

/*
 * PCRE2 as Sluice matches patterns (docs/architecture.md, "Performance rules" 6):
 * match() and the other filters, regexp-parser() and rewrite's subst().
 * Patterns are compiled once at configuration time with JIT, and each
 * thread keeps one match data block, so a match allocates nothing.
 * Implemented in src/filter/regex.c.
 */

#include "sluice/logmsg.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* regex_compile() flags, named after syslog-ng's matcher flags. */
enum
{
  REGEX_IGNORE_CASE = 1u << 0, /* ignore-case: PCRE2_CASELESS */
  REGEX_UTF8 = 1u << 1,        /* utf8: UTF-8 pattern and subject; invalid
                                * subject bytes never match, never fail */
  REGEX_UNICODE = 1u << 2,     /* unicode: utf8, and \w, \d, [[:alpha:]]
                                * by Unicode properties */
  REGEX_NO_JIT = 1u << 3,      /* disable-jit: the interpreter only */
  REGEX_NEWLINE = 1u << 4,     /* newline: CR, LF and CRLF all end a line
                                * for ^, $ and . (PCRE2_NEWLINE_ANYCRLF) */
  REGEX_DUP_NAMES = 1u << 5,   /* dup-names: groups may share a name */
};

/* syslog-ng keeps at most this many numbered matches, $0..$255. */
#define REGEX_MAX_MATCHES 256

/* Compile pattern[0..len) with REGEX_* flags.  Returns the code (free with
 * pcre2_code_free), or NULL with *error set to a g_malloc'd message that
 * names the problem and its offset. */
pcre2_code *regex_compile(const char *pattern, size_t len, uint32_t flags, char **error);

/* Whether re (from regex_compile) has JIT code for regex_match(). */
bool regex_has_jit(const pcre2_code *re);

/* This thread's match data, with room for at least pairs ovector pairs
 * (grown when a pattern needs more).  Owned by the thread and freed when
 * it ends; valid until the next call on the same thread.  Inline: it runs
 * once per match. */
extern _Thread_local pcre2_match_data *regex_tls_match_data;
extern _Thread_local uint32_t regex_tls_match_pairs;
pcre2_match_data *regex_match_data_grow(uint32_t pairs);

static inline pcre2_match_data *
regex_match_data(uint32_t pairs)
{
  /* a block holds 16 pairs at least: a constant pairs that small leaves
   * one test */
  if (regex_tls_match_data && (pairs <= 16 || regex_tls_match_pairs >= pairs))
    return regex_tls_match_data;
  return regex_match_data_grow(pairs);
}

/* Match re against subject[0..len): pcre2_match()'s result.  With jit
 * (regex_has_jit) the JIT entry runs, which skips pcre2_match's option
 * checks and dispatch; regex_compile's UTF modes match invalid UTF-8
 * without a check, so that is safe for them too. */
static inline int
regex_match(const pcre2_code *re, bool jit, const char *subject, size_t len, pcre2_match_data *md)
{
  if (jit)
    return pcre2_jit_match(re, (PCRE2_SPTR) subject, len, 0, 0, md, NULL);
  return pcre2_match(re, (PCRE2_SPTR) subject, len, 0, 0, md, NULL);
}

/* The handles of "0".."255", the numbered match values, made once. */
const NVHandle *regex_match_handles(void);

/* The named groups of re as handles of prefix + name (prefix may be
 * NULL): an array indexed by group number, 0 to *captures, LM_V_NONE for
 * a group without a name.  Free it with g_free. */
NVHandle *regex_group_handles(const pcre2_code *re, const char *prefix, uint32_t *captures);

#endif
