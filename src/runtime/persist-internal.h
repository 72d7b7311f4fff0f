/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_PERSIST_INTERNAL_H
#define SLUICE_PERSIST_INTERNAL_H

/*
 * The persist file's layout (sluice/persist.h), for src/runtime/persist.c and for
 * the tests and the fuzz target that build files by hand.  Every number is
 * little-endian; every checksum is CRC-32C (diskq_crc32, diskq-internal.h).
 *
 *   header   magic "SLUICEPS", u32 version (1), u32 flags (0),
 *            u32 records, u32 crc of the 20 bytes before it
 *   record   u32 key length (1..PERSIST_MAX_KEY), u32 value length
 *            (0..PERSIST_MAX_VALUE), the key (no NUL), the value,
 *            u32 crc of the record's bytes before it, continuing from the
 *            crc before it (the header's for the first record)
 *
 * The chain makes a record's checksum depend on everything before it, so
 * records cannot be reordered or spliced in from another file unnoticed.
 * Nothing follows the last record.  The magic and the version stay where
 * they are in every later version, so an older Sluice can say what it
 * found.
 */

#define PERSIST_MAGIC "SLUICEPS"
#define PERSIST_MAGIC_LEN 8
#define PERSIST_VERSION 1
#define PERSIST_HEADER_SIZE 24
#define PERSIST_REC_HDR 8 /* key and value lengths */
#define PERSIST_REC_CRC 4

#endif
