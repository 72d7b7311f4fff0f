/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * $(hash), $(md5), $(sha1), $(sha256), $(sha512) through OpenSSL's EVP,
 * and $(uuid).  The digest covers the arguments concatenated and is shown
 * as lowercase hex, cut to --length/-l N characters (0 or more than the
 * digest has: all of it).  $(hash) is SHA-256.  MD4 is not offered:
 * OpenSSL 3 has it only in the legacy provider, and syslog-ng 3.38 on the
 * same OpenSSL refuses it too.
 */
#include "basicfuncs.h"

#include <openssl/evp.h>
#include <string.h>

typedef struct HashState
{
  const EVP_MD *md;
  size_t length; /* hex characters to show; 0: all */
  int n_args;
  int *arg_index; /* the positional arguments (options are compiled too) */
} HashState;

static void
_hash_free(void *p)
{
  HashState *st = p;
  g_free(st->arg_index);
  g_free(st);
}

static const EVP_MD *
_digest_of(const char *name)
{
  if (strcmp(name, "md5") == 0)
    return EVP_md5();
  if (strcmp(name, "sha1") == 0)
    return EVP_sha1();
  if (strcmp(name, "sha512") == 0)
    return EVP_sha512();
  return EVP_sha256();
}

static char *
_hash_prepare(int argc, char **argv, void **state)
{
  HashState *st = g_new0(HashState, 1);
  st->md = _digest_of(argv[0]);
  st->arg_index = g_new0(int, argc);
  bool options_done = false;
  char *err = NULL;
  for (int i = 1; i < argc && !err; i++)
    {
      const char *a = argv[i];
      if (options_done || a[0] != '-' || !a[1])
        {
          st->arg_index[st->n_args++] = i - 1;
          continue;
        }
      if (strcmp(a, "--") == 0)
        {
          options_done = true;
          continue;
        }
      const char *val = NULL;
      if (strcmp(a, "--length") == 0 || strcmp(a, "-l") == 0)
        {
          if (i + 1 >= argc)
            err = g_strdup_printf("Missing argument for %s", a);
          else
            val = argv[++i];
        }
      else if (strncmp(a, "--length=", 9) == 0)
        val = a + 9;
      else
        err = g_strdup_printf("Unknown option %s", a);
      int64_t n;
      if (val && (!tf_parse_int64(val, &n) || n < 0 || n > INT32_MAX))
        err = g_strdup_printf("Cannot parse integer value \"%s\" for %s", val, a);
      else if (val)
        st->length = (size_t) n;
    }
  if (!err && st->n_args == 0)
    err = tf_error(argv[0], "parsing failed, invalid number of arguments");
  if (err)
    {
      _hash_free(st);
      return err;
    }
  *state = st;
  return NULL;
}

static void
_hash_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
           GString *out)
{
  (void) argc;
  const HashState *st = state;
  int level = tf_level_push();
  GString *s = log_template_scratch_get(level);
  for (int i = 0; i < st->n_args; i++)
    log_template_format(args[st->arg_index[i]], msg, opts, s);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int dlen = 0;
  if (EVP_Digest(s->str, s->len, digest, &dlen, st->md, NULL) != 1)
    {
      tf_level_pop();
      return;
    }
  static const char hex[] = "0123456789abcdef";
  size_t show = st->length && st->length < dlen * 2u ? st->length : dlen * 2u;
  for (size_t i = 0; i < show; i++)
    g_string_append_c(out, hex[(digest[i / 2] >> (i % 2 ? 0 : 4)) & 15]);
  tf_level_pop();
}

static void
_uuid_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
           GString *out)
{
  (void) state;
  (void) argc;
  (void) args;
  (void) msg;
  (void) opts;
  char *u = g_uuid_string_random();
  g_string_append(out, u);
  g_free(u);
}

static const LogTemplateFunction hash_f = { "hash", _hash_prepare, _hash_call, _hash_free };
static const LogTemplateFunction md5_f = { "md5", _hash_prepare, _hash_call, _hash_free };
static const LogTemplateFunction sha1_f = { "sha1", _hash_prepare, _hash_call, _hash_free };
static const LogTemplateFunction sha256_f = { "sha256", _hash_prepare, _hash_call, _hash_free };
static const LogTemplateFunction sha512_f = { "sha512", _hash_prepare, _hash_call, _hash_free };
static const LogTemplateFunction uuid_f = { "uuid", NULL, _uuid_call, NULL };

const LogTemplateFunction *const tf_hash_functions[] = {
  &hash_f, &md5_f, &sha1_f, &sha256_f, &sha512_f, &uuid_f, NULL,
};
