/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: db-parser()'s patterndb loader (modules/dbparser/pdb.c)
 * on arbitrary XML.  A file that loads is then asked to classify a few
 * messages, so whatever tree it built is walked too.  A load must either
 * succeed or give an error message; nothing may leak or crash.
 */
#include "dbparser/pdb.h"

#include <glib.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const probes[][2] = {
  { "sshd", "Accepted password for bob from 10.0.0.1 port 22" },
  { "", "" },
  { "kernel", "eth0: link up, 1000 Mbps (full-duplex)" },
  { "x", "@ 1.2.3.4 ::1 a@b.c 00:11:22:33:44:55 \"q\" 12 -3.5e2\r\nend" },
};

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char *error = NULL;
  PatternDb *db = pdb_load_buffer("fuzz.xml", (const char *) data, size, ".f.", &error);
  if (!db)
    {
      if (!error)
        abort();
      g_free(error);
      return 0;
    }
  for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++)
    {
      LogMsg *msg = log_msg_new(0);
      log_msg_set_value(msg, LM_V_PROGRAM, probes[i][0], -1);
      log_msg_set_value(msg, LM_V_MESSAGE, probes[i][1], -1);
      log_msg_write_protect(msg);
      pdb_process(db, &msg, probes[i][0], strlen(probes[i][0]), probes[i][1], strlen(probes[i][1]));
      log_msg_unref(msg);
    }
  pdb_free(db);
  return 0;
}
