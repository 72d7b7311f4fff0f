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

/* ---- resets ---------------------------------------------------------------
 *
 * Counters are written by the workers without locks, so a reset does not
 * write them: it remembers each reset row's value at the time (its mark,
 * in pl->stats_reset by the row's name) and every read gives the value
 * less the mark.  A "stamp" row reads 0 until a message moves it.  A mark
 * above the value (the row was made anew: a dynamic row that expired, a
 * queue a reload replaced) is dropped and the value shown whole; a mark
 * whose row is gone is dropped by the next walk.  Levels (queued,
 * memory_usage, connections) are what is, not counts: never reset. */

typedef struct StatsMark
{
  uint64_t value;
  uint64_t walk; /* the walk that last saw its row */
} StatsMark;

static bool
_is_level(const char *type)
{
  return strcmp(type, "queued") == 0 || strcmp(type, "memory_usage") == 0 || strcmp(type, "connections") == 0;
}

static void
_mark_key(GString *key, const char *component, const char *id, const char *instance, const char *type)
{
  g_string_truncate(key, 0);
  g_string_append_printf(key, "%s%c%s%c%s%c%s", component, 0x1f, id, 0x1f, instance, 0x1f, type);
}

/* The value a reader sees for a raw one. */
static uint64_t
_adjust(LogPipeline *pl, GString *key, const char *component, const char *id, const char *instance,
        const char *type, uint64_t raw, uint64_t walk)
{
  if (!pl->stats_reset || g_hash_table_size(pl->stats_reset) == 0 || _is_level(type))
    return raw;
  _mark_key(key, component, id, instance, type);
  StatsMark *m = g_hash_table_lookup(pl->stats_reset, key->str);
  if (!m)
    return raw;
  if (raw < m->value)
    {
      g_hash_table_remove(pl->stats_reset, key->str);
      return raw;
    }
  if (walk)
    m->walk = walk;
  if (strcmp(type, "stamp") == 0)
    return raw == m->value ? 0 : raw;
  return raw - m->value;
}

/* A stamp counts seconds: a message in the second of the reset leaves it
 * where the mark is.  Its row's "processed" comes just before it; when
 * that moved since the reset, the stamp is a message's again. */
static uint64_t
_adjust_stamp(const StatsRow *prev, uint64_t prev_value, const StatsRow *row, uint64_t adjusted)
{
  if (adjusted != 0 || !prev || strcmp(prev->type, "processed") != 0 || prev_value == 0
      || strcmp(prev->component, row->component) != 0 || strcmp(prev->id, row->id) != 0
      || strcmp(prev->instance, row->instance) != 0)
    return adjusted;
  return row->value;
}

typedef struct StatsWalk
{
  LogPipeline *pl;
  StatsRowFunc fn;
  StatsRowPickFunc pick; /* rows to reset, or NULL */
  void *ud;
  GString *key;
  uint64_t walk;
  StatsRow prev;       /* the row before, as read (its strings live through the next row) */
  bool has_prev;
} StatsWalk;

static void
_walk_row(const StatsRow *row, void *ud)
{
  StatsWalk *w = ud;
  StatsRow r = *row;
  r.value = _adjust(w->pl, w->key, r.component, r.id, r.instance, r.type, row->value, w->walk);
  if (strcmp(r.type, "stamp") == 0)
    r.value = _adjust_stamp(w->has_prev ? &w->prev : NULL, w->prev.value, row, r.value);
  w->prev = r;
  w->has_prev = true;
  if (w->fn)
    w->fn(&r, w->ud);
  if (!w->pick || !w->pick(&r, w->ud) || _is_level(r.type))
    return;
  if (!w->pl->stats_reset)
    w->pl->stats_reset = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  _mark_key(w->key, r.component, r.id, r.instance, r.type);
  StatsMark *m = g_new0(StatsMark, 1);
  m->value = row->value;
  m->walk = w->walk;
  g_hash_table_replace(w->pl->stats_reset, g_strdup(w->key->str), m);
}

static gboolean
_mark_unseen(gpointer key, gpointer value, gpointer ud)
{
  (void) key;
  return ((StatsMark *) value)->walk != *(uint64_t *) ud;
}

static void _foreach_raw(LogPipeline *pl, StatsRowFunc fn, void *ud);

static void
_walk(LogPipeline *pl, StatsRowFunc fn, StatsRowPickFunc pick, void *ud)
{
  StatsWalk w = { pl, fn, pick, ud, g_string_new(NULL), ++pl->stats_walks, { 0 }, false };
  _foreach_raw(pl, _walk_row, &w);
  if (pl->stats_reset)
    g_hash_table_foreach_remove(pl->stats_reset, _mark_unseen, &w.walk);
  g_string_free(w.key, TRUE);
}

void
log_pipeline_foreach_stat(LogPipeline *pl, StatsRowFunc fn, void *ud)
{
  _walk(pl, fn, NULL, ud);
}

void
log_pipeline_reset_stats(LogPipeline *pl, StatsRowFunc fn, StatsRowPickFunc pick, void *ud)
{
  _walk(pl, fn, pick, ud);
}

uint64_t
log_pipeline_stat_value(LogPipeline *pl, const char *component, const char *id, const char *instance,
                        const char *type, uint64_t raw)
{
  GString *key = g_string_new(NULL);
  uint64_t v = _adjust(pl, key, component, id, instance, type, raw, 0);
  g_string_free(key, TRUE);
  return v;
}

void
log_pipeline_stats_carry(LogPipeline *pl, LogPipeline *next)
{
  if (!pl->stats_reset || next->stats_reset)
    return;
  next->stats_reset = pl->stats_reset;
  pl->stats_reset = NULL;
}

void
log_pipeline_stats_free(LogPipeline *pl)
{
  if (pl->stats_reset)
    g_hash_table_destroy(pl->stats_reset);
  pl->stats_reset = NULL;
}

/* The rows of the source drivers: live connections of listeners and what
 * a driver dropped itself (every level), and at stats-level 1 and above what each driver delivered and
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
      if (sl->drv->dropped)
        _row(fn, ud, component, s->name, sl->drv->stats_instance, "dropped", log_pipeline_slot_dropped(pl, (int) i));
      for (int k = 0; k < sl->drv->n_listener_stats; k++)
        {
          LogSourceListenerStat *ls = &sl->drv->listener_stats[k];
          _row(fn, ud, component, s->name, ls->instance, "processed",
               (uint64_t) atomic_load_explicit(&ls->processed, memory_order_relaxed));
          _row(fn, ud, component, s->name, ls->instance, "dropped",
               (uint64_t) atomic_load_explicit(&ls->dropped, memory_order_relaxed));
        }
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

static void
_foreach_raw(LogPipeline *pl, StatsRowFunc fn, void *ud)
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
  /* what each parser statement dropped and each filter statement let
   * through and not, from stats-level 1 */
  for (guint i = 0; pl->stats_level >= 1 && pl->parser_discards && i < pl->parser_discards->len; i++)
    {
      StmtCounts *c = g_ptr_array_index(pl->parser_discards, i);
      _row(fn, ud, "parser", c->name, "", "discarded", atomic_load_explicit(&c->n[0], memory_order_relaxed));
    }
  for (guint i = 0; pl->stats_level >= 1 && pl->filter_counts && i < pl->filter_counts->len; i++)
    {
      StmtCounts *c = g_ptr_array_index(pl->filter_counts, i);
      _row(fn, ud, "filter", c->name, "", "matched", atomic_load_explicit(&c->n[0], memory_order_relaxed));
      _row(fn, ud, "filter", c->name, "", "not_matched",
           atomic_load_explicit(&c->n[1], memory_order_relaxed));
    }
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
