/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The bulk API response reader (modules/http/http-bulk.c) on answers an
 * OpenSearch node gives, and on hostile ones: malformed, nested deep,
 * too long, the wrong number of items. */
#include "http/http.h"

#include <criterion/criterion.h>
#include <string.h>

static bool
_parse(const char *s, size_t n, HttpBulkItem *out, const char **error, char **reason)
{
  return http_bulk_parse(s, strlen(s), n, out, error, reason);
}

Test(http_bulk, all_in)
{
  HttpBulkItem out[3];
  const char *error = NULL;
  char *reason = NULL;
  cr_assert(_parse("{\"took\":3,\"errors\":false,\"items\":[{\"index\":{\"_id\":\"1\",\"status\":201}},"
                   "{\"index\":{\"status\":200}},{\"create\":{\"status\":409}}]}\n",
                   3, out, &error, &reason));
  for (int i = 0; i < 3; i++)
    cr_assert_eq(out[i], HTTP_BULK_OK);
  cr_assert_null(reason);
}

Test(http_bulk, failed_items)
{
  HttpBulkItem out[4];
  const char *error = NULL;
  char *reason = NULL;
  cr_assert(_parse("{\"errors\":true,\"items\":[{\"index\":{\"status\":201}},"
                   "{\"index\":{\"status\":400,\"error\":"
                   "{\"type\":\"mapper_parsing_exception\",\"reason\":\"bad\"}}},"
                   "{\"index\":{\"status\":429}},{\"index\":{\"status\":503}}]}", 4, out, &error, &reason));
  cr_assert_eq(out[0], HTTP_BULK_OK);
  cr_assert_eq(out[1], HTTP_BULK_DROP);
  cr_assert_eq(out[2], HTTP_BULK_RETRY);
  cr_assert_eq(out[3], HTTP_BULK_RETRY);
  cr_assert_str_eq(reason, "mapper_parsing_exception: bad");
  g_free(reason);
}

Test(http_bulk, refused)
{
  static const struct { const char *text; size_t n; } bad[] = {
    { "", 1 },
    { "not json", 1 },
    { "{\"items\":[{\"index\":{\"status\":200}}]} trailing", 1 },
    { "{\"items\":[{\"index\":{\"status\":200}}]}", 2 },
    { "{\"items\":[{\"index\":{\"status\":\"200\"}}]}", 1 },
    { "{\"items\":[{\"index\":{}}]}", 1 },
    { "{\"items\":[{\"a\":{\"status\":200},\"b\":{\"status\":200}}]}", 1 },
    { "{\"items\":{}}", 0 },
    { "{\"errors\":\"yes\",\"items\":[]}", 0 },
    { "{\"error\":{\"type\":\"x\"},\"status\":500}", 1 },
    { "[1,2,3]", 3 },
    { "{\"items\":[{\"index\":{\"status\":200}}", 1 },
  };
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
    {
      HttpBulkItem out[4];
      const char *error = NULL;
      char *reason = NULL;
      cr_assert_not(_parse(bad[i].text, bad[i].n, out, &error, &reason), "taken: %s", bad[i].text);
      cr_assert_not_null(error);
      cr_assert_null(reason);
    }
}

Test(http_bulk, deep_and_long)
{
  HttpBulkItem out[1];
  const char *error = NULL;
  char *reason = NULL;
  /* nesting past the tokener's limit, then a body past HTTP_RESPONSE_MAX */
  GString *s = g_string_new("{\"items\":[{\"index\":{\"status\":200,\"x\":");
  for (int i = 0; i < 100000; i++)
    g_string_append_c(s, '[');
  cr_assert_not(http_bulk_parse(s->str, s->len, 1, out, &error, &reason));
  size_t big = (size_t) HTTP_RESPONSE_MAX + 1;
  char *huge = g_malloc(big);
  memset(huge, ' ', big);
  cr_assert_not(http_bulk_parse(huge, big, 1, out, &error, &reason));
  cr_assert_str_eq(error, "response too long");
  g_free(huge);
  g_string_free(s, TRUE);
}

Test(http_bulk, default_actions)
{
  cr_assert_eq(http_default_action(200), HTTP_ACT_SUCCESS);
  cr_assert_eq(http_default_action(204), HTTP_ACT_SUCCESS);
  cr_assert_eq(http_default_action(404), HTTP_ACT_DISCONNECT);
  cr_assert_eq(http_default_action(410), HTTP_ACT_DROP);
  cr_assert_eq(http_default_action(428), HTTP_ACT_RETRY);
  cr_assert_eq(http_default_action(503), HTTP_ACT_DISCONNECT);
  cr_assert_eq(http_default_action(504), HTTP_ACT_RETRY);
  cr_assert_eq(http_default_action(508), HTTP_ACT_DROP);
  cr_assert_eq(http_default_action(304), HTTP_ACT_RETRY);
}
