/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: a secure-logging archive (modules/slog) read the way
 * slogverify reads one: split into lines, each line's counter and base64
 * decoded, jumps and rewinds of the key, AES-GCM decryption, the
 * aggregated MAC and the final check of what was recovered.  Whatever
 * the lines say, nothing may crash, read out of bounds, or spend more
 * than the key-derivation budget (1000 here) on counters.
 *
 * The archive goes through slog_verifier_feed in pieces, as slogverify
 * reads it, so lines spanning reads, the line-length cap (1024 here
 * instead of 64 MiB) and an unterminated tail are covered too.
 *
 * Input: the key[32], the expected MAC[16], one byte of options (bit 0:
 * iterative mode from that key as key number bits 1-3, chaining on the
 * MAC; bits 4-7: the read size, 0 for all at once, n for 7n - 6 bytes),
 * then the archive.  The seeds are real archives with their k0 and
 * MAC, so mutations start from records that decrypt.
 */
#include "slog/slog.h"

#include "sluice/internal-log.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool
_discard(const char *line, size_t len, void *user)
{
  size_t *total = user;
  *total += len;
  (void) line;
  return true;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static bool quiet;
  if (!quiet)
    {
      sluice_log_set_stderr(false, SLUICE_LOG_ERROR);
      quiet = true;
    }
  if (size < SLOG_KEY_LEN + SLOG_MAC_LEN + 1)
    return 0;
  const unsigned char *key = data, *mac = data + SLOG_KEY_LEN;
  uint8_t opt = data[SLOG_KEY_LEN + SLOG_MAC_LEN];
  const char *archive = (const char *) data + SLOG_KEY_LEN + SLOG_MAC_LEN + 1;
  size_t len = size - SLOG_KEY_LEN - SLOG_MAC_LEN - 1;
  size_t total = 0;
  SlogVerifier *v = slog_verifier_new(key, (opt & 1) ? (uint64_t) (opt >> 1 & 7) : 0, (opt & 1) ? mac : NULL, 1000,
                                      _discard, &total);
  slog_verifier_set_max_line(v, 1024);
  size_t piece = (opt >> 4) ? (size_t) (opt >> 4) * 7 - 6 : len;
  for (size_t off = 0; off < len; off += piece)
    slog_verifier_feed(v, archive + off, len - off < piece ? len - off : piece);
  slog_verifier_end(v);
  slog_verifier_finish(v, mac);
  slog_verifier_free(v);
  return 0;
}
