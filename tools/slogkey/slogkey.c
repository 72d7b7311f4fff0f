/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slogkey: syslog-ng 3.38's key tool for secure logging (modules/slog).
 *
 *   slogkey -m MASTERKEY                                   a new master key
 *   slogkey -d MASTERKEY MACADDRESS SERIALNUMBER HOSTKEY   the host key k0
 *   slogkey -c HOSTKEY                                     "counter=N"
 *
 * The files are syslog-ng's (modules/slog/README.md); keys are written with
 * mode 0600.  Exits 0 on success, 1 on any error (syslog-ng: 255, and 0
 * when -c cannot read the key).
 */
#include "slog/slog.h"

#include "sluice/internal-log.h"

#include <glib.h>
#include <inttypes.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <stdio.h>

static gboolean o_master, o_host, o_counter;

static GOptionEntry entries[] = {
  { "master-key", 'm', 0, G_OPTION_ARG_NONE, &o_master, "Generate a master key", NULL },
  { "derive-host-key", 'd', 0, G_OPTION_ARG_NONE, &o_host, "Derive a host key from an existing master key", NULL },
  { "derive-key", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_NONE, &o_host, NULL, NULL },
  { "counter", 'c', 0, G_OPTION_ARG_NONE, &o_counter, "Display current host key counter", NULL },
  { "sequence", 's', G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_NONE, &o_counter, NULL, NULL },
  { NULL },
};

static int
_fail(const char *what, char *err)
{
  fprintf(stderr, "slogkey: %s: %s\n", what, err ? err : "OpenSSL failed");
  g_free(err);
  return 1;
}

int
main(int argc, char **argv)
{
  GOptionContext *ctx = g_option_context_new("- secure logging key management\n\n"
                                             "  Master key generation:\tslogkey -m MASTERKEY\n"
                                             "  Host key derivation:\t\tslogkey -d MASTERKEY MACADDRESS SERIALNUMBER HOSTKEY\n"
                                             "  Host key counter display:\tslogkey -c HOSTKEY");
  g_option_context_add_main_entries(ctx, entries, NULL);
  GError *gerr = NULL;
  if (!g_option_context_parse(ctx, &argc, &argv, &gerr))
    {
      fprintf(stderr, "Invalid option: %s\n", gerr->message);
      g_error_free(gerr);
      g_option_context_free(ctx);
      return 1;
    }
  int modes = !!o_master + !!o_host + !!o_counter;
  int want = o_host ? 5 : 2;
  if (modes != 1 || argc != want)
    {
      char *help = g_option_context_get_help(ctx, TRUE, NULL);
      fputs(help, stderr);
      g_free(help);
      g_option_context_free(ctx);
      return 1;
    }
  g_option_context_free(ctx);
  sluice_log_set_rate_limit(0);

  unsigned char key[SLOG_KEY_LEN];
  uint64_t counter = 0;
  char *err = NULL;
  int ret = 0;
  if (o_master)
    {
      if (RAND_bytes(key, sizeof(key)) != 1)
        ret = _fail("cannot make a master key", NULL);
      else if (!slog_key_write(argv[1], key, 0, &err))
        ret = _fail("cannot write the master key", err);
    }
  else if (o_counter)
    {
      if (!slog_key_read(argv[1], key, &counter, &err))
        ret = _fail("cannot read the key", err);
      else
        printf("counter=%" PRIu64 "\n", counter);
    }
  else
    {
      unsigned char host[SLOG_KEY_LEN];
      if (!slog_key_read(argv[1], key, &counter, &err))
        ret = _fail("cannot read the master key", err);
      else if (!slog_host_key(key, argv[2], argv[3], host))
        ret = _fail("cannot derive the host key", NULL);
      else if (!slog_key_write(argv[4], host, 0, &err))
        ret = _fail("cannot write the host key", err);
      OPENSSL_cleanse(host, sizeof(host));
    }
  OPENSSL_cleanse(key, sizeof(key));
  return ret;
}
