/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slogverify: syslog-ng 3.38's verifier for secure logging (modules/slog).
 *
 *   slogverify -k HOSTKEY0 -m MACFILE INPUTLOG OUTPUTLOG [BUFFERS]
 *   slogverify -i -p PREVKEY -r PREVMAC -m CURMAC INPUTLOG OUTPUTLOG [BUFFERS]
 *
 * Decrypts every record of INPUTLOG that authenticates into OUTPUTLOG as
 * "%020x: message" (the record number in hex, as syslog-ng writes it),
 * checks that no record is missing, doubled or out of place and that the
 * aggregated MAC is MACFILE's.  Each problem is one line on stderr; the
 * exit status is 0 when there was none, 1 otherwise.  The input is read a
 * line at a time (lines longer than 64 MiB are refused), so BUFFERS,
 * syslog-ng's count of lines held at once, is checked and otherwise has
 * no effect.  --max-skip bounds the keys derived over the run to jump to
 * or rewind to a record (a hostile counter could ask for 2^64).
 */
#include "slog/slog.h"

#include "sluice/internal-log.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <inttypes.h>
#include <openssl/crypto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static gboolean o_iterative;
static gchar *o_key, *o_mac, *o_prev_key, *o_prev_mac;
static gint64 o_max_skip = 1 << 24;

static GOptionEntry entries[] = {
  { "iterative", 'i', 0, G_OPTION_ARG_NONE, &o_iterative, "Iterative verification", NULL },
  { "key-file", 'k', 0, G_OPTION_ARG_FILENAME, &o_key, "Initial host key file", "FILE" },
  { "mac-file", 'm', 0, G_OPTION_ARG_FILENAME, &o_mac, "Current MAC file", "FILE" },
  { "prev-key-file", 'p', 0, G_OPTION_ARG_FILENAME, &o_prev_key, "Previous host key file in iterative mode", "FILE" },
  { "prev-mac-file", 'r', 0, G_OPTION_ARG_FILENAME, &o_prev_mac, "Previous MAC file in iterative mode", "FILE" },
  { "max-skip", 0, 0, G_OPTION_ARG_INT64, &o_max_skip, "Most keys derived over the run for jumps and rewinds (default 2^24)", "N" },
  { NULL },
};

typedef struct Out
{
  int fd;
  const char *path;
  bool failed;
} Out;

static bool
_write_out(const char *line, size_t len, void *user)
{
  Out *o = user;
  while (len && !o->failed)
    {
      ssize_t w = write(o->fd, line, len);
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0)
        {
          fprintf(stderr, "slogverify: cannot write %s: %s\n", o->path, g_strerror(errno));
          o->failed = true;
          break;
        }
      line += w;
      len -= (size_t) w;
    }
  return !o->failed;
}

/* Feed the input to v as it is read (slog_verifier_feed splits the lines). */
static bool
_feed(SlogVerifier *v, int fd, const char *path)
{
  char buf[65536];
  for (;;)
    {
      ssize_t r = read(fd, buf, sizeof(buf));
      if (r < 0 && errno == EINTR)
        continue;
      if (r < 0)
        {
          fprintf(stderr, "slogverify: cannot read %s: %s\n", path, g_strerror(errno));
          return false;
        }
      if (r == 0)
        break;
      slog_verifier_feed(v, buf, (size_t) r);
    }
  return slog_verifier_end(v);
}

static int
_usage(GOptionContext *ctx, const char *why)
{
  if (why)
    fprintf(stderr, "\nERROR: %s\n\n", why);
  char *help = g_option_context_get_help(ctx, TRUE, NULL);
  fputs(help, stderr);
  g_free(help);
  g_option_context_free(ctx);
  return 1;
}

static bool
_read_mac(const char *path, unsigned char mac[SLOG_MAC_LEN], const char *what)
{
  char *err = NULL;
  if (slog_mac_read(path, mac, &err))
    return true;
  fprintf(stderr, "slogverify: cannot use the %s: %s\n", what, err);
  g_free(err);
  return false;
}

int
main(int argc, char **argv)
{
  GOptionContext *ctx = g_option_context_new("INPUTLOG OUTPUTLOG [COUNTER] - Log archive verification");
  g_option_context_add_main_entries(ctx, entries, NULL);
  GError *gerr = NULL;
  if (!g_option_context_parse(ctx, &argc, &argv, &gerr))
    {
      char *why = g_strdup(gerr->message);
      g_error_free(gerr);
      int r = _usage(ctx, why);
      g_free(why);
      return r;
    }
  if (argc < 3 || argc > 4)
    return _usage(ctx, NULL);
  if (o_iterative ? !o_prev_key || !o_prev_mac || !o_mac : !o_key || !o_mac)
    return _usage(ctx, o_iterative ? "iterative mode needs -p, -r and -m" : "needs -k and -m");
  if (argc == 4)
    {
      char *end;
      errno = 0;
      long n = strtol(argv[3], &end, 10);
      if (errno || *end || n <= 10 || n > 1073741823)
        {
          fprintf(stderr, "slogverify: invalid buffer size %s: it must be more than 10 and at most 1073741823\n",
                  argv[3]);
          g_option_context_free(ctx);
          return 1;
        }
    }
  if (o_max_skip < 0)
    return _usage(ctx, "--max-skip must not be negative");
  g_option_context_free(ctx);
  sluice_log_set_rate_limit(0);

  unsigned char key[SLOG_KEY_LEN], mac[SLOG_MAC_LEN], prev_mac[SLOG_MAC_LEN];
  uint64_t counter = 0;
  char *err = NULL;
  const char *key_path = o_iterative ? o_prev_key : o_key;
  if (!slog_key_read(key_path, key, &counter, &err))
    {
      fprintf(stderr, "slogverify: cannot use the %s: %s\n", o_iterative ? "previous key" : "host key", err);
      g_free(err);
      return 1;
    }
  if (!o_iterative && counter != 0)
    {
      fprintf(stderr, "slogverify: the initial key k0 is needed, but %s has the counter %" PRIu64 "\n", key_path,
              counter);
      return 1;
    }
  bool ok = true;
  if (o_iterative && !_read_mac(o_prev_mac, prev_mac, "previous MAC file"))
    {
      memset(prev_mac, 0, sizeof(prev_mac));
      ok = false;
    }
  bool have_mac = _read_mac(o_mac, mac, "MAC file");

  int in = open(argv[1], O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  struct stat st;
  if (in < 0 || fstat(in, &st) != 0 || !S_ISREG(st.st_mode))
    {
      fprintf(stderr, "slogverify: %s: %s\n", argv[1], in < 0 ? g_strerror(errno) : "not a regular file");
      return 1;
    }
  Out out = { .path = argv[2] };
  /* O_NONBLOCK: a FIFO with no reader is an error, not a hang */
  out.fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0600);
  if (out.fd < 0)
    {
      fprintf(stderr, "slogverify: cannot open %s: %s\n", argv[2], g_strerror(errno));
      close(in);
      return 1;
    }
  /* ... but only for the open: a pipe with a slow reader must block, not
   * fail with EAGAIN once its buffer is full */
  int fl = fcntl(out.fd, F_GETFL);
  if (fl < 0 || fcntl(out.fd, F_SETFL, fl & ~O_NONBLOCK) != 0)
    {
      fprintf(stderr, "slogverify: cannot make %s blocking: %s\n", argv[2], g_strerror(errno));
      close(out.fd);
      close(in);
      return 1;
    }
  SlogVerifier *v =
    slog_verifier_new(key, counter, o_iterative ? prev_mac : NULL, (uint64_t) o_max_skip, _write_out, &out);
  OPENSSL_cleanse(key, sizeof(key));
  ok = _feed(v, in, argv[1]) && ok;
  ok = slog_verifier_finish(v, have_mac ? mac : NULL) && ok;
  slog_verifier_free(v);
  close(in);
  if (close(out.fd) != 0 && !out.failed)
    {
      fprintf(stderr, "slogverify: cannot close %s: %s\n", argv[2], g_strerror(errno));
      out.failed = true;
    }
  if (!ok || out.failed)
    {
      fprintf(stderr, "slogverify: [SLOG] ERROR: There is a problem with log verification. Please check log manually\n");
      return 1;
    }
  return 0;
}
