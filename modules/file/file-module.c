/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The file module's registration table. */
#include "modules.h"

const LogDriverFactory *const file_driver_factories[] = { NULL };
