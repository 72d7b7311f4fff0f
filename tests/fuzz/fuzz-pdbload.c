/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: db-parser()'s patterndb loader (modules/dbparser/pdb.c)
 * on arbitrary XML.  A file that loads is then asked to classify a few
 * messages, so whatever tree it built is walked too; what they match of
 * rules with contexts or actions goes through the correlation thread,
 * whose clock then jumps past every timeout, so the actions' conditions,
 * rate limits, inherit modes and values run as well.  A load must either
 * succeed or give an error message; nothing may leak or crash.
 */
#include "dbparser/correlation.h"
#include "dbparser/pdb.h"
#include "modules.h"

#include <glib.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int64_t fake_ms = 1000000;

static int64_t
_clock(void)
{
  return __atomic_load_n(&fake_ms, __ATOMIC_RELAXED);
}

static void
_sink(void *emitter, LogMsg *msg)
{
  (void) emitter;
  log_msg_unref(msg);
}

static const char *const probes[][2] = {
  { "sshd", "Accepted password for bob from 10.0.0.1 port 22" },
  { "", "" },
  { "kernel", "eth0: link up, 1000 Mbps (full-duplex)" },
  { "x", "@ 1.2.3.4 ::1 a@b.c 00:11:22:33:44:55 \"q\" 12 -3.5e2\r\nend" },
};

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static CorrState *corr;
  if (!corr)
    {
      modules_register_template_functions();
      corr_set_clock(_clock);
      corr = corr_state_get("fuzz", 64);
    }
  char *error = NULL;
  PatternDb *db = pdb_load_buffer("fuzz.xml", (const char *) data, size, ".f.", &error);
  if (!db)
    {
      if (!error)
        abort();
      g_free(error);
      return 0;
    }
  corr_state_attach(corr, pdb_rule_lookup, db, _sink, db);
  for (int round = 0; round < 2; round++)
    for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++)
      {
        LogMsg *msg = log_msg_new(0);
        log_msg_set_value(msg, LM_V_PROGRAM, probes[i][0], -1);
        log_msg_set_value(msg, LM_V_MESSAGE, probes[i][1], -1);
        log_msg_write_protect(msg);
        const PdbRule *rule;
        if (pdb_process_rule(db, &msg, probes[i][0], strlen(probes[i][0]), probes[i][1], strlen(probes[i][1]),
                             &rule) &&
            pdb_rule_correlates(rule))
          {
            log_msg_write_protect(msg);
            corr_submit(corr, rule, log_msg_ref(msg), db);
          }
        log_msg_unref(msg);
      }
  corr_sync();
  /* past any context-timeout: every context closes and its actions run */
  __atomic_add_fetch(&fake_ms, 40LL * 86400 * 1000, __ATOMIC_RELAXED);
  corr_sync();
  corr_state_detach(corr, db);
  pdb_free(db);
  return 0;
}
