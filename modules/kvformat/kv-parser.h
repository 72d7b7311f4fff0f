/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_KV_PARSER_H
#define SLUICE_KV_PARSER_H

/* kv-parser() and linux-audit-parser() (modules/kvformat/kv-parser.c). */

#include "sluice/driver.h"

extern const LogDriverFactory kv_parser_factory;
extern const LogDriverFactory linux_audit_parser_factory;

#endif
