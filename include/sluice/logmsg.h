/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_LOGMSG_H
#define SLUICE_LOGMSG_H

/*
 * LogMsg: one log message.
 *
 * Layout.  A message is one allocation: the LogMsg header, then an arena.
 * The reader copies the raw bytes into the arena once (log_msg_new_raw) and
 * the parser points the built-in slots (HOST, PROGRAM, MESSAGE, ...) at
 * ranges of that copy, so parsing copies nothing more.  Values that are not
 * a range of the raw bytes (unescaped SD params, rewrites) are appended to
 * the arena; when it is full an overflow chunk is chained, so a LogMsg
 * pointer never moves.
 *
 * Values.  Every value has a handle (NVHandle).  Handles below LM_V_MAX are
 * the built-in slots; the others are name-value pairs whose names are
 * interned once (log_msg_get_value_handle) into small integers.  Names that
 * start with ".SDATA." are structured-data parameters and are formatted by
 * ${SDATA} in the order they were set.
 *
 * Sharing.  A message is refcounted.  Once it is handed to more than one
 * consumer it is write-protected; a consumer that wants to change it calls
 * log_msg_make_writable(&msg), which copies it if it is protected or shared.
 * The copy keeps a reference to the original and keeps pointing into its
 * memory, so a copy costs one small allocation and no string copies.
 *
 * Allocation.  Messages that fit a standard block come from a per-thread
 * cache refilled from (and drained to) a global depot in magazines of 64, so
 * steady state makes no malloc and takes no lock per message.
 *
 * Thread safety.  log_msg_ref/unref may be called from any thread.  Setters
 * require a writable message that only the calling thread can see.
 */

#include <assert.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sluice/prefetch.h"

typedef uint32_t NVHandle;
typedef uint32_t LogTagId;

/* Built-in value slots: fixed handles, names as syslog-ng spells them. */
enum
{
  LM_V_NONE = 0,
  LM_V_HOST,          /* "HOST" */
  LM_V_HOST_FROM,     /* "HOST_FROM" */
  LM_V_PROGRAM,       /* "PROGRAM" */
  LM_V_PID,           /* "PID" */
  LM_V_MSGID,         /* "MSGID" */
  LM_V_MESSAGE,       /* "MESSAGE", alias "MSG" */
  LM_V_LEGACY_MSGHDR, /* "LEGACY_MSGHDR": the tag as received, with ": " */
  LM_V_SOURCE,        /* "SOURCE": name of the source driver */
  LM_V_RAWMSG,        /* "RAWMSG": the bytes as received (store-raw-message) */
  LM_V_TRANSPORT,     /* "TRANSPORT": e.g. "rfc3164+tcp" */
  LM_V_MAX
};

/* Timestamps kept per message. */
enum
{
  LM_TS_STAMP = 0, /* the time in the header (S_ macros, and the plain ones) */
  LM_TS_RECVD,     /* when Sluice read it (R_ macros) */
  LM_TS_PROCESSED, /* P_ macros; never set: unset, they give the current time, as in syslog-ng 3.38 */
  LM_TS_MAX
};

/* A point in time: seconds since the epoch (UTC), microseconds, and the UTC
 * offset (seconds east) the time was expressed in. */
typedef struct LogStamp
{
  int64_t sec;
  uint32_t usec;
  int32_t gmtoff;
} LogStamp;

/* The wall clock now, with the local zone's offset (a localtime call). */
void log_stamp_now(LogStamp *out);

/* The wall clock now, offset 0: a reception stamp, cheap enough per read. */
void log_stamp_now_utc(LogStamp *out);

/* The peer address a message came from; family 0 means local/none. */
typedef struct LogAddr
{
  uint16_t family; /* AF_INET, AF_INET6, AF_UNIX or 0 */
  uint16_t port;   /* host byte order */
  uint8_t addr[16];
} LogAddr;

/* Message flags (LogMsg.flags). */
enum
{
  LF_UTF8 = 1u << 0,        /* the payload was announced as UTF-8 (BOM) */
  LF_LOCAL = 1u << 1,       /* from a local source (unix socket, file) */
  LF_INTERNAL = 1u << 2,    /* made by Sluice itself */
  LF_MARK = 1u << 3,        /* a MARK message */
  LF_PARSE_ERROR = 1u << 4, /* the header did not parse: MESSAGE is the raw line */
  LF_RFC5424 = 1u << 5,     /* parsed as RFC 5424 */
  LF_CHAINED_HOSTNAME = 1u << 6, /* HOST is a chain (chain-hostnames): "h1/relay", "group@h1" */
  LF_ACK_WRITTEN = 1u << 7, /* its sender waits for the write (relp()): every
                             * destination acks it as with flow control */
  LF_SDATA_IN_ORDER = 1u << 8, /* while set, a new SD parameter goes after the
                                * others (a parser filling the message, a copy
                                * being made): syslog-ng 3.38's initial_parse.
                                * Otherwise it goes where 3.38 puts one
                                * (log_msg_set_value_ref).  Never kept set. */
};

/* A string view into memory the message keeps alive. */
typedef struct LogMsgStr
{
  const char *ptr;
  uint32_t len;
} LogMsgStr;

/* One name-value pair. */
typedef struct LogMsgNV
{
  NVHandle handle;
  uint32_t len;
  const char *ptr;
} LogMsgNV;

typedef struct LogMsgChunk LogMsgChunk;

typedef struct LogMsg
{
  atomic_int refcnt;
  uint16_t pri;
  uint8_t write_protected;
  uint8_t cached;     /* came from the per-thread cache (block size) */
  uint32_t flags;     /* LF_* */
  uint32_t alloc_len; /* bytes of this allocation, header included */
  uint32_t seqnum;    /* per-source sequence number, 0 when unset */
  uint64_t rcptid;    /* receipt id, 0 when unset */

  LogStamp stamps[LM_TS_MAX];
  LogAddr saddr;

  LogMsgStr builtin[LM_V_MAX];

  /* name-value pairs in the order they were first set, but for SD
   * parameters (".SDATA.ID.PARAM"), which stand in the order $SDATA writes
   * them: an SD parameter set after parsing goes where syslog-ng 3.38
   * puts it (log_msg_set_value_ref), and one unset stays as a place
   * holder with ptr NULL, skipped by every reader. */
  LogMsgNV *nv;
  /* Bit (handle % 64) is set for every handle in nv (and may stay set after
   * an unset): a clear bit proves a handle absent without scanning nv, which
   * is what a parser adding new names asks on every pair.  A table of 64 or
   * more pairs (nv_cap) has a hash index of its pairs after its nv_cap
   * entries (logmsg.c) and every bit set: set, unset and reset pairs only
   * through the functions below, which keep the index. */
  uint64_t nv_bloom;
  uint16_t nv_len;
  uint16_t nv_cap;
  uint16_t sdata_count; /* how many of nv are .SDATA. params that are set */

  uint16_t tags_words; /* length of tags_ext in 64-bit words */
  uint64_t tags;       /* tag ids 0..63 */
  uint64_t *tags_ext;  /* tag ids 64.. (bit i of word w is id 64 + 64*w + i) */

  struct LogMsg *original; /* the message a copy-on-write clone points into */

  /* Flow control (include/sluice/logqueue.h): the source window a message
   * holds a slot of, and how many holders (the source while routing, each
   * flow-controlled destination) still have to ack it.  Only the message the
   * source made carries them; a clone acks through its original. */
  struct LogWindow *ack_window;
  atomic_int ack_pending;
  uint32_t ack_cookie;     /* the source's own mark for its window's acked
                            * callback (relp(): the transaction number) */
  LogMsgChunk *overflow;   /* chunks chained when the arena is full */

  char *arena_pos; /* next free byte of the arena */
  char *arena_end;
  char arena[];
} LogMsg;

/* ---- lifetime ---------------------------------------------------------- */

/* A new writable message with refcount 1 and room for about payload_hint
 * bytes of values.  Never returns NULL (aborts on out of memory). */
LogMsg *log_msg_new(size_t payload_hint);

/* A new message whose arena starts with a copy of raw[0..len) (NUL
 * terminated).  *raw_copy is set to that copy: parsers point slots into it
 * with log_msg_set_value_ref().  RAWMSG is not set; the caller decides. */
LogMsg *log_msg_new_raw(const char *raw, size_t len, const char **raw_copy);

/* Take a reference; returns msg. */
LogMsg *log_msg_ref(LogMsg *msg);

/* Drop a reference; the last one frees the message (and its original). */
void log_msg_unref(LogMsg *msg);

/* The bytes of a message most of its readers touch: the header and the
 * raw line parsers point into (a 300-byte line ends near here). */
#define LOG_MSG_HOT_BYTES 768

/* Ask for msg's hot lines ahead of reading them (sluice/prefetch.h): a
 * writer does it for the next message of its batch, which a reader on
 * another CPU wrote. */
static inline void
log_msg_prefetch(const LogMsg *msg)
{
  prefetch_read(msg, LOG_MSG_HOT_BYTES);
}

/* Mark msg read-only: from now on it may be shared between consumers. */
void log_msg_write_protect(LogMsg *msg);

/* True when the caller may change *msg in place. */
bool log_msg_is_writable(const LogMsg *msg);

/* Make *pmsg writable: if it is write-protected or shared, replace it with a
 * writable copy (the caller's reference to the old one is dropped).  Returns
 * the (possibly new) message, also stored in *pmsg. */
LogMsg *log_msg_make_writable(LogMsg **pmsg);

/* A writable copy of msg that shares its strings (msg is write-protected as
 * a side effect).  The caller owns the returned reference. */
LogMsg *log_msg_clone_cow(LogMsg *msg);

/* ---- value handles ----------------------------------------------------- */

/* The handle for name, interning it on first use.  Built-in names (and the
 * alias MSG) map to their fixed slots.  Thread-safe; meant for configuration
 * time and for parsers that make names (a read lock on the hot path).
 * Beyond 65536 names (syslog-ng's limit) a new name gets LM_V_NONE, which
 * setters ignore: input that makes up names cannot grow memory without end. */
NVHandle log_msg_get_value_handle(const char *name, ssize_t name_len);

/* The handle for name if it has been interned, else LM_V_NONE. */
NVHandle log_msg_lookup_value_handle(const char *name, ssize_t name_len);

/* The interned name of handle (static storage, NUL terminated), or NULL. */
const char *log_msg_get_value_name(NVHandle handle, size_t *name_len);

/* True when handle names a structured-data parameter (".SDATA.id.param"). */
bool log_msg_is_handle_sdata(NVHandle handle);

/* ---- values ------------------------------------------------------------ */

/* The value of handle; *len gets its length.  Unset values read as "" with
 * length 0.  The pointer lives as long as msg is unchanged.  The value is
 * not necessarily NUL terminated. */
const char *log_msg_get_value(const LogMsg *msg, NVHandle handle, size_t *len);

/* True when handle has been set on msg (even to ""). */
bool log_msg_is_value_set(const LogMsg *msg, NVHandle handle);

/* Set handle to a copy of value[0..len) (len < 0: strlen).  msg must be
 * writable. */
void log_msg_set_value(LogMsg *msg, NVHandle handle, const char *value, ssize_t len);

/* Set handle to value[0..len) without copying: value must point into memory
 * msg already keeps alive (its raw copy or arena), or into storage that
 * outlives every message (a string literal, a g_intern_string()).  msg must
 * be writable.  A new SD parameter (".SDATA.ID.PARAM") goes where syslog-ng
 * 3.38 puts one set after parsing: after the last SD parameter (set or
 * unset) whose name starts with its own up to its last dot, or before all
 * of them when none does; with LF_SDATA_IN_ORDER, after all of them. */
void log_msg_set_nv_ref(LogMsg *msg, NVHandle handle, const char *value, size_t len);

/* Parsers set several built-in values per message: those are a store each,
 * inline; name-value pairs go to log_msg_set_nv_ref. */
static inline void
log_msg_set_value_ref(LogMsg *msg, NVHandle handle, const char *value, size_t len)
{
  assert(log_msg_is_writable(msg));
  if (handle > LM_V_NONE && handle < LM_V_MAX && len <= UINT32_MAX)
    {
      msg->builtin[handle].ptr = value;
      msg->builtin[handle].len = (uint32_t) len;
      return;
    }
  log_msg_set_nv_ref(msg, handle, value, len);
}

/* Set by name; convenience for tests and configuration-time code. */
void log_msg_set_value_by_name(LogMsg *msg, const char *name, const char *value, ssize_t len);

/* Remove handle from msg (built-in slots become empty; an SD parameter
 * keeps its place in the table as an unset entry). */
void log_msg_unset_value(LogMsg *msg, NVHandle handle);

/* log_msg_unset_value for each of handles[0..n), in one pass over the
 * pairs however many there are (unset one by one, each plain pair that
 * goes moves those behind it). */
void log_msg_unset_values(LogMsg *msg, const NVHandle *handles, size_t n);

/* Drop every name-value pair (built-in values and tags stay): a parser
 * that gives up on a message starts it again.  msg must be writable. */
void log_msg_clear_nv(LogMsg *msg);

/* Reserve len bytes in msg's arena (for a parser that builds a value in
 * place, such as an unescaped SD param); the memory lives with msg. */
char *log_msg_alloc(LogMsg *msg, size_t len);

/* Call func for each name-value pair (not the built-in slots) in the order
 * they were set (SD parameters: in $SDATA's order); stop early when it
 * returns false. */
typedef bool (*LogMsgForeachFunc)(NVHandle handle, const char *name, const char *value, size_t value_len,
                                  void *user_data);
void log_msg_foreach_nv(const LogMsg *msg, LogMsgForeachFunc func, void *user_data);

/* ---- tags -------------------------------------------------------------- */

/* The id of tag name, interning it on first use.  Thread-safe.  Beyond
 * 65536 tags a new name gets LOG_TAG_NONE, which setting ignores. */
#define LOG_TAG_NONE UINT32_MAX
LogTagId log_tags_get_by_name(const char *name);

/* The name of tag id (static storage), or NULL. */
const char *log_tags_get_name(LogTagId id);

void log_msg_set_tag(LogMsg *msg, LogTagId id);
void log_msg_clear_tag(LogMsg *msg, LogTagId id);
bool log_msg_has_tag(const LogMsg *msg, LogTagId id);

/* Call func for each tag set on msg, in increasing id order. */
typedef void (*LogMsgTagFunc)(LogTagId id, const char *name, void *user_data);
void log_msg_foreach_tag(const LogMsg *msg, LogMsgTagFunc func, void *user_data);

/* Tags Sluice itself sets. */
#define LOG_TAG_PARSE_ERROR_NAME "message.parse_error"

/* ---- syslog priority --------------------------------------------------- */

static inline int
log_msg_facility(const LogMsg *msg)
{
  return msg->pri >> 3;
}

static inline int
log_msg_severity(const LogMsg *msg)
{
  return msg->pri & 7;
}

/* ---- per-thread cache -------------------------------------------------- */

/* Give this thread's cached messages back to the global depot (call before a
 * worker thread exits; harmless otherwise). */
void log_msg_thread_cache_flush(void);

/* Messages currently alive (allocated and not yet freed); for tests. */
long log_msg_live_count(void);

#endif
