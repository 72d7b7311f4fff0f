/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_PARSER_UTIL_H
#define SLUICE_PARSER_UTIL_H

/*
 * What the parsers that make name-value pairs from message text share
 * (kv-parser, csv-parser, json-parser): a per-thread cache from names to
 * handles, per-thread scratch strings, their input and str-repr quoting.
 *
 * The handle cache exists because interning a name takes the registry's
 * read lock, an atomic write to a cache line every worker shares; a parser
 * that sets ten pairs per message would do that ten times.  The cache is
 * two-way set-associative and checks a hit against the registry's own copy
 * of the name (which lives as long as the process), so it holds no
 * strings and never allocates.
 */

#include "parser-input.h"
#include "sluice/driver.h"
#include "sluice/template.h"

#include <glib.h>
#include <stdint.h>
#include <string.h>

/* The handle of name[0..len) (len > 0), interning it on first use.  Same
 * result as log_msg_get_value_handle(); no lock on a hit.  Any thread. */
NVHandle parser_nv_handle(const char *name, size_t len);

/* memcmp(a, b, len) == 0 for the short names met here, in two loads per
 * side (overlapping) instead of a call. */
static inline bool
parser_same_bytes(const char *a, const char *b, size_t len)
{
  if (len >= 8 && len <= 16)
    {
      uint64_t a0, a1, b0, b1;
      memcpy(&a0, a, 8);
      memcpy(&b0, b, 8);
      memcpy(&a1, a + len - 8, 8);
      memcpy(&b1, b + len - 8, 8);
      return ((a0 ^ b0) | (a1 ^ b1)) == 0;
    }
  if (len >= 4 && len < 8)
    {
      uint32_t a0, a1, b0, b1;
      memcpy(&a0, a, 4);
      memcpy(&b0, b, 4);
      memcpy(&a1, a + len - 4, 4);
      memcpy(&b1, b + len - 4, 4);
      return ((a0 ^ b0) | (a1 ^ b1)) == 0;
    }
  return memcmp(a, b, len) == 0;
}

/* One name and its handle, in front of parser_nv_handle: a parser meets
 * the same names in the same order message after message, so it keeps a
 * memo per pair position (in per-thread storage) and a hit costs a length
 * and two word compares, no hash.  name points at the registry's copy
 * (it lives as long as the process); all zero is an empty memo. */
typedef struct ParserNameMemo
{
  const char *name;
  uint32_t len;
  NVHandle handle;
} ParserNameMemo;

NVHandle parser_nv_handle_remember(ParserNameMemo *memo, const char *name, size_t len);

static inline NVHandle
parser_nv_handle_memo(ParserNameMemo *memo, const char *name, size_t len)
{
  if (memo->name && memo->len == len && parser_same_bytes(memo->name, name, len))
    return memo->handle;
  return parser_nv_handle_remember(memo, name, len);
}

/* Per-thread scratch strings of the parsers, emptied: slot 0..7.  Owned by
 * the thread (freed when it exits); valid until the next call with the
 * same slot on this thread.  A parser uses them only inside process(). */
enum
{
  PARSER_SCRATCH_NAME = 0,  /* prefix + key */
  PARSER_SCRATCH_VALUE,     /* a value that needed unescaping */
  PARSER_SCRATCH_EXTRA,     /* stray words, json paths, ... */
  PARSER_SCRATCH_EXTRA2,
  PARSER_SCRATCH_MAX = 8,
};
GString *parser_scratch_get(int slot);

/* The text a parser works on (its template() option, MESSAGE by default:
 * modules/parser-input.h), ending at its first NUL byte, as it does for
 * syslog-ng's parsers.  *from_msg says whether the text lives in msg (so
 * values sliced from it may be referenced, not copied). */
const char *parser_input_text(const ParserInput *in, const LogMsg *msg, size_t *len, bool *from_msg);


#endif
