/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The set(), subst(), unset(), groupset(), groupunset(), rename(), set-tag(), clear-tag(), set-severity(), set-facility(), set-pri() rewrite rules (modules/rewrite): registration table. */
#include "modules.h"

const LogDriverFactory *const rewrite_driver_factories[] = {
  NULL,
};
