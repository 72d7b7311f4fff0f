/* SPDX-License-Identifier: GPL-2.0-or-later */
/* db-parser() and grouping-by() (modules/dbparser): registration table. */
#include "dbparser.h"
#include "modules.h"

const LogDriverFactory *const dbparser_driver_factories[] = {
  &db_parser_factory,
  &grouping_by_factory,
  NULL,
};
