/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The network module's registration table. */
#include "modules.h"

const LogDriverFactory *const network_driver_factories[] = { NULL };
