/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * PCRE2 compile and per-thread match data (sluice/regex.h): the way
 * match() compiles and matches, for the modules that match patterns too.
 *
 * The match data lives in thread-local storage and is freed when its
 * thread ends (a key destructor runs in the exiting thread while its
 * _Thread_local variables are still there); it grows when a pattern with
 * more groups comes, so after the first messages a match allocates
 * nothing.
 */
#include "sluice/regex.h"

#include <glib.h>
#include <pthread.h>

static _Thread_local pcre2_match_data *tls_match_data;
static _Thread_local uint32_t tls_match_pairs;
static pthread_key_t tls_key;
static pthread_once_t tls_key_once = PTHREAD_ONCE_INIT;

static void
_tls_free(void *unused)
{
  (void) unused;
  if (tls_match_data)
    pcre2_match_data_free(tls_match_data);
  tls_match_data = NULL;
  tls_match_pairs = 0;
}

static void
_tls_key_init(void)
{
  pthread_key_create(&tls_key, _tls_free);
}

pcre2_code *
regex_compile(const char *pattern, size_t len, uint32_t flags, char **error)
{
  uint32_t opts = 0;
  if (flags & REGEX_IGNORE_CASE)
    opts |= PCRE2_CASELESS;
  /* MATCH_INVALID_UTF: a subject that is not valid UTF-8 (input from the
   * outside may be anything) is matched around its bad bytes instead of
   * making the match fail or, with NO_UTF_CHECK, misbehave */
  if (flags & (REGEX_UTF8 | REGEX_UNICODE))
    opts |= PCRE2_UTF | PCRE2_MATCH_INVALID_UTF;
  if (flags & REGEX_UNICODE)
    opts |= PCRE2_UCP;
  int code;
  PCRE2_SIZE offset;
  pcre2_code *re = pcre2_compile((PCRE2_SPTR) pattern, len, opts, &code, &offset, NULL);
  if (!re)
    {
      PCRE2_UCHAR msg[256];
      pcre2_get_error_message(code, msg, sizeof(msg));
      *error = g_strdup_printf("%s at offset %zu", (const char *) msg, (size_t) offset);
      return NULL;
    }
  if (!(flags & REGEX_NO_JIT))
    pcre2_jit_compile(re, PCRE2_JIT_COMPLETE); /* falls back to the interpreter if JIT is unavailable */
  return re;
}

pcre2_match_data *
regex_match_data(uint32_t pairs)
{
  if (pairs < 16)
    pairs = 16;
  if (tls_match_data && tls_match_pairs >= pairs)
    return tls_match_data;
  if (tls_match_data)
    pcre2_match_data_free(tls_match_data);
  else
    {
      pthread_once(&tls_key_once, _tls_key_init);
      pthread_setspecific(tls_key, (void *) 1);
    }
  tls_match_data = pcre2_match_data_create(pairs, NULL);
  tls_match_pairs = pairs;
  return tls_match_data;
}
