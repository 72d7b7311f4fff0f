/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The kv-parser() (modules/kvformat): registration table.  linux-audit-parser()
 * is not built. */
#include "modules.h"

#include "kvformat/kv-parser.h"

const LogDriverFactory *const kvformat_driver_factories[] = {
  &kv_parser_factory,
  NULL,
};
