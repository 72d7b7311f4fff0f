/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RFC 3161 (logstore-tsa.h): the request and the checks are OpenSSL's TS
 * API; the transport is one HTTP/1.0 POST (RFC 3161 section 3.4) on a
 * plain TCP connection, bounded by a timeout, on the writer's thread.
 */
#include "logstore-tsa.h"

#include "sluice/timeutil.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <openssl/err.h>
#include <openssl/rand.h>
#include <openssl/ts.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define TSA_MAX_REPLY (256 * 1024)

bool
ls_tsa_url_parse(const char *url, char **host, char **port, char **path)
{
  if (g_ascii_strncasecmp(url, "http://", 7) != 0)
    return false;
  const char *h = url + 7, *slash = strchr(h, '/');
  char *hostport = slash ? g_strndup(h, (gsize) (slash - h)) : g_strdup(h);
  char *colon = strrchr(hostport, ':');
  if (!hostport[0] || (colon && (colon == hostport || !colon[1])))
    {
      g_free(hostport);
      return false;
    }
  *port = g_strdup(colon ? colon + 1 : "80");
  if (colon)
    *colon = '\0';
  *host = hostport;
  *path = g_strdup(slash ? slash : "/");
  return true;
}

/* Wait for events on fd until deadline; false on timeout or error. */
static bool
_wait(int fd, short events, int64_t deadline)
{
  for (;;)
    {
      int64_t left = deadline - mono_ms();
      if (left <= 0)
        return false;
      struct pollfd p = { fd, events, 0 };
      int r = poll(&p, 1, (int) left);
      if (r > 0)
        return true;
      if (r < 0 && errno != EINTR)
        return false;
    }
}

/* POST body to url; the reply's body into reply. */
static bool
_http_post(const char *url, const uint8_t *body, size_t len, int timeout_ms, GByteArray *reply, char **error)
{
  char *host = NULL, *port = NULL, *path = NULL;
  if (!ls_tsa_url_parse(url, &host, &port, &path))
    {
      *error = g_strdup_printf("not an http:// URL: %s", url);
      return false;
    }
  int64_t deadline = mono_ms() + timeout_ms;
  struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai = NULL;
  int fd = -1;
  bool ok = false;
  int rc = getaddrinfo(host, port, &hints, &ai);
  if (rc != 0)
    *error = g_strdup_printf("%s: %s", host, gai_strerror(rc));
  for (struct addrinfo *a = ai; a && fd < 0; a = a->ai_next)
    {
      fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
      if (fd < 0)
        continue;
      int err = 0;
      socklen_t el = sizeof(err);
      if ((connect(fd, a->ai_addr, a->ai_addrlen) == 0 || errno == EINPROGRESS) &&
          _wait(fd, POLLOUT, deadline) && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) == 0 && err == 0)
        break;
      if (!*error)
        *error = g_strdup_printf("cannot connect to %s:%s: %s", host, port,
                                 g_strerror(err ? err : ETIMEDOUT));
      close(fd);
      fd = -1;
    }
  if (ai)
    freeaddrinfo(ai);
  if (fd >= 0)
    {
      g_free(*error);
      *error = NULL;
      GString *req = g_string_new(NULL);
      g_string_printf(req, "POST %s HTTP/1.0\r\nHost: %s\r\nContent-Type: application/timestamp-query\r\n"
                      "Content-Length: %zu\r\nConnection: close\r\n\r\n", path, host, len);
      g_string_append_len(req, (const char *) body, (gssize) len);
      size_t done = 0, req_len = req->len;
      while (done < req->len)
        {
          ssize_t w = send(fd, req->str + done, req->len - done, MSG_NOSIGNAL);
          if (w > 0)
            done += (size_t) w;
          else if ((w < 0 && errno != EAGAIN && errno != EINTR) || !_wait(fd, POLLOUT, deadline))
            break;
        }
      g_string_free(req, TRUE);
      GByteArray *all = g_byte_array_new();
      uint8_t buf[8192];
      bool eof = false;
      while (done == req_len)
        {
          if (!_wait(fd, POLLIN, deadline))
            break;
          ssize_t r = recv(fd, buf, sizeof(buf), 0);
          if (r == 0)
            {
              eof = true;
              break;
            }
          if (r < 0 && (errno == EAGAIN || errno == EINTR))
            continue;
          if (r < 0 || all->len + (size_t) r > TSA_MAX_REPLY)
            break;
          g_byte_array_append(all, buf, (guint) r);
        }
      const char *head_end = eof ? g_strstr_len((const char *) all->data, all->len, "\r\n\r\n") : NULL;
      if (done < req_len)
        *error = g_strdup_printf("cannot send the request to %s", url);
      else if (!eof)
        *error = g_strdup_printf("no whole answer from %s within %d ms", url, timeout_ms);
      else if (!head_end || all->len < 12 || memcmp(all->data, "HTTP/1.", 7) != 0 ||
               memcmp(all->data + 8, " 200", 4) != 0)
        *error = g_strdup_printf("%s did not answer 200 OK", url);
      else
        {
          size_t at = (size_t) (head_end + 4 - (const char *) all->data);
          g_byte_array_append(reply, all->data + at, (guint) (all->len - at));
          ok = true;
        }
      g_byte_array_free(all, TRUE);
      close(fd);
    }
  else if (!*error)
    *error = g_strdup_printf("cannot connect to %s:%s", host, port);
  g_free(host);
  g_free(port);
  g_free(path);
  return ok;
}

static char *
_openssl_error(const char *what)
{
  unsigned long e = ERR_get_error();
  char buf[256] = "";
  if (e)
    ERR_error_string_n(e, buf, sizeof(buf));
  ERR_clear_error();
  return g_strdup_printf("%s%s%s", what, e ? ": " : "", buf);
}

bool
ls_tsa_stamp(const char *url, const char *policy, const uint8_t hash[LS_HASH_LEN], int timeout_ms,
             GByteArray *token, char **error)
{
  bool ok = false;
  TS_REQ *req = TS_REQ_new();
  TS_MSG_IMPRINT *mi = TS_MSG_IMPRINT_new();
  X509_ALGOR *alg = X509_ALGOR_new();
  ASN1_INTEGER *nonce = NULL;
  ASN1_OBJECT *pol = policy ? OBJ_txt2obj(policy, 1) : NULL;
  TS_RESP *resp = NULL;
  TS_VERIFY_CTX *vctx = NULL;
  GByteArray *reply = g_byte_array_new();
  uint8_t *der = NULL;
  uint64_t n64 = 0;
  RAND_bytes((unsigned char *) &n64, sizeof(n64));
  nonce = ASN1_INTEGER_new();
  ASN1_INTEGER_set_uint64(nonce, n64 >> 1);
  X509_ALGOR_set0(alg, OBJ_nid2obj(NID_sha256), V_ASN1_NULL, NULL);
  int dlen;
  if (!TS_REQ_set_version(req, 1) || !TS_MSG_IMPRINT_set_algo(mi, alg) ||
      !TS_MSG_IMPRINT_set_msg(mi, (unsigned char *) hash, LS_HASH_LEN) || !TS_REQ_set_msg_imprint(req, mi) ||
      !TS_REQ_set_nonce(req, nonce) || !TS_REQ_set_cert_req(req, 1) || (policy && !pol) ||
      (pol && !TS_REQ_set_policy_id(req, pol)) || (dlen = i2d_TS_REQ(req, &der)) <= 0)
    {
      *error = _openssl_error("cannot build the time-stamp request");
      goto out;
    }
  if (!_http_post(url, der, (size_t) dlen, timeout_ms, reply, error))
    goto out;
  const unsigned char *p = reply->data;
  resp = d2i_TS_RESP(NULL, &p, (long) reply->len);
  if (!resp)
    {
      *error = _openssl_error("the authority's answer is not a time-stamp response");
      goto out;
    }
  /* what can be checked without the authority's certificate: granted, and
   * for this request (imprint, nonce, policy) */
  vctx = TS_REQ_to_TS_VERIFY_CTX(req, NULL);
  TS_VERIFY_CTX_set_flags(vctx, TS_VFY_VERSION | TS_VFY_IMPRINT | TS_VFY_NONCE | (pol ? TS_VFY_POLICY : 0));
  if (!TS_RESP_verify_response(vctx, resp))
    {
      *error = _openssl_error("the time-stamp response does not answer the request");
      goto out;
    }
  PKCS7 *tok = TS_RESP_get_token(resp);
  unsigned char *tder = NULL;
  int tlen = tok ? i2d_PKCS7(tok, &tder) : -1;
  if (tlen <= 0)
    {
      *error = _openssl_error("the time-stamp response has no token");
      goto out;
    }
  g_byte_array_append(token, tder, (guint) tlen);
  OPENSSL_free(tder);
  ok = true;
out:
  OPENSSL_free(der);
  TS_VERIFY_CTX_free(vctx);
  TS_RESP_free(resp);
  TS_REQ_free(req);
  TS_MSG_IMPRINT_free(mi);
  X509_ALGOR_free(alg);
  ASN1_INTEGER_free(nonce);
  ASN1_OBJECT_free(pol);
  g_byte_array_free(reply, TRUE);
  return ok;
}

bool
ls_tsa_check(const uint8_t *der, size_t len, const uint8_t hash[LS_HASH_LEN], X509_STORE *ca,
             char **when, char **error)
{
  const unsigned char *p = der;
  PKCS7 *tok = d2i_PKCS7(NULL, &p, (long) len);
  TS_TST_INFO *info = tok && p == der + len ? PKCS7_to_TS_TST_INFO(tok) : NULL;
  bool ok = false;
  if (!info)
    {
      *error = _openssl_error("not an RFC 3161 time-stamp token");
      goto out;
    }
  TS_MSG_IMPRINT *mi = TS_TST_INFO_get_msg_imprint(info);
  ASN1_OCTET_STRING *m = TS_MSG_IMPRINT_get_msg(mi);
  X509_ALGOR *alg = TS_MSG_IMPRINT_get_algo(mi);
  const ASN1_OBJECT *oid = NULL;
  X509_ALGOR_get0(&oid, NULL, NULL, alg);
  if (OBJ_obj2nid(oid) != NID_sha256 || ASN1_STRING_length(m) != LS_HASH_LEN ||
      memcmp(ASN1_STRING_get0_data(m), hash, LS_HASH_LEN) != 0)
    {
      *error = g_strdup("the time stamp is not of the chunk before it");
      goto out;
    }
  if (ca)
    {
      TS_VERIFY_CTX *v = TS_VERIFY_CTX_new();
      unsigned char *imprint = OPENSSL_memdup(hash, LS_HASH_LEN);
      X509_STORE_up_ref(ca);
      TS_VERIFY_CTX_set_flags(v, TS_VFY_SIGNATURE | TS_VFY_IMPRINT | TS_VFY_VERSION);
      TS_VERIFY_CTX_set_store(v, ca);
      TS_VERIFY_CTX_set_imprint(v, imprint, LS_HASH_LEN);
      bool good = TS_RESP_verify_token(v, tok) == 1;
      TS_VERIFY_CTX_free(v);
      if (!good)
        {
          *error = _openssl_error("the time stamp's signature does not verify against --tsa-ca");
          goto out;
        }
    }
  const ASN1_GENERALIZEDTIME *t = TS_TST_INFO_get_time(info);
  struct tm tm;
  char buf[64] = "?";
  if (t && ASN1_TIME_to_tm(t, &tm))
    strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  *when = g_strdup(buf);
  ok = true;
out:
  TS_TST_INFO_free(info);
  PKCS7_free(tok);
  return ok;
}
