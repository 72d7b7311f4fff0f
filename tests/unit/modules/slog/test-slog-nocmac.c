/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Secure logging when AES-256-CMAC fails (run under nocmac.cnf: OpenSSL
 * without its default provider).  slog_cmac used to zero its output and
 * the key derivations ignored that, so records were encrypted under a key
 * derived from zeros and an all-zero next key was persisted.  Now every
 * step says it failed and leaves its inputs as they were: no key is
 * evolved, no record or MAC produced, no key or MAC file written, the
 * verifier's verdict is false, and $(slog) refuses its configuration.
 */
#include <criterion/criterion.h>

#include "slog/slog.h"
#include "sluice/internal-log.h"

#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

static const unsigned char key0[SLOG_KEY_LEN] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
                                                   17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32 };

static void
setup(void)
{
  sluice_log_set_stderr(false, SLUICE_LOG_ERROR);
}

TestSuite(slog_nocmac, .init = setup);

Test(slog_nocmac, cmac_fails)
{
  cr_assert(getenv("OPENSSL_CONF"), "run under nocmac.cnf (meson test slog-nocmac)");
  unsigned char out[SLOG_MAC_LEN];
  memset(out, 0xAA, sizeof(out));
  cr_assert_not(slog_cmac(key0, "x", 1, out));
  for (size_t i = 0; i < sizeof(out); i++)
    cr_assert_eq(out[i], 0);
  cr_assert_not(slog_cmac_available());
}

Test(slog_nocmac, derivations_fail_and_keep_the_key)
{
  unsigned char key[SLOG_KEY_LEN], sub[SLOG_KEY_LEN];
  memcpy(key, key0, sizeof(key));
  cr_assert_not(slog_evolve(key));
  cr_assert_arr_eq(key, key0, sizeof(key), "a failed evolution changed the key");
  cr_assert_not(slog_enc_key(key, sub));
  cr_assert_not(slog_mac_key(key, sub));
}

Test(slog_nocmac, no_record)
{
  unsigned char mac[SLOG_MAC_LEN], mac0[SLOG_MAC_LEN];
  memset(mac, 0x5A, sizeof(mac));
  memcpy(mac0, mac, sizeof(mac));
  GString *out = g_string_new("head");
  cr_assert_not(slog_encrypt_record(key0, 0, "hello", 5, mac, out));
  cr_assert_not(slog_encrypt_record(key0, 7, "hello", 5, mac, out));
  cr_assert_str_eq(out->str, "head");
  cr_assert_arr_eq(mac, mac0, sizeof(mac));
  g_string_free(out, TRUE);
}

Test(slog_nocmac, no_files)
{
  char *dir = g_dir_make_tmp("sluice-slog-XXXXXX", NULL);
  char *kp = g_build_filename(dir, "host.key", NULL);
  char *mp = g_build_filename(dir, "mac", NULL);
  unsigned char mac[SLOG_MAC_LEN] = { 0 }, key[SLOG_KEY_LEN];
  uint64_t counter;
  char *err = NULL;
  cr_assert_not(slog_key_write(kp, key0, 3, &err));
  cr_assert(err && strstr(err, "CMAC"), "%s", err ? err : "(no error)");
  g_free(err);
  err = NULL;
  cr_assert_not(g_file_test(kp, G_FILE_TEST_EXISTS), "a key file without a valid CMAC was written");
  cr_assert_not(slog_mac_write(mp, mac, &err));
  g_free(err);
  err = NULL;
  cr_assert_not(g_file_test(mp, G_FILE_TEST_EXISTS));
  /* a key file (any 56 bytes) cannot be checked, so it is not taken */
  unsigned char raw[SLOG_KEY_FILE_LEN] = { 0 };
  cr_assert(g_file_set_contents(kp, (const char *) raw, sizeof(raw), NULL));
  cr_assert_not(slog_key_read(kp, key, &counter, &err));
  g_free(err);
  err = NULL;
  g_unlink(kp);
  g_rmdir(dir);
  g_free(kp);
  g_free(mp);
  g_free(dir);
}

static bool
_count(const char *line, size_t len, void *user)
{
  (*(int *) user)++;
  return true;
}

Test(slog_nocmac, verifier_fails)
{
  /* a well-formed line: counter 0, 12 + 16 + 4 bytes of "ciphertext" */
  const char line[] = "AAAAAAAAAAA=:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
  unsigned char mac[SLOG_MAC_LEN] = { 0 };
  int n = 0;
  SlogVerifier *v = slog_verifier_new(key0, 0, NULL, 100, _count, &n);
  slog_verifier_line(v, line, sizeof(line) - 1);
  slog_verifier_line(v, line, sizeof(line) - 1);
  cr_assert_not(slog_verifier_finish(v, mac));
  cr_assert_eq(n, 0, "a line was given out");
  slog_verifier_free(v);
}
