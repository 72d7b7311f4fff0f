/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slog's streaming verifier input (slog_verifier_feed/_end, what
 * slogverify and fuzz-slogverify use): an archive fed in pieces of any
 * size verifies the same as fed whole, an empty archive and an
 * unterminated last line are errors, a line over the limit is dropped and
 * counted; and slog_append_counter's counter field.
 */
#include <criterion/criterion.h>

#include "slog/slog.h"
#include "sluice/internal-log.h"

#include <inttypes.h>
#include <string.h>

#define RECORDS 20

static unsigned char key0[SLOG_KEY_LEN];
static unsigned char mac[SLOG_MAC_LEN];
static GString *archive, *want;

static void
setup(void)
{
  sluice_log_set_stderr(false, SLUICE_LOG_ERROR);
  for (int i = 0; i < SLOG_KEY_LEN; i++)
    key0[i] = (unsigned char) (i * 7 + 1);
  unsigned char key[SLOG_KEY_LEN];
  memcpy(key, key0, sizeof(key));
  archive = g_string_new(NULL);
  want = g_string_new(NULL);
  for (uint64_t n = 0; n < RECORDS; n++)
    {
      char *text = g_strdup_printf("message number %" PRIu64 " %s", n, n % 3 ? "" : "with a longer tail");
      cr_assert(slog_encrypt_record(key, n, text, strlen(text), mac, archive));
      g_string_append_c(archive, '\n');
      g_string_append_printf(want, "%020" PRIx64 ": %s\n", n, text);
      g_free(text);
      cr_assert(slog_evolve(key));
    }
}

static void
teardown(void)
{
  g_string_free(archive, TRUE);
  g_string_free(want, TRUE);
}

TestSuite(slog, .init = setup, .fini = teardown);

static bool
_collect(const char *line, size_t len, void *user)
{
  g_string_append_len(user, line, (gssize) len);
  return true;
}

/* Feed data in pieces of piece bytes; the verdict, the output in *got. */
static bool
_verify(const char *data, size_t len, size_t piece, size_t max_line, GString *got)
{
  g_string_truncate(got, 0);
  SlogVerifier *v = slog_verifier_new(key0, 0, NULL, 1000, _collect, got);
  if (max_line)
    slog_verifier_set_max_line(v, max_line);
  for (size_t off = 0; off < len; off += piece)
    slog_verifier_feed(v, data + off, len - off < piece ? len - off : piece);
  bool ok = slog_verifier_end(v);
  ok = slog_verifier_finish(v, mac) && ok;
  slog_verifier_free(v);
  return ok;
}

Test(slog, pieces_of_any_size)
{
  GString *got = g_string_new(NULL);
  size_t sizes[] = { 1, 2, 3, 5, 16, 61, 62, 63, 64, 100, 4096, archive->len };
  for (size_t i = 0; i < G_N_ELEMENTS(sizes); i++)
    {
      cr_assert(_verify(archive->str, archive->len, sizes[i], 0, got), "pieces of %zu", sizes[i]);
      cr_assert_str_eq(got->str, want->str, "pieces of %zu", sizes[i]);
    }
  g_string_free(got, TRUE);
}

Test(slog, empty_archive)
{
  GString *got = g_string_new(NULL);
  cr_assert_not(_verify("", 0, 1, 0, got));
  cr_assert_eq(got->len, 0);
  g_string_free(got, TRUE);
}

Test(slog, unterminated_last_line)
{
  GString *got = g_string_new(NULL);
  for (size_t piece = 1; piece <= archive->len; piece += 97)
    {
      cr_assert_not(_verify(archive->str, archive->len - 1, piece, 0, got), "pieces of %zu", piece);
      /* the last record is left out, the others come through */
      const char *last = strrchr(want->str, '\n');
      while (last > want->str && last[-1] != '\n')
        last--;
      cr_assert_eq(got->len, (size_t) (last - want->str), "pieces of %zu", piece);
      cr_assert(strncmp(got->str, want->str, got->len) == 0);
    }
  g_string_free(got, TRUE);
}

Test(slog, line_over_the_limit)
{
  GString *got = g_string_new(NULL);
  const char *nl = strchr(archive->str, '\n');
  size_t first = (size_t) (nl - archive->str);
  /* a limit of exactly the first line's length takes it */
  GString *one = g_string_new_len(archive->str, (gssize) first + 1);
  SlogVerifier *v = slog_verifier_new(key0, 0, NULL, 1000, _collect, got);
  slog_verifier_set_max_line(v, first);
  for (size_t i = 0; i < one->len; i++)
    slog_verifier_feed(v, one->str + i, 1);
  cr_assert(slog_verifier_end(v));
  slog_verifier_free(v);
  cr_assert_str_eq(got->str, "00000000000000000000: message number 0 with a longer tail\n");
  /* one byte less: every line is dropped, yet counted */
  for (size_t piece = 1; piece <= archive->len; piece += 131)
    {
      cr_assert_not(_verify(archive->str, archive->len, piece, 40, got));
      cr_assert_eq(got->len, 0);
    }
  g_string_free(one, TRUE);
  g_string_free(got, TRUE);
}

Test(slog, counter_field)
{
  GString *s = g_string_new(NULL);
  slog_append_counter(s, 0);
  cr_assert_str_eq(s->str, "AAAAAAAAAAA=");
  g_string_truncate(s, 0);
  slog_append_counter(s, 0x0102);
  cr_assert_str_eq(s->str, "AgEAAAAAAAA=");
  cr_assert_eq(s->len, SLOG_COUNTER_B64_LEN);
  cr_assert(strncmp(archive->str, "AAAAAAAAAAA=:", 13) == 0);
  g_string_free(s, TRUE);
}
