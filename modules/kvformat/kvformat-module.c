/* SPDX-License-Identifier: GPL-2.0-or-later */
/* kv-parser() and linux-audit-parser() (modules/kvformat): registration
 * table. */
#include "modules.h"

#include "kvformat/kv-parser.h"

const LogDriverFactory *const kvformat_driver_factories[] = {
  &kv_parser_factory,
  &linux_audit_parser_factory,
  NULL,
};
