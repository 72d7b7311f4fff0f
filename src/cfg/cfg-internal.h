/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_CFG_INTERNAL_H
#define SLUICE_CFG_INTERNAL_H

#include "sluice/cfg-tree.h"

#include <glib.h>

/* A run of preprocessed text that came from one place: a line of a file,
 * the rest of a line after a `backtick`, or (fixed) a substituted value,
 * all of whose bytes are reported at the backtick. */
typedef struct CfgSegment
{
  size_t out_off;
  const char *file;
  int line;
  int col;
  bool fixed;
} CfgSegment;

/* The preprocessor's result: the text and where each byte came from. */
typedef struct CfgPre
{
  GString *out;
  GArray *segments;     /* CfgSegment, ordered by out_off */
  GPtrArray *files;     /* char *, owned: every file name used in locations */
  GHashTable *defines;  /* @define name -> value */
  GPtrArray *stack;     /* real paths being included, for loop detection */
  char *version;
  size_t total_size;    /* bytes read from every file so far */
  CfgParseOptions opts;
  CfgError *err;
  bool failed;
} CfgPre;

void cfg_pre_init(CfgPre *pre, const CfgParseOptions *opts, CfgError *err);
void cfg_pre_destroy(CfgPre *pre);
/* Preprocesses a file / in-memory text into pre->out; false on error. */
bool cfg_pre_file(CfgPre *pre, const char *path);
bool cfg_pre_text(CfgPre *pre, const char *name, const char *text, size_t len);
/* Location of byte off of pre->out. */
CfgLocation cfg_pre_location(const CfgPre *pre, size_t off);
/* Interned copy of a file name, owned by pre->files. */
const char *cfg_pre_intern_file(CfgPre *pre, const char *name);

typedef enum CfgTokType
{
  CFG_TOK_EOF,
  CFG_TOK_IDENT,
  CFG_TOK_STRING,
  CFG_TOK_NUMBER,
  CFG_TOK_LBRACE,
  CFG_TOK_RBRACE,
  CFG_TOK_LPAREN,
  CFG_TOK_RPAREN,
  CFG_TOK_SEMI,
  CFG_TOK_COMMA,
  CFG_TOK_OP, /* .. => == != < <= > >= */
} CfgTokType;

typedef struct CfgToken
{
  CfgTokType type;
  char *text;    /* owned: identifier / decoded string / number / op as written */
  int64_t num;   /* numbers: value with suffixes applied */
  CfgLocation loc;
} CfgToken;

/* Splits pre->out into tokens (GArray of CfgToken, ending with EOF).
 * Returns NULL with *err filled on a lexical error. */
GArray *cfg_lex(CfgPre *pre, CfgError *err);
void cfg_tokens_free(GArray *tokens);
const char *cfg_tok_describe(const CfgToken *tok, char *buf, size_t size);

/* Parses tokens into a ROOT node; NULL with *err on error. */
CfgNode *cfg_parse_tokens(GArray *tokens, CfgError *err);

/* Name tables, duplicates, references, log flags. */
bool cfg_resolve(CfgNode *root, CfgError *err);

CfgNode *cfg_node_new(CfgNodeKind kind, const CfgLocation *loc);
void cfg_node_free(CfgNode *node);
void cfg_node_add_child(CfgNode *node, CfgNode *child);
void cfg_node_add_arg(CfgNode *node, CfgValueType type, const char *str, int64_t num, const CfgLocation *loc);

#endif
