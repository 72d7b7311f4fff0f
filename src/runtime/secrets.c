/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The credential store (sluice/secrets.h): two tables under one lock, the
 * secrets by key and the states by key.  Secrets are kept in locked memory
 * where the system allows it (mlock; a failure is not an error: an
 * unprivileged daemon has a small limit; never unlocked, as a page may
 * hold several) and wiped when replaced.
 */
#include "sluice/secrets.h"

#include <string.h>
#include <sys/mman.h>

typedef struct Secret
{
  char *bytes;
  size_t len;
} Secret;

static GMutex lock;
static GHashTable *secrets; /* key -> Secret */
static GHashTable *states;  /* key -> SluiceSecretState (as a pointer) */
static GPtrArray *order;    /* keys of states, in the order first listed */
static unsigned generation;

void
sluice_secret_wipe(void *p, size_t len)
{
  if (p && len)
    explicit_bzero(p, len);
}

static void
_secret_free(gpointer p)
{
  Secret *s = p;
  /* no munlock: locks do not nest, and the page may hold another secret */
  sluice_secret_wipe(s->bytes, s->len);
  g_free(s->bytes);
  g_free(s);
}

static void
_tables(void)
{
  if (secrets)
    return;
  secrets = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, _secret_free);
  states = g_hash_table_new(g_str_hash, g_str_equal);
  order = g_ptr_array_new_with_free_func(g_free);
}

void
sluice_secret_add(const char *key, const char *secret, size_t len)
{
  Secret *s = g_new(Secret, 1);
  s->bytes = g_malloc(len ? len : 1);
  s->len = len;
  (void) mlock(s->bytes, len ? len : 1);
  memcpy(s->bytes, secret, len);
  g_mutex_lock(&lock);
  _tables();
  g_hash_table_replace(secrets, g_strdup(key), s);
  generation++;
  g_mutex_unlock(&lock);
}

bool
sluice_secret_copy(const char *key, char *buf, size_t size, size_t *len)
{
  g_mutex_lock(&lock);
  Secret *s = secrets ? g_hash_table_lookup(secrets, key) : NULL;
  bool ok = s && s->len <= size;
  *len = s ? s->len : 0;
  if (ok)
    memcpy(buf, s->bytes, s->len);
  g_mutex_unlock(&lock);
  return ok;
}

unsigned
sluice_secret_generation(void)
{
  g_mutex_lock(&lock);
  unsigned g = generation;
  g_mutex_unlock(&lock);
  return g;
}

void
sluice_secret_set_state(const char *key, SluiceSecretState state)
{
  g_mutex_lock(&lock);
  _tables();
  gpointer k;
  if (!g_hash_table_lookup_extended(states, key, &k, NULL))
    {
      k = g_strdup(key);
      g_ptr_array_add(order, k);
    }
  g_hash_table_insert(states, k, GINT_TO_POINTER(state));
  g_mutex_unlock(&lock);
}

void
sluice_secret_status(GString *out)
{
  static const char *const names[] = { "PENDING", "SUCCESS", "INVALID_PASSWORD", "FAILED" };
  g_mutex_lock(&lock);
  for (guint i = 0; order && i < order->len; i++)
    {
      const char *key = g_ptr_array_index(order, i);
      g_string_append_printf(out, "%s\t%s\n", key, names[GPOINTER_TO_INT(g_hash_table_lookup(states, key))]);
    }
  g_mutex_unlock(&lock);
}
