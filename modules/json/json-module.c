/* SPDX-License-Identifier: GPL-2.0-or-later */
/* json-parser() (modules/json): registration table. */
#include "modules.h"

const LogDriverFactory *const json_driver_factories[] = {
  NULL,
};
