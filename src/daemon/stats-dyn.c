/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Dynamic counters of stats-level 2 and 3: see stats-dyn.h. */
#include "stats-dyn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A row's key is "component\x1f" "id\x1f" "instance". */
#define SEP '\x1f'

typedef struct DynRow
{
  uint64_t processed;
  int64_t stamp;  /* wall-clock seconds of the last message */
  bool is_static; /* state 'a' (facility, severity, tag) rather than 'd' */
} DynRow;

typedef struct DynTable
{
  GMutex lock;
  GHashTable *rows; /* key (g_free) -> DynRow (g_free) */
} DynTable;

struct StatsDyn
{
  int level;
  int64_t max_rows; /* < 0: no limit */
  int64_t lifetime;
  int n_tables;     /* workers + 1 */
  DynTable *tables;
};

static GHashTable *
_rows_new(void)
{
  return g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
}

StatsDyn *
stats_dyn_new(int n_workers, int level, int64_t max_dynamics, int64_t lifetime, GHashTable *carried)
{
  StatsDyn *d = g_new0(StatsDyn, 1);
  d->level = level;
  d->max_rows = max_dynamics;
  d->lifetime = lifetime;
  d->n_tables = n_workers + 1;
  d->tables = g_new0(DynTable, d->n_tables);
  for (int i = 0; i < d->n_tables; i++)
    {
      g_mutex_init(&d->tables[i].lock);
      d->tables[i].rows = _rows_new();
    }
  if (carried)
    {
      /* the last table (other threads) starts with the old totals */
      g_hash_table_unref(d->tables[n_workers].rows);
      d->tables[n_workers].rows = g_hash_table_ref(carried);
    }
  return d;
}

void
stats_dyn_free(StatsDyn *d)
{
  if (!d)
    return;
  for (int i = 0; i < d->n_tables; i++)
    {
      g_hash_table_unref(d->tables[i].rows);
      g_mutex_clear(&d->tables[i].lock);
    }
  g_free(d->tables);
  g_free(d);
}

/* Add one to the row component/id/instance (instance of ilen bytes) of t,
 * whose lock is held. */
static void
_bump(StatsDyn *d, DynTable *t, const char *component, const char *id, const char *instance, size_t ilen,
      int64_t stamp, bool is_static)
{
  char key[512];
  int n = snprintf(key, sizeof(key), "%s%c%s%c%.*s", component, SEP, id, SEP, (int) ilen, instance);
  if (n < 0 || (size_t) n >= sizeof(key))
    return; /* a host name of hundreds of bytes: not worth a row */
  DynRow *r = g_hash_table_lookup(t->rows, key);
  if (!r)
    {
      if (d->max_rows >= 0 && g_hash_table_size(t->rows) >= (guint) d->max_rows)
        return;
      r = g_new0(DynRow, 1);
      r->is_static = is_static;
      g_hash_table_insert(t->rows, g_strdup(key), r);
    }
  r->processed++;
  r->stamp = stamp;
}

typedef struct TagCtx
{
  StatsDyn *d;
  DynTable *t;
  int64_t stamp;
} TagCtx;

static void
_count_tag(LogTagId id, const char *name, void *user_data)
{
  TagCtx *c = user_data;
  _bump(c->d, c->t, "tag", name, "", 0, c->stamp, true);
}

void
stats_dyn_count(StatsDyn *d, int w, const char *slot_id, const LogMsg *msg)
{
  DynTable *t = &d->tables[w >= 0 && w < d->n_tables - 1 ? w : d->n_tables - 1];
  /* the time of counting, not the message's: stats-lifetime is about
   * rows nobody updates, whatever time the messages carry */
  int64_t stamp = g_get_real_time() / G_USEC_PER_SEC;
  size_t hlen, flen, plen;
  const char *host = log_msg_get_value(msg, LM_V_HOST, &hlen);
  g_mutex_lock(&t->lock);
  _bump(d, t, "src.host", "", host, hlen, stamp, false);
  if (d->level >= 3)
    {
      const char *from = log_msg_get_value(msg, LM_V_HOST_FROM, &flen);
      const char *program = log_msg_get_value(msg, LM_V_PROGRAM, &plen);
      _bump(d, t, "src.host", slot_id, host, hlen, stamp, false);
      _bump(d, t, "src.sender", "", from, flen, stamp, false);
      _bump(d, t, "src.sender", slot_id, from, flen, stamp, false);
      _bump(d, t, "src.program", "", program, plen, stamp, false);
      char num[16];
      int fac = msg->pri >> 3, sev = msg->pri & 7;
      int n = fac < 24 ? snprintf(num, sizeof(num), "%d", fac) : snprintf(num, sizeof(num), "other");
      _bump(d, t, "src.facility", "", num, (size_t) n, stamp, true);
      n = snprintf(num, sizeof(num), "%d", sev);
      _bump(d, t, "src.severity", "", num, (size_t) n, stamp, true);
      TagCtx c = { d, t, stamp };
      log_msg_foreach_tag(msg, _count_tag, &c);
    }
  g_mutex_unlock(&t->lock);
}

/* Merge every table into a new one (rows older than the lifetime are
 * removed from the tables on the way when now > 0). */
static GHashTable *
_merge(StatsDyn *d, int64_t now)
{
  GHashTable *all = _rows_new();
  for (int i = 0; i < d->n_tables; i++)
    {
      DynTable *t = &d->tables[i];
      g_mutex_lock(&t->lock);
      GHashTableIter it;
      gpointer k, v;
      g_hash_table_iter_init(&it, t->rows);
      while (g_hash_table_iter_next(&it, &k, &v))
        {
          DynRow *r = v;
          if (now > 0 && !r->is_static && d->lifetime > 0 && r->stamp + d->lifetime < now)
            {
              g_hash_table_iter_remove(&it);
              continue;
            }
          DynRow *m = g_hash_table_lookup(all, k);
          if (!m)
            {
              m = g_new0(DynRow, 1);
              m->is_static = r->is_static;
              g_hash_table_insert(all, g_strdup(k), m);
            }
          m->processed += r->processed;
          if (r->stamp > m->stamp)
            m->stamp = r->stamp;
        }
      g_mutex_unlock(&t->lock);
    }
  return all;
}

/* syslog-ng lists every facility and severity at level 3, counted or not. */
static void
_add_zero_row(GHashTable *all, const char *component, const char *instance)
{
  char *key = g_strdup_printf("%s%c%c%s", component, SEP, SEP, instance);
  if (g_hash_table_contains(all, key))
    {
      g_free(key);
      return;
    }
  DynRow *r = g_new0(DynRow, 1);
  r->is_static = true;
  g_hash_table_insert(all, key, r);
}

static void
_add_zero_rows(GHashTable *all)
{
  char num[16];
  for (int i = 0; i < 24; i++)
    {
      snprintf(num, sizeof(num), "%d", i);
      _add_zero_row(all, "src.facility", num);
      if (i < 8)
        _add_zero_row(all, "src.severity", num);
    }
  _add_zero_row(all, "src.facility", "other");
}

static gint
_cmp_keys(gconstpointer a, gconstpointer b)
{
  return strcmp(*(const char *const *) a, *(const char *const *) b);
}

void
stats_dyn_foreach(StatsDyn *d, int64_t now, StatsRowFunc fn, void *user_data)
{
  GHashTable *all = _merge(d, now);
  if (d->level >= 3)
    _add_zero_rows(all);
  guint n;
  gpointer *keys = g_hash_table_get_keys_as_array(all, &n);
  qsort(keys, n, sizeof(gpointer), _cmp_keys);
  for (guint i = 0; i < n; i++)
    {
      char *parts = g_strdup(keys[i]);
      char *id = strchr(parts, SEP);
      *id++ = '\0';
      char *instance = strchr(id, SEP);
      *instance++ = '\0';
      const DynRow *r = g_hash_table_lookup(all, keys[i]);
      StatsRow row = { parts, id, instance, "processed", r->processed, r->is_static ? 'a' : 'd' };
      fn(&row, user_data);
      if (!r->is_static)
        {
          row.type = "stamp";
          row.value = (uint64_t) r->stamp;
          fn(&row, user_data);
        }
      g_free(parts);
    }
  g_free(keys);
  g_hash_table_unref(all);
}

GHashTable *
stats_dyn_take_totals(StatsDyn *d)
{
  return _merge(d, 0);
}
