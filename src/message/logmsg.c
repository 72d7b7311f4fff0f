/* SPDX-License-Identifier: GPL-2.0-or-later */
/* LogMsg: see include/sluice/logmsg.h for the model. */
#include "sluice/logmsg.h"
#include "sluice/uniqid.h"

#include "msgcache.h"
#include "nvregistry.h"

#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ARENA_SLACK 256
#define OVERFLOW_MIN 1024

struct LogMsgChunk
{
  LogMsgChunk *next;
  size_t size;
  _Alignas(16) char data[];
};

static NameRegistry *value_names;
static NameRegistry *tag_names;
static pthread_once_t registries_once = PTHREAD_ONCE_INIT;
#define MAX_VALUE_NAMES 65536 /* syslog-ng's limit */
/* Bit h is set when handle h names a structured-data parameter.  Whoever
 * hands a handle out sets its bit first (an idempotent atomic or), so a
 * thread holding a handle sees the bit without a lock or a registry
 * lookup: setting a new pair asks this on every pair. */
static _Atomic uint64_t sdata_handles[MAX_VALUE_NAMES / 64];
#ifndef NDEBUG
static atomic_long live_messages;
#endif

static const char *const builtin_names[LM_V_MAX] = {
  [LM_V_NONE] = "",
  [LM_V_HOST] = "HOST",
  [LM_V_HOST_FROM] = "HOST_FROM",
  [LM_V_PROGRAM] = "PROGRAM",
  [LM_V_PID] = "PID",
  [LM_V_MSGID] = "MSGID",
  [LM_V_MESSAGE] = "MESSAGE",
  [LM_V_LEGACY_MSGHDR] = "LEGACY_MSGHDR",
  [LM_V_SOURCE] = "SOURCE",
  [LM_V_RAWMSG] = "RAWMSG",
  [LM_V_TRANSPORT] = "TRANSPORT",
};

static void
_init_registries(void)
{
  /* syslog-ng's limits: 65535 value names, and as many tags */
  value_names = name_registry_new(MAX_VALUE_NAMES, "name-value pair names");
  for (int i = 0; i < LM_V_MAX; i++)
    name_registry_intern(value_names, builtin_names[i], strlen(builtin_names[i]));
  name_registry_alias(value_names, "MSG", LM_V_MESSAGE);
  tag_names = name_registry_new(65536, "tags");
}

static inline void
_ensure_registries(void)
{
  pthread_once(&registries_once, _init_registries);
}

/* ---- allocation -------------------------------------------------------- */

static LogMsg *
_msg_alloc(size_t payload)
{
  size_t need = sizeof(LogMsg) + payload + ARENA_SLACK;
  LogMsg *msg;
  bool cached = need <= MSG_BLOCK_SIZE;

  if (cached)
    {
      msg = msg_cache_alloc();
      need = MSG_BLOCK_SIZE;
    }
  else
    {
      msg = malloc(need);
      if (!msg)
        abort();
    }
  memset(msg, 0, sizeof(LogMsg));
  atomic_init(&msg->refcnt, 1);
  msg->cached = cached;
  msg->alloc_len = (uint32_t) need;
  msg->arena_pos = msg->arena;
  msg->arena_end = (char *) msg + need;
  msg->pri = 13; /* user.notice, as syslog-ng defaults */
  msg->rcptid = uniqid_take();
#ifndef NDEBUG
  atomic_fetch_add_explicit(&live_messages, 1, memory_order_relaxed);
#endif
  return msg;
}

static void
_msg_free(LogMsg *msg)
{
  LogMsgChunk *c = msg->overflow;
  while (c)
    {
      LogMsgChunk *next = c->next;
      free(c);
      c = next;
    }
  LogMsg *original = msg->original;
#ifndef NDEBUG
  atomic_fetch_sub_explicit(&live_messages, 1, memory_order_relaxed);
#endif
  if (msg->cached)
    msg_cache_free(msg);
  else
    free(msg);
  if (original)
    log_msg_unref(original);
}

static char *
_arena_alloc(LogMsg *msg, size_t len, size_t align)
{
  uintptr_t pos = ((uintptr_t) msg->arena_pos + (align - 1)) & ~(uintptr_t) (align - 1);
  if (pos + len <= (uintptr_t) msg->arena_end)
    {
      msg->arena_pos = (char *) (pos + len);
      return (char *) pos;
    }
  size_t size = len + align > OVERFLOW_MIN ? len + align : OVERFLOW_MIN;
  LogMsgChunk *c = malloc(sizeof(LogMsgChunk) + size);
  if (!c)
    abort();
  c->size = size;
  c->next = msg->overflow;
  msg->overflow = c;
  msg->arena_pos = c->data;
  msg->arena_end = c->data + size;
  return _arena_alloc(msg, len, align);
}

char *
log_msg_alloc(LogMsg *msg, size_t len)
{
  assert(log_msg_is_writable(msg));
  return _arena_alloc(msg, len, 1);
}

void
log_stamp_now_utc(LogStamp *out)
{
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  *out = (LogStamp) { .sec = ts.tv_sec, .usec = (uint32_t) (ts.tv_nsec / 1000), .gmtoff = 0 };
}

void
log_stamp_now(LogStamp *out)
{
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  struct tm tm;
  localtime_r(&ts.tv_sec, &tm);
  *out = (LogStamp) { .sec = ts.tv_sec, .usec = (uint32_t) (ts.tv_nsec / 1000), .gmtoff = (int32_t) tm.tm_gmtoff };
}

LogMsg *
log_msg_new(size_t payload_hint)
{
  return _msg_alloc(payload_hint);
}

LogMsg *
log_msg_new_raw(const char *raw, size_t len, const char **raw_copy)
{
  /* room for the copy, plus about a quarter more for values parsers build */
  LogMsg *msg = _msg_alloc(len + 1 + len / 4);
  char *copy = _arena_alloc(msg, len + 1, 1);
  memcpy(copy, raw, len);
  copy[len] = '\0';
  *raw_copy = copy;
  return msg;
}

LogMsg *
log_msg_ref(LogMsg *msg)
{
  atomic_fetch_add_explicit(&msg->refcnt, 1, memory_order_relaxed);
  return msg;
}

void
log_msg_unref(LogMsg *msg)
{
  if (!msg)
    return;
  int old = atomic_fetch_sub_explicit(&msg->refcnt, 1, memory_order_acq_rel);
  assert(old > 0);
  if (old == 1)
    _msg_free(msg);
}

void
log_msg_write_protect(LogMsg *msg)
{
  msg->write_protected = 1;
}

bool
log_msg_is_writable(const LogMsg *msg)
{
  return !msg->write_protected && atomic_load_explicit(&msg->refcnt, memory_order_acquire) == 1;
}

/* ---- the index of a large table of pairs ------------------------------ */

/* The index of a large table.  Past 64 pairs every bloom bit is set, and
 * a scan of the table per lookup (a new name is a lookup that must prove
 * it absent) makes a message of n pairs cost n * n: a sender could make a
 * parser set thousands of names.  So a table of NV_INDEX_MIN_CAP or more
 * pairs carries an open-addressing hash index of the positions of its
 * pairs, in the same arena block right after its nv_cap pairs: a power of
 * two of 16-bit slots, at least twice nv_cap (at most half full), each
 * NV_INDEX_EMPTY or a position in nv (below 65535, as nv_len is).  The
 * index is where the table is, sized by nv_cap: nothing in the header
 * says it is there, and a smaller table (every common message) neither
 * has one nor pays for it but a compare of nv_cap.  Linear probing from a
 * multiplicative hash of the handle (handles are handed out in sequence:
 * the low bits alone would pile a message's pairs into one run). */
#define NV_INDEX_MIN_CAP 64
#define NV_INDEX_EMPTY UINT16_MAX

static inline bool
_nv_has_index(uint32_t cap)
{
  return cap >= NV_INDEX_MIN_CAP;
}

/* log2 of the slots of the index of a table of cap pairs: 2^bits >= 2 * cap */
static inline uint32_t
_nv_index_bits(uint32_t cap)
{
  return 33u - (uint32_t) __builtin_clz(cap);
}

/* bytes a table of cap pairs takes, its index included */
static inline size_t
_nv_table_size(uint32_t cap)
{
  size_t size = (size_t) cap * sizeof(LogMsgNV);
  if (_nv_has_index(cap))
    size += ((size_t) 1 << _nv_index_bits(cap)) * sizeof(uint16_t);
  return size;
}

static inline uint16_t *
_nv_index(const LogMsg *msg)
{
  return (uint16_t *) (msg->nv + msg->nv_cap);
}

static inline uint32_t
_nv_index_home(NVHandle handle, uint32_t bits)
{
  return ((uint32_t) handle * 0x9E3779B1u) >> (32u - bits);
}

/* Record that nv[pos] holds handle (absent from the index). */
static __attribute__((noinline)) void
_nv_index_put(LogMsg *msg, NVHandle handle, uint32_t pos)
{
  uint16_t *index = _nv_index(msg);
  uint32_t bits = _nv_index_bits(msg->nv_cap);
  uint32_t mask = (1u << bits) - 1;
  uint32_t i = _nv_index_home(handle, bits);
  while (index[i] != NV_INDEX_EMPTY)
    i = (i + 1) & mask;
  index[i] = (uint16_t) pos;
}

/* Fill the index from nv[0..nv_len), and set every bloom bit: a table
 * with an index keeps them all set, so that log_msg_set_nv_ref asks
 * whether there is an index only when the bloom bit is set. */
static __attribute__((noinline)) void
_nv_index_build(LogMsg *msg)
{
  msg->nv_bloom = ~UINT64_C(0);
  memset(_nv_index(msg), 0xff, ((size_t) 1 << _nv_index_bits(msg->nv_cap)) * sizeof(uint16_t));
  for (uint32_t i = 0; i < msg->nv_len; i++)
    _nv_index_put(msg, msg->nv[i].handle, i);
}

static __attribute__((noinline)) LogMsgNV *
_nv_index_find(const LogMsg *msg, NVHandle handle)
{
  const uint16_t *index = _nv_index(msg);
  uint32_t bits = _nv_index_bits(msg->nv_cap);
  uint32_t mask = (1u << bits) - 1;
  for (uint32_t i = _nv_index_home(handle, bits); index[i] != NV_INDEX_EMPTY; i = (i + 1) & mask)
    if (msg->nv[index[i]].handle == handle)
      return &msg->nv[index[i]];
  return NULL;
}

/* Take nv[pos] out of the index, before the table changes: the slots
 * after its own that hold pairs which may stand in it shift back, so that
 * no probe meets a hole before the pair it looks for. */
static __attribute__((noinline)) void
_nv_index_remove(LogMsg *msg, uint32_t pos)
{
  uint16_t *index = _nv_index(msg);
  uint32_t bits = _nv_index_bits(msg->nv_cap);
  uint32_t mask = (1u << bits) - 1;
  uint32_t hole = _nv_index_home(msg->nv[pos].handle, bits);
  while (index[hole] != pos)
    hole = (hole + 1) & mask;
  for (uint32_t j = (hole + 1) & mask; index[j] != NV_INDEX_EMPTY; j = (j + 1) & mask)
    {
      uint32_t home = _nv_index_home(msg->nv[index[j]].handle, bits);
      /* it may move back into the hole when the hole is between its home
       * and where it is */
      if (((j - home) & mask) >= ((j - hole) & mask))
        {
          index[hole] = index[j];
          hole = j;
        }
    }
  index[hole] = NV_INDEX_EMPTY;
}

/* The pairs from position from on moved by delta (+1 or -1) in nv. */
static __attribute__((noinline)) void
_nv_index_shift(LogMsg *msg, uint32_t from, int delta)
{
  uint16_t *index = _nv_index(msg);
  size_t slots = (size_t) 1 << _nv_index_bits(msg->nv_cap);
  for (size_t i = 0; i < slots; i++)
    if (index[i] != NV_INDEX_EMPTY && index[i] >= from)
      index[i] = (uint16_t) (index[i] + delta);
}

LogMsg *
log_msg_clone_cow(LogMsg *msg)
{
  size_t nv_cap = msg->nv_len ? msg->nv_len + 4u : 0;
  if (nv_cap > UINT16_MAX)
    nv_cap = UINT16_MAX;
  size_t nv_bytes = nv_cap ? _nv_table_size((uint32_t) nv_cap) : 0;
  size_t tag_bytes = msg->tags_words * sizeof(uint64_t);
  LogMsg *copy = _msg_alloc(nv_bytes + tag_bytes + 16);

  log_msg_write_protect(msg);
  copy->pri = msg->pri;
  copy->flags = msg->flags;
  copy->seqnum = msg->seqnum;
  copy->rcptid = msg->rcptid;
  memcpy(copy->stamps, msg->stamps, sizeof(copy->stamps));
  copy->saddr = msg->saddr;
  memcpy(copy->builtin, msg->builtin, sizeof(copy->builtin));
  copy->tags = msg->tags;
  if (msg->tags_words)
    {
      copy->tags_ext = (uint64_t *) _arena_alloc(copy, tag_bytes, sizeof(uint64_t));
      memcpy(copy->tags_ext, msg->tags_ext, tag_bytes);
      copy->tags_words = msg->tags_words;
    }
  if (msg->nv_len)
    {
      copy->nv = (LogMsgNV *) _arena_alloc(copy, nv_bytes, _Alignof(LogMsgNV));
      memcpy(copy->nv, msg->nv, msg->nv_len * sizeof(LogMsgNV));
      copy->nv_len = msg->nv_len;
      copy->nv_cap = (uint16_t) nv_cap;
      copy->sdata_count = msg->sdata_count;
      copy->nv_bloom = msg->nv_bloom;
      if (_nv_has_index(copy->nv_cap))
        _nv_index_build(copy);
    }
  /* The copy's strings point into msg (and whatever msg points into). */
  copy->original = log_msg_ref(msg);
  return copy;
}

LogMsg *
log_msg_make_writable(LogMsg **pmsg)
{
  LogMsg *msg = *pmsg;
  if (log_msg_is_writable(msg))
    return msg;
  LogMsg *copy = log_msg_clone_cow(msg);
  log_msg_unref(msg);
  *pmsg = copy;
  return copy;
}

/* ---- handles ----------------------------------------------------------- */

static bool
_is_sdata_name(const char *name, size_t len)
{
  return len > 7 && memcmp(name, ".SDATA.", 7) == 0;
}

/* The handle found or made for name (or NAME_REGISTRY_FULL), with its
 * SDATA bit set before anyone gets it. */
static NVHandle
_handed_out(const char *name, size_t len, uint32_t id)
{
  if (id == NAME_REGISTRY_FULL || id >= MAX_VALUE_NAMES)
    return LM_V_NONE; /* setting LM_V_NONE stores nothing */
  if (_is_sdata_name(name, len))
    atomic_fetch_or_explicit(&sdata_handles[id / 64], 1ull << (id % 64), memory_order_relaxed);
  return id;
}

NVHandle
log_msg_get_value_handle(const char *name, ssize_t name_len)
{
  _ensure_registries();
  size_t len = name_len < 0 ? strlen(name) : (size_t) name_len;
  if (len == 0)
    return LM_V_NONE;
  return _handed_out(name, len, name_registry_intern(value_names, name, len));
}

NVHandle
log_msg_lookup_value_handle(const char *name, ssize_t name_len)
{
  _ensure_registries();
  size_t len = name_len < 0 ? strlen(name) : (size_t) name_len;
  uint32_t id;
  if (len == 0 || !name_registry_lookup(value_names, name, len, &id))
    return LM_V_NONE;
  return _handed_out(name, len, id);
}

const char *
log_msg_get_value_name(NVHandle handle, size_t *name_len)
{
  _ensure_registries();
  return name_registry_name(value_names, handle, name_len);
}

/* inline for set and unset, which ask for every pair */
static inline bool
_handle_is_sdata(NVHandle handle)
{
  return handle >= LM_V_MAX && handle < MAX_VALUE_NAMES
         && (atomic_load_explicit(&sdata_handles[handle / 64], memory_order_relaxed) & (1ull << (handle % 64)));
}

bool
log_msg_is_handle_sdata(NVHandle handle)
{
  return _handle_is_sdata(handle);
}

/* ---- values ------------------------------------------------------------ */

static inline uint64_t
_nv_bloom_bit(NVHandle handle)
{
  return 1ull << (handle & 63);
}

static LogMsgNV *
_nv_find(const LogMsg *msg, NVHandle handle)
{
  if (!(msg->nv_bloom & _nv_bloom_bit(handle)))
    return NULL;
  if (__builtin_expect(_nv_has_index(msg->nv_cap), 0))
    return _nv_index_find(msg, handle);
  for (uint32_t i = 0; i < msg->nv_len; i++)
    if (msg->nv[i].handle == handle)
      return &msg->nv[i];
  return NULL;
}

const char *
log_msg_get_value(const LogMsg *msg, NVHandle handle, size_t *len)
{
  const char *ptr = NULL;
  size_t l = 0;
  if (handle < LM_V_MAX)
    {
      ptr = msg->builtin[handle].ptr;
      l = msg->builtin[handle].len;
    }
  else
    {
      const LogMsgNV *nv = _nv_find(msg, handle);
      if (nv)
        {
          ptr = nv->ptr;
          l = nv->len;
        }
    }
  if (len)
    *len = ptr ? l : 0;
  return ptr ? ptr : "";
}

bool
log_msg_is_value_set(const LogMsg *msg, NVHandle handle)
{
  if (handle == LM_V_NONE)
    return false;
  if (handle < LM_V_MAX)
    return msg->builtin[handle].ptr != NULL;
  const LogMsgNV *nv = _nv_find(msg, handle);
  return nv && nv->ptr;
}

/* A new pair at the end of a table without an index (which has room for
 * it). */
static inline void
_nv_append_unindexed(LogMsg *msg, NVHandle handle, const char *value, uint32_t len, bool sdata)
{
  LogMsgNV *nv = &msg->nv[msg->nv_len++];
  nv->handle = handle;
  nv->ptr = value;
  nv->len = len;
  msg->nv_bloom |= _nv_bloom_bit(handle);
  if (sdata)
    msg->sdata_count++;
}

/* A new pair at the end of the table (which has room for it). */
static inline void
_nv_append(LogMsg *msg, NVHandle handle, const char *value, uint32_t len, bool sdata)
{
  _nv_append_unindexed(msg, handle, value, len, sdata);
  if (_nv_has_index(msg->nv_cap))
    _nv_index_put(msg, handle, msg->nv_len - 1u);
}

/* Room for one more pair: a table twice the size (the first one holds
 * 16: parsers set ten or more), with its index from NV_INDEX_MIN_CAP
 * pairs on, or false at 65535 pairs (refused rather than crash). */
static inline bool
_nv_grow(LogMsg *msg)
{
  if (msg->nv_len < msg->nv_cap)
    return true;
  if (msg->nv_cap == UINT16_MAX)
    return false;
  size_t cap = msg->nv_cap ? (size_t) msg->nv_cap * 2 : 16;
  if (cap > UINT16_MAX)
    cap = UINT16_MAX;
  LogMsgNV *table = (LogMsgNV *) _arena_alloc(msg, _nv_table_size((uint32_t) cap), _Alignof(LogMsgNV));
  if (msg->nv_len)
    memcpy(table, msg->nv, msg->nv_len * sizeof(LogMsgNV));
  msg->nv = table;
  msg->nv_cap = (uint16_t) cap;
  if (_nv_has_index(msg->nv_cap))
    _nv_index_build(msg);
  return true;
}

/* A new pair when the table is full.  Out of line, so that the common
 * path calls nothing and saves no registers. */
static __attribute__((noinline)) void
_nv_append_grown(LogMsg *msg, NVHandle handle, const char *value, uint32_t len, bool sdata)
{
  if (_nv_grow(msg))
    _nv_append(msg, handle, value, len, sdata);
}

/* A new SD parameter set after the message was parsed, placed as syslog-ng
 * 3.38 places it in its list of SD parameters (log_msg_update_sdata),
 * which is the order $SDATA writes: after the last SD parameter, unset
 * ones included, whose name starts with the new name up to its last dot
 * (".SDATA.a@1" for ".SDATA.a@1.new": its element, but a plain prefix
 * match, so ".SDATA.ab.x" matches ".SDATA.a.y" too), or before every SD
 * parameter when none does (a new SD-ID comes first).  The table's order
 * is the SD parameters' order, so the pair goes there; where it stands
 * among the other pairs matters to nothing.  The search is a walk of the
 * SD parameters: past SDATA_PLACED_MAX of them (syslog-ng 3.38 keeps at
 * most 255) a new one goes last, so that a sender who makes a parser set
 * thousands costs a walk each no longer than that. */
#define SDATA_PLACED_MAX 255

static __attribute__((noinline)) void
_nv_insert_sdata(LogMsg *msg, NVHandle handle, const char *value, uint32_t len)
{
  if (msg->sdata_count >= SDATA_PLACED_MAX)
    {
      _nv_append_grown(msg, handle, value, len, true);
      return;
    }
  if (!_nv_grow(msg))
    return;
  size_t name_len;
  const char *name = log_msg_get_value_name(handle, &name_len);
  const char *dot = memrchr(name, '.', name_len);
  size_t prefix = (size_t) (dot - name); /* a .SDATA. name has a dot */
  uint32_t at = msg->nv_len;
  for (uint32_t i = msg->nv_len; i-- > 0;)
    {
      if (!_handle_is_sdata(msg->nv[i].handle))
        continue;
      at = i; /* the first SD parameter, unless one matches */
      size_t other_len;
      const char *other = log_msg_get_value_name(msg->nv[i].handle, &other_len);
      if (other_len > prefix && memcmp(other, name, prefix) == 0)
        {
          at = i + 1;
          break;
        }
    }
  LogMsgNV *nv = &msg->nv[at];
  memmove(nv + 1, nv, (msg->nv_len - at) * sizeof(LogMsgNV));
  msg->nv_len++;
  nv->handle = handle;
  nv->ptr = value;
  nv->len = len;
  msg->nv_bloom |= _nv_bloom_bit(handle);
  msg->sdata_count++;
  if (_nv_has_index(msg->nv_cap))
    {
      _nv_index_shift(msg, at, +1);
      _nv_index_put(msg, handle, at);
    }
}

/* A new value for a pair the message holds. */
static inline void
_nv_update(LogMsg *msg, LogMsgNV *nv, const char *value, uint32_t len)
{
  /* an SD parameter unset earlier keeps its place (as in syslog-ng) */
  if (__builtin_expect(!nv->ptr, 0) && _handle_is_sdata(nv->handle))
    msg->sdata_count++;
  nv->ptr = value;
  nv->len = len;
}

/* log_msg_set_nv_ref on a table with an index: out of line, so that the
 * common path (a table without one) calls nothing and saves no
 * registers. */
static __attribute__((noinline)) void
_nv_set_indexed(LogMsg *msg, NVHandle handle, const char *value, uint32_t len)
{
  LogMsgNV *nv = _nv_index_find(msg, handle);
  if (nv)
    {
      _nv_update(msg, nv, value, len);
      return;
    }
  bool sdata = _handle_is_sdata(handle);
  if (sdata && !(msg->flags & LF_SDATA_IN_ORDER))
    _nv_insert_sdata(msg, handle, value, len);
  else
    _nv_append_grown(msg, handle, value, len, sdata);
}

/* log_msg_set_value_ref's out-of-line half (and its checks) */
void
log_msg_set_nv_ref(LogMsg *msg, NVHandle handle, const char *value, size_t len)
{
  assert(log_msg_is_writable(msg));
  if (handle == LM_V_NONE)
    return;
  if (len > UINT32_MAX)
    len = UINT32_MAX;
  if (handle < LM_V_MAX)
    {
      msg->builtin[handle].ptr = value;
      msg->builtin[handle].len = (uint32_t) len;
      return;
    }
  if (msg->nv_bloom & _nv_bloom_bit(handle))
    {
      /* every bit is set in a table with an index: a name it does not
       * hold comes here too, and no other path asks for the index */
      if (__builtin_expect(_nv_has_index(msg->nv_cap), 0))
        {
          _nv_set_indexed(msg, handle, value, (uint32_t) len);
          return;
        }
      for (uint32_t i = 0; i < msg->nv_len; i++)
        if (msg->nv[i].handle == handle)
          {
            _nv_update(msg, &msg->nv[i], value, (uint32_t) len);
            return;
          }
    }
  bool sdata = _handle_is_sdata(handle);
  if (__builtin_expect(sdata && !(msg->flags & LF_SDATA_IN_ORDER), 0))
    _nv_insert_sdata(msg, handle, value, (uint32_t) len);
  else if (__builtin_expect(msg->nv_len < msg->nv_cap, 1))
    _nv_append_unindexed(msg, handle, value, (uint32_t) len, sdata);
  else
    _nv_append_grown(msg, handle, value, (uint32_t) len, sdata);
}

void
log_msg_set_value(LogMsg *msg, NVHandle handle, const char *value, ssize_t len)
{
  size_t l = len < 0 ? strlen(value) : (size_t) len;
  char *copy = _arena_alloc(msg, l + 1, 1);
  memcpy(copy, value, l);
  copy[l] = '\0';
  log_msg_set_value_ref(msg, handle, copy, l);
}

void
log_msg_set_value_by_name(LogMsg *msg, const char *name, const char *value, ssize_t len)
{
  log_msg_set_value(msg, log_msg_get_value_handle(name, -1), value, len);
}

void
log_msg_unset_value(LogMsg *msg, NVHandle handle)
{
  assert(log_msg_is_writable(msg));
  if (handle < LM_V_MAX)
    {
      msg->builtin[handle].ptr = NULL;
      msg->builtin[handle].len = 0;
      return;
    }
  LogMsgNV *nv = _nv_find(msg, handle);
  if (!nv || !nv->ptr)
    return;
  if (_handle_is_sdata(handle))
    {
      /* an unset SD parameter stays as a place holder (ptr NULL), as in
       * syslog-ng 3.38's list of SD parameters: set again, it is where it
       * was, and a new parameter of its element goes after it */
      msg->sdata_count--;
      nv->ptr = NULL;
      nv->len = 0;
      return;
    }
  size_t idx = (size_t) (nv - msg->nv);
  bool indexed = _nv_has_index(msg->nv_cap);
  if (indexed)
    _nv_index_remove(msg, (uint32_t) idx);
  memmove(nv, nv + 1, (msg->nv_len - idx - 1) * sizeof(LogMsgNV));
  msg->nv_len--;
  if (indexed)
    _nv_index_shift(msg, (uint32_t) idx + 1, -1);
}

void
log_msg_unset_values(LogMsg *msg, const NVHandle *handles, size_t n)
{
  assert(log_msg_is_writable(msg));
  size_t going = 0;
  for (size_t i = 0; i < n; i++)
    {
      NVHandle handle = handles[i];
      if (handle < LM_V_MAX || _handle_is_sdata(handle))
        {
          log_msg_unset_value(msg, handle); /* nothing moves */
          continue;
        }
      LogMsgNV *nv = _nv_find(msg, handle);
      if (nv && nv->ptr)
        {
          /* marked: no other plain pair is ever without a value */
          nv->ptr = NULL;
          nv->len = 0;
          going++;
        }
    }
  if (!going)
    return;
  /* one pass closes every gap, where an unset each would move the pairs
   * behind it: unsetting most of n pairs would cost n * n */
  uint32_t to = 0;
  for (uint32_t from = 0; from < msg->nv_len; from++)
    if (msg->nv[from].ptr || _handle_is_sdata(msg->nv[from].handle))
      msg->nv[to++] = msg->nv[from];
  msg->nv_len = (uint16_t) to;
  if (_nv_has_index(msg->nv_cap))
    _nv_index_build(msg);
}

void
log_msg_clear_nv(LogMsg *msg)
{
  assert(log_msg_is_writable(msg));
  msg->nv_len = 0;
  msg->nv_bloom = 0;
  msg->sdata_count = 0;
  if (_nv_has_index(msg->nv_cap))
    _nv_index_build(msg);
}

void
log_msg_foreach_nv(const LogMsg *msg, LogMsgForeachFunc func, void *user_data)
{
  for (uint32_t i = 0; i < msg->nv_len; i++)
    {
      const LogMsgNV *nv = &msg->nv[i];
      if (!nv->ptr)
        continue; /* an unset SD parameter's place */
      const char *name = log_msg_get_value_name(nv->handle, NULL);
      if (!func(nv->handle, name, nv->ptr, nv->len, user_data))
        return;
    }
}

/* ---- tags -------------------------------------------------------------- */

LogTagId
log_tags_get_by_name(const char *name)
{
  _ensure_registries();
  return name_registry_intern(tag_names, name, strlen(name));
}

const char *
log_tags_get_name(LogTagId id)
{
  _ensure_registries();
  return name_registry_name(tag_names, id, NULL);
}

void
log_msg_set_tag(LogMsg *msg, LogTagId id)
{
  assert(log_msg_is_writable(msg));
  if (id == LOG_TAG_NONE)
    return;
  if (id < 64)
    {
      msg->tags |= UINT64_C(1) << id;
      return;
    }
  uint32_t word = (id - 64) / 64;
  if (word >= msg->tags_words)
    {
      uint32_t words = word + 1;
      uint64_t *ext = (uint64_t *) _arena_alloc(msg, words * sizeof(uint64_t), sizeof(uint64_t));
      memset(ext, 0, words * sizeof(uint64_t));
      if (msg->tags_words)
        memcpy(ext, msg->tags_ext, msg->tags_words * sizeof(uint64_t));
      msg->tags_ext = ext;
      msg->tags_words = (uint16_t) words;
    }
  msg->tags_ext[word] |= UINT64_C(1) << ((id - 64) % 64);
}

void
log_msg_clear_tag(LogMsg *msg, LogTagId id)
{
  assert(log_msg_is_writable(msg));
  if (id < 64)
    msg->tags &= ~(UINT64_C(1) << id);
  else if ((id - 64) / 64 < msg->tags_words)
    msg->tags_ext[(id - 64) / 64] &= ~(UINT64_C(1) << ((id - 64) % 64));
}

bool
log_msg_has_tag(const LogMsg *msg, LogTagId id)
{
  if (id < 64)
    return (msg->tags >> id) & 1;
  uint32_t word = (id - 64) / 64;
  return word < msg->tags_words && ((msg->tags_ext[word] >> ((id - 64) % 64)) & 1);
}

static void
_foreach_bit(uint64_t bits, LogTagId base, LogMsgTagFunc func, void *user_data)
{
  while (bits)
    {
      int bit = __builtin_ctzll(bits);
      LogTagId id = base + (LogTagId) bit;
      func(id, log_tags_get_name(id), user_data);
      bits &= bits - 1;
    }
}

void
log_msg_foreach_tag(const LogMsg *msg, LogMsgTagFunc func, void *user_data)
{
  _foreach_bit(msg->tags, 0, func, user_data);
  for (uint32_t w = 0; w < msg->tags_words; w++)
    _foreach_bit(msg->tags_ext[w], 64 + 64 * w, func, user_data);
}

/* ---- cache ------------------------------------------------------------- */

void
log_msg_thread_cache_flush(void)
{
  msg_cache_thread_flush();
}

long
log_msg_live_count(void)
{
#ifndef NDEBUG
  return atomic_load_explicit(&live_messages, memory_order_relaxed);
#else
  return -1;
#endif
}
