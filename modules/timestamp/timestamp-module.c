/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The date-parser() (modules/timestamp): registration table. */
#include "modules.h"

const LogDriverFactory *const timestamp_driver_factories[] = {
  NULL,
};
