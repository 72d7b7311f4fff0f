/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_STREAM_SOURCES_H
#define SLUICE_STREAM_SOURCES_H
/* The sources that read one stream that does not end with its writer:
 * pipe() (pipe-source.c) and program() (program-source.c). */
#include "sluice/driver.h"

extern const LogDriverFactory pipe_source_factory;
extern const LogDriverFactory program_source_factory;

#endif
