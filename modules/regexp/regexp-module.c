/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The regexp-parser() (modules/regexp): registration table. */
#include "modules.h"
#include "regexp.h"

const LogDriverFactory *const regexp_driver_factories[] = {
  &regexp_parser_factory,
  NULL,
};
