/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * add-contextual-data()'s database (context-db.h): each line is scanned
 * with csv-parser()'s scanner set as syslog-ng 3.38 sets its own for this
 * file, and the records go into one array per selector, kept in a hash
 * table keyed by the selector (folded to lower case with ignore_case).
 */
#include "context-db.h"

#include "csv-scanner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ContextDb
{
  GHashTable *index; /* selector -> GArray of ContextRecord */
  GPtrArray *order;  /* each selector (key) as first written, in file order (char *) */
  bool ignore_case;
  size_t records;
};

static void
_records_free(gpointer p)
{
  GArray *a = p;
  for (guint i = 0; i < a->len; i++)
    log_template_unref(g_array_index(a, ContextRecord, i).value);
  g_array_free(a, TRUE);
}

static char *
_key(const ContextDb *db, const char *s, size_t len)
{
  return db->ignore_case ? g_ascii_strdown(s, (gssize) len) : g_strndup(s, len);
}

static void
_scanner_options(CsvScannerOptions *o)
{
  memset(o, 0, sizeof(*o));
  o->escape = CSV_ESCAPE_DOUBLE_CHAR;
  o->strip_whitespace = true;
  o->delim[(uint8_t) ','] = true;
  o->quote_end[(uint8_t) '"'] = '"';
  o->quote_end[(uint8_t) '\''] = '\'';
  o->n_columns = 3;
}

/* One line into db; false with *error. */
static bool
_add_line(ContextDb *db, const CsvScannerOptions *so, const char *line, size_t len, const char *prefix,
          GString *buf, char **error)
{
  static const char *const what[] = { "a selector", "a name", "a value" };
  char *field[3] = { NULL, NULL, NULL };
  CsvScanner sc;
  csv_scanner_init(&sc, so, line, len, buf);
  size_t got = 0;
  while (got < 3 && csv_scanner_next(&sc))
    field[got++] = g_strndup(sc.value, sc.value_len);
  bool ok = false;
  if (got < 3)
    *error = g_strdup_printf("%s is missing: a record is selector,name,value", what[got]);
  else if (!csv_scanner_complete(&sc))
    *error = g_strdup("more than three fields: a record is selector,name,value");
  else if (!field[1][0])
    *error = g_strdup("the name is empty");
  else
    {
      char *terr = NULL;
      LogTemplate *t = log_template_compile(field[2], &terr);
      if (!t)
        {
          *error = g_strdup_printf("the value does not compile as a template: %s", terr);
          g_free(terr);
        }
      else
        {
          char *name = g_strconcat(prefix ? prefix : "", field[1], NULL);
          ContextRecord r = { log_msg_get_value_handle(name, -1), t };
          g_free(name);
          char *key = _key(db, field[0], strlen(field[0]));
          GArray *a = g_hash_table_lookup(db->index, key);
          if (!a)
            {
              a = g_array_new(FALSE, FALSE, sizeof(ContextRecord));
              g_hash_table_insert(db->index, key, a);
              g_ptr_array_add(db->order, g_strdup(field[0]));
            }
          else
            g_free(key);
          g_array_append_val(a, r);
          db->records++;
          ok = true;
        }
    }
  for (int i = 0; i < 3; i++)
    g_free(field[i]);
  return ok;
}

ContextDb *
context_db_load(const char *text, size_t len, const char *prefix, bool ignore_case, char **error)
{
  if (len > CONTEXT_DB_MAX_BYTES)
    {
      *error = g_strdup_printf("the database is %zu bytes, more than the %u taken", len, CONTEXT_DB_MAX_BYTES);
      return NULL;
    }
  ContextDb *db = calloc(1, sizeof(*db));
  if (!db)
    abort();
  db->ignore_case = ignore_case;
  db->index = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, _records_free);
  db->order = g_ptr_array_new_with_free_func(g_free);
  CsvScannerOptions so;
  _scanner_options(&so);
  GString *buf = g_string_sized_new(256);
  size_t lineno = 0;
  const char *p = text, *end = text + len;
  while (p < end)
    {
      const char *nl = memchr(p, '\n', (size_t) (end - p));
      const char *stop = nl ? nl : end;
      size_t n = (size_t) (stop - p);
      lineno++;
      if (n && p[n - 1] == '\r')
        n--;
      char *why = NULL;
      if (n && !_add_line(db, &so, p, n, prefix, buf, &why))
        {
          *error = g_strdup_printf("line %zu: %s", lineno, why);
          g_free(why);
          g_string_free(buf, TRUE);
          context_db_free(db);
          return NULL;
        }
      p = nl ? nl + 1 : end;
    }
  g_string_free(buf, TRUE);
  return db;
}

const ContextRecord *
context_db_lookup(const ContextDb *db, const char *selector, size_t len, size_t *n)
{
  /* the key NUL-terminated (and folded) on the stack: no allocation a
   * message unless its selector is long */
  char stack[256];
  char *key = len < sizeof(stack) ? stack : NULL;
  if (key)
    {
      for (size_t i = 0; i < len; i++)
        key[i] = db->ignore_case ? g_ascii_tolower(selector[i]) : selector[i];
      key[len] = '\0';
    }
  else
    key = _key(db, selector, len);
  GArray *a = g_hash_table_lookup(db->index, key);
  if (key != stack)
    g_free(key);
  if (!a)
    return NULL;
  *n = a->len;
  return (const ContextRecord *) (void *) a->data;
}

const char *const *
context_db_selectors(const ContextDb *db, size_t *n)
{
  *n = db->order->len;
  return (const char *const *) db->order->pdata;
}

size_t
context_db_size(const ContextDb *db)
{
  return db->records;
}

void
context_db_free(ContextDb *db)
{
  if (!db)
    return;
  g_hash_table_destroy(db->index);
  g_ptr_array_free(db->order, TRUE);
  free(db);
}
