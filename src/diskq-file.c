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
  return NULL;
}

/* ---- records ------------------------------------------------------------ */

/* The checksum of a record: version 1 covers the length, the sequence
 * number, then the payload; version 2 the payload, then the length and the
 * sequence number (see DISKQ_VERSION).  A skip marker has no payload, so
 * both versions checksum it the same way. */
static uint32_t
_rec_crc(const uint8_t *hdr, const uint8_t *payload, uint32_t len, uint32_t version)
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
diskq_rec_hdr_encode(uint8_t out[DISKQ_REC_HDR], uint32_t len, uint64_t seq, const uint8_t *payload,
                     uint32_t version)
{
  _put(out, len, 4);
  _put(out + 8, seq, 8);
  _put(out + 4, _rec_crc(out, payload, len, version), 4);
}

void
diskq_rec_hdr_encode_v2(uint8_t out[DISKQ_REC_HDR], uint32_t len, uint64_t seq, uint32_t payload_crc)
{
  _put(out, len, 4);
  _put(out + 8, seq, 8);
  uint32_t crc = diskq_crc32(payload_crc, out, 4);
  _put(out + 4, diskq_crc32(crc, out + 8, 8), 4);
}

static bool
_rec_crc_ok(const uint8_t *hdr, const uint8_t *payload, uint32_t len, uint32_t version)
{
  return _rec_crc(hdr, payload, len, version) == (uint32_t) _get(hdr + 4, 4);
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

int
diskq_scan_next(DiskQScan *s, DiskQRecHdr *h, const uint8_t **payload, uint64_t *advance)
{
  uint64_t start = s->pos, pos = s->pos;
  for (;;)
    {
      uint64_t off = pos % s->ring;
      if (s->ring - off < DISKQ_REC_HDR)
        {
          pos += s->ring - off;
          continue;
        }
      if (pos + DISKQ_REC_HDR > s->base + s->ring)
        return 0;
      const uint8_t *p = diskq_reader_get(s->rd, DISKQ_HEADER_SIZE + off, DISKQ_REC_HDR);
      if (!p)
        return 0;
      h->len = (uint32_t) _get(p, 4);
      h->crc = (uint32_t) _get(p + 4, 4);
      h->seq = _get(p + 8, 8);
      if (h->seq != s->seq)
        return 0;
      if (h->len == DISKQ_SKIP)
        {
          if (!_rec_crc_ok(p, NULL, 0, s->version))
            return 0;
          pos += s->ring - off;
          continue;
        }
      uint64_t size = diskq_rec_size(h->len);
      if (size > s->ring - off || pos + size > s->base + s->ring)
        return 0;
      uint8_t hdr[DISKQ_REC_HDR];
      memcpy(hdr, p, DISKQ_REC_HDR); /* the next read may move the buffer */
      const uint8_t *body = diskq_reader_get(s->rd, DISKQ_HEADER_SIZE + off + DISKQ_REC_HDR, h->len);
      if (!body)
        return 0;
      s->pos = pos + size;
      s->seq++;
      *advance = s->pos - start;
      *payload = body;
      return _rec_crc_ok(hdr, body, h->len, s->version) ? 1 : -1;
    }
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

static void
_report(const char *section, const DiskQRecHdr *h, const uint8_t *payload, bool crc_ok, DiskQRecordFunc func,
        void *user_data)
{
  const char *error = crc_ok ? NULL : "checksum mismatch";
  LogMsg *msg = crc_ok ? log_msg_deserialize(payload, h->len, &error) : NULL;
  func(section, h->seq, h->len, msg, error, user_data);
  log_msg_unref(msg);
}

/* A saved section: count records laid end to end from offset off. */
static uint64_t
_foreach_section(DiskQFile *f, const char *section, uint64_t off, uint64_t count, DiskQRecordFunc func,
                 void *user_data)
{
  uint64_t n = 0;
  for (; n < count; n++)
    {
      const uint8_t *p = diskq_reader_get(&f->rd, off, DISKQ_REC_HDR);
      if (!p)
        break;
      DiskQRecHdr h = { (uint32_t) _get(p, 4), (uint32_t) _get(p + 4, 4), _get(p + 8, 8) };
      if (h.len == DISKQ_SKIP || h.len > (1u << 28))
        break;
      uint8_t hdr[DISKQ_REC_HDR];
      memcpy(hdr, p, sizeof(hdr));
      const uint8_t *body = diskq_reader_get(&f->rd, off + DISKQ_REC_HDR, h.len);
      if (!body)
        break;
      _report(section, &h, body, _rec_crc_ok(hdr, body, h.len, f->hdr.version), func, user_data);
      off += diskq_rec_size(h.len);
    }
  return n;
}

uint64_t
diskq_file_foreach(DiskQFile *f, DiskQRecordFunc func, void *user_data)
{
  uint64_t ring = f->hdr.capacity - DISKQ_HEADER_SIZE;
  uint64_t sections = DISKQ_HEADER_SIZE + ring;
  uint64_t n = _foreach_section(f, "front", sections, f->hdr.front_count, func, user_data);
  DiskQScan s = { &f->rd, f->hdr.version, ring, f->hdr.head, f->hdr.head, f->hdr.head_seq };
  DiskQRecHdr h;
  const uint8_t *payload;
  uint64_t adv;
  int rc;
  while ((rc = diskq_scan_next(&s, &h, &payload, &adv)) != 0)
    {
      _report("ring", &h, payload, rc > 0, func, user_data);
      n++;
    }
  n += _foreach_section(f, "overflow", sections + f->hdr.front_bytes, f->hdr.ovf_count, func, user_data);
  return n;
}
