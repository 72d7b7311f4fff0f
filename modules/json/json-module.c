/* SPDX-License-Identifier: GPL-2.0-or-later */
/* json-parser() (modules/json): registration table. */
#include "modules.h"

#include "json/json-parser.h"

const LogDriverFactory *const json_driver_factories[] = {
  &json_parser_factory,
  &map_value_pairs_factory,
  NULL,
};
