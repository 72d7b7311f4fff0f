/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The file module's registration table: file(), pipe(), stdout() and
 * program(), and syslog-ng's example-destination() (a file() underneath). */
#include "file-dest.h"
#include "file-source.h"
#include "stream-sources.h"
#include "modules.h"

const LogDriverFactory *const file_driver_factories[] = {
  &file_source_factory,
  &wildcard_file_source_factory,
  &pipe_source_factory,
  &program_source_factory,
  &file_dest_factory,
  &pipe_dest_factory,
  &stdout_dest_factory,
  &program_dest_factory,
  &example_dest_factory,
  NULL,
};
