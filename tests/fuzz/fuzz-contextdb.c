/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: add-contextual-data()'s database loader
 * (modules/contextdata/context-db.c) on arbitrary bytes, loaded both as
 * written and with ignore-case; a database that loads is then asked for a
 * few selectors and every record's template is formatted on a message.
 * A load must succeed or give an error; nothing may leak or crash.
 */
#include "contextdata/context-db.h"
#include "modules.h"

#include <glib.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
_probe(const ContextDb *db, LogMsg *msg, const char *sel, GString *out)
{
  size_t n = 0;
  const ContextRecord *r = context_db_lookup(db, sel, strlen(sel), &n);
  for (size_t i = 0; r && i < n; i++)
    {
      g_string_truncate(out, 0);
      log_template_format(r[i].value, msg, NULL, out);
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static bool registered;
  if (!registered)
    {
      modules_register_template_functions();
      registered = true;
    }
  LogMsg *msg = log_msg_new(64);
  log_msg_set_value(msg, LM_V_HOST, "web01", -1);
  GString *out = g_string_new(NULL);
  for (int icase = 0; icase < 2; icase++)
    {
      char *err = NULL;
      ContextDb *db = context_db_load((const char *) data, size, icase ? "p." : NULL, icase, &err);
      if (!db)
        {
          if (!err)
            abort(); /* a refusal says why */
          g_free(err);
          continue;
        }
      static const char *const sels[] = { "web01", "WEB01", "", "a", "default" };
      for (size_t i = 0; i < G_N_ELEMENTS(sels); i++)
        _probe(db, msg, sels[i], out);
      context_db_free(db);
    }
  g_string_free(out, TRUE);
  log_msg_unref(msg);
  return 0;
}
