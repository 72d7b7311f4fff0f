/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_CFG_TREE_H
#define SLUICE_CFG_TREE_H

/*
 * The configuration front end: syslog-ng's language read into a generic
 * tree.  Three stages, each usable alone:
 *
 *   preprocess  @version/@include/@define/@module lines and `backtick`
 *               substitution produce one text buffer plus a map from every
 *               byte of it back to file:line:col (cfg_preprocess_*);
 *   parse       one hand-written lexer and a recursive-descent parser turn
 *               that text into CfgNode trees (cfg_parse_*);
 *   resolve     name tables per object kind, duplicate and unknown names,
 *               log-path flags (done by cfg_parse_* before returning).
 *
 * Nothing here knows what a driver does: a driver call is a CALL node with
 * positional arguments and option children, checked later against the
 * driver's option table (sluice/cfg-options.h).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Where something was written.  file points into the owning CfgTree (or
 * CfgError), never NULL; line and col count from 1, col in bytes. */
typedef struct CfgLocation
{
  const char *file;
  int line;
  int col;
} CfgLocation;

/* The first error found: where and what.  Both strings are owned by the
 * error; free with cfg_error_clear(). */
typedef struct CfgError
{
  char *file;
  int line;
  int col;
  char *message;
} CfgError;

typedef enum CfgObjectKind
{
  CFG_OBJ_NONE = 0,
  CFG_OBJ_SOURCE,
  CFG_OBJ_DESTINATION,
  CFG_OBJ_FILTER,
  CFG_OBJ_PARSER,
  CFG_OBJ_REWRITE,
  CFG_OBJ_TEMPLATE,
  CFG_OBJ_MAX,
} CfgObjectKind;

typedef enum CfgValueType
{
  CFG_VAL_STRING, /* "..." (escapes decoded) or '...' (raw) */
  CFG_VAL_NUMBER, /* 514, 0x1f, 0644, -5, 2KiB: num holds the value */
  CFG_VAL_IDENT,  /* yes, kern, /dev/log, info */
  CFG_VAL_OP,     /* one of .. => == != < <= > >= as written */
} CfgValueType;

typedef struct CfgValue
{
  CfgValueType type;
  char *str;   /* the text (decoded for strings, as written otherwise); owned */
  int64_t num; /* CFG_VAL_NUMBER only */
  CfgLocation loc;
} CfgValue;

typedef enum CfgNodeKind
{
  CFG_NODE_ROOT,     /* children: top-level statements in order */
  CFG_NODE_OPTIONS,  /* options { ... }: children are CALLs */
  CFG_NODE_DEFINE,   /* source|destination|... NAME { ... }: obj, name, children */
  CFG_NODE_CALL,     /* name(args children): driver, option or filter function */
  CFG_NODE_REF,      /* source(NAME) in a log path, filter(NAME) in an expression */
  CFG_NODE_INLINE,   /* source { ... } inside a log path: obj, children */
  CFG_NODE_LOG,      /* log { ... }, also nested; flags holds CFG_LOG_* */
  CFG_NODE_JUNCTION, /* junction { channel {...}; ... }: children are CHANNELs */
  CFG_NODE_CHANNEL,  /* channel { ... }: children as in LOG */
  CFG_NODE_IF,       /* if/elif/else: children are BRANCHes in order */
  CFG_NODE_BRANCH,   /* cond is the condition (NULL for else); children as in LOG */
  CFG_NODE_AND,      /* filter expression: two children */
  CFG_NODE_OR,       /* filter expression: two children */
  CFG_NODE_NOT,      /* filter expression: one child */
  CFG_NODE_CMP,      /* "a" == "b": name is the operator, args the two operands */
} CfgNodeKind;

/* Log path flags, syslog-ng's: final (stop after this path matched),
 * fallback (only messages no non-fallback path took), catchall (all
 * sources), flow-control, drop-unmatched. */
enum
{
  CFG_LOG_FINAL = 1 << 0,
  CFG_LOG_FALLBACK = 1 << 1,
  CFG_LOG_CATCHALL = 1 << 2,
  CFG_LOG_FLOW_CONTROL = 1 << 3,
  CFG_LOG_DROP_UNMATCHED = 1 << 4,
  /* BRANCH: syslog-ng's condition-less `if { ... }` / `elif { ... }`: the
   * branch's own elements are its condition (a message they drop goes on
   * to the next branch; without one, on along the path) */
  CFG_BRANCH_TRY = 1 << 5,
};

typedef struct CfgNode CfgNode;
struct CfgNode
{
  CfgNodeKind kind;
  CfgObjectKind obj;  /* DEFINE, REF, INLINE */
  char *name;         /* CALL: function name as written; DEFINE/REF: object name; CMP: operator */
  CfgValue *args;     /* positional arguments, in order */
  size_t n_args;
  CfgNode **children;
  size_t n_children;
  CfgNode *cond;      /* BRANCH: the condition */
  uint32_t flags;     /* LOG/CHANNEL: CFG_LOG_* */
  CfgNode *target;    /* REF after resolution: the DEFINE it names */
  CfgLocation loc;
};

typedef struct CfgTree
{
  CfgNode *root;
  char *version; /* "3.38" from @version, or NULL */
  char **files;  /* every file read, NULL-terminated; CfgLocation.file points here */
} CfgTree;

typedef struct CfgParseOptions
{
  /* Directories tried for @include after the including file's own one;
   * NULL-terminated.  NULL means the default: the in-repo scl/ and
   * SLUICE_SCLDIR. */
  const char *const *include_path;
  bool no_includes; /* every @include is an error (fuzzing) */
  bool include_path_only; /* @include looks in include_path only: no absolute
                           * names, no "..", nothing beside the including
                           * file (fuzzing: what can be read is the target's) */
  bool no_env;      /* `name` never falls back to the environment */
  int max_include_depth; /* 0 means 15, syslog-ng's limit */
  size_t max_total_size; /* bytes read from all files together; 0 means 64 MiB */
} CfgParseOptions;

/* Reads, preprocesses, parses and resolves the file at path.  opts may be
 * NULL.  Returns a tree the caller frees with cfg_tree_free(), or NULL with
 * *err filled (the caller clears it). */
CfgTree *cfg_parse_file(const char *path, const CfgParseOptions *opts, CfgError *err);

/* The same for text in memory (len bytes, need not be NUL-terminated);
 * name is the file name used in locations and for relative @includes. */
CfgTree *cfg_parse_string(const char *name, const char *text, size_t len, const CfgParseOptions *opts,
                          CfgError *err);

/* --preprocess-into: writes the text the parser would see (includes
 * expanded after their @include line, backticks substituted, each block
 * reference's expansion between "#Start Block" and "#End Block" lines
 * after the reference's place, as syslog-ng writes them) to out.
 * Returns false with *err filled on a preprocessor error. */
bool cfg_preprocess_file_into(const char *path, const CfgParseOptions *opts, FILE *out, CfgError *err);

/* The same text for a configuration in memory, *out_len bytes (g_free
 * it); NULL with *err filled on a preprocessor error. */
char *cfg_preprocess_string(const char *name, const char *text, size_t len, const CfgParseOptions *opts,
                            size_t *out_len, CfgError *err);

/* Files a configuration names and Sluice reads while building it (an
 * in-list() file, dns-cache-hosts(), TLS files, CONFIG GET's text): regular
 * files only, opened without blocking and checked on the descriptor, so a
 * FIFO or a device is refused instead of hanging or reading forever
 * (src/cfg/cfg-file.c).
 *
 * cfg_file_read: the bytes of path, NUL-terminated (g_free), at most max
 * (more is an error), with their count in *len; or NULL with *error
 * (g_free) saying why, without the path.
 * cfg_file_check_regular: true when path opens as a regular file, else
 * false with *error, for files a library opens by name (OpenSSL).
 * cfg_file_kind: "a FIFO", "a directory", ... for a st_mode.
 * cfg_fd_read: what fd holds up to its end, as cfg_file_read reads it
 * (hint: the expected size); NULL with *error on a read error, NULL with
 * *error NULL when there is more than max. */
char *cfg_file_read(const char *path, size_t max, size_t *len, char **error);
char *cfg_fd_read(int fd, size_t max, size_t hint, size_t *len, char **error);
bool cfg_file_check_regular(const char *path, char **error);
const char *cfg_file_kind(unsigned int mode);

void cfg_tree_free(CfgTree *tree);

/* Nodes, for the parser and for drivers that are built of other drivers
 * as syslog-ng's SCL builds them (system(), default-network-drivers()):
 * such a driver writes the calls it stands for and hands them to the
 * other drivers' factories.  Strings are copied. */
CfgNode *cfg_node_new(CfgNodeKind kind, const CfgLocation *loc);
void cfg_node_free(CfgNode *node);
void cfg_node_add_child(CfgNode *node, CfgNode *child);
void cfg_node_add_arg(CfgNode *node, CfgValueType type, const char *str, int64_t num, const CfgLocation *loc);

/* A deep copy of n (a resolved REF's target is not copied: NULL). */
CfgNode *cfg_node_copy(const CfgNode *n);

/* A driver call name(arg) at loc (arg NULL: no argument, else a string). */
CfgNode *cfg_call_new(const char *name, const char *arg, const CfgLocation *loc);

/* Adds the option name(value) to call, value of type (a string or an
 * identifier in str, a number in num); returns the option's node. */
CfgNode *cfg_call_add_option(CfgNode *call, const char *name, CfgValueType type, const char *str, int64_t num);

/* The DEFINE node of kind obj named name, or NULL. */
CfgNode *cfg_tree_lookup(const CfgTree *tree, CfgObjectKind obj, const char *name);

/* "source", "destination", ...; "object" for CFG_OBJ_NONE. */
const char *cfg_object_kind_name(CfgObjectKind obj);

/* Frees the strings of err and zeroes it; safe on a zeroed error. */
void cfg_error_clear(CfgError *err);

/* Fills err (clearing what it held) from loc and a printf format. */
void cfg_error_set(CfgError *err, const CfgLocation *loc, const char *fmt, ...)
  __attribute__((format(printf, 3, 4)));

/* "file:line:col: message" ("file: message" for an error about a whole
 * file, line 0); a new string the caller frees with free(). */
char *cfg_error_format(const CfgError *err);

#endif
