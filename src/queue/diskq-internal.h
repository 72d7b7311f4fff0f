/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The disk buffer file format (include/sluice/logqueue-disk.h), shared by
 * the disk queue (queue-disk.c) and the inspection API (diskq-file.c). */
#ifndef SLUICE_DISKQ_INTERNAL_H
#define SLUICE_DISKQ_INTERNAL_H

#include "sluice/logqueue-disk.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DISKQ_MAGIC "SLUICEDQ"
/* Version 3 gives each record a magic and a checksum of its own header
 * (length, sequence number, payload checksum), so a reader that meets a
 * damaged record finds the next good one by looking for a header that
 * checks out, and a record whose payload is damaged is skipped by its
 * (checked) length.  Version 2 checksummed the payload, then the length and
 * the sequence number; version 1 the length and sequence number first.
 * Versions 1 and 2 are still read (and written, to the end of a file that
 * has them, until it is emptied); new and emptied files are version 3. */
#define DISKQ_VERSION 3
#define DISKQ_VERSION_MIN 1
#define DISKQ_HEADER_ENC 96   /* bytes of the header actually written */
#define DISKQ_REC_HDR_V1 16   /* a record header of versions 1 and 2 */
#define DISKQ_REC_HDR 24      /* a record header of version 3 */
#define DISKQ_REC_MAGIC 0x43525144u /* "DQRC" */
#define DISKQ_SKIP 0xffffffffu

static inline uint32_t
diskq_rec_hdr_size(uint32_t version)
{
  return version >= 3 ? DISKQ_REC_HDR : DISKQ_REC_HDR_V1;
}

/* The on-disk size of a record with a payload of len bytes. */
static inline uint64_t
diskq_rec_size(uint32_t len, uint32_t version)
{
  return diskq_rec_hdr_size(version) + (((uint64_t) len + 7) & ~(uint64_t) 7);
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
  uint64_t seq;
} DiskQRecHdr;

/* Write the header of a record of the given file version for
 * payload[0..len) (NULL for a skip marker) at out (diskq_rec_hdr_size()
 * bytes). */
void diskq_rec_hdr_encode(uint8_t *out, uint32_t len, uint64_t seq, const uint8_t *payload, uint32_t version);
/* The same when the payload's checksum is known (versions 2 and 3):
 * payload_crc is diskq_crc32(0, payload, len). */
void diskq_rec_hdr_encode_crc(uint8_t *out, uint32_t len, uint64_t seq, uint32_t payload_crc, uint32_t version);

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

/* Walks the records of a ring of ring bytes whose position 0 is at file
 * offset phys, from position pos, expecting sequence number seq, looking at
 * nothing at or past position end.  A saved section is a ring that is
 * never wrapped.
 *
 * Damage (a header or payload that does not check out, a sequence number
 * that skips) is stepped over: the walk looks for the next record whose
 * header checks out and whose sequence number is not behind, and counts
 * what it went past.  Where nothing checks out, the walk ends unless it is
 * known that more records follow (known_seq, from the file's header or the
 * queue's tail): then it looks ahead too, to the end. */
typedef struct DiskQScan
{
  DiskQReader *rd;
  uint32_t version; /* of the file: its record headers */
  uint64_t phys;
  uint64_t ring;
  uint64_t end;
  uint64_t pos;
  uint64_t seq;
  uint64_t known_seq; /* records before this sequence number exist */
  uint64_t known_end; /* ... and end at this position */
  bool exact;         /* ... and none follow (a clean stop wrote the header) */
  /* what the last call went past: records (by sequence number, payloads
   * that failed their checksum included) and bytes, from the first damage
   * at lost_pos (a ring position) expecting lost_seq; lost_bytes with
   * lost_records 0 is damage at the end that held no known record */
  uint64_t lost_records, lost_bytes, lost_pos, lost_seq;
} DiskQScan;

/* The next good record: 1 with *h, *payload (valid until the next read)
 * and *advance (bytes from the previous position: skips and damage
 * included; s->seq moves past the lost records too); 0 at the end, with
 * s->pos and s->seq where the next record would go.  Either way, s->lost_*
 * say what was lost on the way. */
int diskq_scan_next(DiskQScan *s, DiskQRecHdr *h, const uint8_t **payload, uint64_t *advance);

/* A walk of the ring from the header's head (its tail as known_*). */
void diskq_scan_ring(DiskQScan *s, DiskQReader *rd, const DiskQHeader *h);
/* A walk of the saved front cache or overflow; false when there is none. */
bool diskq_scan_section(DiskQScan *s, DiskQReader *rd, const DiskQHeader *h, bool front);

/* The file offset of ring position pos. */
static inline uint64_t
diskq_scan_offset(const DiskQScan *s, uint64_t pos)
{
  return s->phys + pos % s->ring;
}

#endif
