/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The disk buffer file format: see include/sluice/logqueue-disk.h. */
#include "diskq-internal.h"

#include "sluice/logmsg-serialize.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- CRC-32C ------------------------------------------------------------ */

/* CRC-32C (Castagnoli), because x86-64 computes it in hardware (SSE4.2):
 * eight bytes per instruction, where the table-driven checksum was half of
 * a reliable buffer's CPU time.  Elsewhere, and on a CPU without SSE4.2,
 * slicing by 8: eight bytes per step through eight tables.
 *
 * The instruction takes three cycles but can start one per cycle, so a
 * single chain of it waits two cycles in three: the hardware path runs
 * three chains over three adjacent blocks and joins them.  The CRC register
 * after more bytes is linear in the register before, so a chain's result is
 * moved past the blocks that follow it ("shifted") by four table lookups,
 * one per byte of it, from tables made once for the block's two distances. */
#define CRC_BLOCK 64
static uint32_t crc_tables[8][256];
static uint32_t crc_shift[2][4][256]; /* past CRC_BLOCK and 2 * CRC_BLOCK bytes */
static bool crc_hw;
static atomic_bool crc_ready;
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static inline uint32_t
_le32(const uint8_t *p)
{
  return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 | (uint32_t) p[3] << 24;
}

static uint32_t
_crc_sw(uint32_t crc, const uint8_t *p, size_t len)
{
  const uint32_t(*t)[256] = (const uint32_t(*)[256]) crc_tables;
  for (; len >= 8; p += 8, len -= 8)
    {
      uint32_t one = _le32(p) ^ crc, two = _le32(p + 4);
      crc = t[7][one & 0xff] ^ t[6][(one >> 8) & 0xff] ^ t[5][(one >> 16) & 0xff] ^ t[4][one >> 24] ^
            t[3][two & 0xff] ^ t[2][(two >> 8) & 0xff] ^ t[1][(two >> 16) & 0xff] ^ t[0][two >> 24];
    }
  while (len--)
    crc = t[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
  return crc;
}

static inline uint32_t
_crc_shifted(const uint32_t t[4][256], uint32_t crc)
{
  return t[0][crc & 0xff] ^ t[1][(crc >> 8) & 0xff] ^ t[2][(crc >> 16) & 0xff] ^ t[3][crc >> 24];
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("sse4.2"))) static uint32_t
_crc_hw(uint32_t crc, const uint8_t *p, size_t len)
{
  uint64_t c = crc;
  for (; len >= 8; p += 8, len -= 8)
    {
      uint64_t v;
      memcpy(&v, p, 8); /* little-endian: the byte order the table loop reads */
      c = __builtin_ia32_crc32di(c, v);
    }
  uint32_t c32 = (uint32_t) c;
  while (len--)
    c32 = __builtin_ia32_crc32qi(c32, *p++);
  return c32;
}

__attribute__((target("sse4.2"))) static uint32_t
_crc_hw3(uint32_t crc, const uint8_t *p, size_t len)
{
  for (; len >= 3 * CRC_BLOCK; p += 3 * CRC_BLOCK, len -= 3 * CRC_BLOCK)
    {
      uint64_t a = crc, b = 0, c = 0;
      for (size_t i = 0; i < CRC_BLOCK; i += 8)
        {
          uint64_t va, vb, vc;
          memcpy(&va, p + i, 8);
          memcpy(&vb, p + CRC_BLOCK + i, 8);
          memcpy(&vc, p + 2 * CRC_BLOCK + i, 8);
          a = __builtin_ia32_crc32di(a, va);
          b = __builtin_ia32_crc32di(b, vb);
          c = __builtin_ia32_crc32di(c, vc);
        }
      crc = _crc_shifted(crc_shift[1], (uint32_t) a) ^ _crc_shifted(crc_shift[0], (uint32_t) b) ^ (uint32_t) c;
    }
  return _crc_hw(crc, p, len);
}
#endif

static void
_crc_init(void)
{
  for (uint32_t i = 0; i < 256; i++)
    {
      uint32_t c = i;
      for (int k = 0; k < 8; k++)
        c = (c & 1) ? 0x82f63b78u ^ (c >> 1) : c >> 1;
      crc_tables[0][i] = c;
    }
  for (uint32_t i = 0; i < 256; i++)
    for (int t = 1; t < 8; t++)
      crc_tables[t][i] = (crc_tables[t - 1][i] >> 8) ^ crc_tables[0][crc_tables[t - 1][i] & 0xff];
  /* shifting is running the register over zero bytes */
  static const uint8_t zeros[2 * CRC_BLOCK];
  for (int d = 0; d < 2; d++)
    for (int byte = 0; byte < 4; byte++)
      for (uint32_t v = 0; v < 256; v++)
        crc_shift[d][byte][v] = _crc_sw(v << (8 * byte), zeros, (size_t) (d + 1) * CRC_BLOCK);
#if defined(__x86_64__) && defined(__GNUC__)
  crc_hw = __builtin_cpu_supports("sse4.2");
#endif
  atomic_store_explicit(&crc_ready, true, memory_order_release);
}

static inline void
_crc_ensure(void)
{
  if (!atomic_load_explicit(&crc_ready, memory_order_acquire))
    pthread_once(&crc_once, _crc_init);
}

uint32_t
diskq_crc32(uint32_t crc, const void *data, size_t len)
{
  _crc_ensure();
#if defined(__x86_64__) && defined(__GNUC__)
  if (crc_hw)
    return ~_crc_hw3(~crc, data, len);
#endif
  return ~_crc_sw(~crc, data, len);
}

/* For the tests: the table path whatever the CPU has. */
uint32_t
diskq_crc32_sw(uint32_t crc, const void *data, size_t len)
{
  _crc_ensure();
  return ~_crc_sw(~crc, data, len);
}

/* ---- little-endian fields ----------------------------------------------- */

static void
_put(uint8_t *p, uint64_t v, int bytes)
{
  for (int i = 0; i < bytes; i++)
    p[i] = (uint8_t) (v >> (8 * i));
}

static uint64_t
_get(const uint8_t *p, int bytes)
{
  uint64_t v = 0;
  for (int i = 0; i < bytes; i++)
    v |= (uint64_t) p[i] << (8 * i);
  return v;
}

/* ---- header ------------------------------------------------------------- */

void
diskq_header_encode(const DiskQHeader *h, uint8_t out[DISKQ_HEADER_ENC])
{
  memset(out, 0, DISKQ_HEADER_ENC);
  memcpy(out, DISKQ_MAGIC, 8);
  _put(out + 8, h->version, 4);
  _put(out + 12, h->flags, 4);
  const uint64_t fields[] = { h->capacity, h->head, h->head_seq, h->tail, h->tail_seq,
                              h->front_count, h->front_bytes, h->ovf_count, h->ovf_bytes };
  for (size_t i = 0; i < G_N_ELEMENTS(fields); i++)
    _put(out + 16 + 8 * i, fields[i], 8);
  _put(out + DISKQ_HEADER_ENC - 4, diskq_crc32(0, out, DISKQ_HEADER_ENC - 4), 4);
}

const char *
diskq_header_decode(const uint8_t buf[DISKQ_HEADER_ENC], DiskQHeader *h)
{
  if (memcmp(buf, DISKQ_MAGIC, 8) != 0)
    return "not a Sluice disk buffer (bad magic)";
  if ((uint32_t) _get(buf + DISKQ_HEADER_ENC - 4, 4) != diskq_crc32(0, buf, DISKQ_HEADER_ENC - 4))
    return "the header's checksum does not match";
  h->version = (uint32_t) _get(buf + 8, 4);
  if (h->version < DISKQ_VERSION_MIN || h->version > DISKQ_VERSION)
    return "unsupported disk buffer version (written by another version of Sluice)";
  h->flags = (uint32_t) _get(buf + 12, 4);
  uint64_t *fields[] = { &h->capacity, &h->head, &h->head_seq, &h->tail, &h->tail_seq,
                         &h->front_count, &h->front_bytes, &h->ovf_count, &h->ovf_bytes };
  for (size_t i = 0; i < G_N_ELEMENTS(fields); i++)
    *fields[i] = _get(buf + 16 + 8 * i, 8);
  if (h->capacity < DISKQ_HEADER_SIZE + 4096 || h->capacity > (UINT64_C(1) << 50))
    return "the header's capacity is out of range";
  /* far beyond what a file can reach, so that no sum of them overflows */
  if (h->head > (UINT64_C(1) << 60) || h->tail > (UINT64_C(1) << 60) || h->head_seq > (UINT64_C(1) << 60) ||
      h->tail_seq > (UINT64_C(1) << 60) || h->front_bytes > (UINT64_C(1) << 50) ||
      h->ovf_bytes > (UINT64_C(1) << 50))
    return "the header's positions are out of range";
  return NULL;
}

/* ---- records ------------------------------------------------------------ */

/* Version 3: u32 magic, u32 length, u64 sequence number, u32 CRC-32C of
 * the payload, u32 CRC-32C of the 20 bytes before it.  Version 2: u32
 * length, u32 CRC-32C of the payload then the length and sequence number,
 * u64 sequence number; version 1 the same with the payload last.  A skip
 * marker has no payload (its payload checksum is 0). */
static void
_encode(uint8_t *out, uint32_t len, uint64_t seq, uint32_t payload_crc, uint32_t version)
{
  if (version >= 3)
    {
      _put(out, DISKQ_REC_MAGIC, 4);
      _put(out + 4, len, 4);
      _put(out + 8, seq, 8);
      _put(out + 16, payload_crc, 4);
      _put(out + 20, diskq_crc32(0, out, 20), 4);
      return;
    }
  _put(out, len, 4);
  _put(out + 8, seq, 8);
  uint32_t crc = diskq_crc32(payload_crc, out, 4);
  _put(out + 4, diskq_crc32(crc, out + 8, 8), 4);
}

/* The record checksum of versions 1 and 2 (hdr: the 16 header bytes). */
static uint32_t
_v1_crc(const uint8_t *hdr, const uint8_t *payload, uint32_t len, uint32_t version)
{
  if (version >= 2)
    {
      uint32_t crc = payload ? diskq_crc32(0, payload, len) : 0;
      crc = diskq_crc32(crc, hdr, 4);
      return diskq_crc32(crc, hdr + 8, 8);
    }
  uint32_t crc = diskq_crc32(0, hdr, 4);
  crc = diskq_crc32(crc, hdr + 8, 8);
  return payload ? diskq_crc32(crc, payload, len) : crc;
}

void
diskq_rec_hdr_encode(uint8_t *out, uint32_t len, uint64_t seq, const uint8_t *payload, uint32_t version)
{
  if (version >= 2)
    {
      _encode(out, len, seq, payload ? diskq_crc32(0, payload, len) : 0, version);
      return;
    }
  _put(out, len, 4);
  _put(out + 8, seq, 8);
  _put(out + 4, _v1_crc(out, payload, len, version), 4);
}

void
diskq_rec_hdr_encode_crc(uint8_t *out, uint32_t len, uint64_t seq, uint32_t payload_crc, uint32_t version)
{
  _encode(out, len, seq, payload_crc, version);
}

/* ---- buffered reading --------------------------------------------------- */

#define READER_CHUNK (256 * 1024)

void
diskq_reader_init(DiskQReader *r, int fd)
{
  memset(r, 0, sizeof(*r));
  r->fd = fd;
}

void
diskq_reader_destroy(DiskQReader *r)
{
  free(r->buf);
  r->buf = NULL;
  r->cap = r->len = 0;
}

const uint8_t *
diskq_reader_get(DiskQReader *r, uint64_t off, size_t len)
{
  if (r->len && off >= r->off && off + len <= r->off + r->len)
    return r->buf + (off - r->off);
  if (len > READER_CHUNK)
    {
      /* a length read from the file: allocate no more than the file has */
      struct stat st;
      if (fstat(r->fd, &st) != 0 || off > (uint64_t) st.st_size || len > (uint64_t) st.st_size - off)
        return NULL;
    }
  size_t want = len > READER_CHUNK ? len : READER_CHUNK;
  if (r->limit > off + len && want > r->limit - off)
    want = (size_t) (r->limit - off);
  if (want > r->cap)
    {
      uint8_t *nb = realloc(r->buf, want);
      if (!nb)
        abort();
      r->buf = nb;
      r->cap = want;
    }
  r->off = off;
  r->len = 0;
  while (r->len < want)
    {
      ssize_t n = pread(r->fd, r->buf + r->len, want - r->len, (off_t) (off + r->len));
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      r->len += (size_t) n;
    }
  return r->len >= len ? r->buf : NULL;
}

/* What a walk finds at a position. */
typedef enum
{
  AT_GOOD,     /* a record (sequence number not behind) that checks out */
  AT_BAD_BODY, /* its header checks out, its payload does not */
  AT_SKIP,     /* a skip marker (sequence number not behind) */
  AT_OLD,      /* a record that checks out but is behind: of an earlier lap */
  AT_EOF,      /* past the file's end */
  AT_ZERO,     /* zeros: never written */
  AT_BAD,      /* nothing that checks out */
} DiskQAt;

static bool
_zero(const uint8_t *p, size_t len)
{
  for (size_t i = 0; i < len; i++)
    if (p[i])
      return false;
  return true;
}

/* What is at ring position pos (room for a header before the ring's end
 * and s->end): *h, and *size (the bytes it takes) and *payload for all but
 * AT_EOF, AT_ZERO and AT_BAD.  Version 3 headers are checked alone;
 * a version 1 or 2 record only with its payload, so when searching
 * (looking for the record to go on at) one whose sequence number is out of
 * the expected range is not looked into. */
static DiskQAt
_at(DiskQScan *s, uint64_t pos, bool searching, DiskQRecHdr *h, const uint8_t **payload, uint64_t *size)
{
  uint64_t off = pos % s->ring;
  uint32_t rhdr = diskq_rec_hdr_size(s->version);
  /* sequence numbers grow by one a record, so no more than this many can follow */
  uint64_t most = s->seq + s->ring / DISKQ_REC_HDR_V1 + 1;
  const uint8_t *p = diskq_reader_get(s->rd, s->phys + off, rhdr);
  if (!p)
    return AT_EOF;
  if (_zero(p, rhdr))
    return AT_ZERO;
  uint8_t hdr[DISKQ_REC_HDR];
  memcpy(hdr, p, rhdr); /* the next read may move the buffer */
  uint32_t payload_crc = 0;
  if (s->version >= 3)
    {
      if ((uint32_t) _get(hdr, 4) != DISKQ_REC_MAGIC || (uint32_t) _get(hdr + 20, 4) != diskq_crc32(0, hdr, 20))
        return AT_BAD;
      h->len = (uint32_t) _get(hdr + 4, 4);
      h->seq = _get(hdr + 8, 8);
      payload_crc = (uint32_t) _get(hdr + 16, 4);
    }
  else
    {
      h->len = (uint32_t) _get(hdr, 4);
      h->seq = _get(hdr + 8, 8);
      if (searching && (h->seq < s->seq || h->seq > most))
        return AT_BAD;
    }
  if (h->seq > most)
    return AT_BAD;
  if (h->len == DISKQ_SKIP)
    {
      if (s->version < 3 && _v1_crc(hdr, NULL, 0, s->version) != (uint32_t) _get(hdr + 4, 4))
        return AT_BAD;
      *size = s->ring - off;
      *payload = NULL;
      return h->seq < s->seq ? AT_OLD : AT_SKIP;
    }
  *size = diskq_rec_size(h->len, s->version);
  if (*size > s->ring - off)
    return AT_BAD;
  if (s->version >= 3 && h->seq < s->seq)
    return AT_OLD; /* not read: its header is enough to step over it */
  if (pos + *size > s->end)
    return AT_BAD;
  const uint8_t *body = diskq_reader_get(s->rd, s->phys + off + rhdr, h->len);
  if (!body)
    return AT_BAD; /* cut short */
  *payload = body;
  if (s->version >= 3)
    return diskq_crc32(0, body, h->len) == payload_crc ? AT_GOOD : AT_BAD_BODY;
  bool ok = _v1_crc(hdr, body, h->len, s->version) == (uint32_t) _get(hdr + 4, 4);
  if (!ok)
    return h->seq == s->seq && !searching ? AT_BAD_BODY : AT_BAD; /* as versions 1 and 2 always did */
  return h->seq < s->seq ? AT_OLD : AT_GOOD;
}

/* The start of the record to go on at, from position pos, or false when
 * there is none before s->end.  A record of an earlier lap is stepped over
 * whole, a file's end to the next lap's start, anything else by the
 * records' alignment. */
static bool
_search(DiskQScan *s, uint64_t pos, uint64_t *found)
{
  uint32_t rhdr = diskq_rec_hdr_size(s->version);
  for (;;)
    {
      uint64_t off = pos % s->ring;
      if (off & 7)
        {
          pos += 8 - (off & 7);
          continue;
        }
      if (s->ring - off < rhdr)
        {
          pos += s->ring - off;
          continue;
        }
      if (pos + rhdr > s->end)
        return false;
      DiskQRecHdr h;
      const uint8_t *payload;
      uint64_t size = 0;
      switch (_at(s, pos, true, &h, &payload, &size))
        {
        case AT_GOOD:
        case AT_BAD_BODY:
        case AT_SKIP:
          *found = pos;
          return true;
        case AT_OLD:
          pos += size;
          break;
        case AT_EOF:
          pos += s->ring - off;
          break;
        default:
          pos += 8;
          break;
        }
    }
}

static void
_lost(DiskQScan *s, uint64_t pos, uint64_t records, uint64_t bytes)
{
  if (!s->lost_records && !s->lost_bytes)
    {
      s->lost_pos = pos;
      s->lost_seq = s->seq;
    }
  s->lost_records += records;
  s->lost_bytes += bytes;
}

int
diskq_scan_next(DiskQScan *s, DiskQRecHdr *h, const uint8_t **payload, uint64_t *advance)
{
  uint64_t start = s->pos, pos = s->pos;
  uint32_t rhdr = diskq_rec_hdr_size(s->version);
  s->lost_records = s->lost_bytes = s->lost_pos = s->lost_seq = 0;
  for (;;)
    {
      uint64_t off = pos % s->ring;
      if (s->ring - off < rhdr)
        {
          pos += s->ring - off;
          continue;
        }
      DiskQAt at = AT_EOF;
      uint64_t size = 0;
      if (pos + rhdr <= s->end)
        at = _at(s, pos, false, h, payload, &size);
      else if (s->seq >= s->known_seq)
        at = AT_OLD; /* the end of what may be looked at: an end like any */
      if (at == AT_GOOD || at == AT_BAD_BODY || at == AT_SKIP)
        {
          if (h->seq > s->seq)
            {
              /* records are missing, with nothing in their place */
              _lost(s, pos, h->seq - s->seq, 0);
              s->seq = h->seq;
            }
          if (at == AT_SKIP)
            {
              pos += size;
              continue;
            }
          if (at == AT_BAD_BODY)
            {
              _lost(s, pos, 1, size);
              s->seq++;
              pos += size;
              continue;
            }
          s->pos = pos + size;
          s->seq++;
          *advance = s->pos - start;
          return 1;
        }
      /* the end, or damage: it is the end when nothing more is known to
       * follow and it looks like one (a clean stop's tail; or, after an
       * unclean one, what was never written or an earlier lap's record) */
      bool known = s->seq < s->known_seq;
      if (!known && (s->exact || at != AT_BAD))
        break;
      uint64_t next;
      if (pos + rhdr <= s->end && _search(s, pos + 8, &next))
        {
          /* _at() said the sequence number there is not behind */
          DiskQRecHdr nh;
          const uint8_t *np;
          uint64_t nsize;
          _at(s, next, true, &nh, &np, &nsize);
          _lost(s, pos, nh.seq - s->seq, next - pos);
          s->seq = nh.seq;
          pos = next;
          continue;
        }
      /* the records known to exist are gone (without such records this
       * was the end: a record cut short by an unclean stop, or the middle
       * of an earlier lap's record) */
      if (known)
        _lost(s, pos, s->known_seq - s->seq, s->known_end > pos ? s->known_end - pos : 0);
      break;
    }
  s->pos = pos;
  return 0;
}

void
diskq_scan_ring(DiskQScan *s, DiskQReader *rd, const DiskQHeader *h)
{
  uint64_t ring = h->capacity - DISKQ_HEADER_SIZE;
  *s = (DiskQScan) { .rd = rd, .version = h->version, .phys = DISKQ_HEADER_SIZE, .ring = ring,
                     .end = h->head + ring, .pos = h->head, .seq = h->head_seq,
                     .known_seq = h->head_seq, .known_end = h->head };
  /* the header's tail: where the writer was when it was written */
  if (h->tail >= h->head && h->tail - h->head <= ring && h->tail_seq >= h->head_seq &&
      h->tail_seq - h->head_seq <= ring / DISKQ_REC_HDR_V1)
    {
      s->known_seq = h->tail_seq;
      s->known_end = h->tail;
      s->exact = (h->flags & DISKQ_F_CLEAN) != 0;
    }
}

bool
diskq_scan_section(DiskQScan *s, DiskQReader *rd, const DiskQHeader *h, bool front)
{
  uint64_t ring_end = h->capacity;
  uint64_t off = front ? 0 : h->front_bytes;
  uint64_t bytes = front ? h->front_bytes : h->ovf_bytes;
  uint64_t count = front ? h->front_count : h->ovf_count;
  if (!count || bytes < diskq_rec_hdr_size(h->version))
    return false;
  *s = (DiskQScan) { .rd = rd, .version = h->version, .phys = ring_end + off, .ring = bytes, .end = bytes,
                     .known_seq = count < bytes ? count : bytes, .known_end = bytes, .exact = true };
  return true;
}

/* ---- inspection (sluice-dqtool) ----------------------------------------- */

struct DiskQFile
{
  int fd;
  DiskQHeader hdr;
  DiskQReader rd;
};

DiskQFile *
diskq_file_open_ro(const char *path, char **error)
{
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    {
      *error = g_strdup_printf("cannot open %s: %s", path, g_strerror(errno));
      return NULL;
    }
  uint8_t buf[DISKQ_HEADER_ENC];
  ssize_t n = pread(fd, buf, sizeof(buf), 0);
  DiskQHeader h;
  const char *e = n == (ssize_t) sizeof(buf) ? diskq_header_decode(buf, &h) : "the file is shorter than a header";
  if (e)
    {
      *error = g_strdup_printf("%s: %s", path, e);
      close(fd);
      return NULL;
    }
  DiskQFile *f = calloc(1, sizeof(*f));
  if (!f)
    abort();
  f->fd = fd;
  f->hdr = h;
  diskq_reader_init(&f->rd, fd);
  return f;
}

void
diskq_file_close(DiskQFile *f)
{
  if (!f)
    return;
  diskq_reader_destroy(&f->rd);
  close(f->fd);
  free(f);
}

const DiskQHeader *
diskq_file_header(const DiskQFile *f)
{
  return &f->hdr;
}

/* Report the records of a scan, and what it lost on the way. */
static uint64_t
_foreach_scan(DiskQScan *s, const char *section, DiskQRecordFunc func, DiskQLossFunc lost, void *user_data)
{
  uint64_t n = 0;
  DiskQRecHdr h;
  const uint8_t *payload;
  uint64_t adv;
  int rc;
  do
    {
      rc = diskq_scan_next(s, &h, &payload, &adv);
      if ((s->lost_records || s->lost_bytes) && lost)
        lost(section, diskq_scan_offset(s, s->lost_pos), s->lost_seq, s->lost_records, s->lost_bytes, user_data);
      if (rc > 0)
        {
          const char *error = NULL;
          LogMsg *msg = log_msg_deserialize(payload, h.len, &error);
          func(section, h.seq, h.len, msg, error, user_data);
          log_msg_unref(msg);
          n++;
        }
    }
  while (rc > 0);
  return n;
}

uint64_t
diskq_file_foreach(DiskQFile *f, DiskQRecordFunc func, DiskQLossFunc lost, void *user_data)
{
  DiskQScan s;
  uint64_t n = 0;
  if (diskq_scan_section(&s, &f->rd, &f->hdr, true))
    n += _foreach_scan(&s, "front", func, lost, user_data);
  diskq_scan_ring(&s, &f->rd, &f->hdr);
  n += _foreach_scan(&s, "ring", func, lost, user_data);
  if (diskq_scan_section(&s, &f->rd, &f->hdr, false))
    n += _foreach_scan(&s, "overflow", func, lost, user_data);
  return n;
}
