/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The Elasticsearch / OpenSearch bulk API's response, as the server sends
 * it: {"took":N,"errors":BOOL,"items":[{"<op>":{"_index":...,"status":N,
 * "error":{"type":...,"reason":...}}}, ...]}, one item per action line of
 * the request, in order.  Outside bytes: the caller caps their length
 * (HTTP_RESPONSE_MAX) and json-c's tokener is given a nesting limit.
 */
#include "http.h"

#include <json-c/json.h>
#include <string.h>

#define BULK_DEPTH 16

static HttpBulkItem
_classify(int status)
{
  if (status >= 200 && status < 300)
    return HTTP_BULK_OK;
  /* create of an id that is there: a send we repeat after a lost answer */
  if (status == 409)
    return HTTP_BULK_OK;
  if (status == 429 || status >= 500)
    return HTTP_BULK_RETRY;
  return HTTP_BULK_DROP;
}

static char *
_reason(json_object *op)
{
  json_object *err = NULL;
  if (!json_object_object_get_ex(op, "error", &err))
    return NULL;
  if (json_object_is_type(err, json_type_object))
    {
      json_object *type = NULL, *reason = NULL;
      json_object_object_get_ex(err, "type", &type);
      json_object_object_get_ex(err, "reason", &reason);
      return g_strdup_printf("%.200s: %.800s", type ? json_object_get_string(type) : "?",
                             reason ? json_object_get_string(reason) : "?");
    }
  return g_strdup_printf("%.1000s", json_object_get_string(err));
}

bool
http_bulk_parse(const char *buf, size_t len, size_t n, HttpBulkItem *out, const char **error, char **reason)
{
  *reason = NULL;
  if (len > HTTP_RESPONSE_MAX)
    {
      *error = "response too long";
      return false;
    }
  json_tokener *tok = json_tokener_new_ex(BULK_DEPTH);
  if (!tok)
    {
      *error = "out of memory";
      return false;
    }
  json_object *root = json_tokener_parse_ex(tok, buf, (int) len);
  enum json_tokener_error jerr = json_tokener_get_error(tok);
  /* trailing bytes after the object are not a bulk response either */
  bool whole = root && jerr == json_tokener_success;
  if (whole)
    {
      size_t used = json_tokener_get_parse_end(tok);
      for (size_t i = used; i < len; i++)
        if (!strchr(" \t\r\n", buf[i]) || !buf[i])
          whole = false;
    }
  json_tokener_free(tok);
  bool ok = false;
  json_object *items = NULL, *errors = NULL;
  if (!whole || !json_object_is_type(root, json_type_object))
    *error = "not a JSON object";
  else if (!json_object_object_get_ex(root, "items", &items) || !json_object_is_type(items, json_type_array))
    *error = "no \"items\" array";
  else if (json_object_array_length(items) != n)
    *error = "another number of items than the request had";
  else if (json_object_object_get_ex(root, "errors", &errors)
           && !json_object_is_type(errors, json_type_boolean))
    *error = "\"errors\" is not a boolean";
  else
    {
      ok = true;
      for (size_t i = 0; i < n && ok; i++)
        {
          json_object *item = json_object_array_get_idx(items, i);
          json_object *op = NULL, *status = NULL;
          if (!json_object_is_type(item, json_type_object) || json_object_object_length(item) != 1)
            ok = false;
          else
            {
              json_object_object_foreach(item, key, val)
                {
                  (void) key;
                  op = val;
                }
              if (!json_object_is_type(op, json_type_object)
                  || !json_object_object_get_ex(op, "status", &status)
                  || !json_object_is_type(status, json_type_int))
                ok = false;
            }
          if (!ok)
            {
              *error = "an item without an operation and its status";
              break;
            }
          int64_t code = json_object_get_int64(status);
          out[i] = _classify(code < 0 || code > 999 ? 0 : (int) code);
          if (out[i] == HTTP_BULK_DROP && !*reason)
            *reason = _reason(op);
        }
      if (!ok)
        g_clear_pointer(reason, g_free);
    }
  json_object_put(root);
  return ok;
}
