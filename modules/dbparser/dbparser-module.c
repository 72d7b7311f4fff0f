/* SPDX-License-Identifier: GPL-2.0-or-later */
/* db-parser() (modules/dbparser): registration table. */
#include "dbparser.h"
#include "modules.h"

const LogDriverFactory *const dbparser_driver_factories[] = {
  &db_parser_factory,
  NULL,
};
