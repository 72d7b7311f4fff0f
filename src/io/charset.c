/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A source's encoding(): see include/sluice/charset.h. */
#include "sluice/charset.h"

#include <errno.h>
#include <glib.h>
#include <stdlib.h>
#include <string.h>

struct LogCharsetConv
{
  GIConv cd;
  char *buf;
  size_t cap;
};

/* U+FFFD, the replacement character, in UTF-8 */
#define REPLACEMENT "\xef\xbf\xbd"
#define REPLACEMENT_LEN 3

/* Converts all of in strictly (no replacement) from the initial state;
 * true when every byte converted and the result fit out_cap. */
static bool
_convert_strict(GIConv cd, const char *in, size_t len, char *out, size_t out_cap, size_t *out_len)
{
  g_iconv(cd, NULL, NULL, NULL, NULL);
  gchar *ip = (gchar *) in;
  gsize il = len;
  gchar *op = out;
  gsize ol = out_cap;
  if (g_iconv(cd, &ip, &il, &op, &ol) == (gsize) -1 || il != 0)
    return false;
  *out_len = out_cap - ol;
  return true;
}

/* What framing and the syslog header need to be themselves: a newline,
 * a space, the letters, the digits and the header's punctuation, each
 * its own single byte. */
static const char ascii_probe[] = "\n ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789<>[]:.-";

/* UTF-8 whatever its spelling: two- to four-byte characters come out as
 * they went in, and a byte that cannot start one is refused. */
static const char utf8_probe[] = "A\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80";

static bool
_is_utf8(GIConv cd)
{
  char out[64];
  size_t n;
  size_t len = sizeof(utf8_probe) - 1;
  if (!_convert_strict(cd, utf8_probe, len, out, sizeof(out), &n) || n != len)
    return false;
  if (memcmp(out, utf8_probe, n) != 0)
    return false;
  return !_convert_strict(cd, "\xff", 1, out, sizeof(out), &n);
}

bool
log_charset_check(const char *name, bool *convert, char **error)
{
  *convert = false;
  GIConv cd = g_iconv_open("UTF-8", name);
  if (cd == (GIConv) -1)
    {
      *error = g_strdup_printf("encoding(\"%s\"): unknown character set (iconv cannot convert it to UTF-8)",
                               name);
      return false;
    }
  char out[4 * sizeof(ascii_probe)];
  size_t n;
  bool ascii = _convert_strict(cd, ascii_probe, sizeof(ascii_probe) - 1, out, sizeof(out), &n)
               && n == sizeof(ascii_probe) - 1 && memcmp(out, ascii_probe, n) == 0;
  bool utf8 = ascii && _is_utf8(cd);
  g_iconv_close(cd);
  if (!ascii)
    {
      *error = g_strdup_printf("encoding(\"%s\") is not supported: Sluice frames messages by their bytes "
                               "(a newline is the byte 0x0A) before it converts them, so it reads only "
                               "character sets in which ASCII characters are their own single bytes "
                               "(ISO-8859-*, CP125x, KOI8-*, EUC-*, SHIFT_JIS, GB18030, ...), not UTF-16, "
                               "UTF-32, UCS-2, EBCDIC and the like",
                               name);
      return false;
    }
  *convert = !utf8;
  return true;
}

LogCharsetConv *
log_charset_conv_new(const char *name)
{
  GIConv cd = g_iconv_open("UTF-8", name);
  if (cd == (GIConv) -1)
    return NULL;
  LogCharsetConv *c = calloc(1, sizeof(*c));
  if (!c)
    abort();
  c->cd = cd;
  return c;
}

void
log_charset_conv_free(LogCharsetConv *c)
{
  if (!c)
    return;
  g_iconv_close(c->cd);
  free(c->buf);
  free(c);
}

/* At least need bytes of buffer (what was written so far is kept). */
static void
_reserve(LogCharsetConv *c, size_t need)
{
  if (c->cap >= need)
    return;
  char *b = realloc(c->buf, need);
  if (!b)
    abort();
  c->buf = b;
  c->cap = need;
}

const char *
log_charset_convert(LogCharsetConv *c, const char *data, size_t len, size_t *out_len)
{
  size_t need = 4 * len + 4;
  size_t limit = 2 * need;
  _reserve(c, need);
  g_iconv(c->cd, NULL, NULL, NULL, NULL); /* each message from the initial state */
  gchar *ip = (gchar *) data;
  gsize il = len;
  size_t done = 0; /* bytes of c->buf written */
  while (il > 0)
    {
      gchar *op = c->buf + done;
      gsize ol = c->cap - done;
      gsize rc = g_iconv(c->cd, &ip, &il, &op, &ol);
      done = (size_t) (op - c->buf);
      if (rc != (gsize) -1)
        break;
      if (errno == E2BIG || c->cap - done < REPLACEMENT_LEN)
        {
          /* more than 4 bytes for some byte (or many U+FFFD): grow, up to the limit */
          if (c->cap >= limit)
            break;
          _reserve(c, MIN(limit, 2 * c->cap));
          continue;
        }
      /* EILSEQ (not a character of the set) or EINVAL (a character cut
       * short by the end): U+FFFD for its first byte, then on from the next */
      memcpy(c->buf + done, REPLACEMENT, REPLACEMENT_LEN);
      done += REPLACEMENT_LEN;
      ip++;
      il--;
    }
  *out_len = done;
  return c->buf;
}
