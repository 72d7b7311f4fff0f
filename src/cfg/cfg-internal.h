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

/* A block definition (block TYPE NAME(params) { body };), kept as text:
 * its body is substituted and parsed where a reference uses it. */
typedef struct CfgBlockParam
{
  char *name;
  char *value; /* the default as written; NULL: the reference must give it */
} CfgBlockParam;

typedef struct CfgBlock
{
  char *type;        /* root, source, destination, parser, rewrite, filter, log, options */
  char *name;
  GArray *params;    /* CfgBlockParam */
  bool varargs;      /* '...': other arguments go to `__VARARGS__` */
  char *body;        /* between the braces, unsubstituted */
  const char *file;  /* interned; where the body starts */
  int line, col;
  int def_line;      /* where the definition starts ('block') */
  char *topic;       /* an application's [topic] (type "application"), else NULL */
} CfgBlock;

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
  GPtrArray *blocks;    /* CfgBlock *, owned */
  bool keep_blocks;     /* --preprocess-into: definitions kept in kept_defs */
  GArray *kept_defs;    /* CfgKeptDef: each definition and where out had it */
  int expansions;       /* block references expanded so far */
} CfgPre;

/* A block definition as written, and the offset of out where it stood
 * (--preprocess-into writes it back there). */
typedef struct CfgKeptDef
{
  size_t off;
  char *text;
} CfgKeptDef;

void cfg_pre_init(CfgPre *pre, const CfgParseOptions *opts, CfgError *err);
void cfg_pre_destroy(CfgPre *pre);
/* Preprocesses a file / in-memory text into pre->out; false on error. */
bool cfg_pre_file(CfgPre *pre, const char *path);
bool cfg_pre_text(CfgPre *pre, const char *name, const char *text, size_t len);
/* Location of byte off of pre->out. */
CfgLocation cfg_pre_location(const CfgPre *pre, size_t off);
/* Interned copy of a file name, owned by pre->files. */
const char *cfg_pre_intern_file(CfgPre *pre, const char *name);

/* Whether a name may be defined twice, the last definition winning: as
 * syslog-ng, with @define allow-config-dups N (N a number other than 0)
 * or an @version below 3.3.  syslog-ng reads the define when it meets the
 * second definition, so one written after it does not count there; here
 * it counts wherever it stands. */
bool cfg_pre_allows_dups(CfgPre *pre);
/* The file under Sluice's SCL directories (relative to the one it is in,
 * "graylog2/graylog2.conf") whose text defines block TYPE NAME, or NULL:
 * for the error of a configuration that uses one without
 * @include "scl.conf".  Newly allocated. */
char *cfg_scl_file_defining(const char *type, const char *name);
/* Appends line (len bytes, no newline; its first byte at column col) of
 * file to pre->out with `name`s replaced from pre->defines, recording
 * where each byte came from. */
bool cfg_pre_substitute(CfgPre *pre, const char *file, int line, int col, const char *s, size_t len);
/* false with *err (at file:line) as the preprocessor's errors are. */
bool cfg_pre_fail(CfgPre *pre, const char *file, int line, int col, const char *fmt, ...)
  __attribute__((format(printf, 5, 6)));

/* Block definitions (src/cfg/cfg-block.c).  cfg_block_capture: when the
 * text at *p (the start of a line of file) defines a block, takes the
 * definition into pre->blocks, moves *p past its ';' and *line to the
 * line there, and returns 1; 0 when it is no definition; -1 on error. */
int cfg_block_capture(CfgPre *pre, const char *file, int *line, const char **p, const char *end);
void cfg_block_free(gpointer block);
/* The block of that type and name, or NULL; _any: of any type. */
const CfgBlock *cfg_block_find(const CfgPre *pre, const char *type, const char *name);
const CfgBlock *cfg_block_find_any(const CfgPre *pre, const char *name);
/* The text of a reference to b with args (name -> value as written,
 * '_' for '-') and varargs ("name(value) ..."), substituted, into
 * exp->out with its locations (exp: a CfgPre for the expansion alone,
 * which cfg_block_expansion_free frees); false with pre's error. */
bool cfg_block_expand(CfgPre *pre, const CfgBlock *b, GHashTable *args, const char *varargs,
                      const CfgLocation *ref, CfgPre *exp);

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
  const char *src; /* the text it was read from, alive while parsing... */
  size_t off;      /* ...and where it starts there: block arguments as written */
} CfgToken;

/* Splits pre->out into tokens (GArray of CfgToken, ending with EOF).
 * Returns NULL with *err filled on a lexical error. */
GArray *cfg_lex(CfgPre *pre, CfgError *err);
void cfg_tokens_free(GArray *tokens);
const char *cfg_tok_describe(const CfgToken *tok, char *buf, size_t size);

/* Parses tokens into a ROOT node, expanding references to pre's blocks
 * (pre may be NULL: no blocks); NULL with *err on error. */
CfgNode *cfg_parse_tokens(GArray *tokens, CfgPre *pre, CfgError *err);

/* pre->out (preprocessed with keep_blocks) as --preprocess-into writes
 * it: the definitions where they stood, and each block reference the
 * parse expands replaced by its expansion between "#Start Block" and
 * "#End Block" lines, as syslog-ng writes them.  A parse error ends the
 * expanding, not the text (the parse that follows reports it). */
GString *cfg_pre_expanded_text(CfgPre *pre);

/* Name tables, duplicates, references, log flags. */
/* allow_dups: a later definition of a name replaces the earlier one, which
 * leaves the tree (syslog-ng's allow-config-dups, and its @version below
 * 3.3); otherwise a duplicate is an error. */
bool cfg_resolve(CfgNode *root, bool allow_dups, CfgError *err);

#endif
