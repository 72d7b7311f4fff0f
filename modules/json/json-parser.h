/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_JSON_PARSER_H
#define SLUICE_JSON_PARSER_H

/* json-parser() (modules/json/json-parser.c). */

#include "sluice/driver.h"

extern const LogDriverFactory json_parser_factory;
/* map-value-pairs() (map-value-pairs.c) */
extern const LogDriverFactory map_value_pairs_factory;

/* Tests and the fuzz target: with on false, p (a json-parser()) parses
 * with json-c only, so both paths can be held against each other.  On by
 * default. */
void json_parser_set_fast_path(LogProcessor *p, bool on);

#endif
