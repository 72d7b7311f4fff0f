/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_FILE_SOURCE_H
#define SLUICE_FILE_SOURCE_H
/* file() as a source (file-source.c). */
#include "sluice/driver.h"

extern const LogDriverFactory file_source_factory;

#endif
