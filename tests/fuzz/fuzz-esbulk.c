/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: the bulk API response reader of http()
 * (modules/http/http-bulk.c), which reads what an Elasticsearch or
 * OpenSearch server (or anything at its url) answers.
 *
 * Input: byte 0 is the number of items the request had (0..255); the rest
 * is the response body, not NUL-terminated (copied to a buffer of its own
 * length, so a read past it is ASan's).  A response taken must have given
 * every item one of the three outcomes, and a reason only with a dropped
 * item; one refused must say why and give no reason.  A violated invariant
 * calls abort().
 */
#include "http/http.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (size < 1)
    return 0;
  size_t n = data[0];
  size_t len = size - 1;
  char *buf = malloc(len ? len : 1);
  if (!buf)
    return 0;
  memcpy(buf, data + 1, len);
  HttpBulkItem out[256];
  for (size_t i = 0; i < 256; i++)
    out[i] = (HttpBulkItem) 99;
  const char *error = NULL;
  char *reason = NULL;
  bool ok = http_bulk_parse(buf, len, n, out, &error, &reason);
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
  g_free(reason);
  free(buf);
  return 0;
}
