/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The date-parser() (modules/timestamp): registration table. */
#include "modules.h"
#include "timestamp.h"

const LogDriverFactory *const timestamp_driver_factories[] = {
  &date_parser_factory,
  NULL,
};
