/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * $(slog --key-file|-k KEYFILE --mac-file|-m MACFILE $RAWMSG): syslog-ng
 * 3.38's secure logging.  Each message is encrypted under the current host
 * key, which then evolves (the old one is gone); the key file keeps the
 * next key and its counter, the MAC file the aggregated MAC of everything
 * written so far.  Both are rewritten after every message, as syslog-ng
 * does.  A key file that is missing is a configuration error; one that
 * cannot be read or is corrupted makes $(slog) pass its argument through
 * in clear, with a warning (syslog-ng's behaviour).
 *
 * The key state belongs to the key file, not to one template: templates
 * naming the same key file (two destinations, or the old and the new
 * configuration across a reload) share it under one mutex, so a record
 * number and its key are never used twice.
 */
#include "slog.h"

#include "slog-module.h"
#include "sluice/internal-log.h"
#include "sluice/template.h"

#include <inttypes.h>
#include <openssl/crypto.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct SlogKeyState
{
  char *key_path; /* the registry's key */
  char *mac_path;
  int refs;
  pthread_mutex_t lock;
  bool bad; /* no usable key: messages pass in clear */
  uint64_t counter;
  unsigned char key[SLOG_KEY_LEN];
  unsigned char mac[SLOG_MAC_LEN];
} SlogKeyState;

typedef struct SlogState
{
  SlogKeyState *ks;
  int msg_arg; /* index into the compiled arguments */
} SlogState;

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static GHashTable *registry; /* key path -> SlogKeyState */

/* Load the key and the MAC from their files (registry_lock held). */
static void
_load(SlogKeyState *ks)
{
  char *err = NULL;
  ks->bad = !slog_key_read(ks->key_path, ks->key, &ks->counter, &err);
  if (ks->bad)
    {
      sluice_log(SLUICE_LOG_WARNING,
                 "[SLOG] WARNING: Template parsing failed, key file not found or invalid. Reverting to clear text logging.",
                 "file", ks->key_path, "error", err, NULL);
      g_free(err);
      return;
    }
  if (!slog_mac_read(ks->mac_path, ks->mac, &err))
    {
      memset(ks->mac, 0, sizeof(ks->mac));
      if (ks->counter > 0)
        sluice_log(SLUICE_LOG_WARNING, "[SLOG] ERROR: Aggregated MAC not found or invalid", "File", ks->mac_path,
                   "error", err, NULL);
      g_free(err);
    }
}

static void
_state_free(void *p)
{
  SlogState *st = p;
  if (!st)
    return;
  SlogKeyState *ks = st->ks;
  if (ks)
    {
      pthread_mutex_lock(&registry_lock);
      if (--ks->refs == 0)
        {
          g_hash_table_remove(registry, ks->key_path);
          OPENSSL_cleanse(ks->key, sizeof(ks->key));
          pthread_mutex_destroy(&ks->lock);
          g_free(ks->key_path);
          g_free(ks->mac_path);
          g_free(ks);
        }
      pthread_mutex_unlock(&registry_lock);
    }
  g_free(st);
}

/* The option's value: "-k V", "--key-file V" or "--key-file=V". */
static bool
_option(char **argv, int argc, int *i, const char *s, const char *l, const char **val, char **err)
{
  const char *a = argv[*i];
  size_t ll = strlen(l);
  if (strncmp(a, l, ll) == 0 && a[ll] == '=')
    {
      *val = a + ll + 1;
      return true;
    }
  if (strcmp(a, s) != 0 && strcmp(a, l) != 0)
    return false;
  if (*i + 1 >= argc)
    *err = g_strdup_printf("Missing argument for %s", a);
  else
    *val = argv[++*i];
  return true;
}

static char *
_slog_prepare(int argc, char **argv, void **state)
{
  const char *key = NULL, *mac = NULL;
  int msg_arg = -1;
  bool options_done = false;
  char *err = NULL;
  for (int i = 1; i < argc && !err; i++)
    {
      const char *a = argv[i];
      if (options_done || a[0] != '-' || !a[1])
        {
          if (msg_arg < 0)
            msg_arg = i - 1;
          continue;
        }
      if (strcmp(a, "--") == 0)
        options_done = true;
      else if (!_option(argv, argc, &i, "-k", "--key-file", &key, &err)
               && !_option(argv, argc, &i, "-m", "--mac-file", &mac, &err))
        err = g_strdup_printf("Unknown option %s", a);
    }
  if (err)
    return err;
  if (!slog_cmac_available())
    return g_strdup("[SLOG] ERROR: AES-256-CMAC is not available (OpenSSL); cannot encrypt");
  struct stat sb;
  if (key && (stat(key, &sb) != 0 || !S_ISREG(sb.st_mode)))
    return g_strdup_printf("Invalid path or non existing regular file: %s", key);
  if (msg_arg < 0)
    return g_strdup("[SLOG] ERROR: Template parsing failed. Invalid number of arguments. "
                    "Usage: $(slog --key-file FILE --mac-file FILE $RAWMSG)");
  if (!key)
    return g_strdup("[SLOG] ERROR: Template parsing failed. Invalid or missing key file");
  if (!mac)
    return g_strdup("[SLOG] ERROR: Template parsing failed. Invalid or missing MAC file");

  char *key_path = realpath(key, NULL);
  if (!key_path)
    return g_strdup_printf("Invalid path or non existing regular file: %s", key);
  char *mac_path = g_canonicalize_filename(mac, NULL);
  pthread_mutex_lock(&registry_lock);
  if (!registry)
    registry = g_hash_table_new(g_str_hash, g_str_equal);
  SlogKeyState *ks = g_hash_table_lookup(registry, key_path);
  if (ks && strcmp(ks->mac_path, mac_path) != 0)
    err = g_strdup_printf("the key file %s is used with the MAC file %s already", key, ks->mac_path);
  else if (ks)
    {
      ks->refs++;
      pthread_mutex_lock(&ks->lock);
      if (ks->bad) /* perhaps mended since: read it again */
        _load(ks);
      pthread_mutex_unlock(&ks->lock);
    }
  else
    {
      ks = g_new0(SlogKeyState, 1);
      ks->key_path = g_strdup(key_path);
      ks->mac_path = g_strdup(mac_path);
      ks->refs = 1;
      pthread_mutex_init(&ks->lock, NULL);
      _load(ks);
      g_hash_table_insert(registry, ks->key_path, ks);
    }
  pthread_mutex_unlock(&registry_lock);
  free(key_path);
  g_free(mac_path);
  if (err)
    return err;
  SlogState *st = g_new0(SlogState, 1);
  st->ks = ks;
  st->msg_arg = msg_arg;
  *state = st;
  return NULL;
}

static void
_slog_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
           GString *out)
{
  SlogState *st = state;
  SlogKeyState *ks = st->ks;
  if (st->msg_arg >= argc)
    return;
  /* its own buffer: the scratch levels belong to basicfuncs' nesting */
  GString *text = g_string_sized_new(256);
  log_template_format(args[st->msg_arg], msg, opts, text);
  pthread_mutex_lock(&ks->lock);
  if (ks->bad)
    {
      g_string_append_len(out, text->str, (gssize) text->len);
      goto done;
    }
  static const char empty[] = "[SLOG] ERROR: String of length 0 received";
  const char *p = text->len ? text->str : empty;
  size_t len = text->len ? text->len : strlen(empty);
  if (!text->len)
    sluice_log(SLUICE_LOG_ERROR, empty, NULL);
  /* the next key first: when CMAC fails it cannot be made, and then this
   * key is not used (encrypting under it and keeping it would use it
   * twice) nor is a key derived from CMAC's zeroed output persisted */
  unsigned char next[SLOG_KEY_LEN];
  memcpy(next, ks->key, SLOG_KEY_LEN);
  bool evolved = slog_evolve(next);
  if (!evolved || !slog_encrypt_record(ks->key, ks->counter, p, len, ks->mac, out))
    {
      /* syslog-ng's line for it: the counter field, then the text in clear */
      slog_append_counter(out, ks->counter);
      g_string_append(out, ":[SLOG] ERROR: Unable to correctly encrypt the following log message:: ");
      g_string_append_len(out, p, (gssize) len);
      sluice_log(SLUICE_LOG_ERROR, "[SLOG] ERROR: Unable to correctly encrypt log message", NULL);
    }
  if (!evolved)
    {
      OPENSSL_cleanse(next, sizeof(next));
      sluice_log(SLUICE_LOG_ERROR,
                 "[SLOG] ERROR: Cannot derive the next key (AES-256-CMAC failed); key and MAC files left as they are",
                 "file", ks->key_path, NULL);
      goto done;
    }
  memcpy(ks->key, next, SLOG_KEY_LEN);
  OPENSSL_cleanse(next, sizeof(next));
  ks->counter++;
  char *err = NULL;
  if (!slog_key_write(ks->key_path, ks->key, ks->counter, &err))
    {
      sluice_log(SLUICE_LOG_ERROR, "[SLOG] ERROR: Cannot write key to file", "error", err, NULL);
      g_free(err);
      err = NULL;
    }
  if (!slog_mac_write(ks->mac_path, ks->mac, &err))
    {
      sluice_log(SLUICE_LOG_ERROR, "[SLOG] ERROR: Unable to write aggregated MAC", "File", ks->mac_path, "error",
                 err, NULL);
      g_free(err);
    }
done:
  pthread_mutex_unlock(&ks->lock);
  g_string_free(text, TRUE);
}

static const LogTemplateFunction slog_f = { "slog", _slog_prepare, _slog_call, _state_free };

void
slog_register_template_functions(void)
{
  log_template_function_register(&slog_f);
}
