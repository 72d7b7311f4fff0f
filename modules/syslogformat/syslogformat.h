/* SPDX-License-Identifier: GPL-2.0-or-later */
/* syslog-parser() (modules/syslogformat): the factory syslogformat-module.c registers. */
#ifndef SLUICE_SYSLOGFORMAT_H
#define SLUICE_SYSLOGFORMAT_H

#include "sluice/driver.h"

extern const LogDriverFactory syslog_parser_factory;

#endif
