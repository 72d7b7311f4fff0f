/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The file module's registration table: file(), pipe() and stdout(). */
#include "file-dest.h"
#include "modules.h"

const LogDriverFactory *const file_driver_factories[] = {
  &file_dest_factory,
  &pipe_dest_factory,
  &stdout_dest_factory,
  NULL,
};
