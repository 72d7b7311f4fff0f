/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The lexer's token rules, each as syslog-ng 3.38 tokenizes (checked with
 * its --syntax-only and, for string escapes, with a rendered template). */
#include "cfg/cfg-internal.h"

#include <criterion/criterion.h>
#include <string.h>

typedef struct Lexed
{
  CfgPre pre;
  CfgError err;
  GArray *toks;
} Lexed;

static Lexed *
lex(const char *text)
{
  Lexed *l = g_new0(Lexed, 1);
  CfgParseOptions opts = { .no_includes = true, .no_env = true };
  cfg_pre_init(&l->pre, &opts, &l->err);
  cr_assert(cfg_pre_text(&l->pre, "l.conf", text, strlen(text)));
  l->toks = cfg_lex(&l->pre, &l->err);
  return l;
}

static void
lexed_free(Lexed *l)
{
  if (l->toks)
    cfg_tokens_free(l->toks);
  cfg_pre_destroy(&l->pre);
  cfg_error_clear(&l->err);
  g_free(l);
}

static const CfgToken *
tok(Lexed *l, guint i)
{
  cr_assert_not_null(l->toks, "lex error: %s", l->err.message);
  cr_assert_lt(i, l->toks->len);
  return &g_array_index(l->toks, CfgToken, i);
}

static void
assert_tok(Lexed *l, guint i, CfgTokType type, const char *text)
{
  const CfgToken *t = tok(l, i);
  cr_assert_eq(t->type, type, "token %u '%s': type %d, expected %d", i, t->text, t->type, type);
  cr_assert_str_eq(t->text, text);
}

Test(cfg_lexer, words_keep_dashes_slashes_and_single_dots)
{
  Lexed *l = lex("a.b-c_d /dev/log info..err x.y.z");
  assert_tok(l, 0, CFG_TOK_IDENT, "a.b-c_d");
  assert_tok(l, 1, CFG_TOK_IDENT, "/dev/log");
  assert_tok(l, 2, CFG_TOK_IDENT, "info");
  assert_tok(l, 3, CFG_TOK_OP, "..");
  assert_tok(l, 4, CFG_TOK_IDENT, "err");
  assert_tok(l, 5, CFG_TOK_IDENT, "x.y.z");
  cr_assert_eq(tok(l, 6)->type, CFG_TOK_EOF);
  lexed_free(l);
}

Test(cfg_lexer, numbers_with_bases_signs_and_suffixes)
{
  static const struct
  {
    const char *text;
    int64_t value;
  } cases[] = {
    { "514", 514 }, { "0x1f", 31 }, { "0644", 0644 }, { "08", 8 }, { "-5", -5 }, { "+5", 5 },
    { "1K", 1000 }, { "1k", 1000 }, { "1KB", 1000 }, { "1Ki", 1024 }, { "1KiB", 1024 }, { "1kib", 1024 },
    { "2MB", 2000000 }, { "2MiB", 2097152 }, { "1G", 1000000000 }, { "1GiB", 1073741824 },
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
    {
      Lexed *l = lex(cases[i].text);
      const CfgToken *t = tok(l, 0);
      cr_assert_eq(t->type, CFG_TOK_NUMBER, "%s", cases[i].text);
      cr_assert_eq(t->num, cases[i].value, "%s: %lld", cases[i].text, (long long) t->num);
      lexed_free(l);
    }
}

Test(cfg_lexer, not_numbers_are_identifiers)
{
  /* syslog-ng: 1.5 is a float, 1e3 and 0x identifiers; none is a number */
  const char *words[] = { "1.5", "1e3", "0x", "1KX", "99999999999999999999" };
  for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
    {
      Lexed *l = lex(words[i]);
      assert_tok(l, 0, CFG_TOK_IDENT, words[i]);
      lexed_free(l);
    }
}

Test(cfg_lexer, string_escapes_as_syslog_ng_renders_them)
{
  /* syslog-ng 3.38 wrote these bytes for this template */
  Lexed *l = lex("\"A\\x41B\\101C\\o101D\\dE\\qF\\\"G\\\\H\\eI\\tJ\\aK\\'L\nM\\n\"");
  assert_tok(l, 0, CFG_TOK_STRING, "AAB101CADdEqF\"G\\HeI\tJ\aK'L\nM\n");
  lexed_free(l);
}

Test(cfg_lexer, single_quotes_are_raw_and_strings_are_not_joined)
{
  Lexed *l = lex("'a\\nb' \"x\" \"y\"");
  assert_tok(l, 0, CFG_TOK_STRING, "a\\nb");
  assert_tok(l, 1, CFG_TOK_STRING, "x");
  assert_tok(l, 2, CFG_TOK_STRING, "y");
  lexed_free(l);
}

Test(cfg_lexer, punctuation_and_operators)
{
  Lexed *l = lex("{}();, => == != < <= > >= ..");
  CfgTokType types[] = { CFG_TOK_LBRACE, CFG_TOK_RBRACE, CFG_TOK_LPAREN, CFG_TOK_RPAREN,
                         CFG_TOK_SEMI,   CFG_TOK_COMMA };
  for (int i = 0; i < 6; i++)
    cr_assert_eq(tok(l, (guint) i)->type, types[i]);
  const char *ops[] = { "=>", "==", "!=", "<", "<=", ">", ">=", ".." };
  for (int i = 0; i < 8; i++)
    assert_tok(l, (guint) (6 + i), CFG_TOK_OP, ops[i]);
  lexed_free(l);
}

Test(cfg_lexer, comments_and_pragma_lines_are_skipped)
{
  Lexed *l = lex("@version: 3.38\na # comment ( {\n  b#c\n");
  assert_tok(l, 0, CFG_TOK_IDENT, "a");
  assert_tok(l, 1, CFG_TOK_IDENT, "b");
  cr_assert_eq(tok(l, 2)->type, CFG_TOK_EOF);
  lexed_free(l);
}

Test(cfg_lexer, every_token_has_its_location)
{
  Lexed *l = lex("source s {\n\ttcp(port(514));\n};");
  const CfgToken *t = tok(l, 3);
  cr_assert_str_eq(t->text, "tcp");
  cr_assert_str_eq(t->loc.file, "l.conf");
  cr_assert_eq(t->loc.line, 2);
  cr_assert_eq(t->loc.col, 2);
  t = tok(l, 7);
  cr_assert_str_eq(t->text, "514");
  cr_assert_eq(t->loc.line, 2);
  cr_assert_eq(t->loc.col, 11);
  t = tok(l, 11);
  cr_assert_eq(t->type, CFG_TOK_RBRACE);
  cr_assert_eq(t->loc.line, 3);
  cr_assert_eq(t->loc.col, 1);
  lexed_free(l);
}

Test(cfg_lexer, errors_name_the_place)
{
  Lexed *l = lex("a\n  \"open");
  cr_assert_null(l->toks);
  cr_assert_str_eq(l->err.message, "unterminated string");
  cr_assert_eq(l->err.line, 2);
  cr_assert_eq(l->err.col, 3);
  lexed_free(l);

  l = lex("x [y]");
  cr_assert_null(l->toks);
  cr_assert_str_eq(l->err.message, "unexpected character '['");
  cr_assert_eq(l->err.col, 3);
  lexed_free(l);

  /* control bytes are word bytes to syslog-ng too; '|' is not */
  l = lex("x \x01y |");
  cr_assert_null(l->toks);
  cr_assert_str_eq(l->err.message, "unexpected character '|'");
  cr_assert_eq(l->err.col, 6);
  lexed_free(l);
}
