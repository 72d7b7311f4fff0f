/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The serialized form of a LogMsg: see include/sluice/logmsg-serialize.h. */
#include "sluice/logmsg-serialize.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define FIXED_SIZE (2 + 2 + 4 + 4 + 8 + LM_TS_MAX * 16 + 2 + 2 + 16)
#define MAX_NAME UINT16_MAX
/* the year 1 and the end of the year 9999: what the formatters handle */
#define MIN_SEC INT64_C(-62135596800)
#define MAX_SEC INT64_C(253402300799)

/* ---- writing ----------------------------------------------------------- */

static inline uint8_t *
_put16(uint8_t *p, uint16_t v)
{
  p[0] = (uint8_t) v;
  p[1] = (uint8_t) (v >> 8);
  return p + 2;
}

static inline uint8_t *
_put32(uint8_t *p, uint32_t v)
{
  for (int i = 0; i < 4; i++)
    p[i] = (uint8_t) (v >> (8 * i));
  return p + 4;
}

static inline uint8_t *
_put64(uint8_t *p, uint64_t v)
{
  for (int i = 0; i < 8; i++)
    p[i] = (uint8_t) (v >> (8 * i));
  return p + 8;
}

static inline uint8_t *
_put_bytes(uint8_t *p, const void *data, size_t len)
{
  memcpy(p, data, len);
  return p + len;
}

/* The built-in slots' names never change: looked up once instead of
 * twice per value and message (a disk buffer serializes every message). */
typedef struct BuiltinName
{
  const char *name;
  size_t len;
} BuiltinName;

static BuiltinName builtin_names[LM_V_MAX];
static atomic_bool builtin_names_ready;
static pthread_once_t builtin_names_once = PTHREAD_ONCE_INIT;

static void
_builtin_names_init(void)
{
  for (NVHandle h = LM_V_NONE + 1; h < LM_V_MAX; h++)
    builtin_names[h].name = log_msg_get_value_name(h, &builtin_names[h].len);
  atomic_store_explicit(&builtin_names_ready, true, memory_order_release);
}

static inline const BuiltinName *
_builtin_names(void)
{
  if (!atomic_load_explicit(&builtin_names_ready, memory_order_acquire))
    pthread_once(&builtin_names_once, _builtin_names_init);
  return builtin_names;
}

typedef struct TagSizer
{
  size_t size;
  uint32_t count;
} TagSizer;

static void
_size_tag(LogTagId id, const char *name, void *user_data)
{
  TagSizer *s = user_data;
  s->size += 2 + (name ? strlen(name) : 0);
  s->count++;
}

void
log_msg_values_init(LogMsgValues *it, const LogMsg *msg)
{
  it->msg = msg;
  it->at = LM_V_NONE + 1;
  it->names = _builtin_names();
}

/* In log_msg_serialize's order (its own loops stay tight: a disk buffer
 * serializes every message). */
bool
log_msg_values_next(LogMsgValues *it)
{
  const LogMsg *msg = it->msg;
  while (it->at < LM_V_MAX)
    {
      NVHandle h = (NVHandle) it->at++;
      if (msg->builtin[h].ptr)
        {
          const BuiltinName *names = it->names;
          it->name = names[h].name;
          it->name_len = names[h].len;
          it->value = msg->builtin[h].ptr;
          it->len = msg->builtin[h].len;
          return true;
        }
    }
  while (it->at - LM_V_MAX < msg->nv_len)
    {
      const LogMsgNV *nv = &msg->nv[it->at++ - LM_V_MAX];
      if (!nv->ptr)
        continue; /* an unset SD parameter's place */
      size_t name_len;
      it->name = log_msg_get_value_name(nv->handle, &name_len);
      it->name_len = name_len;
      it->value = nv->ptr;
      it->len = nv->len;
      return true;
    }
  return false;
}

uint32_t
log_msg_values_count(const LogMsg *msg)
{
  uint32_t count = 0;
  for (uint32_t i = 0; i < msg->nv_len; i++)
    count += msg->nv[i].ptr != NULL;
  for (NVHandle h = LM_V_NONE + 1; h < LM_V_MAX; h++)
    count += msg->builtin[h].ptr != NULL;
  return count;
}

size_t
log_msg_serialized_size(const LogMsg *msg)
{
  const BuiltinName *names = _builtin_names();
  size_t size = FIXED_SIZE + 4;
  for (NVHandle h = LM_V_NONE + 1; h < LM_V_MAX; h++)
    if (msg->builtin[h].ptr)
      size += 2 + names[h].len + 4 + msg->builtin[h].len;
  for (uint32_t i = 0; i < msg->nv_len; i++)
    {
      size_t name_len;
      if (!msg->nv[i].ptr)
        continue; /* an unset SD parameter's place */
      log_msg_get_value_name(msg->nv[i].handle, &name_len);
      size += 2 + name_len + 4 + msg->nv[i].len;
    }
  return size + log_msg_serialized_tags_size(msg);
}

static uint8_t *
_put_named(uint8_t *p, const char *name, size_t name_len, const char *value, uint32_t len)
{
  p = _put16(p, (uint16_t) name_len);
  p = _put_bytes(p, name, name_len);
  p = _put32(p, len);
  return _put_bytes(p, value, len);
}

static uint8_t *
_put_value(uint8_t *p, NVHandle h, const char *value, uint32_t len)
{
  size_t name_len;
  const char *name = log_msg_get_value_name(h, &name_len);
  return _put_named(p, name, name_len, value, len);
}

/* Tags are written and counted in one walk; the count goes in front. */
typedef struct TagWriter
{
  uint8_t *p;
  uint32_t count;
} TagWriter;

static void
_put_tag(LogTagId id, const char *name, void *user_data)
{
  TagWriter *w = user_data;
  size_t len = name ? strlen(name) : 0;
  w->p = _put16(w->p, (uint16_t) len);
  w->p = _put_bytes(w->p, name, len);
  w->count++;
}

size_t
log_msg_serialized_tags_size(const LogMsg *msg)
{
  TagSizer tags = { 0, 0 };
  log_msg_foreach_tag(msg, _size_tag, &tags);
  return 4 + tags.size;
}

uint8_t *
log_msg_serialize_tags(const LogMsg *msg, uint8_t *out)
{
  TagWriter tags = { out + 4, 0 };
  log_msg_foreach_tag(msg, _put_tag, &tags);
  _put32(out, tags.count);
  return tags.p;
}

size_t
log_msg_serialize(const LogMsg *msg, uint8_t *out)
{
  const BuiltinName *names = _builtin_names();
  uint8_t *p = out;
  *p++ = 'M';
  *p++ = LOG_MSG_SERIALIZE_VERSION;
  p = _put16(p, msg->pri);
  p = _put32(p, msg->flags);
  p = _put32(p, msg->seqnum);
  p = _put64(p, msg->rcptid);
  for (int i = 0; i < LM_TS_MAX; i++)
    {
      p = _put64(p, (uint64_t) msg->stamps[i].sec);
      p = _put32(p, msg->stamps[i].usec);
      p = _put32(p, (uint32_t) msg->stamps[i].gmtoff);
    }
  p = _put16(p, msg->saddr.family);
  p = _put16(p, msg->saddr.port);
  p = _put_bytes(p, msg->saddr.addr, sizeof(msg->saddr.addr));

  p = _put32(p, log_msg_values_count(msg));
  for (NVHandle h = LM_V_NONE + 1; h < LM_V_MAX; h++)
    if (msg->builtin[h].ptr)
      p = _put_named(p, names[h].name, names[h].len, msg->builtin[h].ptr, msg->builtin[h].len);
  for (uint32_t i = 0; i < msg->nv_len; i++)
    if (msg->nv[i].ptr)
      p = _put_value(p, msg->nv[i].handle, msg->nv[i].ptr, msg->nv[i].len);

  return (size_t) (log_msg_serialize_tags(msg, p) - out);
}

/* ---- reading ----------------------------------------------------------- */

typedef struct Reader
{
  const uint8_t *p, *end;
  bool bad;
} Reader;

static bool
_need(Reader *r, size_t n)
{
  if (r->bad || (size_t) (r->end - r->p) < n)
    r->bad = true;
  return !r->bad;
}

static uint64_t
_get(Reader *r, int bytes)
{
  if (!_need(r, (size_t) bytes))
    return 0;
  uint64_t v = 0;
  for (int i = 0; i < bytes; i++)
    v |= (uint64_t) r->p[i] << (8 * i);
  r->p += bytes;
  return v;
}

/* A length-prefixed string: its bytes stay in the input. */
static const char *
_get_str(Reader *r, int len_bytes, size_t *len)
{
  *len = (size_t) _get(r, len_bytes);
  if (!_need(r, *len))
    return NULL;
  const char *s = (const char *) r->p;
  r->p += *len;
  return s;
}

static const char *
_read_header(Reader *r, LogMsg *msg)
{
  if (_get(r, 1) != 'M')
    return "not a serialized message (bad magic)";
  if (_get(r, 1) != LOG_MSG_SERIALIZE_VERSION)
    return "unsupported serialized message version";
  msg->pri = (uint16_t) _get(r, 2);
  msg->flags = (uint32_t) _get(r, 4);
  msg->seqnum = (uint32_t) _get(r, 4);
  msg->rcptid = _get(r, 8);
  for (int i = 0; i < LM_TS_MAX; i++)
    {
      LogStamp *s = &msg->stamps[i];
      s->sec = (int64_t) _get(r, 8);
      s->usec = (uint32_t) _get(r, 4);
      s->gmtoff = (int32_t) (uint32_t) _get(r, 4);
      if (!r->bad && (s->sec < MIN_SEC || s->sec > MAX_SEC || s->usec >= 1000000 || s->gmtoff < -86400 ||
                      s->gmtoff > 86400))
        return "timestamp out of range";
    }
  msg->saddr.family = (uint16_t) _get(r, 2);
  msg->saddr.port = (uint16_t) _get(r, 2);
  if (_need(r, sizeof(msg->saddr.addr)))
    {
      memcpy(msg->saddr.addr, r->p, sizeof(msg->saddr.addr));
      r->p += sizeof(msg->saddr.addr);
    }
  return r->bad ? "truncated header" : NULL;
}

/* The built-in slot named name[0..len), else LM_V_NONE: every message
 * has several, and the registry's lookup takes a lock and hashes. */
static NVHandle
_builtin_handle(const char *name, size_t len)
{
  const BuiltinName *names = _builtin_names();
  for (NVHandle h = LM_V_NONE + 1; h < LM_V_MAX; h++)
    if (names[h].len == len && memcmp(names[h].name, name, len) == 0)
      return h;
  return LM_V_NONE;
}

/* The tag last read on this thread: messages read back one after another
 * mostly carry the same few tags (their source's), and a tag's id never
 * changes once it is made. */
#define TAG_MEMO_MAX 64
static _Thread_local struct
{
  char name[TAG_MEMO_MAX];
  size_t len;
  LogTagId id;
} tag_memo;

static LogTagId
_tag_id(const char *name, size_t len)
{
  if (len && len == tag_memo.len && memcmp(tag_memo.name, name, len) == 0)
    return tag_memo.id;
  LogTagId id = log_tags_get_by_name(name);
  if (len < TAG_MEMO_MAX && id != LOG_TAG_NONE)
    {
      memcpy(tag_memo.name, name, len);
      tag_memo.len = len;
      tag_memo.id = id;
    }
  return id;
}

static const char *
_read_value_list(Reader *r, LogMsg *msg, uint32_t count)
{
  for (uint32_t i = 0; i < count && !r->bad; i++)
    {
      size_t name_len, len;
      const char *name = _get_str(r, 2, &name_len);
      const char *value = _get_str(r, 4, &len);
      if (r->bad)
        break;
      if (name_len == 0 || name_len > MAX_NAME || memchr(name, '\0', name_len))
        return "bad value name";
      NVHandle h = _builtin_handle(name, name_len);
      if (h == LM_V_NONE)
        h = log_msg_get_value_handle(name, (ssize_t) name_len);
      if (h == LM_V_NONE)
        return "bad value name";
      log_msg_set_value(msg, h, value, (ssize_t) len);
    }
  return r->bad ? "truncated values" : NULL;
}

static const char *
_read_values(Reader *r, LogMsg *msg)
{
  uint32_t count = (uint32_t) _get(r, 4);
  if (count > UINT16_MAX + LM_V_MAX)
    return "too many values";
  /* the SD parameters were written in $SDATA's order: keep it */
  msg->flags |= LF_SDATA_IN_ORDER;
  const char *err = _read_value_list(r, msg, count);
  msg->flags &= ~(uint32_t) LF_SDATA_IN_ORDER;
  return err;
}

static const char *
_read_tags(Reader *r, LogMsg *msg)
{
  uint32_t count = (uint32_t) _get(r, 4);
  char small[256];
  for (uint32_t i = 0; i < count && !r->bad; i++)
    {
      size_t len;
      const char *s = _get_str(r, 2, &len);
      if (r->bad)
        break;
      if (len == 0 || len > MAX_NAME || memchr(s, '\0', len))
        return "bad tag name";
      char *name = len < sizeof(small) ? small : malloc(len + 1);
      if (!name)
        abort();
      memcpy(name, s, len);
      name[len] = '\0';
      log_msg_set_tag(msg, _tag_id(name, len));
      if (name != small)
        free(name);
    }
  return r->bad ? "truncated tags" : NULL;
}

LogMsg *
log_msg_deserialize(const uint8_t *data, size_t len, const char **error)
{
  Reader r = { data, data + len, false };
  /* the values are copied into the message: about len bytes of arena */
  LogMsg *msg = log_msg_new(len);
  const char *e = _read_header(&r, msg);
  if (!e)
    e = _read_values(&r, msg);
  if (!e)
    e = _read_tags(&r, msg);
  if (!e && r.p != r.end)
    e = "trailing bytes after the message";
  if (e)
    {
      *error = e;
      log_msg_unref(msg);
      return NULL;
    }
  return msg;
}
