/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: the RELP frame parser (modules/relp/relp-frame.c), as
 * a connection uses it.
 *
 * Input: byte 0 picks max_data (0..255, or 64 KiB for 0); the rest is the
 * stream.  It is parsed frame by frame in one piece, and again fed a
 * growing prefix at a time as reads would deliver it; both must agree on
 * every frame and on where the stream turned out not to be RELP.  Each
 * frame must lie inside the input, its data within max_data, and a
 * prefix of a frame must never be taken for an error the whole frame is
 * not.  rsp codes and offers are read from every frame's data.  A
 * violated invariant calls abort().
 */
#include "relp/relp-frame.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
_check_frame(const char *buf, size_t len, size_t max_data, const RelpFrame *f, size_t used)
{
  if (used == 0 || used > len)
    abort();
  if (f->data < buf || f->data + f->data_len > buf + used || f->data_len > max_data)
    abort();
  if (f->command < buf || f->command + f->command_len > buf + used || f->command_len == 0
      || f->command_len > RELP_COMMAND_MAX)
    abort();
  if (f->txnr > RELP_TXNR_MAX || buf[used - 1] != '\n')
    abort();
  int code = relp_rsp_code(f->data, f->data_len);
  if (code > 999)
    abort();
  char *v = relp_offers_get(f->data, f->data_len, "relp_software");
  (void) relp_offers_have(f->data, f->data_len, "commands", "syslog");
  g_free(v);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (size < 1)
    return 0;
  size_t max_data = data[0] ? data[0] : 65536;
  const char *buf = (const char *) data + 1;
  size_t len = size - 1;

  /* in one piece */
  size_t off = 0, frames = 0;
  RelpParseStatus end;
  RelpFrame f;
  size_t used;
  const char *error;
  while ((end = relp_frame_parse(buf + off, len - off, max_data, &f, &used, &error)) == RELP_PARSE_FRAME)
    {
      _check_frame(buf + off, len - off, max_data, &f, used);
      off += used;
      frames++;
    }
  if (end == RELP_PARSE_ERROR && !error)
    abort();

  /* a byte at a time, as the slowest reads would bring it */
  size_t off2 = 0, frames2 = 0, have = 0;
  RelpParseStatus end2 = RELP_PARSE_MORE;
  while (have < len)
    {
      have++;
      while ((end2 = relp_frame_parse(buf + off2, have - off2, max_data, &f, &used, &error)) == RELP_PARSE_FRAME)
        {
          _check_frame(buf + off2, have - off2, max_data, &f, used);
          off2 += used;
          frames2++;
        }
      if (end2 == RELP_PARSE_ERROR)
        break;
    }
  if (frames != frames2 || off != off2 || (end == RELP_PARSE_ERROR) != (end2 == RELP_PARSE_ERROR))
    abort();
  return 0;
}
