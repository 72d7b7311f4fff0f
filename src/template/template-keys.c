/* SPDX-License-Identifier: GPL-2.0-or-later */
/* LogTemplateKeys (sluice/template.h): a writer's entries by the keys of
 * its path template's expansions. */
#include "sluice/strbuf.h"
#include "sluice/template.h"

struct LogTemplateKeys
{
  const LogTemplate *t;
  GHashTable *table; /* key as held (below) -> the writer's value */
  GString *key;      /* the last find's, as held */
};

/* A key as the table holds it: its length as four bytes, then its bytes. */
static uint32_t
_key_len(const char *k)
{
  uint32_t n;
  memcpy(&n, k, sizeof(n));
  return n;
}

static guint
_key_hash(gconstpointer key)
{
  return str_hash_bytes((const char *) key + sizeof(uint32_t), _key_len(key));
}

static gboolean
_key_equal(gconstpointer a, gconstpointer b)
{
  uint32_t n = _key_len(a);
  return n == _key_len(b) && memcmp((const char *) a + sizeof(n), (const char *) b + sizeof(n), n) == 0;
}

LogTemplateKeys *
log_template_keys_new(const LogTemplate *t)
{
  LogTemplateKeys *k = g_new0(LogTemplateKeys, 1);
  k->t = t;
  k->table = g_hash_table_new_full(_key_hash, _key_equal, g_free, NULL);
  k->key = g_string_sized_new(64);
  return k;
}

void
log_template_keys_free(LogTemplateKeys *k)
{
  if (!k)
    return;
  g_hash_table_destroy(k->table);
  g_string_free(k->key, TRUE);
  g_free(k);
}

void *
log_template_keys_find(LogTemplateKeys *k, const LogMsg *msg, const LogTemplateOptions *opts)
{
  GString *key = k->key; /* made with room for more than the length */
  key->len = sizeof(uint32_t);
  log_template_format_key(k->t, msg, opts, key);
  uint32_t n = (uint32_t) (key->len - sizeof(n));
  memcpy(key->str, &n, sizeof(n));
  return g_hash_table_lookup(k->table, key->str);
}

void
log_template_keys_text(const LogTemplateKeys *k, GString *out)
{
  log_template_format_from_key(k->t, k->key->str + sizeof(uint32_t), k->key->len - sizeof(uint32_t), out);
}

void
log_template_keys_add(LogTemplateKeys *k, void *value, size_t max)
{
  if (g_hash_table_size(k->table) >= max)
    g_hash_table_remove_all(k->table);
  g_hash_table_replace(k->table, g_memdup2(k->key->str, k->key->len), value);
}

void
log_template_keys_clear(LogTemplateKeys *k)
{
  if (k)
    g_hash_table_remove_all(k->table);
}

size_t
log_template_keys_size(const LogTemplateKeys *k)
{
  return k ? g_hash_table_size(k->table) : 0;
}
