/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "sluice/cfg-tree.h"

#include <glib.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void
cfg_error_clear(CfgError *err)
{
  if (!err)
    return;
  g_free(err->file);
  g_free(err->message);
  memset(err, 0, sizeof(*err));
}

void
cfg_error_set(CfgError *err, const CfgLocation *loc, const char *fmt, ...)
{
  if (!err)
    return;
  va_list ap;
  va_start(ap, fmt);
  char *msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  cfg_error_clear(err);
  err->file = g_strdup(loc && loc->file ? loc->file : "");
  err->line = loc ? loc->line : 0;
  err->col = loc ? loc->col : 0;
  err->message = msg;
}

char *
cfg_error_format(const CfgError *err)
{
  char *s = NULL;
  const char *file = err->file ? err->file : "";
  const char *msg = err->message ? err->message : "error";
  int rc;
  /* line 0: about the file as a whole (it cannot be opened) */
  if (err->line > 0)
    rc = asprintf(&s, "%s:%d:%d: %s", file, err->line, err->col, msg);
  else
    rc = asprintf(&s, "%s: %s", file, msg);
  return rc < 0 ? NULL : s;
}
