/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "periodic.h"

#include "source-local.h"
#include "sluice/internal-log.h"

#include <glib.h>
#include <iv.h>
#include <stdlib.h>

struct Periodic
{
  LogPipeline *pipeline;
  struct iv_timer stats, mark;
  int64_t stats_freq, mark_freq;
};

void
periodic_log_stats(LogPipeline *pl)
{
  GString *line = g_string_new("Log statistics; ");
  log_pipeline_format_stats(pl, line);
  sluice_log(SLUICE_LOG_INFO, line->str, NULL);
  g_string_free(line, TRUE);
}

/* Rearm t freq seconds after its last expiry, so the period does not drift
 * by the time the handler takes. */
static void
_rearm(struct iv_timer *t, int64_t freq)
{
  t->expires.tv_sec += freq;
  iv_timer_register(t);
}

static void
_on_stats(void *cookie)
{
  Periodic *p = cookie;
  periodic_log_stats(p->pipeline);
  _rearm(&p->stats, p->stats_freq);
}

static void
_on_mark(void *cookie)
{
  Periodic *p = cookie;
  internal_source_mark();
  _rearm(&p->mark, p->mark_freq);
}

static void
_start_timer(struct iv_timer *t, int64_t freq, void (*handler)(void *), Periodic *p)
{
  IV_TIMER_INIT(t);
  iv_validate_now();
  t->expires = iv_now;
  t->expires.tv_sec += freq;
  t->cookie = p;
  t->handler = handler;
  iv_timer_register(t);
}

Periodic *
periodic_start(LogPipeline *pl, const CfgGlobalOptions *global)
{
  Periodic *p = calloc(1, sizeof(*p));
  p->pipeline = pl;
  p->stats_freq = global->stats_freq;
  p->mark_freq = global->mark_mode == CFG_MARK_INTERNAL ? global->mark_freq : 0;
  if (p->stats_freq > 0)
    _start_timer(&p->stats, p->stats_freq, _on_stats, p);
  if (p->mark_freq > 0)
    _start_timer(&p->mark, p->mark_freq, _on_mark, p);
  return p;
}

void
periodic_stop(Periodic *p)
{
  if (!p)
    return;
  if (p->stats_freq > 0 && iv_timer_registered(&p->stats))
    iv_timer_unregister(&p->stats);
  if (p->mark_freq > 0 && iv_timer_registered(&p->mark))
    iv_timer_unregister(&p->mark);
  free(p);
}
