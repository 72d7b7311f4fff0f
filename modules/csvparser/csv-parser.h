/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_CSV_PARSER_H
#define SLUICE_CSV_PARSER_H

/* csv-parser() (modules/csvparser/csv-parser.c). */

#include "sluice/driver.h"

extern const LogDriverFactory csv_parser_factory;

#endif
