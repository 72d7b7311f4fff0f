/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The xml() parser (modules/xml): registration table. */
#include "modules.h"
#include "xml.h"

const LogDriverFactory *const xml_driver_factories[] = {
  &xml_parser_factory,
  NULL,
};
