/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_JSON_FAST_H
#define SLUICE_JSON_FAST_H

/*
 * json-parser()'s fast path: the plain JSON most logs carry, parsed
 * without building json-c objects.  It takes a document only when it can
 * tell what json-c would make of it; on anything else (escapes other than
 * the simple ones, \u, control bytes, comments, single quotes, TRUE, 01,
 * trailing commas, duplicate keys, nesting deeper than 30, arrays holding
 * objects or arrays, numbers it does not read the way json-c does, a
 * top-level array) it gives up and json-parser() asks json-c, so the
 * result is json-c's either way.  tests/fuzz/fuzz-nvparsers.c checks that
 * on every input it takes.
 *
 * It records the pairs (name handles and values) first and sets nothing:
 * a document it gives up on half way leaves no trace on the message (its
 * names may be interned already).
 */

#include "parser-util.h"

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct JsonFastPair
{
  uint32_t handle;    /* the name's NVHandle */
  const char *value;  /* a slice of the input, or NULL: */
  uint32_t value_off; /* in JsonFastResult.values */
  uint32_t value_len;
} JsonFastPair;

typedef struct JsonFastResult
{
  GString *values;
  JsonFastPair *pairs;
  size_t n_pairs;
  size_t cap_pairs;
  /* the names of the last message's pairs, by position: the next message
   * of the same shape finds its handles here */
  ParserNameMemo names[32];
} JsonFastResult;

/* This thread's result buffers, emptied. */
JsonFastResult *json_fast_result(void);

/* Parse the object at the start of input[0..len) (leading blanks
 * allowed, anything after its closing brace ignored, as json-c does),
 * naming members prefix + key, nested ones + delim + key.  True with the
 * pairs in *r in the order json-c's objects would give them; false when
 * json-c must decide. */
bool json_fast_parse(const char *input, size_t len, const char *prefix, size_t prefix_len, char delim,
                     JsonFastResult *r);

#endif
