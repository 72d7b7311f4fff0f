/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_TEST_CFG_TEST_H
#define SLUICE_TEST_CFG_TEST_H

#include "sluice/cfg-options.h"
#include "sluice/cfg-tree.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

/* Parses text named "t.conf" with includes off; fails the test on error. */
static inline CfgTree *
parse_ok(const char *text)
{
  CfgError err = { 0 };
  CfgParseOptions opts = { .no_includes = true, .no_env = true };
  CfgTree *t = cfg_parse_string("t.conf", text, strlen(text), &opts, &err);
  if (!t)
    cr_assert_fail("unexpected error %s:%d:%d: %s", err.file, err.line, err.col, err.message);
  cfg_error_clear(&err);
  return t;
}

/* Parses text that must fail; returns "file:line:col: message" (free it). */
static inline char *
parse_err(const char *text)
{
  CfgError err = { 0 };
  CfgParseOptions opts = { .no_includes = true, .no_env = true };
  CfgTree *t = cfg_parse_string("t.conf", text, strlen(text), &opts, &err);
  cr_assert_null(t, "expected an error for: %s", text);
  char *s = cfg_error_format(&err);
  cfg_error_clear(&err);
  return s;
}

#define assert_parse_error(text, expected)                                                                    \
  do                                                                                                         \
    {                                                                                                        \
      char *_e = parse_err(text);                                                                            \
      cr_assert_str_eq(_e, expected);                                                                        \
      free(_e);                                                                                              \
    }                                                                                                        \
  while (0)

#endif
