/* SPDX-License-Identifier: GPL-2.0-or-later */
/* xml() (modules/xml): the factory xml-module.c registers. */
#ifndef SLUICE_XML_H
#define SLUICE_XML_H

#include "sluice/driver.h"

extern const LogDriverFactory xml_parser_factory;

#endif
