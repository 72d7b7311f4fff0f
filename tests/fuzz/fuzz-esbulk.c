/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: the bulk API response reader of http()
 * (modules/http/http-bulk.c), which reads what an Elasticsearch or
 * OpenSearch server (or anything at its url) answers, chunk by chunk as
 * curl hands it over.
 *
 * Input: byte 0 is the number of items the request had (0..255); byte 1 is
 * k (taken modulo 16), then k bytes are chunk lengths (0 stands for 1),
 * used in turn over and over; the rest is the response body.  With k = 0
 * the body is one chunk.
 *
 * The body is read whole (http_bulk_parse) and in those chunks (each
 * copied to a buffer of its own length, so a read past it is ASan's); the
 * two must agree on every item, the error and the reason.  A response
 * taken must have given every item one of the three outcomes, and a
 * reason only with a dropped item; one refused must say why and give no
 * reason.  A violated invariant calls abort().
 */
#include "http/http.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
_check(bool ok, const HttpBulkItem *out, size_t n, const char *error, const char *reason)
{
  if (ok)
    {
      bool dropped = false;
      for (size_t i = 0; i < n; i++)
        {
          if (out[i] != HTTP_BULK_OK && out[i] != HTTP_BULK_RETRY && out[i] != HTTP_BULK_DROP)
            abort();
          dropped |= out[i] == HTTP_BULK_DROP;
        }
      if (reason && !dropped)
        abort();
    }
  else if (!error || reason)
    abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (size < 2)
    return 0;
  size_t n = data[0];
  size_t k = data[1] % 16;
  if (size < 2 + k)
    return 0;
  const uint8_t *lens = data + 2;
  const uint8_t *body = data + 2 + k;
  size_t len = size - 2 - k;

  /* whole */
  char *buf = malloc(len ? len : 1);
  if (!buf)
    return 0;
  memcpy(buf, body, len);
  HttpBulkItem out[256];
  for (size_t i = 0; i < 256; i++)
    out[i] = (HttpBulkItem) 99;
  const char *error = NULL;
  char *reason = NULL;
  bool ok = http_bulk_parse(buf, len, n, out, &error, &reason);
  free(buf);
  _check(ok, out, n, error, reason);

  /* in chunks */
  HttpBulkItem out2[256];
  for (size_t i = 0; i < 256; i++)
    out2[i] = (HttpBulkItem) 99;
  HttpBulkReader r;
  http_bulk_reader_init(&r, out2, n);
  size_t at = 0;
  for (size_t c = 0; at < len; c++)
    {
      size_t want = k ? (lens[c % k] ? lens[c % k] : 1) : len;
      size_t chunk = len - at < want ? len - at : want;
      char *piece = malloc(chunk);
      if (!piece)
        abort();
      memcpy(piece, body + at, chunk);
      bool going = http_bulk_reader_feed(&r, piece, chunk);
      free(piece);
      at += chunk;
      /* refused: what follows is ignored, as curl's callback may go on */
      if (!going && at < len && http_bulk_reader_feed(&r, (const char *) body + at, 0))
        abort();
    }
  const char *error2 = NULL;
  char *reason2 = NULL;
  bool ok2 = http_bulk_reader_finish(&r, &error2, &reason2);
  _check(ok2, out2, n, error2, reason2);

  if (ok != ok2)
    abort();
  if (ok)
    {
      if (memcmp(out, out2, n * sizeof(out[0])) != 0)
        abort();
      if (!reason != !reason2 || (reason && strcmp(reason, reason2) != 0))
        abort();
    }
  else if (strcmp(error, error2) != 0)
    abort();
  g_free(reason);
  g_free(reason2);
  return 0;
}
