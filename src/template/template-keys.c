/* SPDX-License-Identifier: GPL-2.0-or-later */
/* LogTemplateKeys (sluice/template.h): a writer's entries by the keys of
 * its path template's expansions.
 *
 * A key is what log_template_format_key writes: each piece (a value, a
 * macro, a function's output) after its length.  The table is open
 * addressing over the keys' hashes.  A template whose pieces are values or
 * host macros (${HOST}/${PROGRAM}.log) is looked up by views of its pieces
 * where the message holds them: the key is copied only when it is new.
 * For files split by host and program, building each message's key and
 * looking it up in a GHashTable was a sixth of the instructions a message
 * (callgrind, tcp-macro-split). */
#include "template-internal.h"

typedef struct KeyEntry
{
  uint64_t hash;
  char *key; /* NULL: a free slot */
  size_t len;
  void *value;
} KeyEntry;

struct LogTemplateKeys
{
  const LogTemplate *t;
  bool viewable;   /* found by log_template_key_views */
  KeyEntry *slots; /* mask + 1 of them, at most half taken */
  size_t mask, count;
  GString *key;    /* the last find's, when it missed or had no views */
  KeyEntry *found; /* the last find's entry, when it hit */
  uint64_t hash;   /* the last find's */
};

#define KEYS_FIRST_SLOTS 16

static uint64_t
_mix(uint64_t h, const char *p, size_t len)
{
  return (h ^ str_hash_bytes(p, len)) * 0x9e3779b97f4a7c15u;
}

#define KEYS_SEED 0x2545f4914f6cdd1du

static uint64_t
_hash_views(const TemplateView *v, size_t n)
{
  uint64_t h = KEYS_SEED;
  for (size_t i = 0; i < n; i++)
    h = _mix(h, v[i].p, v[i].len);
  return h ^ (h >> 32);
}

/* The same hash over a key as held: its pieces after their lengths. */
static uint64_t
_hash_key(const char *k, size_t len)
{
  uint64_t h = KEYS_SEED;
  for (const char *end = k + len; k < end;)
    {
      uint32_t piece;
      memcpy(&piece, k, sizeof(piece));
      h = _mix(h, k + sizeof(piece), piece);
      k += sizeof(piece) + piece;
    }
  return h ^ (h >> 32);
}

/* A key of the template the table is for has as many pieces as v: only
 * their lengths and bytes can differ. */
static bool
_equal_views(const KeyEntry *e, const TemplateView *v, size_t n)
{
  const char *k = e->key;
  for (size_t i = 0; i < n; i++)
    {
      uint32_t piece;
      memcpy(&piece, k, sizeof(piece));
      k += sizeof(piece);
      if (piece != v[i].len || (piece && memcmp(k, v[i].p, piece) != 0)) /* an empty value may be NULL */
        return false;
      k += piece;
    }
  return true;
}

/* The slot of the key of hash h that v shows: its entry, or the free
 * slot it would take (linear probing; at most half the slots are taken). */
static KeyEntry *
_slot_views(const LogTemplateKeys *k, uint64_t h, const TemplateView *v, size_t n)
{
  for (size_t i = (size_t) h & k->mask;; i = (i + 1) & k->mask)
    {
      KeyEntry *e = &k->slots[i];
      if (!e->key || (e->hash == h && _equal_views(e, v, n)))
        return e;
    }
}

/* The same for a key as held; a free slot for a NULL key. */
static KeyEntry *
_slot_key(const LogTemplateKeys *k, uint64_t h, const char *key, size_t len)
{
  for (size_t i = (size_t) h & k->mask;; i = (i + 1) & k->mask)
    {
      KeyEntry *e = &k->slots[i];
      if (!e->key || (key && e->hash == h && e->len == len && memcmp(e->key, key, len) == 0))
        return e;
    }
}

LogTemplateKeys *
log_template_keys_new(const LogTemplate *t)
{
  LogTemplateKeys *k = g_new0(LogTemplateKeys, 1);
  k->t = t;
  k->viewable = log_template_key_viewable(t);
  k->slots = g_new0(KeyEntry, KEYS_FIRST_SLOTS);
  k->mask = KEYS_FIRST_SLOTS - 1;
  k->key = g_string_sized_new(64);
  return k;
}

void
log_template_keys_clear(LogTemplateKeys *k)
{
  if (!k)
    return;
  if (k->found)
    {
      /* the last find's key outlives its entry, for _text and _add */
      g_string_truncate(k->key, 0);
      g_string_append_len(k->key, k->found->key, (gssize) k->found->len);
      k->found = NULL;
    }
  for (size_t i = 0; i <= k->mask; i++)
    g_free(k->slots[i].key);
  memset(k->slots, 0, (k->mask + 1) * sizeof(KeyEntry));
  k->count = 0;
}

void
log_template_keys_free(LogTemplateKeys *k)
{
  if (!k)
    return;
  log_template_keys_clear(k);
  g_free(k->slots);
  g_string_free(k->key, TRUE);
  g_free(k);
}

void *
log_template_keys_find(LogTemplateKeys *k, const LogMsg *msg, const LogTemplateOptions *opts)
{
  KeyEntry *e;
  if (k->viewable && !(opts && opts->escape))
    {
      TemplateView v[TEMPLATE_KEY_VIEWS_MAX];
      size_t n = log_template_key_views(k->t, msg, v);
      uint64_t h = _hash_views(v, n);
      e = _slot_views(k, h, v, n);
      k->hash = h;
      if (e->key)
        {
          k->found = e;
          return e->value;
        }
      /* new: made as a key, for log_template_keys_text and _add */
      k->found = NULL;
      g_string_truncate(k->key, 0);
      log_template_format_key(k->t, msg, opts, k->key);
      return NULL;
    }
  g_string_truncate(k->key, 0);
  log_template_format_key(k->t, msg, opts, k->key);
  uint64_t h = _hash_key(k->key->str, k->key->len);
  e = _slot_key(k, h, k->key->str, k->key->len);
  k->hash = h;
  k->found = e->key ? e : NULL;
  return e->key ? e->value : NULL;
}

void
log_template_keys_text(const LogTemplateKeys *k, GString *out)
{
  if (k->found)
    log_template_format_from_key(k->t, k->found->key, k->found->len, out);
  else
    log_template_format_from_key(k->t, k->key->str, k->key->len, out);
}

static void
_grow(LogTemplateKeys *k)
{
  KeyEntry *old = k->slots;
  size_t old_n = k->mask + 1;
  k->mask = 2 * old_n - 1;
  k->slots = g_new0(KeyEntry, k->mask + 1);
  for (size_t i = 0; i < old_n; i++)
    if (old[i].key)
      {
        *_slot_key(k, old[i].hash, NULL, 0) = old[i];
      }
  g_free(old);
}

void
log_template_keys_add(LogTemplateKeys *k, void *value, size_t max)
{
  if (k->found)
    {
      k->found->value = value;
      return;
    }
  if (k->count >= max)
    log_template_keys_clear(k);
  if (2 * (k->count + 1) > k->mask + 1)
    _grow(k);
  KeyEntry *e = _slot_key(k, k->hash, k->key->str, k->key->len);
  if (!e->key)
    {
      e->key = g_malloc(k->key->len + 1); /* taken, even for a key of no pieces */
      memcpy(e->key, k->key->str, k->key->len);
      e->len = k->key->len;
      e->hash = k->hash;
      k->count++;
    }
  e->value = value;
  k->found = e;
}

size_t
log_template_keys_size(const LogTemplateKeys *k)
{
  return k ? k->count : 0;
}
