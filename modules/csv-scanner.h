/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_CSV_SCANNER_H
#define SLUICE_CSV_SCANNER_H

/*
 * The column scanner of csv-parser(), with syslog-ng 3.38's rules (each
 * checked against it on this machine).  For each column in turn:
 *
 *  - greedy: the last column takes the rest of the input as it is (after
 *    leading blanks with strip-whitespace), even when that is empty;
 *  - otherwise, with no input left the scan is incomplete and stops;
 *  - a quote opener (quotes() / quote-pairs(), default "" and '') as the
 *    very first character starts a quoted part, before blanks are
 *    stripped: " \"a\"" is the text "\"a\"" with strip-whitespace;
 *  - strip-whitespace skips leading spaces and tabs;
 *  - inside quotes delimiters are text; the closing quote ends the quoted
 *    part and what follows it up to a delimiter is appended ("\"a\"x" is
 *    "ax"); escape-backslash takes the byte after '\', escape-double-char
 *    a doubled quote as one; an unclosed quote takes the rest;
 *  - outside quotes a column ends at the first string delimiter that
 *    matches (in the order written) or delimiter character, which is
 *    consumed; quote characters there are text;
 *  - strip-whitespace drops trailing spaces and tabs; a value equal to
 *    null() becomes "".
 * The scan is complete when every column got a value and the input is
 * used up (drop-invalid fails the parser otherwise).
 */

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum
{
  CSV_ESCAPE_NONE = 0,
  CSV_ESCAPE_BACKSLASH,
  CSV_ESCAPE_DOUBLE_CHAR,
};

typedef struct CsvScannerOptions
{
  int escape;             /* CSV_ESCAPE_* */
  bool strip_whitespace;
  bool greedy;
  bool delim[256];        /* delimiter characters */
  char **strings;         /* string delimiters in the order written (NULL-terminated, may be NULL) */
  bool string_first[256]; /* first bytes of the string delimiters */
  uint8_t quote_end[256]; /* closing quote of an opener; 0: not an opener */
  const char *null_value; /* NULL: none */
  size_t n_columns;
} CsvScannerOptions;

typedef struct CsvScanner
{
  const CsvScannerOptions *o;
  const char *cur;
  const char *end;
  size_t column;     /* the next column */
  bool partial;      /* ran out of input before the columns */
  GString *buf;      /* values that are not a slice of the input */

  /* the current column's value, valid until the next call */
  const char *value;
  size_t value_len;
  bool value_in_buf;
} CsvScanner;

void csv_scanner_init(CsvScanner *s, const CsvScannerOptions *o, const char *input, size_t len, GString *buf);

/* The next column's value into s->value (its index is s->column - 1);
 * false when there are no more columns or no more input. */
bool csv_scanner_next(CsvScanner *s);

/* After csv_scanner_next returned false: did every column get a value and
 * was the input used up? */
bool csv_scanner_complete(const CsvScanner *s);

#endif
