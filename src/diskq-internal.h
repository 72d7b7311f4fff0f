/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The disk buffer file format (include/sluice/logqueue-disk.h), shared by
 * the disk queue (logqueue-disk.c) and the inspection API (diskq-file.c). */
#ifndef SLUICE_DISKQ_INTERNAL_H
#define SLUICE_DISKQ_INTERNAL_H

#include "sluice/logqueue-disk.h"

#include <stddef.h>
#include <stdint.h>

#define DISKQ_MAGIC "SLUICEDQ"
/* Version 2 checksums a record's payload first, then its length and
 * sequence number, so a pusher computes the payload's part before it takes
 * the queue's lock (the sequence number is only known under it); version 1
 * put the length and sequence number first.  Both are read; new files and
 * emptied version 1 files are written as version 2. */
#define DISKQ_VERSION 2
#define DISKQ_VERSION_MIN 1
#define DISKQ_HEADER_ENC 96 /* bytes of the header actually written */
#define DISKQ_REC_HDR 16
#define DISKQ_SKIP 0xffffffffu

/* The on-disk size of a record with a payload of len bytes. */
static inline uint64_t
diskq_rec_size(uint32_t len)
{
  return DISKQ_REC_HDR + (((uint64_t) len + 7) & ~(uint64_t) 7);
}

/* CRC-32C (Castagnoli, reflected), continuing from crc (0 to start). */
uint32_t diskq_crc32(uint32_t crc, const void *data, size_t len);
/* The same without the hardware instruction (for the tests). */
uint32_t diskq_crc32_sw(uint32_t crc, const void *data, size_t len);

void diskq_header_encode(const DiskQHeader *h, uint8_t out[DISKQ_HEADER_ENC]);
/* NULL when buf holds a good header, else why not. */
const char *diskq_header_decode(const uint8_t buf[DISKQ_HEADER_ENC], DiskQHeader *h);

typedef struct DiskQRecHdr
{
  uint32_t len; /* payload bytes, or DISKQ_SKIP */
  uint32_t crc;
  uint64_t seq;
} DiskQRecHdr;

/* Write a record header for payload[0..len) (NULL for a skip marker) at
 * out, checksummed as the given file version does. */
void diskq_rec_hdr_encode(uint8_t out[DISKQ_REC_HDR], uint32_t len, uint64_t seq, const uint8_t *payload,
                          uint32_t version);
/* The same for a version 2 file when the payload's checksum is known:
 * payload_crc is diskq_crc32(0, payload, len). */
void diskq_rec_hdr_encode_v2(uint8_t out[DISKQ_REC_HDR], uint32_t len, uint64_t seq, uint32_t payload_crc);

/* Reads a file through a buffer of a few hundred KiB. */
typedef struct DiskQReader
{
  int fd;
  uint8_t *buf;
  size_t cap;
  uint64_t off;   /* file offset of buf[0] */
  size_t len;     /* valid bytes in buf */
  uint64_t limit; /* read ahead no further than this offset (0: no limit) */
} DiskQReader;

void diskq_reader_init(DiskQReader *r, int fd);
void diskq_reader_destroy(DiskQReader *r);
/* The file has changed under the reader. */
static inline void
diskq_reader_invalidate(DiskQReader *r)
{
  r->len = 0;
}
/* file bytes [off, off + len), or NULL when the file is shorter or unreadable. */
const uint8_t *diskq_reader_get(DiskQReader *r, uint64_t off, size_t len);

/* Walks records of a ring of ring bytes from position pos, expecting
 * sequence number seq, never past base + ring. */
typedef struct DiskQScan
{
  DiskQReader *rd;
  uint32_t version; /* of the file: how its records are checksummed */
  uint64_t ring;
  uint64_t base;
  uint64_t pos;
  uint64_t seq;
} DiskQScan;

/* The next record: 1 with *h, *payload (valid until the next read) and
 * *advance (bytes from the previous position, skips included); -1 for a
 * record whose checksum fails (skipped: pos and seq move past it); 0 at the
 * end (a sequence number that does not follow, a bad length, the file's
 * end). */
int diskq_scan_next(DiskQScan *s, DiskQRecHdr *h, const uint8_t **payload, uint64_t *advance);

#endif
