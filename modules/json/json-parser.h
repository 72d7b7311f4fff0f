/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_JSON_PARSER_H
#define SLUICE_JSON_PARSER_H

/* json-parser() (modules/json/json-parser.c). */

#include "sluice/driver.h"

extern const LogDriverFactory json_parser_factory;

#endif
