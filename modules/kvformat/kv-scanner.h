/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_KV_SCANNER_H
#define SLUICE_KV_SCANNER_H

/*
 * The key=value scanner of kv-parser(), with syslog-ng 3.38's rules (each
 * checked against it on this machine):
 *
 *  - a key is the run of [A-Za-z0-9_.-] right before a value separator,
 *    spaces between the two allowed ("a = 1"); a separator with no key
 *    character before it ("=x", "\"a\"=b", "é=1") is no key, and scanning
 *    goes on to the next separator;
 *  - what lies between the end of one value and the next key is a stray
 *    word (collected only when asked for);
 *  - a value starts after the separator and the spaces that follow it,
 *    unless those spaces already end it ("a= b=1" gives a="");
 *  - an unquoted value ends at the pair separator, or at a space after
 *    which (and further spaces) comes the end, a key and its separator, or
 *    the pair separator.  So "a=x y b=1" gives a="x y", and a value may
 *    hold the value separator ("b=x=y");
 *  - a value starting with ' or " is a quoted string: backslash escapes
 *    \b \f \n \r \t \\ and the quote itself are decoded, any other
 *    escape is kept as written; the closing quote must be followed by a
 *    space or the pair separator.  When it is not (or the quote is not
 *    closed), the value is the raw text up to where the scan stopped and
 *    the next key is looked for from the start of that raw text.
 *
 * Values are slices of the input when they can be (no escapes), so the
 * caller may reference them instead of copying.  The scanner allocates
 * nothing: it writes into the buffers it is given.
 */

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct KvScanner
{
  /* configuration */
  char value_sep;
  const char *pair_sep;
  size_t pair_sep_len;
  GString *value_buf; /* unescaped values */
  GString *stray;     /* NULL: stray words are not collected */

  /* the input and position */
  const char *input;
  const char *end;
  const char *cur;
  bool value_was_quoted;
  const char *next_key; /* a key the last value's end found, and its separator */
  const char *next_sep;

  /* the current pair, valid until the next call */
  const char *key;
  size_t key_len;
  const char *value;
  size_t value_len;
  bool value_in_buf; /* value points into value_buf, not the input */
} KvScanner;

/* Set up s with value separator vsep, pair separator psep (psep_len
 * bytes and a NUL, kept by pointer), a buffer for unescaped values and,
 * when stray words are wanted, a buffer for them (emptied). */
void kv_scanner_init(KvScanner *s, char vsep, const char *psep, size_t psep_len, GString *value_buf,
                     GString *stray);

/* Start on input[0..len) (no NUL inside). */
void kv_scanner_input(KvScanner *s, const char *input, size_t len);

/* The next pair into s->key/s->value; false when there is none left (the
 * stray words are complete then). */
bool kv_scanner_next(KvScanner *s);

#endif
