/* SPDX-License-Identifier: GPL-2.0-or-later */
/* regexp-parser() (modules/regexp): the factory regexp-module.c registers. */
#ifndef SLUICE_REGEXP_H
#define SLUICE_REGEXP_H

#include "sluice/driver.h"

extern const LogDriverFactory regexp_parser_factory;

#endif
