/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The template functions the modules provide, registered in one call. */
#include "basicfuncs/basicfuncs.h"
#include "dbparser/dbparser.h"
#include "json/json-module.h"
#include "modules.h"
#include "slog/slog-module.h"

#include <pthread.h>

static pthread_once_t registered = PTHREAD_ONCE_INIT;

static void
_register(void)
{
  basicfuncs_register_template_functions();
  json_register_template_functions();
  dbparser_register_template_functions();
  slog_register_template_functions();
}

void
modules_register_template_functions(void)
{
  pthread_once(&registered, _register);
}
