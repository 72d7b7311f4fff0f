/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_REGEX_H
#define SLUICE_REGEX_H

/*
 * PCRE2 as the filters use it (design.md, "Performance rules" 6), shared
 * with the modules that match patterns (regexp-parser()): patterns are
 * compiled once at configuration time with JIT, and each thread keeps one
 * match data block, so a match allocates nothing.  Implemented in
 * src/filter/regex.c: match() compiles the same way (ignore-case,
 * disable-jit) with its own copy, which can move onto these helpers.
 */

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
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
};

/* Compile pattern[0..len) with REGEX_* flags.  Returns the code (free with
 * pcre2_code_free), or NULL with *error set to a g_malloc'd message that
 * names the problem and its offset. */
pcre2_code *regex_compile(const char *pattern, size_t len, uint32_t flags, char **error);

/* This thread's match data, with room for at least pairs ovector pairs
 * (grown when a pattern needs more).  Owned by the thread and freed when
 * it ends; valid until the next call on the same thread. */
pcre2_match_data *regex_match_data(uint32_t pairs);

#endif
