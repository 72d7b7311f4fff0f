/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loggen --check: the loss checker. It reads what a destination wrote and
 * finds in each line the body loggen sends ("seq: N, thread: T, runid: R",
 * inside whatever line format the destination used), and reports for each
 * sending thread (runid, thread) the sequence numbers that are missing,
 * that came more than once, and that came after a higher one of the same
 * file (reordered). Order is only judged within one file, since the order
 * between the files of a directory is not known.
 */
#include "loggen.h"

#include <errno.h>
#include <glib.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define LIST_MAX 10 /* sequence numbers or ranges listed per kind */
#define PAGE_SHIFT 16 /* 65536 numbers (8 KiB) per page: a stray huge seq costs a page and a pointer array */
#define PAGE_BITS (1ULL << PAGE_SHIFT)

typedef struct Stream
{
  uint64_t runid;
  int thread;
  uint8_t **pages; /* a bit per seq, in pages made when first touched */
  uint64_t npages;
  uint64_t received, duplicated, reordered;
  int64_t max_seq;        /* highest seen anywhere, -1: none */
  int64_t file_max;       /* highest seen in the current file */
  int file_id;
  uint64_t dup_list[LIST_MAX], reo_list[LIST_MAX];
  int ndup, nreo;
} Stream;

typedef struct Checker
{
  GHashTable *streams; /* runid * 10000 + thread -> Stream */
  int file_id;
  bool io_error;
} Checker;

static void
_stream_free(gpointer p)
{
  Stream *s = p;
  for (uint64_t i = 0; i < s->npages; i++)
    free(s->pages[i]);
  free(s->pages);
  free(s);
}

static Stream *
_stream(Checker *c, uint64_t runid, int thread)
{
  uint64_t key = runid * 10000 + (uint64_t) thread;
  Stream *s = g_hash_table_lookup(c->streams, &key);
  if (s)
    return s;
  s = calloc(1, sizeof(*s));
  s->runid = runid;
  s->thread = thread;
  s->max_seq = -1;
  s->file_max = -1;
  s->file_id = -1;
  gint64 *k = g_new(gint64, 1);
  *k = (gint64) key;
  g_hash_table_insert(c->streams, k, s);
  return s;
}

static bool
_seen(const Stream *s, uint64_t seq)
{
  uint64_t p = seq >> PAGE_SHIFT;
  return p < s->npages && s->pages[p] && (s->pages[p][(seq & (PAGE_BITS - 1)) / 8] & (1u << (seq % 8)));
}

/* false (with a message) when the bitmap cannot grow to hold seq */
static bool
_stream_add(Stream *s, uint64_t seq, int file_id)
{
  uint64_t p = seq >> PAGE_SHIFT;
  if (p >= s->npages)
    {
      uint64_t n = s->npages ? s->npages : 16;
      while (n <= p)
        n *= 2;
      uint8_t **grown = realloc(s->pages, n * sizeof(*grown));
      if (!grown)
        {
          fprintf(stderr, "error: seq %llu of runid %llu thread %04d is too large to track; line skipped\n",
                  (unsigned long long) seq, (unsigned long long) s->runid, s->thread);
          return false;
        }
      memset(grown + s->npages, 0, (n - s->npages) * sizeof(*grown));
      s->pages = grown;
      s->npages = n;
    }
  if (!s->pages[p])
    s->pages[p] = calloc(1, PAGE_BITS / 8);
  if (s->file_id != file_id)
    {
      s->file_id = file_id;
      s->file_max = -1;
    }
  s->received++;
  uint8_t bit = (uint8_t) (1u << (seq % 8));
  uint8_t *byte = &s->pages[p][(seq & (PAGE_BITS - 1)) / 8];
  if (*byte & bit)
    {
      if (s->ndup < LIST_MAX)
        s->dup_list[s->ndup++] = seq;
      s->duplicated++;
      return true;
    }
  *byte |= bit;
  if ((int64_t) seq < s->file_max)
    {
      if (s->nreo < LIST_MAX)
        s->reo_list[s->nreo++] = seq;
      s->reordered++;
    }
  else
    s->file_max = (int64_t) seq;
  if ((int64_t) seq > s->max_seq)
    s->max_seq = (int64_t) seq;
  return true;
}

/* Reads the digits at *p; false if there are none. */
static bool
_number(const char **p, const char *end, uint64_t *v)
{
  const char *s = *p;
  uint64_t n = 0;
  while (s < end && *s >= '0' && *s <= '9' && s - *p < 18)
    n = n * 10 + (uint64_t) (*s++ - '0');
  if (s == *p)
    return false;
  *v = n;
  *p = s;
  return true;
}

static bool
_literal(const char **p, const char *end, const char *lit, size_t n)
{
  if ((size_t) (end - *p) < n || memcmp(*p, lit, n) != 0)
    return false;
  *p += n;
  return true;
}

bool
loggen_body_parse(const char *line, size_t len, uint64_t *seq, uint64_t *thread, uint64_t *runid)
{
  const char *end = line + len, *p = line;
  while ((p = memmem(p, (size_t) (end - p), "seq: ", 5)) != NULL)
    {
      const char *q = p + 5;
      p++;
      if (_number(&q, end, seq) && _literal(&q, end, ", thread: ", 10) && _number(&q, end, thread)
          && _literal(&q, end, ", runid: ", 9) && _number(&q, end, runid))
        return true;
    }
  return false;
}

static void
_read_file(Checker *c, const char *path)
{
  FILE *f = fopen(path, "r");
  if (!f)
    {
      fprintf(stderr, "error: cannot read %s: %s\n", path, strerror(errno));
      c->io_error = true;
      return;
    }
  c->file_id++;
  char *line = NULL;
  size_t cap = 0;
  ssize_t n;
  while ((n = getline(&line, &cap, f)) >= 0)
    {
      uint64_t seq, thread, runid;
      /* loggen writes 10 digits of seq and 4 of thread */
      if (loggen_body_parse(line, (size_t) n, &seq, &thread, &runid) && thread < 10000 && seq < 10000000000ULL
          && !_stream_add(_stream(c, runid, (int) thread), seq, c->file_id))
        c->io_error = true;
    }
  if (ferror(f))
    {
      fprintf(stderr, "error: reading %s failed: %s\n", path, strerror(errno));
      c->io_error = true;
    }
  free(line);
  fclose(f);
}

static gint
_cmp_str(gconstpointer a, gconstpointer b)
{
  return strcmp(*(char *const *) a, *(char *const *) b);
}

static void
_read_path(Checker *c, const char *path)
{
  struct stat stbuf;
  if (stat(path, &stbuf) < 0)
    {
      fprintf(stderr, "error: cannot read %s: %s\n", path, strerror(errno));
      c->io_error = true;
      return;
    }
  if (!S_ISDIR(stbuf.st_mode))
    {
      _read_file(c, path);
      return;
    }
  GError *err = NULL;
  GDir *dir = g_dir_open(path, 0, &err);
  if (!dir)
    {
      fprintf(stderr, "error: cannot read %s: %s\n", path, err->message);
      g_error_free(err);
      c->io_error = true;
      return;
    }
  /* sorted, so that the report does not depend on the directory order */
  GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
  const char *name;
  while ((name = g_dir_read_name(dir)))
    g_ptr_array_add(names, g_build_filename(path, name, NULL));
  g_dir_close(dir);
  g_ptr_array_sort(names, _cmp_str);
  for (guint i = 0; i < names->len; i++)
    _read_path(c, g_ptr_array_index(names, i));
  g_ptr_array_free(names, TRUE);
}

static void
_print_list(FILE *out, const char *what, const uint64_t *v, int n, uint64_t total)
{
  fprintf(out, "  %s:", what);
  for (int i = 0; i < n; i++)
    fprintf(out, " %llu", (unsigned long long) v[i]);
  if (total > (uint64_t) n)
    fprintf(out, " ...");
  fprintf(out, "\n");
}

/* Counts (and lists the first ranges of) the unseen numbers in [0, hi). */
static uint64_t
_missing(const Stream *s, uint64_t hi, FILE *out, bool print)
{
  uint64_t missing = 0;
  int ranges = 0;
  uint64_t i = 0;
  while (i < hi)
    {
      /* whole bytes at a time where all were seen */
      const uint8_t *page = (i >> PAGE_SHIFT) < s->npages ? s->pages[i >> PAGE_SHIFT] : NULL;
      if (page && i % 8 == 0 && i + 8 <= hi && page[(i & (PAGE_BITS - 1)) / 8] == 0xFF)
        {
          i += 8;
          continue;
        }
      if (_seen(s, i))
        {
          i++;
          continue;
        }
      uint64_t from = i;
      while (i < hi && !_seen(s, i))
        {
          /* and whole pages or bytes where none were */
          const uint8_t *pg = (i >> PAGE_SHIFT) < s->npages ? s->pages[i >> PAGE_SHIFT] : NULL;
          uint64_t step = 1;
          if (!pg)
            step = PAGE_BITS - (i & (PAGE_BITS - 1));
          else if (i % 8 == 0 && pg[(i & (PAGE_BITS - 1)) / 8] == 0)
            step = 8;
          i = i + step < hi ? i + step : hi;
        }
      missing += i - from;
      if (print)
        {
          if (ranges == 0)
            fprintf(out, "  missing:");
          if (ranges < LIST_MAX)
            {
              if (i - from == 1)
                fprintf(out, " %llu", (unsigned long long) from);
              else
                fprintf(out, " %llu-%llu", (unsigned long long) from, (unsigned long long) (i - 1));
            }
          else if (ranges == LIST_MAX)
            fprintf(out, " ...");
        }
      ranges++;
    }
  if (print && ranges)
    fprintf(out, "\n");
  return missing;
}

static gint
_cmp_stream(gconstpointer a, gconstpointer b)
{
  const Stream *x = *(Stream *const *) a, *y = *(Stream *const *) b;
  if (x->runid != y->runid)
    return x->runid < y->runid ? -1 : 1;
  return x->thread - y->thread;
}

int
loggen_check(const char *const *paths, int npaths, const CheckOptions *co, FILE *out)
{
  Checker c = { .streams = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, _stream_free) };
  for (int i = 0; i < npaths; i++)
    _read_path(&c, paths[i]);

  /* --expect-threads: a thread that delivered nothing has no stream yet */
  if (co->expect_threads > 0)
    {
      GArray *runids = g_array_new(FALSE, FALSE, sizeof(uint64_t));
      GHashTableIter ri;
      gpointer rk, rv;
      g_hash_table_iter_init(&ri, c.streams);
      while (g_hash_table_iter_next(&ri, &rk, &rv))
        g_array_append_val(runids, ((Stream *) rv)->runid);
      for (guint i = 0; i < runids->len; i++)
        for (int t = 0; t < co->expect_threads; t++)
          _stream(&c, g_array_index(runids, uint64_t, i), t);
      g_array_free(runids, TRUE);
    }

  GPtrArray *list = g_ptr_array_new();
  GHashTableIter it;
  gpointer k, v;
  g_hash_table_iter_init(&it, c.streams);
  while (g_hash_table_iter_next(&it, &k, &v))
    g_ptr_array_add(list, v);
  g_ptr_array_sort(list, _cmp_stream);

  uint64_t received = 0, missing = 0, duplicated = 0, reordered = 0, absent = 0;
  for (guint i = 0; i < list->len; i++)
    {
      Stream *s = g_ptr_array_index(list, i);
      uint64_t hi = co->expect > 0 ? (uint64_t) co->expect : (uint64_t) (s->max_seq + 1);
      uint64_t m = _missing(s, hi, NULL, false);
      /* numbers beyond --expect are not loss, but worth a line */
      uint64_t beyond = co->expect > 0 && s->max_seq >= co->expect ? (uint64_t) (s->max_seq - co->expect + 1) : 0;
      if (!s->received)
        absent++;
      if (!co->quiet || m || s->duplicated || s->reordered || !s->received)
        {
          fprintf(out, "runid=%llu thread=%04d received=%llu missing=%llu duplicated=%llu reordered=%llu",
                  (unsigned long long) s->runid, s->thread, (unsigned long long) s->received,
                  (unsigned long long) m, (unsigned long long) s->duplicated, (unsigned long long) s->reordered);
          if (beyond)
            fprintf(out, " beyond-expected=%llu", (unsigned long long) beyond);
          if (!s->received)
            fprintf(out, " absent");
          fprintf(out, "\n");
          _missing(s, hi, out, true);
          if (s->ndup)
            _print_list(out, "duplicated", s->dup_list, s->ndup, s->duplicated);
          if (s->nreo)
            _print_list(out, "reordered", s->reo_list, s->nreo, s->reordered);
        }
      received += s->received;
      missing += m;
      duplicated += s->duplicated;
      reordered += s->reordered;
    }

  bool bad_missing = missing > 0 || absent > 0 || list->len == 0;
  bool bad = bad_missing || (duplicated && !co->allow_duplicates) || (reordered && !co->allow_reordering);
  if (list->len == 0)
    fprintf(out, "no loggen messages found\n");
  fprintf(out, "check: threads=%u received=%llu missing=%llu duplicated=%llu reordered=%llu: %s\n", list->len,
          (unsigned long long) received, (unsigned long long) missing, (unsigned long long) duplicated,
          (unsigned long long) reordered, c.io_error ? "UNREADABLE" : bad ? "FAIL" : "OK");
  g_ptr_array_free(list, TRUE);
  g_hash_table_destroy(c.streams);
  if (c.io_error)
    return 2;
  return bad ? 1 : 0;
}
