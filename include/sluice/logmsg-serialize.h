/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_LOGMSG_SERIALIZE_H
#define SLUICE_LOGMSG_SERIALIZE_H

/*
 * The serialized form of a LogMsg, for disk buffers (and anything else that
 * must keep a message outside the process).
 *
 * Everything a message carries is kept: pri, flags, sequence number,
 * receipt id, the three timestamps, the peer address, every value that is
 * set (the built-in slots and the name-value pairs, in the order they were
 * set, so ${SDATA} comes out the same) and the tags.  Values and tags are
 * written with their names, not their handles: handles are numbered per
 * process, so a buffer written by one run reads back in the next.  What
 * belongs to the running process (refcounts, flow-control windows, the
 * copy-on-write original) is not kept.
 *
 * Layout, all integers little-endian:
 *   u8 'M', u8 version (1)
 *   u16 pri, u32 flags, u32 seqnum, u64 rcptid
 *   3 x { i64 sec, u32 usec, i32 gmtoff }   (STAMP, RECVD, PROCESSED)
 *   u16 family, u16 port, u8 addr[16]
 *   u32 count, count x { u16 name_len, name, u32 value_len, value }
 *   u32 count, count x { u16 name_len, name }   (tags)
 * and nothing after.
 */

#include "sluice/logmsg.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LOG_MSG_SERIALIZE_VERSION 1

/* The values log_msg_serialize() writes, in its order: the built-in slots
 * that are set, then the name-value pairs (an unset SD parameter's place
 * skipped).  For another form of the whole message (logstore()'s lean
 * records):
 *
 *   LogMsgValues it;
 *   log_msg_values_init(&it, msg);
 *   while (log_msg_values_next(&it))
 *     ... it.name[0..it.name_len), it.value[0..it.len) ...
 */
typedef struct LogMsgValues
{
  const LogMsg *msg;
  uint32_t at;       /* the next: built-in handles, then LM_V_MAX + index into nv */
  const void *names; /* the built-in slots' names, looked up once */
  const char *name, *value;
  size_t name_len, len;
} LogMsgValues;

void log_msg_values_init(LogMsgValues *it, const LogMsg *msg);
bool log_msg_values_next(LogMsgValues *it);

/* How many values log_msg_values_next() gives for msg. */
uint32_t log_msg_values_count(const LogMsg *msg);

/* The tags as log_msg_serialize() writes them (a u32 count, then each
 * name after its u16 length): their bytes, and written at out (returns
 * the end), for another form that keeps them so (logstore()'s lean
 * records). */
size_t log_msg_serialized_tags_size(const LogMsg *msg);
uint8_t *log_msg_serialize_tags(const LogMsg *msg, uint8_t *out);

/* Bytes log_msg_serialize() will write for msg. */
size_t log_msg_serialized_size(const LogMsg *msg);

/* Write msg's serialized form to out, which has room for
 * log_msg_serialized_size(msg) bytes; returns the number written. */
size_t log_msg_serialize(const LogMsg *msg, uint8_t *out);

/* A new writable message (refcount 1, caller owns it) from data[0..len),
 * or NULL with *error (static text) when the bytes are not exactly one
 * well-formed serialized message.  Never reads outside data[0..len). */
LogMsg *log_msg_deserialize(const uint8_t *data, size_t len, const char **error);

#endif
