/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sluice-logcat: read logstore() files (docs/logstore-format.md).
 *
 *   sluice-logcat [--key KEY.pem] [--json | --template T] [--since T] [--until T] [--follow] FILE...
 *   sluice-logcat --verify [--key KEY.pem] FILE...
 *
 * Records come out as syslog-ng's file line (or the text the destination's
 * template() made), in a template of one's own, or as JSON, one a line.
 * --verify walks every file's hash chain (and, with the key, decrypts and
 * authenticates every chunk) and says where a file was cut or changed;
 * it exits 1 when one was, or when one does not end in its closing record.
 * Time stamps (RFC 3161 tokens) must stamp the chunk before them, and with
 * --tsa-ca their signatures must verify.
 * Files are untrusted input: every length is checked before use
 * (logstore-file.c), and tests/fuzz/fuzz-logstore.c feeds the same code.
 */
#include "logstore/logstore-file.h"
#include "logstore/logstore-tsa.h"
#include "modules.h"

#include "sluice/logmsg-serialize.h"
#include "sluice/template.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <json-c/json.h>
#include <openssl/pem.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static gchar *o_key, *o_template, *o_since, *o_until, *o_tsa_ca;
static gboolean o_verify, o_json, o_follow;
static int64_t since_us = INT64_MIN, until_us = INT64_MAX;

static GOptionEntry entries[] = {
  { "key", 'k', 0, G_OPTION_ARG_FILENAME, &o_key, "PEM private key of the encrypt-certificate()", "FILE" },
  { "verify", 0, 0, G_OPTION_ARG_NONE, &o_verify,
   "Check the hash chain (and with --key every chunk's tag); exit 1 "
    "when a file was cut or changed", NULL },
  { "tsa-ca", 0, 0, G_OPTION_ARG_FILENAME, &o_tsa_ca, "PEM CA certificates the time stamps' signatures must "
    "chain to", "FILE" },
  { "json", 'j', 0, G_OPTION_ARG_NONE, &o_json, "One JSON object a record", NULL },
  { "template", 't', 0, G_OPTION_ARG_STRING, &o_template, "Format records with this template", "T" },
  { "follow", 'f', 0, G_OPTION_ARG_NONE, &o_follow, "Wait for more records, as tail -f (the last file)",
   NULL },
  { "since", 0, 0, G_OPTION_ARG_STRING, &o_since, "Records received at or after T (ISO 8601 or seconds)",
   "T" },
  { "until", 0, 0, G_OPTION_ARG_STRING, &o_until, "Records received before T (ISO 8601 or seconds)", "T" },
  { NULL },
};

static EVP_PKEY *key;
static X509_STORE *tsa_ca;
static LogTemplate *tmpl;
static LogTemplateOptions topts;
static GString *out;
static GByteArray *scratch; /* a lean record as serialized */

/* A descriptor on path when it is a regular file (a FIFO would block, a
 * device never end), else -1 with a message. */
static int
_open_regular(const char *path)
{
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  struct stat st;
  if (fd < 0)
    fprintf(stderr, "%s: %s\n", path, g_strerror(errno));
  else if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    {
      fprintf(stderr, "%s: not a regular file\n", path);
      close(fd);
      fd = -1;
    }
  return fd;
}

/* ISO 8601 (UTC when no zone is given) or seconds since the epoch. */
static bool
_parse_time(const char *s, int64_t *us)
{
  char *end;
  double secs = g_ascii_strtod(s, &end);
  if (*s && *end == '\0')
    {
      *us = (int64_t) (secs * 1e6);
      return true;
    }
  GTimeZone *utc = g_time_zone_new_utc();
  GDateTime *dt = g_date_time_new_from_iso8601(s, utc);
  g_time_zone_unref(utc);
  if (!dt)
    return false;
  *us = g_date_time_to_unix(dt) * 1000000 + g_date_time_get_microsecond(dt);
  g_date_time_unref(dt);
  return true;
}

static void
_iso(int64_t us, char *buf, size_t len)
{
  time_t s = (time_t) (us / 1000000);
  struct tm tm;
  gmtime_r(&s, &tm);
  size_t n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
  snprintf(buf + n, len - n, ".%06dZ", (int) (us % 1000000 + (us % 1000000 < 0 ? 1000000 : 0)));
}

static bool
_json_nv(NVHandle h, const char *name, const char *value, size_t len, void *user)
{
  (void) h;
  json_object_object_add(user, name, json_object_new_string_len(value, (int) len));
  return true;
}

/* The built-in values --json gives, as macros. */
static const char *const json_macros[] = { "ISODATE", "HOST", "FACILITY", "PRIORITY", "PROGRAM", "PID",
                                          "MSGID",
                                           "MESSAGE", "SOURCEIP", NULL };

static void
_print_json(const LsRecord *r, LogMsg *msg, const char *file, uint64_t chunk)
{
  json_object *o = json_object_new_object();
  char t[64];
  _iso(r->recv_us, t, sizeof(t));
  json_object_object_add(o, "received", json_object_new_string(t));
  json_object_object_add(o, "file", json_object_new_string(file));
  json_object_object_add(o, "chunk", json_object_new_int64((int64_t) chunk));
  if (msg)
    {
      static LogTemplate *m[G_N_ELEMENTS(json_macros)];
      for (int i = 0; json_macros[i]; i++)
        {
          if (!m[i])
            {
              char *src = g_strdup_printf("${%s}", json_macros[i]), *e = NULL;
              m[i] = log_template_compile(src, &e);
              g_free(src);
              g_free(e);
            }
          g_string_truncate(out, 0);
          if (m[i])
            log_template_format(m[i], msg, &topts, out);
          json_object_object_add(o, json_macros[i], json_object_new_string_len(out->str, (int) out->len));
        }
      log_msg_foreach_nv(msg, _json_nv, o);
    }
  else
    json_object_object_add(o, "text", json_object_new_string_len((const char *) r->data, (int) r->len));
  printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
  json_object_put(o);
}

/* Print one record; false when it does not decode. */
static bool
_print(const LsRecord *r, const char *file, uint64_t chunk, char **error)
{
  if (r->recv_us < since_us || r->recv_us >= until_us)
    return true;
  LogMsg *msg = NULL;
  if (r->kind != LS_RECORD_TEXT)
    {
      const char *e = NULL;
      msg = ls_record_msg(r, scratch, &e);
      if (!msg)
        {
          *error = g_strdup_printf("chunk %" G_GUINT64_FORMAT ": a record does not decode: %s", chunk, e);
          return false;
        }
    }
  if (o_json)
    _print_json(r, msg, file, chunk);
  else
    {
      g_string_truncate(out, 0);
      if (msg && tmpl)
        log_template_format(tmpl, msg, &topts, out);
      else if (msg)
        log_format_file_line(msg, &topts, out);
      else
        g_string_append_len(out, (const char *) r->data, (gssize) r->len);
      if (out->len == 0 || out->str[out->len - 1] != '\n')
        g_string_append_c(out, '\n');
      fwrite(out->str, 1, out->len, stdout);
    }
  if (msg)
    log_msg_unref(msg);
  return true;
}

/* Read (or verify) one file.  0: fine; 1: cut, changed or not closed
 * (--verify), or unreadable. */
static int
_cat(const char *path, bool follow)
{
  int fd = _open_regular(path);
  if (fd < 0)
    return 1;
  LsHeader h;
  LsKeyBlock kb;
  LsChain chain;
  uint64_t off = 0;
  char *error = NULL;
  LsStatus st;
  while ((st = ls_fd_header(fd, &h, &kb, &chain, &off, &error)) == LS_MORE && follow)
    g_usleep(200000);
  if (st != LS_OK)
    {
      fprintf(stderr, "%s: %s\n", path, error ? error : "the file ends inside its header");
      g_free(error);
      close(fd);
      return 1;
    }
  if (chain.encrypted && key && !ls_key_unwrap(key, &kb, &chain, &error))
    {
      fprintf(stderr, "%s: %s\n", path, error);
      g_free(error);
      close(fd);
      return 1;
    }
  if (chain.encrypted && !key && !o_verify)
    {
      char fp[3 * LS_HASH_LEN];
      ls_fingerprint_hex(kb.fingerprint, fp);
      fprintf(stderr,
              "%s: encrypted for the certificate with SHA-256 fingerprint %s: give its private key with "
              "--key\n", path, fp);
      close(fd);
      return 1;
    }
  LsReadKey rk = { .priv = key, .decode = !chain.encrypted || key };
  GByteArray *buf = g_byte_array_new(), *plain = g_byte_array_new();
  uint64_t chunks = 0, records = 0, seals = 0, torn_bytes = 0, stamps = 0;
  char *last_stamp = NULL;
  int last_type = 0, rc = 0;
  for (;;)
    {
      LsChunk c = { .plain = plain };
      g_byte_array_set_size(plain, 0);
      st = ls_fd_chunk(fd, &chain, &rk, &off, buf, &c, &error);
      if (st == LS_OK)
        {
          chunks++;
          last_type = c.type;
          if (c.type == LS_CHUNK_OPEN && plain->len >= 8)
            {
              uint64_t t = 0;
              for (int i = 7; i >= 0; i--)
                t = t << 8 | plain->data[i];
              seals += t != 0;
              torn_bytes += t;
            }
          if (c.type == LS_CHUNK_TIMESTAMP)
            {
              char *when = NULL;
              if (!ls_tsa_check(plain->data, plain->len, c.stamped, tsa_ca, &when, &error))
                {
                  char *e = error;
                  error = g_strdup_printf("chunk %" G_GUINT64_FORMAT " at offset %" G_GUINT64_FORMAT ": %s",
                                          c.seq, c.offset, e);
                  g_free(e);
                  st = LS_BAD;
                  break;
                }
              stamps++;
              g_free(last_stamp);
              last_stamp = when;
            }
          if (c.type != LS_CHUNK_DATA)
            continue;
          records += c.records;
          if (o_verify && !rk.decode)
            continue;
          size_t pos = 0;
          LsRecord r;
          LsStatus rs;
          uint32_t n = 0;
          while ((rs = ls_record_next(plain, &pos, &r)) == LS_OK)
            {
              n++;
              if (!o_verify && !_print(&r, path, c.seq, &error))
                break;
            }
          if (rs == LS_OK || (rs == LS_BAD && !error))
            error = g_strdup_printf("chunk %" G_GUINT64_FORMAT ": its records do not fit its payload", c.seq);
          else if (rs == LS_END && n != c.records)
            error = g_strdup_printf("chunk %" G_GUINT64_FORMAT ": %u records where its header says %u",
                                    c.seq, n,
                                    c.records);
          if (error)
            {
              st = LS_BAD;
              break;
            }
          fflush(stdout);
          continue;
        }
      if (st == LS_BAD)
        break;
      if (follow)
        {
          g_usleep(200000);
          continue;
        }
      break;
    }
  if (st == LS_BAD)
    {
      fprintf(stderr, "%s: %s\n", path, error);
      rc = 1;
    }
  else if (st == LS_MORE)
    {
      fprintf(stderr,
              "%s: cut at offset %" G_GUINT64_FORMAT ": the chunk there is incomplete (a torn tail); read "
              "to the end of chunk %" G_GUINT64_FORMAT "\n", path, off, chunks ? chunks - 1 : 0);
      rc = o_verify ? 1 : 0;
    }
  else if (last_type != LS_CHUNK_CLOSE && o_verify)
    {
      fprintf(stderr, "%s: ends after chunk %" G_GUINT64_FORMAT " (offset %" G_GUINT64_FORMAT ") without its "
              "closing record: cut there, or still being written\n", path, chunks ? chunks - 1 : 0, off);
      rc = 1;
    }
  if (o_verify && rc == 0)
    {
      printf("%s: OK, %" G_GUINT64_FORMAT " chunks, %" G_GUINT64_FORMAT " records, closed", path, chunks,
             records);
      if (seals)
        printf("; %" G_GUINT64_FORMAT " torn tails (%" G_GUINT64_FORMAT " bytes) sealed by the writer", seals,
               torn_bytes);
      if (stamps)
        printf("; %" G_GUINT64_FORMAT " time stamps, the last %s, %s", stamps, last_stamp,
               tsa_ca ? "signed under --tsa-ca" : "signatures not checked (no --tsa-ca)");
      printf("%s\n", rk.decode ? "" : " (chain only: no --key to authenticate the chunks)");
    }
  g_free(error);
  g_free(last_stamp);
  g_byte_array_free(buf, TRUE);
  g_byte_array_free(plain, TRUE);
  close(fd);
  return rc;
}

int
main(int argc, char **argv)
{
  GOptionContext *ctx = g_option_context_new("FILE... - print or verify logstore() files");
  g_option_context_add_main_entries(ctx, entries, NULL);
  GError *gerr = NULL;
  if (!g_option_context_parse(ctx, &argc, &argv, &gerr))
    {
      fprintf(stderr, "sluice-logcat: %s\n", gerr->message);
      return 2;
    }
  g_option_context_free(ctx);
  if (argc < 2)
    {
      fprintf(stderr, "usage: sluice-logcat [--key KEY] [--verify] [--json | --template T] [--follow] "
              "[--since T] [--until T] FILE...\n");
      return 2;
    }
  if ((o_since && !_parse_time(o_since, &since_us)) || (o_until && !_parse_time(o_until, &until_us)))
    {
      fprintf(stderr, "sluice-logcat: --since and --until take ISO 8601 (2026-11-26T10:00:00Z) or seconds\n");
      return 2;
    }
  if (o_json && o_template)
    {
      fprintf(stderr, "sluice-logcat: --json and --template do not go together\n");
      return 2;
    }
  if (o_key)
    {
      int kfd = _open_regular(o_key);
      FILE *fp = kfd >= 0 ? fdopen(kfd, "r") : NULL;
      key = fp ? PEM_read_PrivateKey(fp, NULL, NULL, NULL) : NULL;
      if (fp)
        fclose(fp);
      if (!key)
        {
          fprintf(stderr, "sluice-logcat: %s: not a readable PEM private key\n", o_key);
          return 2;
        }
    }
  if (o_tsa_ca)
    {
      tsa_ca = X509_STORE_new();
      int cfd = _open_regular(o_tsa_ca);
      if (cfd >= 0)
        close(cfd);
      if (cfd < 0 || X509_STORE_load_file(tsa_ca, o_tsa_ca) != 1)
        {
          fprintf(stderr, "sluice-logcat: %s: not readable PEM CA certificates\n", o_tsa_ca);
          return 2;
        }
    }
  modules_register_template_functions();
  log_template_options_defaults(&topts);
  if (o_template)
    {
      char *e = NULL;
      tmpl = log_template_compile(o_template, &e);
      if (!tmpl)
        {
          fprintf(stderr, "sluice-logcat: bad --template: %s\n", e);
          return 2;
        }
    }
  out = g_string_new("");
  scratch = g_byte_array_new();
  int rc = 0;
  for (int i = 1; i < argc; i++)
    rc |= _cat(argv[i], o_follow && i == argc - 1);
  EVP_PKEY_free(key);
  X509_STORE_free(tsa_ca);
  return rc;
}
