/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The csv-parser() (modules/csvparser): registration table. */
#include "modules.h"

#include "csvparser/csv-parser.h"

const LogDriverFactory *const csvparser_driver_factories[] = {
  &csv_parser_factory,
  NULL,
};
