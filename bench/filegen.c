/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The input of the file-source scenarios (bench.py, transport = file):
 *
 *   filegen DIR LINES SIZE DIRS FILES RUNID
 *
 * writes LINES RFC 3164 lines of SIZE bytes (newline included) split
 * evenly over FILES files: DIR/fNNNNN.log when DIRS is 0, else
 * DIR/dNNN/fNNNNN.log with the files dealt over DIRS directories in turn.
 * A line is loggen's body behind a BSD timestamp (so that every daemon
 * parses the header alike):
 *
 *   <38>Nov 26 13:45:00 localhost prg00000[1234]: seq: 0000000000, thread: 0007, runid: 42        , stamp: ... PADD...
 *
 * with the file's number as the thread and its lines numbered from 0, so
 * that `loggen --check` counts what is missing or doubled per file.  The
 * harness compiles it once per run (cc -O2) and runs it once per scenario:
 * about 1 GB/s, the page cache's speed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static void
digits(char *p, unsigned long long v, int width)
{
  for (int i = width - 1; i >= 0; i--)
    {
      p[i] = (char) ('0' + v % 10);
      v /= 10;
    }
}

int
main(int argc, char **argv)
{
  if (argc != 7)
    {
      fprintf(stderr, "usage: filegen DIR LINES SIZE DIRS FILES RUNID\n");
      return 2;
    }
  const char *dir = argv[1];
  unsigned long long lines = strtoull(argv[2], NULL, 10);
  int size = atoi(argv[3]), dirs = atoi(argv[4]), files = atoi(argv[5]), runid = atoi(argv[6]);
  if (files < 1 || files > 10000 || dirs < 0 || size < 2 || size > 65536)
    {
      fprintf(stderr, "filegen: FILES 1..10000, DIRS >= 0, SIZE 2..65536\n");
      return 2;
    }

  time_t now = time(NULL);
  struct tm tm;
  localtime_r(&now, &tm);
  static const char months[12][4] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                      "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
  char bsd[32], iso[32];
  snprintf(bsd, sizeof(bsd), "%s %2d %02d:%02d:%02d", months[tm.tm_mon], tm.tm_mday, tm.tm_hour, tm.tm_min,
           tm.tm_sec);
  strftime(iso, sizeof(iso), "%Y-%m-%dT%H:%M:%S", &tm);

  char head[256];
  int hl = snprintf(head, sizeof(head), "<38>%s localhost prg00000[1234]: seq: ", bsd);
  int pos_seq = hl;
  hl += snprintf(head + hl, sizeof(head) - hl, "0000000000, thread: ");
  int pos_thread = hl;
  hl += snprintf(head + hl, sizeof(head) - hl, "0000, runid: %-10d, stamp: %s ", runid, iso);
  char *line = malloc((size_t) size);
  if (hl + 1 > size)
    {
      fprintf(stderr, "filegen: SIZE below the fixed part (%d bytes)\n", hl + 1);
      return 2;
    }
  memcpy(line, head, (size_t) hl);
  static const char pad[] = "PADD";
  for (int i = hl; i < size - 1; i++)
    line[i] = pad[(i - hl) % 4];
  line[size - 1] = '\n';

  size_t cap = 1 << 20;
  char *buf = malloc(cap + (size_t) size);
  char path[4096];
  for (int f = 0; f < files; f++)
    {
      unsigned long long n = lines / files + ((unsigned long long) f < lines % files ? 1 : 0);
      if (dirs > 0)
        {
          snprintf(path, sizeof(path), "%s/d%03d", dir, f % dirs);
          if (mkdir(path, 0755) != 0 && errno != EEXIST)
            {
              perror(path);
              return 1;
            }
          snprintf(path, sizeof(path), "%s/d%03d/f%05d.log", dir, f % dirs, f);
        }
      else
        snprintf(path, sizeof(path), "%s/f%05d.log", dir, f);
      FILE *out = fopen(path, "wb");
      if (!out)
        {
          perror(path);
          return 1;
        }
      digits(line + pos_thread, (unsigned long long) f, 4);
      size_t used = 0;
      for (unsigned long long s = 0; s < n; s++)
        {
          digits(line + pos_seq, s, 10);
          memcpy(buf + used, line, (size_t) size);
          used += (size_t) size;
          if (used >= cap)
            {
              if (fwrite(buf, 1, used, out) != used)
                {
                  perror(path);
                  return 1;
                }
              used = 0;
            }
        }
      if ((used && fwrite(buf, 1, used, out) != used) || fclose(out) != 0)
        {
          perror(path);
          return 1;
        }
    }
  return 0;
}
