/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The csv-parser() (modules/csvparser): registration table. */
#include "modules.h"

const LogDriverFactory *const csvparser_driver_factories[] = {
  NULL,
};
