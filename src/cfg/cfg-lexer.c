/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The lexer, with syslog-ng 3.38's token rules:
 *
 *  - a word is a run of any bytes but whitespace and # ' " ( ) { } [ ] \ ;
 *    , | . @ : and `, with single dots allowed inside ("a.b"), so
 *    "info..err" is info, "..", err and /dev/log is one word;
 *  - a word that is a number (sign, decimal, 0x hex, 0 octal, K/M/G and
 *    Ki/Mi/Gi with an optional B) is a number, one of => == != < <= > >=
 *    an operator, anything else an identifier;
 *  - "..." decodes \a \n \r \t \v, \xHH and \oOOO; any other escaped byte
 *    stands for itself (so "\101" is "101"), and a string may span lines;
 *    '...' is raw; adjacent strings are not joined;
 *  - # comments to the end of the line; a line starting with @ is a pragma
 *    the preprocessor already handled.
 */
#include "cfg-internal.h"
#include "sluice/cfg-options.h"

#include <string.h>

static bool
_is_word_char(unsigned char c)
{
  if (c == '\0' || c == ' ' || c == '\t' || c == '\r' || c == '\n')
    return false;
  return strchr("#'\"(){}[]\\;,|.@:`", c) == NULL;
}

static const char *const operators[] = { "=>", "==", "!=", "<", "<=", ">", ">=", NULL };

typedef struct Lexer
{
  CfgPre *pre;
  const char *text;
  size_t len;
  size_t pos;
  GArray *tokens;
  CfgError *err;
} Lexer;

static void
_push(Lexer *lx, CfgTokType type, size_t start, char *text, int64_t num)
{
  CfgToken tok = { type, text, num, cfg_pre_location(lx->pre, start), lx->text, start };
  g_array_append_val(lx->tokens, tok);
}

static bool
_fail(Lexer *lx, size_t at, const char *msg)
{
  CfgLocation loc = cfg_pre_location(lx->pre, at);
  cfg_error_set(lx->err, &loc, "%s", msg);
  return false;
}

static int
_digits(const char *s, size_t n, int base, size_t max, unsigned *value)
{
  size_t i = 0;
  *value = 0;
  for (; i < n && i < max; i++)
    {
      int d = g_ascii_xdigit_value(s[i]);
      if (d < 0 || d >= base)
        break;
      *value = *value * (unsigned) base + (unsigned) d;
    }
  return (int) i;
}

static bool
_string(Lexer *lx)
{
  size_t start = lx->pos;
  GString *s = g_string_new(NULL);
  const char *t = lx->text;
  size_t i = start + 1;

  while (i < lx->len && t[i] != '"')
    {
      if (t[i] != '\\' || i + 1 >= lx->len)
        {
          g_string_append_c(s, t[i++]);
          continue;
        }
      char e = t[i + 1];
      i += 2;
      unsigned v;
      int n;
      switch (e)
        {
        case 'a': g_string_append_c(s, '\a'); break;
        case 'n': g_string_append_c(s, '\n'); break;
        case 'r': g_string_append_c(s, '\r'); break;
        case 't': g_string_append_c(s, '\t'); break;
        case 'v': g_string_append_c(s, '\v'); break;
        case 'x':
        case 'o':
          n = _digits(t + i, lx->len - i, e == 'x' ? 16 : 8, e == 'x' ? 2 : 3, &v);
          if (n == 0)
            g_string_append_c(s, e);
          else
            g_string_append_c(s, (char) v);
          i += (size_t) n;
          break;
        default: g_string_append_c(s, e); break;
        }
    }
  if (i >= lx->len)
    {
      g_string_free(s, TRUE);
      return _fail(lx, start, "unterminated string");
    }
  _push(lx, CFG_TOK_STRING, start, g_string_free(s, FALSE), 0);
  lx->pos = i + 1;
  return true;
}

static bool
_raw_string(Lexer *lx)
{
  size_t start = lx->pos;
  const char *q = memchr(lx->text + start + 1, '\'', lx->len - start - 1);
  if (!q)
    return _fail(lx, start, "unterminated string");
  size_t end = (size_t) (q - lx->text);
  _push(lx, CFG_TOK_STRING, start, g_strndup(lx->text + start + 1, end - start - 1), 0);
  lx->pos = end + 1;
  return true;
}

static void
_word(Lexer *lx)
{
  size_t start = lx->pos;
  size_t i = start;
  const char *t = lx->text;

  for (;;)
    {
      while (i < lx->len && _is_word_char((unsigned char) t[i]))
        i++;
      if (i + 1 < lx->len && t[i] == '.' && _is_word_char((unsigned char) t[i + 1]))
        i++;
      else
        break;
    }
  char *w = g_strndup(t + start, i - start);
  lx->pos = i;
  for (int k = 0; operators[k]; k++)
    if (strcmp(w, operators[k]) == 0)
      {
        _push(lx, CFG_TOK_OP, start, w, 0);
        return;
      }
  int64_t num;
  if (cfg_parse_number(w, true, &num))
    _push(lx, CFG_TOK_NUMBER, start, w, num);
  else
    _push(lx, CFG_TOK_IDENT, start, w, 0);
}

static bool
_next(Lexer *lx)
{
  const char *t = lx->text;
  char c = t[lx->pos];
  size_t start = lx->pos;
  static const char punct[] = "{}();,";
  static const CfgTokType punct_type[] = { CFG_TOK_LBRACE, CFG_TOK_RBRACE, CFG_TOK_LPAREN,
                                           CFG_TOK_RPAREN, CFG_TOK_SEMI,   CFG_TOK_COMMA };

  if (c == ' ' || c == '\t' || c == '\r' || c == '\n')
    {
      lx->pos++;
      return true;
    }
  if (c == '#' || (c == '@' && (start == 0 || t[start - 1] == '\n')))
    {
      const char *nl = memchr(t + start, '\n', lx->len - start);
      lx->pos = nl ? (size_t) (nl - t) : lx->len;
      return true;
    }
  const char *p = c ? strchr(punct, c) : NULL;
  if (p)
    {
      _push(lx, punct_type[p - punct], start, g_strndup(&c, 1), 0);
      lx->pos++;
      return true;
    }
  if (c == '.' && start + 1 < lx->len && t[start + 1] == '.')
    {
      _push(lx, CFG_TOK_OP, start, g_strdup(".."), 0);
      lx->pos += 2;
      return true;
    }
  if (c == '"')
    return _string(lx);
  if (c == '\'')
    return _raw_string(lx);
  if (_is_word_char((unsigned char) c))
    {
      _word(lx);
      return true;
    }
  char msg[40];
  if (g_ascii_isprint(c))
    snprintf(msg, sizeof(msg), "unexpected character '%c'", c);
  else
    snprintf(msg, sizeof(msg), "unexpected byte 0x%02x", (unsigned char) c);
  return _fail(lx, start, msg);
}

GArray *
cfg_lex(CfgPre *pre, CfgError *err)
{
  Lexer lx = { pre, pre->out->str, pre->out->len, 0, g_array_new(FALSE, FALSE, sizeof(CfgToken)), err };

  while (lx.pos < lx.len)
    if (!_next(&lx))
      {
        cfg_tokens_free(lx.tokens);
        return NULL;
      }
  /* end of file is reported just after the last byte of the last line */
  _push(&lx, CFG_TOK_EOF, lx.len > 0 && lx.text[lx.len - 1] == '\n' ? lx.len - 1 : lx.len, g_strdup(""), 0);
  return lx.tokens;
}

void
cfg_tokens_free(GArray *tokens)
{
  for (guint i = 0; i < tokens->len; i++)
    g_free(g_array_index(tokens, CfgToken, i).text);
  g_array_free(tokens, TRUE);
}

const char *
cfg_tok_describe(const CfgToken *tok, char *buf, size_t size)
{
  switch (tok->type)
    {
    case CFG_TOK_EOF:
      return "end of file";
    case CFG_TOK_STRING:
      snprintf(buf, size, "string \"%.40s\"", tok->text);
      return buf;
    default:
      snprintf(buf, size, "'%.40s'", tok->text);
      return buf;
    }
}
