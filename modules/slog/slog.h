/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_SLOG_H
#define SLUICE_SLOG_H

/*
 * syslog-ng 3.38's secure logging (its secure-logging module): the file
 * formats, the key evolution, one record's encryption and the aggregated
 * MAC, and a streaming verifier.  README.md describes the formats; the
 * users are $(slog) (tf-slog.c), slogkey and slogverify (tools/) and
 * tests/fuzz/fuzz-slogverify.c.
 *
 * Key file (56 bytes): key[32] || CMAC(key, counter_le)[16] || counter_le[8]
 * MAC file (32 bytes): mac[16] || CMAC(mac || 0^16, 0^16)[16]
 * Record:  base64(counter_le)[12] ':' base64(iv[12] || tag[16] || ct)
 * CMAC is AES-256-CMAC; the sub-keys and the evolution are its output on
 * fixed 16-byte patterns (0x36: encryption, 0x5C: MAC, 0x6A: next key).
 */

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SLOG_KEY_LEN 32
#define SLOG_MAC_LEN 16
#define SLOG_IV_LEN 12
#define SLOG_TAG_LEN 16
#define SLOG_KEY_FILE_LEN (SLOG_KEY_LEN + SLOG_MAC_LEN + 8)
#define SLOG_MAC_FILE_LEN (2 * SLOG_MAC_LEN)
#define SLOG_COUNTER_B64_LEN 12

/* AES-256-CMAC of data under key.  False when OpenSSL fails. */
bool slog_cmac(const unsigned char key[SLOG_KEY_LEN], const void *data, size_t len, unsigned char out[SLOG_MAC_LEN]);

/* Whether AES-256-CMAC works on this thread (its context can be made). */
bool slog_cmac_available(void);

/* The next key: key_{i+1} = PRF(key_i, 0x6A...).  False (key untouched)
 * when CMAC fails: the caller must not use or persist a key then. */
bool slog_evolve(unsigned char key[SLOG_KEY_LEN]);

/* The key record i's encryption and its MAC step use.  False (out zeroed)
 * when CMAC fails. */
bool slog_enc_key(const unsigned char key[SLOG_KEY_LEN], unsigned char out[SLOG_KEY_LEN]);
bool slog_mac_key(const unsigned char key[SLOG_KEY_LEN], unsigned char out[SLOG_KEY_LEN]);

/* A record's counter field: base64 of the counter's 8 little-endian bytes
 * (SLOG_COUNTER_B64_LEN characters), appended to out. */
void slog_append_counter(GString *out, uint64_t counter);

/* Host key k0 = SHA-256(master || mac_addr || serial). */
bool slog_host_key(const unsigned char master[SLOG_KEY_LEN], const char *mac_addr, const char *serial,
                   unsigned char out[SLOG_KEY_LEN]);

/* Key and MAC files.  Readers take regular files only, check the CMAC and
 * say what is wrong in *error (g_malloc'd).  Writers replace the content in
 * one write (new files get mode 0600). */
bool slog_key_read(const char *path, unsigned char key[SLOG_KEY_LEN], uint64_t *counter, char **error);
bool slog_key_write(const char *path, const unsigned char key[SLOG_KEY_LEN], uint64_t counter, char **error);
bool slog_mac_read(const char *path, unsigned char mac[SLOG_MAC_LEN], char **error);
bool slog_mac_write(const char *path, const unsigned char mac[SLOG_MAC_LEN], char **error);

/* Encrypt record number counter (text, len > 0) under key and append it
 * to out; mac is the aggregated MAC, updated (counter 0 starts it, later
 * ones chain on its old value).  False (out and mac untouched) when
 * OpenSSL fails, CMAC included. */
bool slog_encrypt_record(const unsigned char key[SLOG_KEY_LEN], uint64_t counter, const char *text, size_t len,
                         unsigned char mac[SLOG_MAC_LEN], GString *out);

/* Strict base64 (padding required): the decoded bytes appended to out.
 * False on any other character or a wrong length. */
bool slog_base64_decode(const char *in, size_t len, GByteArray *out);

/* Verification of an archive, one line at a time (bounded by the line).
 * Normal mode starts from k0 (counter 0) and the first line's counter;
 * iterative mode from a later key and the MAC saved with it.  Each problem
 * is logged (sluice_log) and makes the verdict false; the decrypted lines
 * ("%020" PRIx64 ": " text "\n") go to the output callback. */
typedef struct SlogVerifier SlogVerifier;
typedef bool (*SlogOutput)(const char *line, size_t len, void *user);

/* prev_mac NULL: normal mode (key must be k0); otherwise iterative from
 * key number counter.  max_skip bounds the key derivations the whole run
 * may spend on jumps and rewinds (a hostile counter would ask for 2^64). */
SlogVerifier *slog_verifier_new(const unsigned char key[SLOG_KEY_LEN], uint64_t counter,
                                const unsigned char *prev_mac, uint64_t max_skip, SlogOutput output, void *user);
/* One line without its newline. */
void slog_verifier_line(SlogVerifier *v, const char *line, size_t len);
/* Check that every record in [first, first + lines) was recovered and
 * that the aggregated MAC is mac (NULL: the MAC file was unusable).
 * True when nothing was wrong anywhere. */
bool slog_verifier_finish(SlogVerifier *v, const unsigned char *mac);
void slog_verifier_free(SlogVerifier *v);

/* The archive as it is read, in pieces of any size: split into lines at
 * '\n' (a line may span pieces) and passed to slog_verifier_line.  A line
 * longer than the limit (SLOG_MAX_LINE unless set) is reported and not
 * kept: it counts as a line too short to be a record, so memory stays
 * bounded by the limit. */
#define SLOG_MAX_LINE ((size_t) 64 << 20)
void slog_verifier_set_max_line(SlogVerifier *v, size_t max_line);
void slog_verifier_feed(SlogVerifier *v, const char *buf, size_t n);
/* The end of the archive: an unterminated last line is reported and left
 * out (syslog-ng counts lines by newlines); no line at all is an error.
 * Then slog_verifier_finish.  True when nothing was wrong so far. */
bool slog_verifier_end(SlogVerifier *v);

#endif
