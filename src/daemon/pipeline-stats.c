/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The pipeline's counters as stats rows: see pipeline-stats.h. */
#include "pipeline-stats.h"

#include "pipeline-internal.h"
#include "stats-dyn.h"

#include "sluice/strrepr.h"

#include <inttypes.h>
#include <string.h>

static void
_row(StatsRowFunc fn, void *ud, const char *component, const char *id, const char *instance, const char *type,
     uint64_t value)
{
  StatsRow r = { component, id, instance, type, value, 'a' };
  fn(&r, ud);
}

/* The rows of the source drivers: live connections of listeners (every
 * level), and at stats-level 1 and above what each driver delivered and
 * when it last did ("src.network;s_net#0;tcp,127.0.0.1"). */
static void
_source_driver_rows(LogPipeline *pl, StatsRowFunc fn, void *ud)
{
  char component[64];
  for (guint i = 0; i < pl->slots->len; i++)
    {
      SourceSlot *sl = g_ptr_array_index(pl->slots, i);
      if (!sl->drv)
        continue;
      snprintf(component, sizeof(component), "src.%s", sl->drv->driver);
      SourceRT *s = g_ptr_array_index(pl->sources, sl->source);
      if (sl->drv->connections)
        _row(fn, ud, component, s->name, sl->drv->conn_instance, "connections",
             (uint64_t) atomic_load(sl->drv->connections));
      for (int k = 0; k < sl->drv->n_listener_stats; k++)
        _row(fn, ud, component, s->name, sl->drv->listener_stats[k].instance, "processed",
             (uint64_t) atomic_load_explicit(&sl->drv->listener_stats[k].processed, memory_order_relaxed));
      if (pl->stats_level < 1)
        continue;
      int64_t stamp;
      uint64_t n = log_pipeline_slot_received(pl, (int) i, &stamp);
      _row(fn, ud, component, sl->id, sl->drv->stats_instance, "processed", n);
      _row(fn, ud, component, sl->id, sl->drv->stats_instance, "stamp", (uint64_t) stamp);
    }
}

/* A processor's own counters (LogProcessorOps.stats): rows of component
 * "parser", id the driver's name ("db-parser"). */
typedef struct ProcRows
{
  StatsRowFunc fn;
  void *ud;
  const LogProcessor *p;
} ProcRows;

static void
_proc_row(void *ud, const char *instance, const char *type, uint64_t value)
{
  ProcRows *pr = ud;
  _row(pr->fn, pr->ud, "parser", pr->p->driver, instance, type, value);
}

static void
_proc_rows(LogProcessor *p, void *ud)
{
  ProcRows *pr = ud;
  if (!p->ops->stats)
    return;
  pr->p = p;
  p->ops->stats(p, _proc_row, pr);
}

void
log_pipeline_foreach_stat(LogPipeline *pl, StatsRowFunc fn, void *ud)
{
  LogPipelineStats total;
  log_pipeline_get_stats(pl, &total);
  _row(fn, ud, "center", "", "received", "processed", total.received);
  _row(fn, ud, "center", "", "queued", "processed", total.queued);

  for (guint i = 0; i < pl->sources->len; i++)
    {
      SourceRT *s = g_ptr_array_index(pl->sources, i);
      _row(fn, ud, "source", s->name, "", "processed", log_pipeline_source_received(pl, (int) i));
    }
  _source_driver_rows(pl, fn, ud);
  /* A destination statement counts what reached any of its drivers, as
   * syslog-ng's "destination;d_file;;a;processed" row does. */
  for (guint i = 0; i < pl->dests->len; i++)
    {
      DestRT *d = g_ptr_array_index(pl->dests, i);
      uint64_t processed = 0;
      for (size_t k = 0; k < d->n_drivers; k++)
        {
          DriverRT *rt = g_ptr_array_index(pl->drivers, d->drivers[k]);
          LogQueueStats qs;
          log_queue_get_stats(rt->q, &qs);
          processed += qs.queued + qs.dropped;
        }
      _row(fn, ud, "destination", d->name, "", "processed", processed);
    }
  char component[64];
  for (guint i = 0; i < pl->drivers->len; i++)
    {
      DriverRT *rt = g_ptr_array_index(pl->drivers, i);
      LogQueueStats qs;
      log_queue_get_stats(rt->q, &qs);
      snprintf(component, sizeof(component), "dst.%s", rt->drv->driver);
      const char *inst = rt->drv->stats_instance;
      _row(fn, ud, component, rt->name, inst, "dropped", qs.dropped);
      _row(fn, ud, component, rt->name, inst, "processed", qs.queued + qs.dropped);
      _row(fn, ud, component, rt->name, inst, "queued", qs.length);
      _row(fn, ud, component, rt->name, inst, "memory_usage", qs.memory);
      _row(fn, ud, component, rt->name, inst, "written", qs.written);
    }
  log_pipeline_foreach_processor(pl, _proc_rows, &(ProcRows) { fn, ud, NULL });
  if (pl->dyn)
    stats_dyn_foreach(pl->dyn, g_get_real_time() / G_USEC_PER_SEC, fn, ud);
}

/* ---- escaping ------------------------------------------------------------ */

void
stats_escape_field(GString *out, const char *field, const char *quoted)
{
  /* a byte that is not UTF-8 as \xHH, so distinct names stay distinct */
  str_append_escaped(out, field, strlen(field), quoted);
}

void
stats_csv_field(GString *out, const char *field)
{
  if (strpbrk(field, ";\""))
    {
      g_string_append_c(out, '"');
      stats_escape_field(out, field, "\"");
      g_string_append_c(out, '"');
    }
  else
    stats_escape_field(out, field, NULL);
}

void
stats_prometheus_label_value(GString *out, const char *value)
{
  /* As syslog-ng writes them: any UTF-8 character stands for itself but
   * the three the format escapes; a byte that is not UTF-8 becomes the
   * text \xHH (its backslash written \\ as the format wants). */
  const char *p = value;
  const char *end = value + strlen(value);
  while (p < end)
    {
      gunichar c = g_utf8_get_char_validated(p, end - p);
      if (c == (gunichar) -1 || c == (gunichar) -2)
        {
          g_string_append_printf(out, "\\\\x%02x", (unsigned) (unsigned char) *p);
          p++;
          continue;
        }
      if (c == '\\')
        g_string_append(out, "\\\\");
      else if (c == '"')
        g_string_append(out, "\\\"");
      else if (c == '\n')
        g_string_append(out, "\\n");
      else
        g_string_append_len(out, p, g_utf8_next_char(p) - p);
      p = g_utf8_next_char(p);
    }
}

/* ---- formats ------------------------------------------------------------- */

void
stats_row_name(const StatsRow *row, GString *out)
{
  const char *parts[] = { row->component, row->id, row->instance, row->type };
  bool first = true;
  for (size_t i = 0; i < G_N_ELEMENTS(parts); i++)
    {
      if (!parts[i][0])
        continue;
      if (!first)
        g_string_append_c(out, '.');
      stats_escape_field(out, parts[i], NULL);
      first = false;
    }
}

static void
_csv_row(const StatsRow *r, void *ud)
{
  GString *out = ud;
  /* 'a': active, 'd': dynamic; a reload carries counters over by name, so
   * there are no orphaned ('o') ones */
  stats_csv_field(out, r->component);
  g_string_append_c(out, ';');
  stats_csv_field(out, r->id);
  g_string_append_c(out, ';');
  stats_csv_field(out, r->instance);
  g_string_append_printf(out, ";%c;", r->state ? r->state : 'a');
  stats_csv_field(out, r->type);
  g_string_append_printf(out, ";%" PRIu64 "\n", r->value);
}

void
stats_format_csv(LogPipeline *pl, GString *out)
{
  g_string_append(out, "SourceName;SourceId;SourceInstance;State;Type;Number\n");
  log_pipeline_foreach_stat(pl, _csv_row, out);
}

static void
_prom_label(GString *out, const char *name, const char *value)
{
  g_string_append_printf(out, "%s=\"", name);
  stats_prometheus_label_value(out, value);
  g_string_append_c(out, '"');
}

static void
_prom_row(const StatsRow *r, void *ud)
{
  GString *out = ud;
  /* metric names allow [a-zA-Z0-9_:] only: "dst.file" becomes "dst_file" */
  g_string_append(out, "sluice_");
  for (const char *p = r->component; *p; p++)
    g_string_append_c(out, g_ascii_isalnum(*p) ? *p : '_');
  g_string_append_printf(out, "_%s{", r->type);
  bool center = strcmp(r->component, "center") == 0;
  _prom_label(out, "id", center ? r->instance : r->id);
  if (!center && r->instance[0])
    {
      g_string_append_c(out, ',');
      _prom_label(out, "instance", r->instance);
    }
  g_string_append_printf(out, "} %" PRIu64 "\n", r->value);
}

void
stats_format_prometheus(LogPipeline *pl, GString *out)
{
  log_pipeline_foreach_stat(pl, _prom_row, out);
}
