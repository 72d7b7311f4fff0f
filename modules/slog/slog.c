/* SPDX-License-Identifier: GPL-2.0-or-later */
/* syslog-ng 3.38's secure logging: formats, keys, records, verification (slog.h). */
#include "slog.h"

#include "sluice/internal-log.h"
#include "sluice/scratch.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if OPENSSL_VERSION_NUMBER >= 0x30000000L
#include <openssl/core_names.h>
#include <openssl/params.h>
#else
#include <openssl/cmac.h>
#endif

/* ---- primitives ----------------------------------------------------------- */

#if OPENSSL_VERSION_NUMBER >= 0x30000000L
static EVP_MAC *cmac_alg;
static pthread_once_t cmac_once = PTHREAD_ONCE_INIT;

static void
_cmac_fetch(void)
{
  cmac_alg = EVP_MAC_fetch(NULL, "CMAC", NULL);
}

/* One CMAC context a thread, its cipher set once: initialising it with
 * the cipher's name again for every key fetches the cipher again, and a
 * key evolution is only two one-block CMACs. */
static _Thread_local EVP_MAC_CTX *cmac_ctx;

static void
_cmac_ctx_free(void *p)
{
  EVP_MAC_CTX_free(p);
}

static EVP_MAC_CTX *
_cmac_ctx(void)
{
  if (cmac_ctx)
    return cmac_ctx;
  pthread_once(&cmac_once, _cmac_fetch);
  if (!cmac_alg)
    return NULL;
  EVP_MAC_CTX *ctx = EVP_MAC_CTX_new(cmac_alg);
  OSSL_PARAM params[] = {
    OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_CIPHER, (char *) "AES-256-CBC", 0),
    OSSL_PARAM_construct_end(),
  };
  if (!ctx || EVP_MAC_CTX_set_params(ctx, params) != 1)
    {
      EVP_MAC_CTX_free(ctx);
      return NULL;
    }
  cmac_ctx = ctx;
  scratch_register((void **) &cmac_ctx, _cmac_ctx_free); /* freed when the thread ends */
  return ctx;
}
#endif

bool
slog_cmac(const unsigned char key[SLOG_KEY_LEN], const void *data, size_t len, unsigned char out[SLOG_MAC_LEN])
{
  bool ok = false;
#if OPENSSL_VERSION_NUMBER >= 0x30000000L
  EVP_MAC_CTX *ctx = _cmac_ctx();
  size_t n = 0;
  ok = ctx && EVP_MAC_init(ctx, key, SLOG_KEY_LEN, NULL) == 1 && EVP_MAC_update(ctx, data, len) == 1
       && EVP_MAC_final(ctx, out, &n, SLOG_MAC_LEN) == 1 && n == SLOG_MAC_LEN;
#else
  CMAC_CTX *ctx = CMAC_CTX_new();
  size_t n = 0;
  ok = ctx && CMAC_Init(ctx, key, SLOG_KEY_LEN, EVP_aes_256_cbc(), NULL) == 1 && CMAC_Update(ctx, data, len) == 1
       && CMAC_Final(ctx, out, &n) == 1 && n == SLOG_MAC_LEN;
  CMAC_CTX_free(ctx);
#endif
  if (!ok)
    memset(out, 0, SLOG_MAC_LEN);
  return ok;
}

/* syslog-ng's PRF: 32 bytes as two CMACs of a 16-byte pattern, the second
 * with the pattern's last byte plus one. */
static bool
_prf(const unsigned char key[SLOG_KEY_LEN], unsigned char pad, unsigned char out[SLOG_KEY_LEN])
{
  unsigned char in[16];
  memset(in, pad, sizeof(in));
  bool ok = slog_cmac(key, in, sizeof(in), out);
  in[15]++;
  ok = ok && slog_cmac(key, in, sizeof(in), out + 16);
  if (!ok)
    OPENSSL_cleanse(out, SLOG_KEY_LEN);
  return ok;
}

bool
slog_enc_key(const unsigned char key[SLOG_KEY_LEN], unsigned char out[SLOG_KEY_LEN])
{
  return _prf(key, 0x36, out);
}

bool
slog_mac_key(const unsigned char key[SLOG_KEY_LEN], unsigned char out[SLOG_KEY_LEN])
{
  return _prf(key, 0x5C, out);
}

bool
slog_evolve(unsigned char key[SLOG_KEY_LEN])
{
  unsigned char next[SLOG_KEY_LEN];
  bool ok = _prf(key, 0x6A, next);
  if (ok)
    memcpy(key, next, SLOG_KEY_LEN);
  OPENSSL_cleanse(next, sizeof(next));
  return ok;
}

bool
slog_cmac_available(void)
{
  unsigned char key[SLOG_KEY_LEN] = { 0 }, zero[SLOG_MAC_LEN] = { 0 }, out[SLOG_MAC_LEN];
  return slog_cmac(key, zero, sizeof(zero), out);
}

bool
slog_host_key(const unsigned char master[SLOG_KEY_LEN], const char *mac_addr, const char *serial,
              unsigned char out[SLOG_KEY_LEN])
{
  EVP_MD_CTX *ctx = EVP_MD_CTX_new();
  unsigned int n = 0;
  bool ok = ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) == 1
            && EVP_DigestUpdate(ctx, master, SLOG_KEY_LEN) == 1
            && EVP_DigestUpdate(ctx, mac_addr, strlen(mac_addr)) == 1
            && EVP_DigestUpdate(ctx, serial, strlen(serial)) == 1 && EVP_DigestFinal_ex(ctx, out, &n) == 1
            && n == SLOG_KEY_LEN;
  EVP_MD_CTX_free(ctx);
  return ok;
}

static void
_put_le64(unsigned char *p, uint64_t v)
{
  for (int i = 0; i < 8; i++)
    p[i] = (unsigned char) (v >> (8 * i));
}

static uint64_t
_get_le64(const unsigned char *p)
{
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--)
    v = (v << 8) | p[i];
  return v;
}

/* ---- files ---------------------------------------------------------------- */

/* Read a small regular file: up to cap bytes into buf (*n: how many). */
static bool
_read_small(const char *path, unsigned char *buf, size_t cap, size_t *n, char **error)
{
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    {
      *error = g_strdup_printf("cannot open %s: %s", path, g_strerror(errno));
      return false;
    }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    {
      *error = g_strdup_printf("%s is not a regular file", path);
      close(fd);
      return false;
    }
  size_t got = 0;
  while (got < cap)
    {
      ssize_t r = read(fd, buf + got, cap - got);
      if (r < 0 && errno == EINTR)
        continue;
      if (r < 0)
        {
          *error = g_strdup_printf("cannot read %s: %s", path, g_strerror(errno));
          close(fd);
          return false;
        }
      if (r == 0)
        break;
      got += (size_t) r;
    }
  close(fd);
  *n = got;
  return true;
}

/* Replace the file's content in one write: a crash leaves the old record
 * or the new one, never an empty file (syslog-ng truncates, then writes). */
static bool
_write_small(const char *path, const unsigned char *buf, size_t len, char **error)
{
  int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOCTTY, 0600);
  if (fd < 0)
    {
      *error = g_strdup_printf("cannot open %s for writing: %s", path, g_strerror(errno));
      return false;
    }
  ssize_t w;
  do
    w = pwrite(fd, buf, len, 0);
  while (w < 0 && errno == EINTR);
  bool ok = w == (ssize_t) len;
  if (!ok)
    *error = g_strdup_printf("cannot write %s: %s", path, w < 0 ? g_strerror(errno) : "short write");
  else if (ftruncate(fd, (off_t) len) != 0 && errno != EINVAL)
    {
      *error = g_strdup_printf("cannot truncate %s: %s", path, g_strerror(errno));
      ok = false;
    }
  if (close(fd) != 0 && ok)
    {
      *error = g_strdup_printf("cannot close %s: %s", path, g_strerror(errno));
      ok = false;
    }
  return ok;
}

bool
slog_key_read(const char *path, unsigned char key[SLOG_KEY_LEN], uint64_t *counter, char **error)
{
  unsigned char buf[SLOG_KEY_FILE_LEN];
  size_t n = 0;
  if (!_read_small(path, buf, sizeof(buf), &n, error))
    return false;
  if (n < SLOG_KEY_FILE_LEN)
    {
      *error = g_strdup_printf("key file %s is %zu bytes, not %d (key, CMAC, counter)", path, n, SLOG_KEY_FILE_LEN);
      return false;
    }
  unsigned char check[SLOG_MAC_LEN];
  if (!slog_cmac(buf, buf + SLOG_KEY_LEN + SLOG_MAC_LEN, 8, check))
    {
      *error = g_strdup_printf("cannot check key file %s: AES-256-CMAC failed", path);
      OPENSSL_cleanse(buf, sizeof(buf));
      return false;
    }
  if (CRYPTO_memcmp(check, buf + SLOG_KEY_LEN, SLOG_MAC_LEN) != 0)
    {
      *error = g_strdup_printf("key file %s is corrupted: its CMAC does not match", path);
      OPENSSL_cleanse(buf, sizeof(buf));
      return false;
    }
  memcpy(key, buf, SLOG_KEY_LEN);
  *counter = _get_le64(buf + SLOG_KEY_LEN + SLOG_MAC_LEN);
  OPENSSL_cleanse(buf, sizeof(buf));
  return true;
}

bool
slog_key_write(const char *path, const unsigned char key[SLOG_KEY_LEN], uint64_t counter, char **error)
{
  unsigned char buf[SLOG_KEY_FILE_LEN];
  memcpy(buf, key, SLOG_KEY_LEN);
  _put_le64(buf + SLOG_KEY_LEN + SLOG_MAC_LEN, counter);
  bool ok = slog_cmac(key, buf + SLOG_KEY_LEN + SLOG_MAC_LEN, 8, buf + SLOG_KEY_LEN);
  if (!ok)
    *error = g_strdup_printf("cannot write key file %s: AES-256-CMAC failed", path);
  else
    ok = _write_small(path, buf, sizeof(buf), error);
  OPENSSL_cleanse(buf, sizeof(buf));
  return ok;
}

/* The MAC file's check: CMAC under the MAC padded with zeros to a key, of
 * 16 zero bytes. */
static bool
_mac_check(const unsigned char mac[SLOG_MAC_LEN], unsigned char out[SLOG_MAC_LEN])
{
  unsigned char key[SLOG_KEY_LEN] = { 0 };
  unsigned char zero[SLOG_MAC_LEN] = { 0 };
  memcpy(key, mac, SLOG_MAC_LEN);
  return slog_cmac(key, zero, sizeof(zero), out);
}

bool
slog_mac_read(const char *path, unsigned char mac[SLOG_MAC_LEN], char **error)
{
  unsigned char buf[SLOG_MAC_FILE_LEN];
  size_t n = 0;
  if (!_read_small(path, buf, sizeof(buf), &n, error))
    return false;
  if (n < SLOG_MAC_FILE_LEN)
    {
      *error = g_strdup_printf("MAC file %s is %zu bytes, not %d", path, n, SLOG_MAC_FILE_LEN);
      return false;
    }
  unsigned char check[SLOG_MAC_LEN];
  if (!_mac_check(buf, check))
    {
      *error = g_strdup_printf("cannot check MAC file %s: AES-256-CMAC failed", path);
      return false;
    }
  if (CRYPTO_memcmp(check, buf + SLOG_MAC_LEN, SLOG_MAC_LEN) != 0)
    {
      *error = g_strdup_printf("MAC file %s is corrupted: its check does not match", path);
      return false;
    }
  memcpy(mac, buf, SLOG_MAC_LEN);
  return true;
}

bool
slog_mac_write(const char *path, const unsigned char mac[SLOG_MAC_LEN], char **error)
{
  unsigned char buf[SLOG_MAC_FILE_LEN];
  memcpy(buf, mac, SLOG_MAC_LEN);
  if (!_mac_check(mac, buf + SLOG_MAC_LEN))
    {
      *error = g_strdup_printf("cannot write MAC file %s: AES-256-CMAC failed", path);
      return false;
    }
  return _write_small(path, buf, sizeof(buf), error);
}

/* ---- records -------------------------------------------------------------- */

static void
_append_base64(GString *out, const unsigned char *p, size_t len)
{
  char *s = g_base64_encode(p, len);
  g_string_append(out, s);
  g_free(s);
}

/* The aggregated MAC's step: the first record's MAC covers iv||tag||ct,
 * every later one mac||iv||tag||ct.  False (mac untouched) when CMAC fails. */
static bool
_mac_step(const unsigned char key[SLOG_KEY_LEN], bool first, const unsigned char *blob, size_t len,
          unsigned char mac[SLOG_MAC_LEN])
{
  unsigned char mkey[SLOG_KEY_LEN], next[SLOG_MAC_LEN];
  bool ok = slog_mac_key(key, mkey);
  if (ok && first)
    ok = slog_cmac(mkey, blob, len, next);
  else if (ok)
    {
      unsigned char *buf = g_malloc(SLOG_MAC_LEN + len);
      memcpy(buf, mac, SLOG_MAC_LEN);
      memcpy(buf + SLOG_MAC_LEN, blob, len);
      ok = slog_cmac(mkey, buf, SLOG_MAC_LEN + len, next);
      g_free(buf);
    }
  if (ok)
    memcpy(mac, next, SLOG_MAC_LEN);
  OPENSSL_cleanse(mkey, sizeof(mkey));
  return ok;
}

void
slog_append_counter(GString *out, uint64_t counter)
{
  unsigned char le[8];
  _put_le64(le, counter);
  _append_base64(out, le, sizeof(le));
}

bool
slog_encrypt_record(const unsigned char key[SLOG_KEY_LEN], uint64_t counter, const char *text, size_t len,
                    unsigned char mac[SLOG_MAC_LEN], GString *out)
{
  if (len == 0 || len > INT32_MAX - 64)
    return false;
  unsigned char ekey[SLOG_KEY_LEN];
  if (!slog_enc_key(key, ekey))
    return false;
  size_t blob_len = SLOG_IV_LEN + SLOG_TAG_LEN + len;
  unsigned char *blob = g_malloc(blob_len);
  unsigned char *iv = blob, *tag = blob + SLOG_IV_LEN, *ct = blob + SLOG_IV_LEN + SLOG_TAG_LEN;
  EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
  int n = 0, fin = 0;
  bool ok = ctx && RAND_bytes(iv, SLOG_IV_LEN) == 1
            && EVP_EncryptInit_ex(ctx, EVP_aes_256_gcm(), NULL, ekey, iv) == 1
            && EVP_EncryptUpdate(ctx, ct, &n, (const unsigned char *) text, (int) len) == 1
            && EVP_EncryptFinal_ex(ctx, ct + n, &fin) == 1 && (size_t) (n + fin) == len
            && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, SLOG_TAG_LEN, tag) == 1;
  EVP_CIPHER_CTX_free(ctx);
  OPENSSL_cleanse(ekey, sizeof(ekey));
  ok = ok && _mac_step(key, counter == 0, blob, blob_len, mac);
  if (ok)
    {
      slog_append_counter(out, counter);
      g_string_append_c(out, ':');
      _append_base64(out, blob, blob_len);
    }
  g_free(blob);
  return ok;
}

static int
_b64_value(unsigned char c)
{
  if (c >= 'A' && c <= 'Z')
    return c - 'A';
  if (c >= 'a' && c <= 'z')
    return c - 'a' + 26;
  if (c >= '0' && c <= '9')
    return c - '0' + 52;
  if (c == '+')
    return 62;
  if (c == '/')
    return 63;
  return -1;
}

bool
slog_base64_decode(const char *in, size_t len, GByteArray *out)
{
  if (len % 4 != 0)
    return false;
  for (size_t i = 0; i < len; i += 4)
    {
      bool last = i + 4 == len;
      int v[4];
      int pad = 0;
      for (int j = 0; j < 4; j++)
        {
          unsigned char c = (unsigned char) in[i + j];
          if (c == '=' && last && j >= 2)
            {
              pad++;
              v[j] = 0;
              continue;
            }
          if (pad)
            return false; /* data after '=' */
          v[j] = _b64_value(c);
          if (v[j] < 0)
            return false;
        }
      unsigned char b[3] = {
        (unsigned char) (v[0] << 2 | v[1] >> 4),
        (unsigned char) ((v[1] & 15) << 4 | v[2] >> 2),
        (unsigned char) ((v[2] & 3) << 6 | v[3]),
      };
      g_byte_array_append(out, b, (guint) (3 - pad));
    }
  return true;
}

/* ---- verification ---------------------------------------------------------- */

struct SlogVerifier
{
  unsigned char key0[SLOG_KEY_LEN]; /* the key the run started from (key number key_number) */
  unsigned char key[SLOG_KEY_LEN];  /* the key of record next */
  uint64_t key_number;
  uint64_t next;      /* the record number the next line should have */
  uint64_t processed; /* lines taken (syslog-ng's numberOfLogEntries) */
  uint64_t first;     /* the first record the archive should hold */
  uint64_t lines;
  uint64_t max_skip;
  bool normal;
  bool ok;
  unsigned char mac[SLOG_MAC_LEN];
  GHashTable *seen; /* record numbers decrypted */
  GByteArray *blob;
  GString *text;
  GString *pending;  /* the line slog_verifier_feed has not seen the end of */
  size_t max_line;
  bool too_long;     /* pending's line went past max_line: dropped */
  SlogOutput output;
  void *user;
};

#define U64(v) g_strdup_printf("%" PRIu64, (uint64_t) (v))

static void
_report(SlogVerifier *v, SluiceLogLevel level, const char *text, const char *key, uint64_t value)
{
  char *s = U64(value);
  sluice_log(level, text, key, s, NULL);
  g_free(s);
  v->ok = false;
}

SlogVerifier *
slog_verifier_new(const unsigned char key[SLOG_KEY_LEN], uint64_t counter, const unsigned char *prev_mac,
                  uint64_t max_skip, SlogOutput output, void *user)
{
  SlogVerifier *v = g_new0(SlogVerifier, 1);
  memcpy(v->key0, key, SLOG_KEY_LEN);
  memcpy(v->key, key, SLOG_KEY_LEN);
  v->key_number = v->next = v->first = counter;
  v->normal = prev_mac == NULL;
  /* iterative runs chain on the MAC saved with the key, even from k0 */
  v->processed = v->normal ? 0 : (counter ? counter : 1);
  if (prev_mac)
    memcpy(v->mac, prev_mac, SLOG_MAC_LEN);
  v->max_skip = max_skip;
  v->ok = true;
  v->seen = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
  v->blob = g_byte_array_new();
  v->text = g_string_new(NULL);
  v->pending = g_string_new(NULL);
  v->max_line = SLOG_MAX_LINE;
  v->output = output;
  v->user = user;
  return v;
}

void
slog_verifier_free(SlogVerifier *v)
{
  if (!v)
    return;
  OPENSSL_cleanse(v->key0, sizeof(v->key0));
  OPENSSL_cleanse(v->key, sizeof(v->key));
  g_hash_table_destroy(v->seen);
  g_byte_array_free(v->blob, TRUE);
  g_string_free(v->text, TRUE);
  g_string_free(v->pending, TRUE);
  g_free(v);
}

static bool
_parse_counter(const char *line, uint64_t *counter)
{
  GByteArray *b = g_byte_array_new();
  bool ok = slog_base64_decode(line, SLOG_COUNTER_B64_LEN, b) && b->len == 8;
  if (ok)
    *counter = _get_le64(b->data);
  g_byte_array_free(b, TRUE);
  return ok;
}

/* Evolve v->key n times, when the run's budget (max_skip) allows. */
static bool
_skip(SlogVerifier *v, uint64_t n, uint64_t to)
{
  if (n > v->max_skip)
    {
      char *lim = U64(v->max_skip);
      char *want = U64(to);
      sluice_log(SLUICE_LOG_ERROR, "[SLOG] ERROR: Log entry number too far from the key; not deriving so many keys",
                 "entry", want, "keys_left", lim, NULL);
      g_free(lim);
      g_free(want);
      v->ok = false;
      return false;
    }
  v->max_skip -= n;
  for (uint64_t i = 0; i < n; i++)
    if (!slog_evolve(v->key))
      {
        _report(v, SLUICE_LOG_ERROR, "[SLOG] ERROR: Cannot derive the key: AES-256-CMAC failed", "entry", to);
        return false;
      }
  return true;
}

static bool
_seen(SlogVerifier *v, uint64_t n)
{
  return g_hash_table_contains(v->seen, &n);
}

void
slog_verifier_line(SlogVerifier *v, const char *line, size_t len)
{
  v->lines++;
  if (v->normal && v->lines == 1)
    {
      /* the first line says where the archive starts */
      uint64_t start;
      if (len <= SLOG_COUNTER_B64_LEN + 1)
        _report(v, SLUICE_LOG_WARNING, "[SLOG] WARNING: Problems reading log entry at first line", "line", 1);
      else if (!_parse_counter(line, &start))
        _report(v, SLUICE_LOG_WARNING, "[SLOG] WARNING: Cannot derive integer value from first input line counter",
                "line", 1);
      else if (start > 0)
        {
          _report(v, SLUICE_LOG_WARNING, "[SLOG] WARNING: Log does not start with index 0", "index", start);
          if (_skip(v, start, start))
            v->next = v->first = start;
        }
    }
  if (len <= SLOG_COUNTER_B64_LEN + 1)
    {
      _report(v, SLUICE_LOG_ERROR, "[SLOG] ERROR: Cannot read log entry: too short", "entry", v->next);
      return;
    }
  uint64_t n;
  if (!_parse_counter(line, &n))
    {
      _report(v, SLUICE_LOG_ERROR, "[SLOG] ERROR: Cannot derive integer value from counter field", "entry", v->next);
      n = v->next;
    }
  if (line[SLOG_COUNTER_B64_LEN] != ':')
    _report(v, SLUICE_LOG_ERROR, "[SLOG] ERROR: No ':' after the counter field", "entry", n);
  bool have_key = true;
  if (n != v->next)
    {
      if (_seen(v, n))
        _report(v, SLUICE_LOG_ERROR, "[SLOG] ERROR: Duplicate entry detected", "entry", n);
      if (n < v->next)
        {
          if (n < v->key_number)
            {
              _report(v, SLUICE_LOG_ERROR,
                      "[SLOG] ERROR: Log claims to be past entry from past archive; its key is before the one given",
                      "entry", n);
              have_key = false;
            }
          else
            {
              _report(v, SLUICE_LOG_ERROR, "[SLOG] ERROR: Log claims to be past entry; rewinding from the first key",
                      "entry", n);
              memcpy(v->key, v->key0, SLOG_KEY_LEN);
              v->next = v->key_number;
              have_key = _skip(v, n - v->next, n);
            }
        }
      else if (n > v->next)
        have_key = _skip(v, n - v->next, n);
      if (have_key)
        v->next = n;
    }

  bool decrypted = false;
  g_byte_array_set_size(v->blob, 0);
  const char *b64 = line + SLOG_COUNTER_B64_LEN + 1;
  size_t b64_len = len - SLOG_COUNTER_B64_LEN - 1;
  if (have_key && slog_base64_decode(b64, b64_len, v->blob) && v->blob->len > SLOG_IV_LEN + SLOG_TAG_LEN
      && v->blob->len < INT32_MAX)
    {
      const unsigned char *iv = v->blob->data, *tag = iv + SLOG_IV_LEN, *ct = tag + SLOG_TAG_LEN;
      int ct_len = (int) (v->blob->len - SLOG_IV_LEN - SLOG_TAG_LEN);
      unsigned char ekey[SLOG_KEY_LEN];
      bool have_ekey = slog_enc_key(v->key, ekey);
      g_string_set_size(v->text, 0);
      g_string_printf(v->text, "%020" PRIx64 ": ", n);
      size_t head = v->text->len;
      g_string_set_size(v->text, head + (size_t) ct_len + 16);
      unsigned char *pt = (unsigned char *) v->text->str + head;
      EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
      int got = 0, fin = 0;
      decrypted = have_ekey && ctx && EVP_DecryptInit_ex(ctx, EVP_aes_256_gcm(), NULL, ekey, iv) == 1
                  && EVP_DecryptUpdate(ctx, pt, &got, ct, ct_len) == 1
                  && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, SLOG_TAG_LEN, (void *) tag) == 1
                  && EVP_DecryptFinal_ex(ctx, pt + got, &fin) == 1;
      EVP_CIPHER_CTX_free(ctx);
      OPENSSL_cleanse(ekey, sizeof(ekey));
      if (decrypted)
        {
          /* syslog-ng prints the text with "%.*s": it ends at a NUL */
          const unsigned char *nul = memchr(pt, 0, (size_t) (got + fin));
          g_string_set_size(v->text, head + (nul ? (size_t) (nul - pt) : (size_t) (got + fin)));
          g_string_append_c(v->text, '\n');
          if (v->output && !v->output(v->text->str, v->text->len, v->user))
            v->ok = false;
          uint64_t *k = g_new(uint64_t, 1);
          *k = n;
          if (!g_hash_table_add(v->seen, k))
            _report(v, SLUICE_LOG_WARNING, "[SLOG] WARNING: Entry decrypted twice", "entry", n);
          if (!_mac_step(v->key, v->processed == 0, v->blob->data, v->blob->len, v->mac))
            _report(v, SLUICE_LOG_ERROR, "[SLOG] ERROR: Cannot update the aggregated MAC: AES-256-CMAC failed",
                    "entry", n);
        }
    }
  if (!decrypted)
    _report(v, SLUICE_LOG_WARNING, "[SLOG] WARNING: Decryption not successful", "entry", n);
  v->processed++;
  if (have_key)
    {
      if (slog_evolve(v->key))
        v->next++;
      else
        {
          /* no next key: every later record fails to decrypt */
          _report(v, SLUICE_LOG_ERROR, "[SLOG] ERROR: Cannot derive the next key: AES-256-CMAC failed", "entry", n);
          OPENSSL_cleanse(v->key, sizeof(v->key));
          v->next++;
        }
    }
}

bool
slog_verifier_finish(SlogVerifier *v, const unsigned char *mac)
{
  uint64_t missing = 0;
  for (uint64_t i = 0; i < v->lines; i++)
    if (!_seen(v, v->first + i))
      {
        if (++missing <= 100)
          _report(v, SLUICE_LOG_WARNING, "[SLOG] WARNING: Unable to recover", "entry", v->first + i);
      }
  if (missing > 100)
    _report(v, SLUICE_LOG_WARNING, "[SLOG] WARNING: More entries could not be recovered", "count", missing);
  if (missing == 0)
    sluice_log(SLUICE_LOG_INFO, "[SLOG] INFO: All entries recovered successfully", NULL);
  if (!mac)
    {
      sluice_log(SLUICE_LOG_WARNING, "[SLOG] WARNING: No usable aggregated MAC to compare with", NULL);
      v->ok = false;
    }
  else if (CRYPTO_memcmp(mac, v->mac, SLOG_MAC_LEN) != 0)
    {
      sluice_log(SLUICE_LOG_WARNING, "[SLOG] WARNING: Aggregated MAC mismatch. Log might be incomplete", NULL);
      v->ok = false;
    }
  else
    sluice_log(SLUICE_LOG_INFO, "[SLOG] Aggregated MAC matches. Log contains all expected log messages.", NULL);
  return v->ok;
}

void
slog_verifier_set_max_line(SlogVerifier *v, size_t max_line)
{
  v->max_line = max_line;
}

void
slog_verifier_feed(SlogVerifier *v, const char *buf, size_t n)
{
  const char *p = buf, *end = buf + n;
  while (p < end)
    {
      const char *nl = memchr(p, '\n', (size_t) (end - p));
      size_t len = (size_t) ((nl ? nl : end) - p);
      if (!v->too_long && len > v->max_line - v->pending->len)
        {
          v->too_long = true;
          g_string_truncate(v->pending, 0);
        }
      if (!v->too_long)
        {
          if (!nl || v->pending->len)
            g_string_append_len(v->pending, p, (gssize) len);
        }
      if (!nl)
        break;
      if (v->too_long)
        _report(v, SLUICE_LOG_ERROR, "[SLOG] ERROR: Line longer than the limit; not read", "limit", v->max_line);
      if (v->pending->len || v->too_long)
        {
          /* a dropped line is still a line: it counts, and is too short */
          slog_verifier_line(v, v->pending->str, v->pending->len);
          g_string_truncate(v->pending, 0);
        }
      else
        slog_verifier_line(v, p, len); /* whole in buf: no copy */
      v->too_long = false;
      p = nl + 1;
    }
}

bool
slog_verifier_end(SlogVerifier *v)
{
  if (v->pending->len || v->too_long)
    _report(v, SLUICE_LOG_WARNING, "[SLOG] WARNING: Last line has no newline; left out", "bytes",
            v->pending->len);
  g_string_truncate(v->pending, 0);
  v->too_long = false;
  if (v->lines == 0)
    {
      sluice_log(SLUICE_LOG_ERROR, "[SLOG] ERROR: Nothing to verify", NULL);
      v->ok = false;
    }
  return v->ok;
}
