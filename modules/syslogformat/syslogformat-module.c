/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The syslog-parser() (modules/syslogformat): registration table. */
#include "modules.h"
#include "syslogformat.h"

const LogDriverFactory *const syslogformat_driver_factories[] = {
  &syslog_parser_factory,
  NULL,
};
