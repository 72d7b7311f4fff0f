/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * PCRE2 compile, per-thread match data and match value handles
 * (sluice/regex.h), for the filters and the modules that match patterns.
 *
 * The match data lives in thread-local storage and is freed when its
 * thread ends (sluice/scratch.h); it grows when a pattern with
 * more groups comes, so after the first messages a match allocates
 * nothing.
 */
#include "sluice/regex.h"
#include "sluice/scratch.h"

#include <glib.h>
#include <pthread.h>
#include <stdio.h>

_Thread_local pcre2_match_data *regex_tls_match_data;
_Thread_local uint32_t regex_tls_match_pairs;

static void
_tls_free(void *unused)
{
  (void) unused;
  if (regex_tls_match_data)
    pcre2_match_data_free(regex_tls_match_data);
  regex_tls_match_data = NULL;
  regex_tls_match_pairs = 0;
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
  if (flags & REGEX_DUP_NAMES)
    opts |= PCRE2_DUPNAMES;
  pcre2_compile_context *cc = NULL;
  if (flags & REGEX_NEWLINE)
    {
      cc = pcre2_compile_context_create(NULL);
      pcre2_set_newline(cc, PCRE2_NEWLINE_ANYCRLF);
    }
  int code;
  PCRE2_SIZE offset;
  pcre2_code *re = pcre2_compile((PCRE2_SPTR) pattern, len, opts, &code, &offset, cc);
  if (cc)
    pcre2_compile_context_free(cc);
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
regex_match_data_grow(uint32_t pairs)
{
  if (pairs < 16)
    pairs = 16;
  if (regex_tls_match_data && regex_tls_match_pairs >= pairs)
    return regex_tls_match_data;
  if (regex_tls_match_data)
    pcre2_match_data_free(regex_tls_match_data);
  else
    scratch_at_exit(_tls_free, NULL);
  regex_tls_match_data = pcre2_match_data_create(pairs, NULL);
  regex_tls_match_pairs = pairs;
  return regex_tls_match_data;
}

bool
regex_has_jit(const pcre2_code *re)
{
  size_t size = 0;
  return pcre2_pattern_info(re, PCRE2_INFO_JITSIZE, &size) == 0 && size > 0;
}

static NVHandle match_handles[REGEX_MAX_MATCHES];
static pthread_once_t match_handles_once = PTHREAD_ONCE_INIT;

static void
_match_handles_init(void)
{
  for (int i = 0; i < REGEX_MAX_MATCHES; i++)
    {
      char name[8];
      snprintf(name, sizeof(name), "%d", i);
      match_handles[i] = log_msg_get_value_handle(name, -1);
    }
}

const NVHandle *
regex_match_handles(void)
{
  pthread_once(&match_handles_once, _match_handles_init);
  return match_handles;
}

NVHandle *
regex_group_handles(const pcre2_code *re, const char *prefix, uint32_t *captures)
{
  uint32_t count = 0, names = 0, entry = 0;
  PCRE2_SPTR table = NULL;
  pcre2_pattern_info(re, PCRE2_INFO_CAPTURECOUNT, &count);
  pcre2_pattern_info(re, PCRE2_INFO_NAMECOUNT, &names);
  pcre2_pattern_info(re, PCRE2_INFO_NAMEENTRYSIZE, &entry);
  pcre2_pattern_info(re, PCRE2_INFO_NAMETABLE, &table);
  NVHandle *handles = g_new0(NVHandle, count + 1); /* LM_V_NONE is 0 */
  for (uint32_t i = 0; i < names; i++)
    {
      /* each entry: the group number (2 bytes, big endian), then the name */
      PCRE2_SPTR e = table + (size_t) i * entry;
      uint32_t group = ((uint32_t) e[0] << 8) | e[1];
      if (group > count)
        continue;
      char *name = g_strconcat(prefix ? prefix : "", (const char *) e + 2, NULL);
      handles[group] = log_msg_get_value_handle(name, -1);
      g_free(name);
    }
  *captures = count;
  return handles;
}
