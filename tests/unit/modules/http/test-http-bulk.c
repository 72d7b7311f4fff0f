/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The bulk API response reader (modules/http/http-bulk.c) on answers an
 * OpenSearch node gives, and on hostile ones: malformed, nested deep,
 * unterminated, the wrong number of items.  Each is read whole, in every
 * split into two chunks and one byte at a time, with the same outcome; an
 * answer past 16 MiB is read item by item in a reader of fixed size. */
#include "http/http.h"

#include <criterion/criterion.h>
#include <string.h>

#define MAX_ITEMS 8

typedef struct Result
{
  bool ok;
  HttpBulkItem out[MAX_ITEMS];
  const char *error;
  char *reason;
} Result;

/* Read s (len bytes) for n items in chunks: cuts[0..ncuts) are where one
 * chunk ends and the next starts. */
static void
_read_cut(const char *s, size_t len, size_t n, const size_t *cuts, size_t ncuts, Result *res)
{
  HttpBulkReader r;
  memset(res, 0, sizeof(*res));
  for (size_t i = 0; i < MAX_ITEMS; i++)
    res->out[i] = (HttpBulkItem) 99;
  http_bulk_reader_init(&r, res->out, n);
  size_t at = 0;
  for (size_t c = 0; c <= ncuts; c++)
    {
      size_t end = c < ncuts ? cuts[c] : len;
      /* each chunk in a buffer of its own length: a read past it is ASan's */
      char *chunk = g_memdup2(s + at, end - at ? end - at : 1);
      http_bulk_reader_feed(&r, chunk, end - at);
      g_free(chunk);
      at = end;
    }
  res->ok = http_bulk_reader_finish(&r, &res->error, &res->reason);
}

static void
_same(const Result *a, const Result *b, size_t n, const char *s, const char *how)
{
  cr_assert_eq(a->ok, b->ok, "%s: %s", how, s);
  if (a->ok)
    {
      for (size_t i = 0; i < n; i++)
        cr_assert_eq(a->out[i], b->out[i], "%s: item %zu of %s", how, i, s);
      cr_assert_str_eq(a->reason ? a->reason : "(none)", b->reason ? b->reason : "(none)", "%s: %s", how, s);
    }
  else
    cr_assert_str_eq(a->error, b->error, "%s: %s", how, s);
}

/* s read whole with http_bulk_parse; then in every two-chunk split, in
 * three chunks around each byte, and byte by byte, which must agree. */
static Result
_parse(const char *s, size_t n)
{
  size_t len = strlen(s);
  Result whole;
  memset(&whole, 0, sizeof(whole));
  whole.ok = http_bulk_parse(s, len, n, whole.out, &whole.error, &whole.reason);
  if (whole.ok)
    for (size_t i = 0; i < n; i++)
      cr_assert(whole.out[i] == HTTP_BULK_OK || whole.out[i] == HTTP_BULK_RETRY
                || whole.out[i] == HTTP_BULK_DROP);
  else
    cr_assert_null(whole.reason);
  for (size_t cut = 0; cut <= len; cut++)
    {
      Result part;
      _read_cut(s, len, n, &cut, 1, &part);
      _same(&whole, &part, n, s, "two chunks");
      g_free(part.reason);
      if (cut + 1 <= len)
        {
          size_t cuts[2] = { cut, cut + 1 };
          _read_cut(s, len, n, cuts, 2, &part);
          _same(&whole, &part, n, s, "one byte alone");
          g_free(part.reason);
        }
    }
  size_t *cuts = g_new(size_t, len + 1);
  for (size_t i = 0; i < len; i++)
    cuts[i] = i + 1;
  Result bytes;
  _read_cut(s, len, n, cuts, len ? len - 1 : 0, &bytes);
  _same(&whole, &bytes, n, s, "byte by byte");
  g_free(bytes.reason);
  g_free(cuts);
  return whole;
}

Test(http_bulk, all_in)
{
  Result r = _parse("{\"took\":3,\"errors\":false,\"items\":[{\"index\":{\"_id\":\"1\",\"status\":201}},"
                    "{\"index\":{\"status\":200}},{\"create\":{\"status\":409}}]}\n", 3);
  cr_assert(r.ok);
  for (int i = 0; i < 3; i++)
    cr_assert_eq(r.out[i], HTTP_BULK_OK);
  cr_assert_null(r.reason);
}

Test(http_bulk, failed_items)
{
  Result r = _parse("{\"errors\":true,\"items\":[{\"index\":{\"status\":201}},"
                    "{\"index\":{\"status\":400,\"error\":"
                    "{\"type\":\"mapper_parsing_exception\",\"reason\":\"bad\"}}},"
                    "{\"index\":{\"status\":429}},{\"index\":{\"status\":503}}]}", 4);
  cr_assert(r.ok);
  cr_assert_eq(r.out[0], HTTP_BULK_OK);
  cr_assert_eq(r.out[1], HTTP_BULK_DROP);
  cr_assert_eq(r.out[2], HTTP_BULK_RETRY);
  cr_assert_eq(r.out[3], HTTP_BULK_RETRY);
  cr_assert_str_eq(r.reason, "mapper_parsing_exception: bad");
  g_free(r.reason);
}

/* Keys in any order, and whatever JSON the reader must step over. */
Test(http_bulk, skipped_values)
{
  Result r = _parse(" \r\n\t{\"items\" : [ {\"index\":{\"error\":{\"caused_by\":{\"type\":\"inner\","
                    "\"x\":[1,-2.5e+3,0.0,1E-2,[],{}]},"
                    "\"reason\":\"a \\\"quoted\\\" \\\\ \\/ \\b\\f\\n\\r\\t \\u00e9\\ud83d\\ude00 reason\","
                    "\"type\":\"first\\u0020type\",\"more\":[true,false,null]},"
                    "\"_index\":\"i]}\\\"\",\"status\":400}},"
                    "{\"create\":{\"_seq_no\":-0,\"status\":201,\"_shards\":{\"total\":2,\"failed\":0}}},"
                    "{\"update\":{\"st\\u0061tus\":500,\"result\":null}} ],"
                    "\"took\" : 30, \"errors\" : true,"
                    " \"other\":{\"items\":\"not these\",\"a\":[[[\"]\"]]]} }  \n",
                    3);
  cr_assert(r.ok, "%s", r.error);
  cr_assert_eq(r.out[0], HTTP_BULK_DROP);
  cr_assert_eq(r.out[1], HTTP_BULK_OK);
  cr_assert_eq(r.out[2], HTTP_BULK_RETRY);
  cr_assert_str_eq(r.reason, "first type: a \"quoted\" \\ / \b\f\n\r\t \xc3\xa9\xf0\x9f\x98\x80 reason");
  g_free(r.reason);
}

Test(http_bulk, reasons)
{
  /* the first dropped item's; a 2xx item's error is not it */
  Result r = _parse("{\"items\":[{\"index\":{\"status\":201,\"error\":\"not this\"}},"
                    "{\"index\":{\"error\":\"old style\",\"status\":404}},"
                    "{\"index\":{\"status\":400,\"error\":{\"type\":\"later\"}}}]}", 3);
  cr_assert(r.ok);
  cr_assert_eq(r.out[0], HTTP_BULK_OK);
  cr_assert_eq(r.out[1], HTTP_BULK_DROP);
  cr_assert_str_eq(r.reason, "old style");
  g_free(r.reason);
  /* parts missing, null or not text */
  r = _parse("{\"items\":[{\"index\":{\"status\":400,\"error\":{\"reason\":null,\"type\":7}}}]}", 1);
  cr_assert(r.ok);
  cr_assert_str_eq(r.reason, "7: ?");
  g_free(r.reason);
  r = _parse("{\"items\":[{\"index\":{\"status\":400,\"error\":{\"type\":{\"a\":1},\"reason\":\"r\"}}}]}", 1);
  cr_assert_str_eq(r.reason, "?: r");
  g_free(r.reason);
  /* a key twice: the last one, as json-c kept it */
  r = _parse("{\"items\":[{\"index\":{\"status\":200,\"error\":{\"type\":\"t\",\"reason\":\"long\","
             "\"reason\":\"\"},\"status\":400}}]}", 1);
  cr_assert(r.ok);
  cr_assert_eq(r.out[0], HTTP_BULK_DROP);
  cr_assert_str_eq(r.reason, "t: ");
  g_free(r.reason);
  /* a dropped item without an error has no reason; a later one does */
  r = _parse("{\"items\":[{\"index\":{\"status\":400}},{\"index\":{\"status\":403,\"error\":\"no\"}}]}", 2);
  cr_assert(r.ok);
  cr_assert_str_eq(r.reason, "no");
  g_free(r.reason);
  /* statuses out of range are dropped, as before (json-c saturated) */
  r = _parse("{\"items\":[{\"index\":{\"status\":-200}},"
             "{\"index\":{\"status\":99999999999999999999200}}]}", 2);
  cr_assert(r.ok);
  cr_assert_eq(r.out[0], HTTP_BULK_DROP);
  cr_assert_eq(r.out[1], HTTP_BULK_DROP);
  cr_assert_null(r.reason);
}

Test(http_bulk, refused)
{
  static const struct { const char *text; size_t n; } bad[] = {
    { "", 1 },
    { "  \n", 1 },
    { "not json", 1 },
    { "{\"items\":[{\"index\":{\"status\":200}}]} trailing", 1 },
    { "{\"items\":[{\"index\":{\"status\":200}}]}}", 1 },
    { "{\"items\":[{\"index\":{\"status\":200}}]}", 2 },
    { "{\"items\":[{\"index\":{\"status\":200}},{\"index\":{\"status\":200}}]}", 1 },
    { "{\"items\":[{\"index\":{\"status\":\"200\"}}]}", 1 },
    { "{\"items\":[{\"index\":{\"status\":200.0}}]}", 1 },
    { "{\"items\":[{\"index\":{\"status\":2e2}}]}", 1 },
    { "{\"items\":[{\"index\":{\"status\":null}}]}", 1 },
    { "{\"items\":[{\"index\":{}}]}", 1 },
    { "{\"items\":[{}]}", 1 },
    { "{\"items\":[[]]}", 1 },
    { "{\"items\":[{\"index\":[]}]}", 1 },
    { "{\"items\":[{\"a\":{\"status\":200},\"b\":{\"status\":200}}]}", 1 },
    { "{\"items\":{}}", 0 },
    { "{\"items\":null}", 0 },
    { "{\"items\":[],\"items\":[]}", 0 },
    { "{\"errors\":\"yes\",\"items\":[]}", 0 },
    { "{\"errors\":null,\"items\":[]}", 0 },
    { "{\"errors\":1,\"items\":[]}", 0 },
    { "{\"error\":{\"type\":\"x\"},\"status\":500}", 1 },
    { "[1,2,3]", 3 },
    { "\"items\"", 0 },
    { "{\"items\":[{\"index\":{\"status\":200}}", 1 },
    /* unterminated, bad escapes, bad tokens */
    { "{\"items\":[{\"index\":{\"status\":200,\"x\":\"abc}}]}", 1 },
    { "{\"items\":[{\"index\":{\"status\":200,\"x\":\"a\\xb\"}}]}", 1 },
    { "{\"items\":[{\"index\":{\"status\":200,\"x\":\"a\\u12G4\"}}]}", 1 },
    { "{\"items\":[{\"index\":{\"status\":200,\"x\":\"a\\u12\"}}]}", 1 },
    { "{\"items\":[{\"index\":{\"status\":200,\"x\":\"a\\", 1 },
    { "{\"items\":[{\"index\":{\"status\":200,\"x\":tru}}]}", 1 },
    { "{\"items\":[{\"index\":{\"status\":200,\"x\":nulll}}]}", 1 },
    { "{\"items\":[{\"index\":{\"status\":200,\"x\":01}}]}", 1 },
    { "{\"items\":[{\"index\":{\"status\":200,\"x\":1.}}]}", 1 },
    { "{\"items\":[{\"index\":{\"status\":200,\"x\":1e}}]}", 1 },
    { "{\"items\":[{\"index\":{\"status\":200,\"x\":-}}]}", 1 },
    { "{\"items\":[{\"index\":{\"status\":200,\"x\":+1}}]}", 1 },
    { "{\"items\":[{\"index\":{\"status\":200,\"x\":[1,]}}]}", 1 },
    { "{\"items\":[{\"index\":{\"status\":200,\"x\":{\"a\"}}}]}", 1 },
    { "{\"items\":[{\"index\":{\"status\":200,\"x\":{\"a\":1,}}}]}", 1 },
    { "{\"items\":[{\"index\":{\"status\":200,\"x\":[1}}}]}", 1 },
    { "{\"items\":[{\"index\":{\"status\":200,}}]}", 1 },
    { "{\"items\":[{\"index\":{\"status\":200 \"x\":1}}]}", 1 },
    { "{items:[]}", 0 },
    { "{'items':[]}", 0 },
    { "{\"items\":[]} /* comment */", 0 },
    { "{\"items\":[]}\n\n{\"items\":[]}", 0 },
    /* a number of 65 digits, where it is skipped */
    { "{\"took\":12345678901234567890123456789012345678901234567890123456789012345,\"items\":[]}", 0 },
  };
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
    {
      Result r = _parse(bad[i].text, bad[i].n);
      cr_assert_not(r.ok, "taken: %s", bad[i].text);
      cr_assert_not_null(r.error);
      cr_assert_null(r.reason);
    }
}

/* a NUL, where json-c's tokener stopped: in a string, after the answer */
Test(http_bulk, nul)
{
  static const char in_string[] = "{\"items\":[{\"index\":{\"status\":200,\"x\":\"a\0b\"}}]}";
  static const char after[] = "{\"items\":[{\"index\":{\"status\":200}}]}\n\0";
  HttpBulkItem out[1];
  const char *error = NULL;
  char *reason = NULL;
  cr_assert_not(http_bulk_parse(in_string, sizeof(in_string) - 1, 1, out, &error, &reason));
  cr_assert_not(http_bulk_parse(after, sizeof(after) - 1, 1, out, &error, &reason));
  cr_assert(http_bulk_parse(after, sizeof(after) - 2, 1, out, &error, &reason));
}

Test(http_bulk, nesting)
{
  HttpBulkItem out[1];
  const char *error = NULL;
  char *reason = NULL;
  /* HTTP_BULK_DEPTH containers are taken (the answer, items, the item, the
   * operation, and 11 more), one more is not */
  GString *ok = g_string_new("{\"items\":[{\"index\":{\"status\":200,\"x\":");
  GString *deep = g_string_new(ok->str);
  int k = HTTP_BULK_DEPTH - 4;
  for (int i = 0; i < k; i++)
    g_string_append(ok, "[");
  for (int i = 0; i < k; i++)
    g_string_append(ok, "]");
  g_string_append(ok, "}}]}");
  cr_assert(http_bulk_parse(ok->str, ok->len, 1, out, &error, &reason), "%s", error);
  for (int i = 0; i < k + 1; i++)
    g_string_append(deep, "[");
  for (int i = 0; i < k + 1; i++)
    g_string_append(deep, "]");
  g_string_append(deep, "}}]}");
  cr_assert_not(http_bulk_parse(deep->str, deep->len, 1, out, &error, &reason));
  cr_assert_str_eq(error, "nested too deep");
  g_string_free(ok, TRUE);
  g_string_free(deep, TRUE);

  /* 100,000 of them: refused, and nothing grows */
  GString *s = g_string_new("{\"items\":[{\"index\":{\"status\":200,\"x\":");
  for (int i = 0; i < 100000; i++)
    g_string_append(s, i % 2 ? "[" : "[{\"k\":");
  cr_assert_not(http_bulk_parse(s->str, s->len, 1, out, &error, &reason));
  cr_assert_str_eq(error, "nested too deep");
  g_string_free(s, TRUE);
}

/* The answer to a batch of ITEMS documents, made as it is read: the first
 * ITEMS - 3 indexed (each with a long "result" string, with escapes), then
 * one refused with a long reason, one refused with another, one told to
 * come again.  It is past 16 MiB. */
#define ITEMS 600
#define FILLER (32 * 1024)

static void
_answer_chunk(size_t i, GString *out)
{
  g_string_truncate(out, 0);
  if (i == 0)
    g_string_append(out, "{\"took\":987,\"errors\":true,\"items\":[");
  else
    g_string_append_c(out, ',');
  if (i < ITEMS - 3)
    {
      g_string_append_printf(out, "{\"index\":{\"_index\":\"logs\",\"_id\":\"%zu\",\"result\":\"", i);
      for (size_t k = 0; k < FILLER / 8; k++)
        g_string_append(out, "ab\\\"c\\\\d\\u00e9");
      g_string_append(out, "\",\"status\":201}}");
      return;
    }
  if (i < ITEMS - 1)
    {
      g_string_append_printf(out,
                             "{\"index\":{\"_id\":\"%zu\",\"status\":400,"
                             "\"error\":{\"type\":\"mapper_parsing_exception\",\"reason\":\"%s",
                             i, i == ITEMS - 3 ? "first" : "second");
      for (size_t k = 0; k < FILLER; k++)
        g_string_append_c(out, (char) ('a' + k % 26));
      g_string_append(out, "\",\"caused_by\":{\"type\":\"x\",\"reason\":\"y\"}}}}");
      return;
    }
  g_string_append(out, "{\"index\":{\"_id\":\"last\",\"status\":429,"
                       "\"error\":{\"type\":\"es_rejected_execution_exception\","
                       "\"reason\":\"queue full\"}}}]}\n");
}

Test(http_bulk, longer_than_16_mib, .timeout = 120)
{
  /* all the reader holds besides the outcomes: no buffer for the answer */
  cr_assert_lt(sizeof(HttpBulkReader), 2048);
  HttpBulkItem *out = g_new(HttpBulkItem, ITEMS);
  HttpBulkReader r;
  http_bulk_reader_init(&r, out, ITEMS);
  GString *chunk = g_string_new(NULL);
  size_t total = 0;
  for (size_t i = 0; i < ITEMS; i++)
    {
      _answer_chunk(i, chunk);
      /* fed in pieces of an odd length, as a network gives them */
      for (size_t at = 0; at < chunk->len; at += 1000 + i % 7)
        {
          size_t len = chunk->len - at < 1000 + i % 7 ? chunk->len - at : 1000 + i % 7;
          cr_assert(http_bulk_reader_feed(&r, chunk->str + at, len), "refused at item %zu: %s", i, r.error);
        }
      total += chunk->len;
    }
  cr_assert_gt(total, (size_t) 16 * 1024 * 1024);
  const char *error = NULL;
  char *reason = NULL;
  cr_assert(http_bulk_reader_finish(&r, &error, &reason), "%s", error);
  for (size_t i = 0; i < ITEMS - 3; i++)
    cr_assert_eq(out[i], HTTP_BULK_OK, "item %zu", i);
  cr_assert_eq(out[ITEMS - 3], HTTP_BULK_DROP);
  cr_assert_eq(out[ITEMS - 2], HTTP_BULK_DROP);
  cr_assert_eq(out[ITEMS - 1], HTTP_BULK_RETRY);
  /* the first one's, its reason cut at 800 bytes */
  cr_assert_not_null(reason);
  cr_assert(g_str_has_prefix(reason, "mapper_parsing_exception: firstabcdef"), "%s", reason);
  cr_assert_eq(strlen(reason), strlen("mapper_parsing_exception: ") + 800);
  g_free(reason);
  g_string_free(chunk, TRUE);
  g_free(out);
}

Test(http_bulk, long_reason_is_cut)
{
  GString *s = g_string_new("{\"items\":[{\"index\":{\"status\":400,\"error\":{\"type\":\"");
  for (int i = 0; i < 5000; i++)
    g_string_append(s, "\\u0074");
  g_string_append(s, "\",\"reason\":\"r\"}}}]}");
  HttpBulkItem out[1];
  const char *error = NULL;
  char *reason = NULL;
  cr_assert(http_bulk_parse(s->str, s->len, 1, out, &error, &reason), "%s", error);
  cr_assert_eq(strlen(reason), HTTP_BULK_TYPE_MAX + 3);
  g_free(reason);
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
