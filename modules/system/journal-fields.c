/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One journal entry as a message: the mapping of journal.h, which follows
 * syslog-ng 3.38's journal reader field for field.  The one deliberate
 * difference: syslog-ng ORs whatever number PRIORITY or SYSLOG_FACILITY
 * holds into the priority (PRIORITY=9 gives facility+1, severity 1; -1
 * sets every bit), Sluice ignores a PRIORITY outside 0-7 and a
 * SYSLOG_FACILITY outside 0-23, keeping what was there.  Text that is not
 * a number reads as 0, as atoi() reads it in syslog-ng.
 */
#include "journal.h"

#include <glib.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

static NVHandle
_prefixed_handle(const char *prefix, size_t prefix_len, const char *key)
{
  char *name = g_strdup_printf("%.*s%s", (int) prefix_len, prefix, key);
  NVHandle h = log_msg_get_value_handle(name, -1);
  g_free(name);
  return h;
}

bool
journal_map_options_init(JournalMapOptions *o, const char *prefix, size_t max_field_size, uint16_t default_pri,
                         TimeZoneInfo *tz)
{
  memset(o, 0, sizeof(*o));
  o->prefix = prefix ? prefix : "";
  o->prefix_len = strlen(o->prefix);
  o->max_field_size = max_field_size > 0 ? max_field_size : 1;
  o->default_pri = default_pri;
  o->tz = tz;
  o->ident = _prefixed_handle(o->prefix, o->prefix_len, "SYSLOG_IDENTIFIER");
  o->comm = _prefixed_handle(o->prefix, o->prefix_len, "_COMM");
  return o->ident != LM_V_NONE && o->comm != LM_V_NONE;
}

void
journal_msg_begin(LogMsg *msg, const JournalMapOptions *o)
{
  msg->pri = o->default_pri;
}

/* atoi() on len bytes: optional blanks and sign, then digits; anything
 * else ends the number, no digits is 0.  Saturates instead of overflowing. */
static long
_atoi(const char *s, size_t len)
{
  size_t i = 0;
  while (i < len && (s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r')))
    i++;
  bool neg = false;
  if (i < len && (s[i] == '-' || s[i] == '+'))
    neg = s[i++] == '-';
  long v = 0;
  for (; i < len && s[i] >= '0' && s[i] <= '9'; i++)
    v = v > (LONG_MAX - 9) / 10 ? LONG_MAX : v * 10 + (s[i] - '0');
  return neg ? -v : v;
}

static bool
_key_is(const char *key, size_t klen, const char *name)
{
  return strlen(name) == klen && memcmp(key, name, klen) == 0;
}

/* The fields syslog-ng 3.38 also puts in the built-in values. */
static void
_map_builtin(LogMsg *msg, const char *key, size_t klen, const char *value, size_t vlen)
{
  switch (key[0])
    {
    case 'M':
      if (_key_is(key, klen, "MESSAGE"))
        log_msg_set_value(msg, LM_V_MESSAGE, value, (ssize_t) vlen);
      break;
    case 'P':
      if (_key_is(key, klen, "PRIORITY"))
        {
          long sev = _atoi(value, vlen);
          if (sev >= 0 && sev <= 7)
            msg->pri = (uint16_t) ((msg->pri & ~7u) | (unsigned) sev);
        }
      break;
    case 'S':
      if (_key_is(key, klen, "SYSLOG_FACILITY"))
        {
          long fac = _atoi(value, vlen);
          if (fac >= 0 && fac <= 23)
            msg->pri = (uint16_t) ((msg->pri & 7u) | ((unsigned) fac << 3));
        }
      break;
    case '_':
      if (_key_is(key, klen, "_HOSTNAME"))
        log_msg_set_value(msg, LM_V_HOST, value, (ssize_t) vlen);
      else if (_key_is(key, klen, "_PID"))
        log_msg_set_value(msg, LM_V_PID, value, (ssize_t) vlen);
      break;
    default:
      break;
    }
}

/* The handles of PREFIX + KEY names, per thread: an entry has a dozen
 * fields or so, and looking each name up in the registry (a lock and a
 * string hash) was the largest part of reading one.  A name's handle never
 * changes, so the cache needs no invalidation; a slot holds the last name
 * that hashed to it. */
#define NAME_CACHE_SLOTS 256
#define NAME_CACHE_MAX 80

typedef struct NameSlot
{
  uint32_t len; /* 0: empty */
  NVHandle handle;
  char name[NAME_CACHE_MAX];
} NameSlot;

static _Thread_local NameSlot name_cache[NAME_CACHE_SLOTS];

static uint32_t
_hash_name(const char *a, size_t alen, const char *b, size_t blen)
{
  uint32_t h = 2166136261u; /* FNV-1a */
  for (size_t i = 0; i < alen; i++)
    h = (h ^ (uint8_t) a[i]) * 16777619u;
  for (size_t i = 0; i < blen; i++)
    h = (h ^ (uint8_t) b[i]) * 16777619u;
  return h;
}

static NVHandle
_field_handle(const JournalMapOptions *o, const char *key, size_t klen)
{
  size_t nlen = o->prefix_len + klen;
  if (nlen >= NAME_CACHE_MAX)
    {
      char *name = g_strdup_printf("%.*s%.*s", (int) o->prefix_len, o->prefix, (int) klen, key);
      NVHandle h = log_msg_get_value_handle(name, (ssize_t) nlen);
      g_free(name);
      return h;
    }
  NameSlot *slot = &name_cache[_hash_name(o->prefix, o->prefix_len, key, klen) % NAME_CACHE_SLOTS];
  if (slot->len == nlen && memcmp(slot->name, o->prefix, o->prefix_len) == 0
      && memcmp(slot->name + o->prefix_len, key, klen) == 0)
    return slot->handle;
  memcpy(slot->name, o->prefix, o->prefix_len);
  memcpy(slot->name + o->prefix_len, key, klen);
  slot->name[nlen] = '\0';
  slot->handle = log_msg_get_value_handle(slot->name, (ssize_t) nlen);
  /* a name the registry had no room for is not kept: asked again later */
  slot->len = slot->handle != LM_V_NONE ? (uint32_t) nlen : 0;
  return slot->handle;
}

void
journal_msg_add_field(LogMsg *msg, const JournalMapOptions *o, const void *data, size_t len)
{
  const char *key = data;
  const char *eq = memchr(key, '=', len);
  if (!eq || eq == key)
    return;
  size_t klen = (size_t) (eq - key);
  const char *value = eq + 1;
  size_t rest = len - klen - 1;
  /* syslog-ng copies the value as a C string: it ends at a NUL byte */
  const char *nul = memchr(value, '\0', rest);
  size_t vlen = nul ? (size_t) (nul - value) : rest;
  if (vlen > o->max_field_size)
    vlen = o->max_field_size;
  _map_builtin(msg, key, klen, value, vlen);

  log_msg_set_value(msg, _field_handle(o, key, klen), value, (ssize_t) vlen);
}

void
journal_msg_finish(LogMsg *msg, const JournalMapOptions *o)
{
  size_t len = 0;
  const char *v = log_msg_is_value_set(msg, o->ident) ? log_msg_get_value(msg, o->ident, &len) : NULL;
  if (!v || len == 0)
    v = log_msg_is_value_set(msg, o->comm) ? log_msg_get_value(msg, o->comm, &len) : NULL;
  if (v && len > 0)
    log_msg_set_value(msg, LM_V_PROGRAM, v, (ssize_t) len);
}

void
journal_msg_set_time(LogMsg *msg, const JournalMapOptions *o, uint64_t realtime_usec)
{
  LogStamp *st = &msg->stamps[LM_TS_STAMP];
  st->sec = (int64_t) (realtime_usec / 1000000u);
  st->usec = (uint32_t) (realtime_usec % 1000000u);
  st->gmtoff = tz_offset_at(o->tz ? o->tz : tz_local(), st->sec);
}
