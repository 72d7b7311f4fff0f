/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Name registries: value names and tag names interned into small integers.
 *
 * Interning happens at configuration time and, for parsers that make names
 * (kv-parser, json-parser), on the hot path: lookups take a read lock,
 * inserts a write lock.  Reading the name of a handle takes no lock at all:
 * names live in fixed chunks whose pointers never change once published.
 */
#include "nvregistry.h"

#include "sluice/internal-log.h"

#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK_BITS 10
#define CHUNK_SIZE (1u << CHUNK_BITS)
#define MAX_CHUNKS 1024 /* at most 1M names */

typedef struct RegEntry
{
  char *name;
  uint32_t name_len;
} RegEntry;

struct NameRegistry
{
  GRWLock lock;
  GHashTable *by_name; /* owned key (the entry's name) -> GUINT_TO_POINTER(id + 1) */
  _Atomic(RegEntry *) chunks[MAX_CHUNKS];
  atomic_uint count;
  uint32_t max;
  const char *what;
  bool full_logged;
};

NameRegistry *
name_registry_new(uint32_t max, const char *what)
{
  NameRegistry *self = calloc(1, sizeof(*self));
  if (!self)
    abort();
  self->max = MIN(max, (uint32_t) MAX_CHUNKS * CHUNK_SIZE);
  self->what = what;
  g_rw_lock_init(&self->lock);
  self->by_name = g_hash_table_new(g_str_hash, g_str_equal);
  return self;
}

static RegEntry *
_entry(NameRegistry *self, uint32_t id)
{
  if (id >= atomic_load_explicit(&self->count, memory_order_acquire))
    return NULL;
  RegEntry *chunk = atomic_load_explicit(&self->chunks[id >> CHUNK_BITS], memory_order_acquire);
  return &chunk[id & (CHUNK_SIZE - 1)];
}

static bool
_lookup_locked(NameRegistry *self, const char *key, uint32_t *id)
{
  gpointer value = g_hash_table_lookup(self->by_name, key);
  if (!value)
    return false;
  *id = GPOINTER_TO_UINT(value) - 1;
  return true;
}

bool
name_registry_lookup(NameRegistry *self, const char *name, size_t name_len, uint32_t *id)
{
  char stackbuf[256];
  char *key = name_len < sizeof(stackbuf) ? stackbuf : g_malloc(name_len + 1);
  memcpy(key, name, name_len);
  key[name_len] = '\0';

  g_rw_lock_reader_lock(&self->lock);
  bool found = _lookup_locked(self, key, id);
  g_rw_lock_reader_unlock(&self->lock);

  if (key != stackbuf)
    g_free(key);
  return found;
}

uint32_t
name_registry_intern(NameRegistry *self, const char *name, size_t name_len)
{
  uint32_t id;
  if (name_registry_lookup(self, name, name_len, &id))
    return id;

  g_rw_lock_writer_lock(&self->lock);
  char *key = g_strndup(name, name_len);
  if (_lookup_locked(self, key, &id))
    {
      g_rw_lock_writer_unlock(&self->lock);
      g_free(key);
      return id;
    }
  id = atomic_load_explicit(&self->count, memory_order_relaxed);
  if (id >= self->max)
    {
      bool first = !self->full_logged;
      self->full_logged = true;
      g_rw_lock_writer_unlock(&self->lock);
      g_free(key);
      if (first)
        {
          char max[16];
          snprintf(max, sizeof(max), "%u", self->max);
          sluice_log(SLUICE_LOG_ERROR, "Too many distinct names; values and tags under new names are not stored",
                     "what", self->what, "limit", max, NULL);
        }
      return NAME_REGISTRY_FULL;
    }
  RegEntry *chunk = atomic_load_explicit(&self->chunks[id >> CHUNK_BITS], memory_order_relaxed);
  if (!chunk)
    {
      chunk = g_new0(RegEntry, CHUNK_SIZE);
      atomic_store_explicit(&self->chunks[id >> CHUNK_BITS], chunk, memory_order_release);
    }
  RegEntry *e = &chunk[id & (CHUNK_SIZE - 1)];
  e->name = key;
  e->name_len = (uint32_t) name_len;
  g_hash_table_insert(self->by_name, key, GUINT_TO_POINTER(id + 1));
  atomic_store_explicit(&self->count, id + 1, memory_order_release);
  g_rw_lock_writer_unlock(&self->lock);
  return id;
}

void
name_registry_alias(NameRegistry *self, const char *alias, uint32_t id)
{
  g_rw_lock_writer_lock(&self->lock);
  g_hash_table_insert(self->by_name, g_strdup(alias), GUINT_TO_POINTER(id + 1));
  g_rw_lock_writer_unlock(&self->lock);
}

const char *
name_registry_name(NameRegistry *self, uint32_t id, size_t *name_len)
{
  RegEntry *e = _entry(self, id);
  if (!e)
    return NULL;
  if (name_len)
    *name_len = e->name_len;
  return e->name;
}

uint32_t
name_registry_count(NameRegistry *self)
{
  return atomic_load_explicit(&self->count, memory_order_acquire);
}
