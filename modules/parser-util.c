/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared by the name-value parsers: handle cache, scratch, template(). */
#include "parser-util.h"
#include "sluice/strbuf.h"

#include <stdint.h>
#include <string.h>

/* ---- handle cache ------------------------------------------------------- */

#define HANDLE_CACHE_SIZE 1024 /* a power of two; 16 KiB per thread */

/* A hit is checked against the registry's own copy of the name, which
 * lives as long as the process, so an entry keeps a pointer to it and no
 * string of its own. */
typedef ParserNameMemo HandleCacheEntry; /* name NULL: an empty slot */

/* Thread-local and fixed-size: no allocation and nothing to free when a
 * worker exits. */
static __thread HandleCacheEntry handle_cache[HANDLE_CACHE_SIZE];

/* Eight bytes at a time (the last eight overlapping the ones before):
 * names are short, and this runs for every pair. */
static inline uint32_t
_name_hash(const char *name, size_t len)
{
  uint64_t h = 0x9e3779b97f4a7c15ull ^ len, w;
  if (len < 4)
    {
      w = 0;
      for (size_t i = 0; i < len; i++)
        w = (w << 8) | (uint8_t) name[i];
      h = (h ^ w) * 0xff51afd7ed558ccdull;
    }
  else if (len < 8)
    {
      uint32_t lo, hi; /* overlapping */
      memcpy(&lo, name, 4);
      memcpy(&hi, name + len - 4, 4);
      h = (h ^ ((uint64_t) hi << 32 | lo)) * 0xff51afd7ed558ccdull;
    }
  else
    {
      const char *last = name + len - 8;
      for (; name < last; name += 8)
        {
          memcpy(&w, name, 8);
          h = (h ^ w) * 0xff51afd7ed558ccdull;
          h ^= h >> 32;
        }
      memcpy(&w, last, 8);
      h = (h ^ w) * 0xff51afd7ed558ccdull;
    }
  h ^= h >> 32;
  return (uint32_t) (h ^ (h >> 29));
}

static inline bool
_entry_is(const HandleCacheEntry *e, const char *name, size_t len)
{
  return e->name && e->len == len && parser_same_bytes(e->name, name, len);
}

/* Two ways: a name goes to a pair of slots, so two names of one message
 * that hash alike do not throw each other out on every message.  The entry
 * that holds name, or NULL when name is not cached (an alias such as MSG
 * interns to a name of its own): then *handle is all there is. */
static const HandleCacheEntry *
_cache_lookup(const char *name, size_t len, NVHandle *handle)
{
  uint32_t hash = _name_hash(name, len);
  HandleCacheEntry *pair = &handle_cache[hash & (HANDLE_CACHE_SIZE - 2)];
  if (_entry_is(&pair[0], name, len))
    return &pair[0];
  if (_entry_is(&pair[1], name, len))
    return &pair[1];
  HandleCacheEntry *e = &pair[0];
  if (pair[0].name && !pair[1].name)
    e = &pair[1];
  else if (pair[0].name)
    pair[1] = pair[0]; /* the older one goes */
  NVHandle h = log_msg_get_value_handle(name, (ssize_t) len);
  size_t have_len = 0;
  const char *have = log_msg_get_value_name(h, &have_len);
  *handle = h;
  if (!have || have_len != len || memcmp(have, name, len) != 0)
    return NULL;
  e->name = have;
  e->len = (uint32_t) len;
  e->handle = h;
  return e;
}

NVHandle
parser_nv_handle(const char *name, size_t len)
{
  NVHandle h;
  const HandleCacheEntry *e = _cache_lookup(name, len, &h);
  return e ? e->handle : h;
}

NVHandle
parser_nv_handle_remember(ParserNameMemo *memo, const char *name, size_t len)
{
  NVHandle h;
  const HandleCacheEntry *e = _cache_lookup(name, len, &h);
  if (!e)
    return h;
  *memo = *e;
  return e->handle;
}

/* ---- scratch ------------------------------------------------------------ */

GString *
parser_scratch_get(int slot)
{
  /* the template engine's per-thread strings, from a range of their own */
  g_assert(slot >= 0 && slot < PARSER_SCRATCH_MAX);
  return log_template_scratch_get(LOG_TEMPLATE_SCRATCH_PARSERS + slot);
}

/* ---- input ------------------------------------------------------------- */

const char *
parser_input_text(const ParserInput *in, const LogMsg *msg, size_t *len, bool *from_msg)
{
  const char *text = parser_input_get(in, msg, len);
  *from_msg = in->tmpl == NULL;
  const char *nul = memchr(text, '\0', *len);
  if (nul)
    *len = (size_t) (nul - text);
  return text;
}
