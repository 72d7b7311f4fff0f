/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: the LogMsg deserializer (disk buffer records come back
 * through it).  Input: the bytes of one record's payload.  What is accepted
 * must serialize again to the same bytes and be read back the same.
 */
#include "sluice/logmsg-serialize.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  const char *error = NULL;
  LogMsg *msg = log_msg_deserialize(data, size, &error);
  if (!msg)
    {
      if (!error)
        abort();
      return 0;
    }
  size_t len = log_msg_serialized_size(msg);
  uint8_t *again = malloc(len ? len : 1);
  if (log_msg_serialize(msg, again) != len)
    abort();
  LogMsg *back = log_msg_deserialize(again, len, &error);
  if (!back)
    abort();
  size_t len2 = log_msg_serialized_size(back);
  uint8_t *third = malloc(len2 ? len2 : 1);
  if (log_msg_serialize(back, third) != len2 || len2 != len || memcmp(again, third, len) != 0)
    abort();
  free(third);
  free(again);
  log_msg_unref(back);
  log_msg_unref(msg);
  return 0;
}
