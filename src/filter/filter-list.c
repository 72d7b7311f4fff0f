/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * source(), in-list() and rate-limit().
 *
 * source(NAME) compares ${SOURCE}, which every source sets to the name of
 * its statement (an interned string, so the compare is a length check and
 * a memcmp).  in-list() loads its file once, at configuration time, into
 * an open-addressing hash set looked up with the value's bytes as they
 * are (no copy, no terminator).  rate-limit() (syslog-ng 4.x; 3.38 has
 * none) keeps a token bucket per expansion of its template in sharded
 * hash tables, one mutex per shard, so workers rarely wait for each other.
 */
#include "filter-internal.h"
#include "sluice/cfg-options.h"
#include "sluice/cfg-tree.h"
#include "sluice/scratch.h"
#include "sluice/timeutil.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- source() ----------------------------------------------------------- */

FilterExpr *
filter_source_compile(const CfgNode *call, CfgError *err)
{
  if (call->n_args != 1 || call->n_children || call->args[0].type == CFG_VAL_OP)
    {
      cfg_error_set(err, &call->loc, "source() takes the name of a source statement");
      return NULL;
    }
  FilterExpr *f = calloc(1, sizeof(*f));
  f->kind = FILTER_SOURCE;
  f->handle = LM_V_SOURCE;
  f->pattern = g_strdup(call->args[0].str);
  f->pattern_len = strlen(f->pattern);
  return f;
}

bool
filter_source_eval(const FilterExpr *f, const LogMsg *msg)
{
  size_t len;
  const char *v = log_msg_get_value(msg, LM_V_SOURCE, &len);
  return len == f->pattern_len && memcmp(v, f->pattern, len) == 0;
}

/* ---- a set of byte strings ------------------------------------------------ */

typedef struct SetEntry
{
  char *str; /* NULL: empty slot */
  size_t len;
  uint32_t hash;
} SetEntry;

struct FilterStrSet
{
  SetEntry *slots;
  size_t mask; /* slots - 1; a power of two minus one */
  size_t n;
};

/* FNV-1a: short keys, no alignment needs */
static uint32_t
_hash(const char *s, size_t len)
{
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < len; i++)
    h = (h ^ (uint8_t) s[i]) * 16777619u;
  return h;
}

static SetEntry *
_set_slot(const FilterStrSet *set, const char *s, size_t len, uint32_t h)
{
  for (size_t i = h & set->mask;; i = (i + 1) & set->mask)
    {
      SetEntry *e = &set->slots[i];
      if (!e->str || (e->hash == h && e->len == len && memcmp(e->str, s, len) == 0))
        return e;
    }
}

static void
_set_add(FilterStrSet *set, const char *s, size_t len)
{
  if ((set->n + 1) * 2 > set->mask + 1)
    {
      /* keep at most half full so that probes stay short */
      SetEntry *old = set->slots;
      size_t old_n = set->mask + 1;
      set->mask = old_n * 2 - 1;
      set->slots = calloc(old_n * 2, sizeof(SetEntry));
      for (size_t i = 0; i < old_n; i++)
        if (old[i].str)
          *_set_slot(set, old[i].str, old[i].len, old[i].hash) = old[i];
      free(old);
    }
  uint32_t h = _hash(s, len);
  SetEntry *e = _set_slot(set, s, len, h);
  if (e->str)
    return;
  e->str = g_strndup(s, len);
  e->len = len;
  e->hash = h;
  set->n++;
}

static bool
_set_contains(const FilterStrSet *set, const char *s, size_t len)
{
  return _set_slot(set, s, len, _hash(s, len))->str != NULL;
}

void
filter_str_set_free(FilterStrSet *set)
{
  if (!set)
    return;
  for (size_t i = 0; i <= set->mask; i++)
    g_free(set->slots[i].str);
  free(set->slots);
  free(set);
}

/* ---- in-list() ---------------------------------------------------------- */

typedef struct InListOptions
{
  char *value;
} InListOptions;

static const CfgOption in_list_table[] = {
  { .name = "value", .type = CFG_OPT_STRING, .offset = offsetof(InListOptions, value) },
  { .name = NULL },
};

/* A list file is read whole; lists of a few million names fit. */
#define IN_LIST_MAX_BYTES (256u * 1024 * 1024)

/* One entry per line.  syslog-ng 3.38 drops the last byte of every line
 * (the newline, or the last character of a final line without one) and
 * keeps everything else: blanks, '#', empty lines. */
static bool
_load_list(FilterStrSet *set, const char *path, const CfgNode *call, CfgError *err)
{
  size_t len;
  char *why = NULL;
  char *text = cfg_file_read(path, IN_LIST_MAX_BYTES, &len, &why);
  if (!text)
    {
      cfg_error_set(err, &call->args[0].loc, "in-list(): cannot open the list file '%s': %s", path, why);
      g_free(why);
      return false;
    }
  for (size_t at = 0; at < len;)
    {
      const char *nl = memchr(text + at, '\n', len - at);
      size_t end = nl ? (size_t) (nl - text) + 1 : len;
      _set_add(set, text + at, end - at - 1);
      at = end;
    }
  g_free(text);
  return true;
}

FilterExpr *
filter_in_list_compile(const CfgNode *call, CfgError *err)
{
  if (call->n_args < 1 || call->n_args > 2 || call->args[0].type == CFG_VAL_OP)
    {
      cfg_error_set(err, &call->loc, "in-list() takes a file name and value(NAME)");
      return NULL;
    }
  InListOptions o;
  cfg_options_defaults(in_list_table, &o);
  if (!cfg_options_apply(in_list_table, call, &o, "in-list()", err))
    {
      cfg_options_free(in_list_table, &o);
      return NULL;
    }
  /* in-list("file", "NAME") is the same as in-list("file" value("NAME")) */
  const char *name = call->n_args == 2 ? call->args[1].str : o.value;
  if (!name || (call->n_args == 2 && o.value))
    {
      cfg_error_set(err, &call->loc, "in-list() needs value(NAME) once: the value to look up");
      cfg_options_free(in_list_table, &o);
      return NULL;
    }
  FilterExpr *f = calloc(1, sizeof(*f));
  f->kind = FILTER_IN_LIST;
  f->handle = log_msg_get_value_handle(name[0] == '$' ? name + 1 : name, -1);
  cfg_options_free(in_list_table, &o);
  f->set = calloc(1, sizeof(FilterStrSet));
  f->set->mask = 15;
  f->set->slots = calloc(16, sizeof(SetEntry));
  if (!_load_list(f->set, call->args[0].str, call, err))
    {
      filter_expr_free(f);
      return NULL;
    }
  return f;
}

bool
filter_in_list_eval(const FilterExpr *f, const LogMsg *msg)
{
  size_t len;
  const char *v = log_msg_get_value(msg, f->handle, &len);
  return _set_contains(f->set, v, len);
}

/* ---- rate-limit() --------------------------------------------------------- */

/* A bucket holds up to rate tokens and gains rate per second; a message
 * takes one or is filtered out.  A new key starts with a full bucket, and
 * time is only taken off the clock when it adds a whole token, so slow
 * accrual is not lost to rounding (syslog-ng 4's semantics). */
typedef struct Bucket
{
  int64_t tokens;
  int64_t last_us;
} Bucket;

#define RATE_SHARDS 16

typedef struct RateShard
{
  pthread_mutex_t lock;
  GHashTable *buckets; /* key string -> Bucket */
  Bucket single;       /* without template(): one bucket for all */
} __attribute__((aligned(64))) RateShard;

struct FilterRateLimit
{
  LogTemplate *key; /* NULL: one bucket */
  int64_t rate;
  RateShard shards[RATE_SHARDS];
};

typedef struct RateOptions
{
  char *template_text;
  int64_t rate;
} RateOptions;

static const CfgOption rate_table[] = {
  { .name = "template", .type = CFG_OPT_STRING, .offset = offsetof(RateOptions, template_text) },
  { .name = "rate", .type = CFG_OPT_INT, .offset = offsetof(RateOptions, rate), .min = 1, .max = INT32_MAX },
  { .name = NULL },
};

static int64_t (*rate_clock)(void) = mono_us;

void
filter_rate_limit_set_clock(int64_t (*now_us)(void))
{
  rate_clock = now_us ? now_us : mono_us;
}

FilterExpr *
filter_rate_limit_compile(const CfgNode *call, CfgError *err)
{
  if (call->n_args)
    {
      cfg_error_set(err, &call->args[0].loc, "rate-limit() takes template() and rate(), no positional arguments");
      return NULL;
    }
  RateOptions o;
  cfg_options_defaults(rate_table, &o);
  if (!cfg_options_apply(rate_table, call, &o, "rate-limit()", err))
    {
      cfg_options_free(rate_table, &o);
      return NULL;
    }
  if (o.rate <= 0)
    {
      cfg_error_set(err, &call->loc, "rate-limit() needs rate(N), the messages per second allowed for each key");
      cfg_options_free(rate_table, &o);
      return NULL;
    }
  FilterRateLimit *r = calloc(1, sizeof(*r));
  r->rate = o.rate;
  if (o.template_text)
    {
      char *terr = NULL;
      r->key = log_template_compile(o.template_text, &terr);
      if (!r->key)
        {
          cfg_error_set(err, &call->loc, "rate-limit(): error in template(): %s", terr);
          g_free(terr);
          cfg_options_free(rate_table, &o);
          free(r);
          return NULL;
        }
    }
  cfg_options_free(rate_table, &o);
  for (int i = 0; i < RATE_SHARDS; i++)
    {
      pthread_mutex_init(&r->shards[i].lock, NULL);
      r->shards[i].buckets = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
      r->shards[i].single = (Bucket) { .tokens = r->rate, .last_us = -1 };
    }
  FilterExpr *f = calloc(1, sizeof(*f));
  f->kind = FILTER_RATE_LIMIT;
  f->rate = r;
  return f;
}

static bool
_take_token(Bucket *b, int64_t rate, int64_t now)
{
  if (b->last_us < 0)
    b->last_us = now;
  int64_t elapsed = now - b->last_us;
  /* a second or more fills any bucket; capping also keeps the product small */
  int64_t gained = elapsed >= 1000000 ? rate : elapsed * rate / 1000000;
  if (gained > 0)
    {
      b->tokens = b->tokens + gained > rate ? rate : b->tokens + gained;
      b->last_us = now;
    }
  if (b->tokens < 1)
    return false;
  b->tokens--;
  return true;
}

static _Thread_local GString *tls_key; /* sluice/scratch.h */
static _Thread_local bool tls_key_busy; /* a key template that rate-limits again inside $(if) */

bool
filter_rate_limit_eval(const FilterExpr *f, const LogMsg *msg, const LogTemplateOptions *opts)
{
  FilterRateLimit *r = f->rate;
  int64_t now = rate_clock();
  if (!r->key)
    {
      RateShard *s = &r->shards[0];
      pthread_mutex_lock(&s->lock);
      bool ok = _take_token(&s->single, r->rate, now);
      pthread_mutex_unlock(&s->lock);
      return ok;
    }
  GString *mine = scratch_gstring(&tls_key, 64);
  GString *key = tls_key_busy ? g_string_sized_new(64) : mine;
  bool nested = key != mine;
  g_string_truncate(key, 0);
  tls_key_busy = true;
  log_template_format(r->key, msg, opts, key);
  tls_key_busy = nested;
  guint h = g_str_hash(key->str);
  RateShard *s = &r->shards[(h >> 4) % RATE_SHARDS];
  pthread_mutex_lock(&s->lock);
  Bucket *b = g_hash_table_lookup(s->buckets, key->str);
  if (!b)
    {
      b = g_new(Bucket, 1);
      *b = (Bucket) { .tokens = r->rate, .last_us = now };
      g_hash_table_insert(s->buckets, g_strdup(key->str), b);
    }
  bool ok = _take_token(b, r->rate, now);
  pthread_mutex_unlock(&s->lock);
  if (nested)
    g_string_free(key, TRUE);
  return ok;
}

void
filter_rate_limit_free(FilterRateLimit *r)
{
  if (!r)
    return;
  for (int i = 0; i < RATE_SHARDS; i++)
    {
      pthread_mutex_destroy(&r->shards[i].lock);
      g_hash_table_destroy(r->shards[i].buckets);
    }
  log_template_unref(r->key);
  free(r);
}
