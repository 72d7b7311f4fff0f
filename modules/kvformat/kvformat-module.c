/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The kv-parser() and linux-audit-parser() (modules/kvformat): registration table. */
#include "modules.h"

const LogDriverFactory *const kvformat_driver_factories[] = {
  NULL,
};
