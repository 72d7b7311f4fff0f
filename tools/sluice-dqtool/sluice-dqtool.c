/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sluice-dqtool: look into a disk buffer file, as syslog-ng's dqtool does.
 *
 *   sluice-dqtool info FILE...          the header, the number of messages
 *                                       (saved front cache, ring, saved
 *                                       overflow), sizes, damaged records
 *                                       and the records lost to damage
 *   sluice-dqtool cat [-t TEMPLATE] FILE...
 *                                       the messages in delivery order, one
 *                                       line each (default: the file()
 *                                       destination's line)
 *
 * It only reads: a daemon may have the file open (a running daemon's file
 * may show a head a little behind its own).  Damage is stepped over as
 * the daemon does; each damaged stretch is reported on stderr with its file
 * offset and the records and bytes lost.  Exit status 1 when a file cannot
 * be read or holds damaged records.
 */
#include "sluice/logqueue-disk.h"
#include "sluice/template.h"

#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

typedef struct Counts
{
  uint64_t front, ring, overflow, bad, bytes;
  uint64_t lost, lost_bytes, stretches;
} Counts;

static void
_print_loss(const char *section, uint64_t offset, uint64_t seq, uint64_t records, uint64_t bytes)
{
  fprintf(stderr,
          "sluice-dqtool: %s damaged at file offset %" PRIu64 ": %" PRIu64 " records lost (%" PRIu64
          " bytes) from sequence number %" PRIu64 "\n",
          section, offset, records, bytes, seq);
}

static void
_count_loss(const char *section, uint64_t offset, uint64_t seq, uint64_t records, uint64_t bytes, void *user_data)
{
  Counts *c = user_data;
  c->lost += records;
  c->lost_bytes += bytes;
  c->stretches++;
  _print_loss(section, offset, seq, records, bytes);
}

static void
_count(const char *section, uint64_t seq, uint32_t size, LogMsg *msg, const char *error, void *user_data)
{
  Counts *c = user_data;
  if (!msg)
    c->bad++;
  else if (strcmp(section, "front") == 0)
    c->front++;
  else if (strcmp(section, "ring") == 0)
    c->ring++;
  else
    c->overflow++;
  c->bytes += size;
}

static bool
_info(const char *path)
{
  char *error = NULL;
  DiskQFile *f = diskq_file_open_ro(path, &error);
  if (!f)
    {
      fprintf(stderr, "sluice-dqtool: %s\n", error);
      g_free(error);
      return false;
    }
  const DiskQHeader *h = diskq_file_header(f);
  Counts c = { 0 };
  diskq_file_foreach(f, _count, _count_loss, &c);
  printf("file: %s\nversion: %" PRIu32 "\nreliable: %s\ncapacity: %" PRIu64 "\n", path, h->version,
         (h->flags & DISKQ_F_RELIABLE) ? "yes" : "no", h->capacity);
  printf("head: %" PRIu64 " (seq %" PRIu64 ")\ntail: %" PRIu64 " (seq %" PRIu64 ")\nused: %" PRIu64 " bytes\n",
         h->head, h->head_seq, h->tail, h->tail_seq, h->tail >= h->head ? h->tail - h->head : 0);
  printf("messages: %" PRIu64 " (front cache %" PRIu64 ", ring %" PRIu64 ", overflow %" PRIu64 ")\n",
         c.front + c.ring + c.overflow, c.front, c.ring, c.overflow);
  printf("message bytes: %" PRIu64 "\ndamaged records: %" PRIu64 "\n", c.bytes, c.bad);
  printf("lost records: %" PRIu64 " (%" PRIu64 " bytes in %" PRIu64 " damaged stretches)\n", c.lost, c.lost_bytes,
         c.stretches);
  diskq_file_close(f);
  return c.bad == 0 && c.stretches == 0;
}

typedef struct Cat
{
  LogTemplate *tmpl;
  LogTemplateOptions opts;
  GString *line;
  uint64_t bad;
} Cat;

static void
_cat_loss(const char *section, uint64_t offset, uint64_t seq, uint64_t records, uint64_t bytes, void *user_data)
{
  Cat *c = user_data;
  _print_loss(section, offset, seq, records, bytes);
  c->bad++;
}

static void
_print(const char *section, uint64_t seq, uint32_t size, LogMsg *msg, const char *error, void *user_data)
{
  Cat *c = user_data;
  if (!msg)
    {
      fprintf(stderr, "sluice-dqtool: %s record %" PRIu64 " is damaged: %s\n", section, seq, error);
      c->bad++;
      return;
    }
  g_string_truncate(c->line, 0);
  if (c->tmpl)
    log_template_format(c->tmpl, msg, &c->opts, c->line);
  else
    log_format_file_line(msg, &c->opts, c->line);
  fwrite(c->line->str, 1, c->line->len, stdout);
}

static bool
_cat(const char *path, Cat *c)
{
  char *error = NULL;
  DiskQFile *f = diskq_file_open_ro(path, &error);
  if (!f)
    {
      fprintf(stderr, "sluice-dqtool: %s\n", error);
      g_free(error);
      return false;
    }
  uint64_t bad = c->bad;
  diskq_file_foreach(f, _print, _cat_loss, c);
  diskq_file_close(f);
  return c->bad == bad;
}

static int
_usage(void)
{
  fprintf(stderr, "usage: sluice-dqtool info FILE...\n       sluice-dqtool cat [-t TEMPLATE] FILE...\n");
  return 2;
}

int
main(int argc, char **argv)
{
  if (argc < 3)
    return _usage();
  bool ok = true;
  if (strcmp(argv[1], "info") == 0)
    {
      for (int i = 2; i < argc; i++)
        ok &= _info(argv[i]);
      return ok ? 0 : 1;
    }
  if (strcmp(argv[1], "cat") != 0)
    return _usage();
  Cat c = { NULL, { 0 }, g_string_new(NULL), 0 };
  log_template_options_defaults(&c.opts);
  int i = 2;
  if (strcmp(argv[i], "-t") == 0)
    {
      if (argc < 5)
        return _usage();
      char *error = NULL;
      GString *text = g_string_new(argv[i + 1]);
      g_string_append_c(text, '\n');
      c.tmpl = log_template_compile(text->str, &error);
      g_string_free(text, TRUE);
      if (!c.tmpl)
        {
          fprintf(stderr, "sluice-dqtool: bad template: %s\n", error);
          g_free(error);
          return 2;
        }
      i += 2;
    }
  for (; i < argc; i++)
    ok &= _cat(argv[i], &c);
  log_template_unref(c.tmpl);
  g_string_free(c.line, TRUE);
  return ok ? 0 : 1;
}
