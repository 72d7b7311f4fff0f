/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: db-parser()'s pattern tree (modules/dbparser/radix.c).
 *
 * Input: up to four patterns separated by TAB on the first line, then the
 * message (any bytes, NUL included).  The patterns that are valid go into
 * one tree, the message is looked up, and every match it reports must lie
 * inside the message.
 */
#include "dbparser/radix.h"

#include <glib.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const values[] = { "v0", "v1", "v2", "v3" };

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  const char *nl = memchr(data, '\n', size);
  if (!nl)
    return 0;
  char *head = g_strndup((const char *) data, (size_t) (nl - (const char *) data));
  char **patterns = g_strsplit(head, "\t", 4);
  RNode *root = radix_new();
  for (int i = 0; patterns[i]; i++)
    {
      bool dup;
      char *error = NULL;
      if (!radix_insert(root, patterns[i], (void *) values[i], i & 1 ? "p." : NULL, &dup, &error))
        {
          if (!error)
            abort();
          g_free(error);
        }
    }
  const char *msg = nl + 1;
  size_t len = size - (size_t) (msg - (const char *) data);
  RMatches m = { 0 };
  const char *v = radix_lookup(root, msg, len, &m);
  if (!v && m.n)
    abort();
  for (size_t i = 0; i < m.n; i++)
    if ((size_t) m.m[i].ofs + m.m[i].len > len)
      abort();
  radix_matches_clear(&m);
  radix_free(root, NULL);
  g_strfreev(patterns);
  g_free(head);
  return 0;
}
