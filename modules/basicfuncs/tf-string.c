/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * String functions: substr, strip, sanitize, length, lowercase, uppercase,
 * replace-delimiter, padding, base64-encode, url-encode, url-decode,
 * indent-multi-line, env, basename,
 * dirname.  Where several arguments are allowed, syslog-ng 3.38 either
 * joins the per-argument results (strip, length, case: " "; sanitize: "/")
 * or works on the arguments concatenated (base64-encode, url-encode).
 */
#include "basicfuncs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- substr ------------------------------------------------------------ */

/* $(substr STRING START [LENGTH]): negative START counts from the end,
 * negative LENGTH leaves that many bytes off the end; anything out of
 * range, unparsable or a wrong argument count gives "". */
static void
_substr_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
             GString *out)
{
  (void) state;
  if (argc < 2 || argc > 3)
    return;
  int level = tf_level_push();
  int64_t start, len = 0;
  bool ok = tf_parse_int64(tf_format_arg(args, 1, msg, opts, level)->str, &start);
  bool have_len = argc == 3;
  if (ok && have_len)
    ok = tf_parse_int64(tf_format_arg(args, 2, msg, opts, level)->str, &len);
  GString *s = ok ? tf_format_arg(args, 0, msg, opts, level) : NULL;
  tf_level_pop();
  if (!s)
    return;
  int64_t slen = (int64_t) s->len;
  if (start < 0)
    start += slen;
  if (start < 0 || start >= slen)
    return;
  int64_t end = !have_len ? slen : len < 0 ? slen + len : (len > slen - start ? slen : start + len);
  if (end <= start)
    return;
  g_string_append_len(out, s->str + start, (gssize) (end - start));
}

/* ---- strip, length, lowercase, uppercase ------------------------------- */

static void
_strip_one(const char *s, size_t len, GString *out)
{
  while (len && g_ascii_isspace(*s))
    s++, len--;
  while (len && g_ascii_isspace(s[len - 1]))
    len--;
  g_string_append_len(out, s, (gssize) len);
}

static void
_strip_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
            GString *out)
{
  (void) state;
  tf_append_each(argc, args, msg, opts, " ", _strip_one, out);
}

static void
_length_one(const char *s, size_t len, GString *out)
{
  (void) s;
  g_string_append_printf(out, "%zu", len);
}

static void
_length_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
             GString *out)
{
  (void) state;
  tf_append_each(argc, args, msg, opts, " ", _length_one, out);
}

/* Case mapping as glib does it (syslog-ng's g_utf8_strdown/strup: "ß"
 * becomes "SS"); text that is not valid UTF-8 goes character by
 * character, its stray bytes copied as they are. */
static void
_case_one(const char *s, size_t len, GString *out, bool upper)
{
  const char *end = s + len;
  bool ascii = true;
  for (size_t i = 0; i < len && ascii; i++)
    ascii = (unsigned char) s[i] < 0x80;
  if (!ascii && g_utf8_validate(s, (gssize) len, NULL))
    {
      char *m = upper ? g_utf8_strup(s, (gssize) len) : g_utf8_strdown(s, (gssize) len);
      g_string_append(out, m);
      g_free(m);
      return;
    }
  while (s < end)
    {
      unsigned char c = (unsigned char) *s;
      if (c < 0x80)
        {
          g_string_append_c(out, upper ? g_ascii_toupper((char) c) : g_ascii_tolower((char) c));
          s++;
          continue;
        }
      gunichar u = g_utf8_get_char_validated(s, end - s);
      if (u == (gunichar) -1 || u == (gunichar) -2)
        {
          g_string_append_c(out, (char) c);
          s++;
          continue;
        }
      g_string_append_unichar(out, upper ? g_unichar_toupper(u) : g_unichar_tolower(u));
      s = g_utf8_next_char(s);
    }
}

static void
_lower_one(const char *s, size_t len, GString *out)
{
  _case_one(s, len, out, false);
}

static void
_upper_one(const char *s, size_t len, GString *out)
{
  _case_one(s, len, out, true);
}

static void
_lowercase_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
                GString *out)
{
  (void) state;
  tf_append_each(argc, args, msg, opts, " ", _lower_one, out);
}

static void
_uppercase_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
                GString *out)
{
  (void) state;
  tf_append_each(argc, args, msg, opts, " ", _upper_one, out);
}

/* ---- sanitize ---------------------------------------------------------- */

typedef struct SanitizeState
{
  bool ctrl;
  char replacement;
  bool invalid[256];
  int first_arg; /* index into args of the first non-option */
} SanitizeState;

static char *
_sanitize_prepare(int argc, char **argv, void **state)
{
  SanitizeState *st = g_new0(SanitizeState, 1);
  st->ctrl = true;
  st->replacement = '_';
  st->invalid['/'] = true;
  int i = 1;
  for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++)
    {
      const char *o = argv[i];
      if (strcmp(o, "--") == 0)
        {
          i++;
          break;
        }
      if (strcmp(o, "--ctrl-chars") == 0 || strcmp(o, "-c") == 0)
        st->ctrl = true;
      else if (strcmp(o, "--no-ctrl-chars") == 0)
        st->ctrl = false;
      else if ((strcmp(o, "--invalid-chars") == 0 || strcmp(o, "-i") == 0) && i + 1 < argc)
        {
          memset(st->invalid, 0, sizeof(st->invalid));
          for (const char *p = argv[++i]; *p; p++)
            st->invalid[(unsigned char) *p] = true;
        }
      else if ((strcmp(o, "--replacement") == 0 || strcmp(o, "-r") == 0) && i + 1 < argc)
        st->replacement = argv[++i][0];
      else
        {
          g_free(st);
          if (strchr("ir", o[1]) && !o[2])
            return tf_error(argv[0], "missing argument for %s", o);
          return tf_error(argv[0], "unknown option %s", o);
        }
    }
  st->first_arg = i - 1;
  *state = st;
  return NULL;
}

static void
_sanitize_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
               GString *out)
{
  const SanitizeState *st = state;
  int level = tf_level_push();
  for (int i = st->first_arg; i < argc; i++)
    {
      if (i > st->first_arg)
        g_string_append_c(out, '/');
      GString *s = tf_format_arg(args, i, msg, opts, level);
      for (size_t j = 0; j < s->len; j++)
        {
          unsigned char c = (unsigned char) s->str[j];
          if ((st->ctrl && c < 0x20) || st->invalid[c])
            c = (unsigned char) st->replacement;
          g_string_append_c(out, (char) c);
        }
    }
  tf_level_pop();
}

/* ---- replace-delimiter, padding ---------------------------------------- */

/* $(replace-delimiter DELIMS NEW TEXT): every byte of TEXT found in DELIMS
 * becomes NEW's first byte; as in syslog-ng (g_strdelimit), an empty NEW
 * cuts TEXT at its first delimiter. */
static void
_replace_delimiter_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg,
                        const LogTemplateOptions *opts, GString *out)
{
  (void) state;
  if (argc != 3)
    return;
  int l0 = tf_level_push(), l1 = tf_level_push(), l2 = tf_level_push();
  GString *delims = tf_format_arg(args, 0, msg, opts, l0);
  char repl = tf_format_arg(args, 1, msg, opts, l1)->str[0];
  GString *text = tf_format_arg(args, 2, msg, opts, l2);
  for (size_t i = 0; i < text->len; i++)
    {
      char c = text->str[i];
      if (c && strchr(delims->str, c))
        {
          if (!repl)
            break;
          c = repl;
        }
      g_string_append_c(out, c);
    }
  tf_level_pop();
  tf_level_pop();
  tf_level_pop();
}

static char *
_padding_prepare(int argc, char **argv, void **state)
{
  if (argc < 3)
    return tf_error(argv[0], "Not enough arguments, usage $(padding <input> <width> [padding string])");
  int64_t width;
  if (!tf_parse_int64(argv[2], &width) || width < 0 || width > 1 << 20)
    return g_strdup("Padding template function requires a number as second argument!");
  *state = GINT_TO_POINTER((int) width);
  return NULL;
}

static void
_padding_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
              GString *out)
{
  size_t width = (size_t) GPOINTER_TO_INT(state);
  int l0 = tf_level_push(), l1 = tf_level_push();
  GString *in = tf_format_arg(args, 0, msg, opts, l0);
  GString *pad = argc > 2 ? tf_format_arg(args, 2, msg, opts, l1) : NULL;
  const char *p = pad && pad->len ? pad->str : " ";
  size_t plen = pad && pad->len ? pad->len : 1;
  for (size_t i = 0; in->len < width && i < width - in->len; i++)
    g_string_append_c(out, p[i % plen]);
  g_string_append_len(out, in->str, (gssize) in->len);
  tf_level_pop();
  tf_level_pop();
}

/* ---- base64-encode, url-encode ------------------------------------------ */

static GString *
_concat_args(int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts, int level)
{
  GString *s = log_template_scratch_get(level);
  for (int i = 0; i < argc; i++)
    log_template_format(args[i], msg, opts, s);
  return s;
}

static void
_base64_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
             GString *out)
{
  (void) state;
  int level = tf_level_push();
  GString *s = _concat_args(argc, args, msg, opts, level);
  static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const unsigned char *p = (const unsigned char *) s->str;
  size_t n = s->len, i = 0;
  for (; i + 3 <= n; i += 3)
    {
      char q[4] = { b64[p[i] >> 2], b64[((p[i] & 3) << 4) | (p[i + 1] >> 4)],
                    b64[((p[i + 1] & 15) << 2) | (p[i + 2] >> 6)], b64[p[i + 2] & 63] };
      g_string_append_len(out, q, 4);
    }
  if (n - i == 1)
    {
      char q[4] = { b64[p[i] >> 2], b64[(p[i] & 3) << 4], '=', '=' };
      g_string_append_len(out, q, 4);
    }
  else if (n - i == 2)
    {
      char q[4] = { b64[p[i] >> 2], b64[((p[i] & 3) << 4) | (p[i + 1] >> 4)], b64[(p[i + 1] & 15) << 2], '=' };
      g_string_append_len(out, q, 4);
    }
  tf_level_pop();
}

static void
_url_encode_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
                 GString *out)
{
  (void) state;
  int level = tf_level_push();
  GString *s = _concat_args(argc, args, msg, opts, level);
  for (size_t i = 0; i < s->len; i++)
    {
      unsigned char c = (unsigned char) s->str[i];
      if (g_ascii_isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~')
        g_string_append_c(out, (char) c);
      else
        g_string_append_printf(out, "%%%02X", c);
    }
  tf_level_pop();
}

/* $(url-decode TEXT...): each argument decoded as glib's
 * g_uri_unescape_string does it, the results run together; one with a
 * '%' not followed by two hex digits, or that decodes to a NUL, adds
 * nothing ('+' stays '+'). */
static void
_url_decode_one(const char *s, size_t len, GString *out)
{
  size_t start = out->len;
  for (size_t i = 0; i < len; i++)
    {
      if (s[i] != '%')
        {
          g_string_append_c(out, s[i]);
          continue;
        }
      int hi = i + 2 < len ? g_ascii_xdigit_value(s[i + 1]) : -1;
      int lo = hi >= 0 ? g_ascii_xdigit_value(s[i + 2]) : -1;
      if (lo < 0 || (hi | lo) == 0)
        {
          g_string_truncate(out, start);
          return;
        }
      g_string_append_c(out, (char) (hi << 4 | lo));
      i += 2;
    }
}

static void
_url_decode_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
                 GString *out)
{
  (void) state;
  tf_append_each(argc, args, msg, opts, NULL, _url_decode_one, out);
}

/* $(indent-multi-line TEXT...): the arguments joined with ' ', a tab
 * after every newline. */
static void
_indent_one(const char *s, size_t len, GString *out)
{
  const char *end = s + len;
  for (const char *nl; (nl = memchr(s, '\n', (size_t) (end - s))); s = nl + 1)
    {
      g_string_append_len(out, s, nl + 1 - s);
      g_string_append_c(out, '\t');
    }
  g_string_append_len(out, s, end - s);
}

static void
_indent_multi_line_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg,
                        const LogTemplateOptions *opts, GString *out)
{
  (void) state;
  tf_append_each(argc, args, msg, opts, " ", _indent_one, out);
}

/* ---- env, basename, dirname ------------------------------------------- */

static void
_env_one(const char *s, size_t len, GString *out)
{
  (void) len;
  const char *v = getenv(s);
  if (v)
    g_string_append(out, v);
}

static void
_env_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
          GString *out)
{
  (void) state;
  tf_append_each(argc, args, msg, opts, " ", _env_one, out);
}

/* Only the first argument counts, as in syslog-ng; "" is ".". */
static void
_path_call(int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts, GString *out,
           bool base)
{
  if (argc < 1)
    return;
  int level = tf_level_push();
  GString *s = tf_format_arg(args, 0, msg, opts, level);
  char *r = base ? g_path_get_basename(s->str) : g_path_get_dirname(s->str);
  g_string_append(out, r);
  g_free(r);
  tf_level_pop();
}

static void
_basename_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
               GString *out)
{
  (void) state;
  _path_call(argc, args, msg, opts, out, true);
}

static void
_dirname_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
              GString *out)
{
  (void) state;
  _path_call(argc, args, msg, opts, out, false);
}

/* ---- binary ----------------------------------------------------------- */

/* $(binary 0x41 66 0103): the bytes its arguments name, read when the
 * template is compiled as syslog-ng 3.38 reads them: 0x or 0X is hex, a
 * leading 0 octal, anything else decimal (a negative one wraps: -1 is
 * 0xff); above 255, or not a number of its base, refused.  Graylog's
 * GELF over TCP ends each message with $(binary 0x00). */
static char *
_binary_prepare(int argc, char **argv, void **state)
{
  if (argc < 2)
    return tf_error(argv[0], "Incorrect parameters, usage $(binary <number> <number> ...)");
  GString *bytes = g_string_new(NULL);
  for (int i = 1; i < argc; i++)
    {
      const char *a = argv[i];
      bool hex = a[0] == '0' && (a[1] == 'x' || a[1] == 'X');
      bool oct = !hex && a[0] == '0' && a[1];
      const char *digits = hex ? a + 2 : a;
      char *end = NULL;
      errno = 0;
      long long v = *digits ? strtoll(digits, &end, hex ? 16 : oct ? 8 : 10) : 0;
      if (!*digits || *end || errno || (hex && (*digits == '-' || *digits == '+')))
        {
          g_string_free(bytes, TRUE);
          return tf_error(argv[0], "template function requires list of dec/hex/oct numbers as arguments, unable to "
                                   "parse %s as a %s number",
                          a, hex ? "hex" : oct ? "oct" : "dec");
        }
      if (v > 255)
        {
          g_string_free(bytes, TRUE);
          return tf_error(argv[0], "template function only supports 8 bit values as characters, %lld is above 255", v);
        }
      g_string_append_c(bytes, (char) (unsigned char) v);
    }
  *state = bytes;
  return NULL;
}

static void
_binary_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
             GString *out)
{
  (void) argc, (void) args, (void) msg, (void) opts;
  const GString *bytes = state;
  g_string_append_len(out, bytes->str, (gssize) bytes->len);
}

static void
_binary_free(void *state)
{
  g_string_free(state, TRUE);
}

static const LogTemplateFunction substr_f = { "substr", NULL, _substr_call, NULL };
static const LogTemplateFunction strip_f = { "strip", NULL, _strip_call, NULL };
static const LogTemplateFunction sanitize_f = { "sanitize", _sanitize_prepare, _sanitize_call, g_free };
static const LogTemplateFunction length_f = { "length", NULL, _length_call, NULL };
static const LogTemplateFunction lowercase_f = { "lowercase", NULL, _lowercase_call, NULL };
static const LogTemplateFunction uppercase_f = { "uppercase", NULL, _uppercase_call, NULL };
static const LogTemplateFunction replace_delimiter_f = { "replace-delimiter", NULL, _replace_delimiter_call, NULL };
static const LogTemplateFunction padding_f = { "padding", _padding_prepare, _padding_call, NULL };
static const LogTemplateFunction base64_f = { "base64-encode", NULL, _base64_call, NULL };
static const LogTemplateFunction url_encode_f = { "url-encode", NULL, _url_encode_call, NULL };
static const LogTemplateFunction url_decode_f = { "url-decode", NULL, _url_decode_call, NULL };
static const LogTemplateFunction indent_multi_line_f = { "indent-multi-line", NULL, _indent_multi_line_call, NULL };
static const LogTemplateFunction env_f = { "env", NULL, _env_call, NULL };
static const LogTemplateFunction basename_f = { "basename", NULL, _basename_call, NULL };
static const LogTemplateFunction dirname_f = { "dirname", NULL, _dirname_call, NULL };
static const LogTemplateFunction binary_f = { "binary", _binary_prepare, _binary_call, _binary_free };

const LogTemplateFunction *const tf_string_functions[] = {
  &substr_f,  &strip_f,      &sanitize_f, &length_f, &lowercase_f, &uppercase_f, &replace_delimiter_f,
  &padding_f, &base64_f,     &url_encode_f, &url_decode_f, &indent_multi_line_f, &env_f,  &basename_f,  &dirname_f,   &binary_f,   NULL,
};
