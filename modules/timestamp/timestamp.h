/* SPDX-License-Identifier: GPL-2.0-or-later */
/* date-parser() (modules/timestamp): the factory timestamp-module.c registers. */
#ifndef SLUICE_TIMESTAMP_H
#define SLUICE_TIMESTAMP_H

#include "sluice/driver.h"

extern const LogDriverFactory date_parser_factory;

#endif
