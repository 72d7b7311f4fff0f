/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_TEMPLATE_H
#define SLUICE_TEMPLATE_H

/*
 * syslog-ng's template language, compiled once at configuration time, and
 * the built-in output formats of file(), network() and syslog().
 *
 * Syntax (as syslog-ng 3.38 compiles it; checked against it):
 *   $NAME          a macro or value; NAME is [A-Za-z0-9_]+, case-sensitive
 *   ${NAME}        the same; NAME may hold any byte but '}' and ':' (".SDATA.id.p")
 *   ${NAME:-TEXT}  TEXT (as written, up to the first '}') when the value
 *                  or macro is empty; any other ':' is refused
 *   ${NAME}@N      the value in the N-th message back of a correlation
 *                  context (log_template_context_set: @0 is its last
 *                  message); outside one @0 is the message, @1.. empty
 *   $(func args)   a template function; args split on whitespace, "..." and
 *                  '...' group, '\' outside quotes takes the next byte, and
 *                  each arg is itself a template
 *   $$             a literal '$'; a '$' before anything else is literal too
 *   $() / $( )     nothing, and (a syslog-ng 3.38 quirk kept for byte
 *                  compatibility) the literal text since the previous
 *                  macro goes with it: "a$()b" is "b"
 * A backslash has no meaning to the compiler: "\n" escapes belong to the
 * configuration lexer.  Names that are not built-in macros are name-value
 * pairs; unset ones format as "".
 *
 * Time.  Date macros take the message's STAMP; the prefixes S_ (STAMP),
 * R_ (received), P_ (processed) and C_ (now) pick another.  A date is
 * shown in send_tz, or in the offset the stamp carries when send_tz is
 * NULL (syslog-ng's default).  A per-thread cache keeps each second's
 * rendered date, so a message costs no localtime/strftime.
 */

#include "sluice/logmsg.h"
#include "sluice/timeutil.h"

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

typedef enum
{
  LTZ_FORMAT_RFC3164 = 0, /* "Mar 10 11:58:01" (alias bsd) */
  LTZ_FORMAT_RFC3339,     /* "2025-03-10T11:58:01+00:00" (alias iso) */
  LTZ_FORMAT_FULL,        /* "2025 Mar 10 11:58:01" */
  LTZ_FORMAT_UNIX,        /* "1741607881" (alias unixtime) */
} LogTimestampFormat;

/* on-error(): what a value that does not cast to its type hint does in
 * format-json and format-flat-json (syslog-ng's names).  A mode, and
 * LOG_ON_ERROR_SILENT for the silently-* forms: without it, drop-message
 * and drop-property log "Casting error; value='...', type-hint='...'"
 * as syslog-ng 3.38 does (fallback-to-string logs nothing there either). */
typedef enum
{
  LOG_ON_ERROR_DROP_MESSAGE = 0, /* the function's whole output is dropped */
  LOG_ON_ERROR_DROP_PROPERTY,    /* that name-value pair is left out */
  LOG_ON_ERROR_FALLBACK_TO_STRING, /* the value is written as a string */
  LOG_ON_ERROR_MODE = 3,           /* the bits of the three above */
  LOG_ON_ERROR_SILENT = 4,         /* silently-*: no "Casting error" line */
} LogOnError;

typedef struct LogTemplateOptions
{
  LogTimestampFormat ts_format; /* ts-format(): $STAMP and the file line */
  int frac_digits;              /* frac-digits(): 0..6 */
  TimeZoneInfo *send_tz;        /* send-time-zone(); NULL: the stamp's own offset */
  bool escape;                  /* template-escape(yes): in what each macro and value
                                 * expands to, quotes and backslashes get a backslash
                                 * before them and bytes below 0x20 become a backslash
                                 * and three octal digits, as in syslog-ng; literal
                                 * text is left alone */
  LogOnError on_error;          /* on-error(), options {}'s */
} LogTemplateOptions;

/* syslog-ng's defaults: rfc3164, no fraction, the stamp's own offset, no
 * escaping, on-error(drop-message). */
void log_template_options_defaults(LogTemplateOptions *opts);

/* ts-format(name): "rfc3164"/"bsd", "rfc3339"/"iso", "full", "unix"/"unixtime".
 * Returns NULL, or a static error message (opts unchanged). */
const char *log_template_options_set_ts_format(LogTemplateOptions *opts, const char *name);

/* frac-digits(n): NULL, or a static error message when n is not 0..6. */
const char *log_template_options_set_frac_digits(LogTemplateOptions *opts, int n);

/* ---- compiled templates ------------------------------------------------- */

typedef struct LogTemplate LogTemplate;

/* Compile text (NUL terminated).  Returns a template with one reference, or
 * NULL with *error (when error is not NULL) set to a message the caller
 * frees with g_free, naming the problem and its byte position. */
LogTemplate *log_template_compile(const char *text, char **error);

LogTemplate *log_template_ref(LogTemplate *t);

/* Drop a reference; the last one frees t.  NULL is ignored. */
void log_template_unref(LogTemplate *t);

/* The source text t was compiled from (owned by t). */
const char *log_template_get_text(const LogTemplate *t);

/* True when t has no macros (its output never depends on the message). */
bool log_template_is_literal(const LogTemplate *t);

/* True when $name is a macro computed from the message (DATE, PRI, TAGS,
 * R_YEAR, ...) rather than a value it holds: rewrite rules refuse to set
 * those, as syslog-ng does. */
bool log_template_is_macro_name(const char *name);

/* Append t's expansion for msg to out.  opts may be NULL (defaults).
 * Thread-safe: t is immutable after compilation. */
void log_template_format(const LogTemplate *t, const LogMsg *msg, const LogTemplateOptions *opts, GString *out);

/* Append what t's values, macros and functions give for msg, each after
 * its length (four bytes), and none of its literal text: the key of msg's
 * expansion.  A writer that keeps something per expansion (an open file
 * per path) looks it up by this shorter key, and makes the whole text from
 * the key (log_template_format_from_key) only when the key is new: t is
 * evaluated once a message, which matters for what differs from one call
 * to the next ($(iterate), $(uuid), the current time). */
void log_template_format_key(const LogTemplate *t, const LogMsg *msg, const LogTemplateOptions *opts,
                             GString *out);

/* Append the text whose key (log_template_format_key of the same t) is
 * key[0..len): t's literals with the key's values between them.  False
 * when key is not one of t's keys (out then holds a part). */
bool log_template_format_from_key(const LogTemplate *t, const char *key, size_t len, GString *out);

/* ---- what a writer keeps per expansion, by key ---------------------------- */

/* A table from the keys of t's expansions (log_template_format_key) to
 * what a writer keeps for each (an open file for each path): a message's
 * entry is found by the values of its macros, and the whole text is made
 * (log_template_keys_text), checked and looked up the writer's own way
 * only for a key the table does not have.  Not thread-safe: one writer's. */
typedef struct LogTemplateKeys LogTemplateKeys;

LogTemplateKeys *log_template_keys_new(const LogTemplate *t);
void log_template_keys_free(LogTemplateKeys *k);

/* msg's key: what was added for it, or NULL.  The key stays for
 * log_template_keys_text and log_template_keys_add until the next find. */
void *log_template_keys_find(LogTemplateKeys *k, const LogMsg *msg, const LogTemplateOptions *opts);

/* Append the text whose key the last find made. */
void log_template_keys_text(const LogTemplateKeys *k, GString *out);

/* value is what the last find's key stands for.  With max keys in the
 * table already, it is emptied first (values can split one text many
 * ways: ${HOST}${PROGRAM} makes "ab"+"c" and "a"+"bc" one path). */
void log_template_keys_add(LogTemplateKeys *k, void *value, size_t max);

/* Forget every key: what they point to is going away. */
void log_template_keys_clear(LogTemplateKeys *k);

/* How many keys the table holds. */
size_t log_template_keys_size(const LogTemplateKeys *k);

/* ---- template functions ------------------------------------------------- */

/* A function $(name arg...).
 *
 * prepare runs at compile time with the parsed argv (argv[0] is the name,
 * argc >= 1); it may set *state.  It returns NULL, or an error message
 * (g_malloc'd, the compiler takes it) that makes the compilation fail.
 * prepare may be NULL.
 *
 * call runs per message and appends the result to out.  args[0..argc-1] are
 * the compiled arguments (argv[1..]); the function formats the ones it needs
 * with log_template_format, into out directly or into a scratch buffer
 * from log_template_scratch_get.  Must not keep pointers to msg.
 *
 * free_state (may be NULL) frees what prepare set when the template dies. */
typedef struct LogTemplateFunction
{
  const char *name;
  char *(*prepare)(int argc, char **argv, void **state);
  void (*call)(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
               GString *out);
  void (*free_state)(void *state);
} LogTemplateFunction;

/* Register func (static storage, kept by pointer).  Configuration time only.
 * Returns false when a function of that name exists already. */
bool log_template_function_register(const LogTemplateFunction *func);

/* The registered function called name, or NULL.  Built-in: "echo". */
const LogTemplateFunction *log_template_function_lookup(const char *name);

/* Named templates (syslog-ng's template NAME {} blocks), for $(template
 * NAME): while a configuration is built, the builder sets, on its thread,
 * a lookup that gives a named template's text (NULL when there is no such
 * template) and a walk over all their names.  Outside a build there are
 * none: the lookup answers NULL. */
typedef struct LogTemplateNamedSource
{
  const char *(*text)(const void *data, const char *name);
  void (*each_name)(const void *data, void (*func)(const char *name, void *user), void *user);
  const void *data;
  /* the text of template-function NAME "TEXT"; (NULL: none; the field
   * may be NULL) */
  const char *(*function_text)(const void *data, const char *name);
} LogTemplateNamedSource;

/* Set (NULL: clear) this thread's source; returns the previous one. */
const LogTemplateNamedSource *log_template_set_named_source(const LogTemplateNamedSource *src);
const LogTemplateNamedSource *log_template_get_named_source(void);

/* $_ in a template is the element $(map) and $(filter) are at: while
 * they format their template they set it on their thread (set, value,
 * len; restore the previous one after).  When none is set, $_ is the
 * message's value named "_". */
typedef struct LogTemplateLocal
{
  bool set;
  const char *value;
  size_t len;
} LogTemplateLocal;

/* Set this thread's $_; returns the previous one. */
LogTemplateLocal log_template_local_set(LogTemplateLocal v);

/* A correlation context while its templates are formatted (db-parser()'s
 * actions, grouping-by()): the messages, oldest first.  ${NAME}@N reads
 * msgs[n - 1 - N]; $(context-length) and $(context-values) read it too.
 * n == 0: none (the message formatted is the only one). */
typedef struct LogTemplateContext
{
  const LogMsg *const *msgs;
  size_t n;
} LogTemplateContext;

/* Set this thread's context; returns the previous one. */
LogTemplateContext log_template_context_set(LogTemplateContext c);
LogTemplateContext log_template_context_get(void);

/* A per-thread scratch string, emptied, for a function's intermediate
 * results; level picks one of several so nested calls can each use their
 * own: 0..7 for template functions, LOG_TEMPLATE_SCRATCH_PARSERS.. (8 more)
 * for parsers, which format templates while they hold theirs, and
 * LOG_TEMPLATE_SCRATCH_DEEP.. (LOG_TEMPLATE_SCRATCH_DEEP_LEVELS more) for
 * template functions past their first 8 levels (lists take two or three
 * per call, and calls nest up to 64 deep).  Owned by the thread; valid
 * until the next call with the same level on this thread. */
#define LOG_TEMPLATE_SCRATCH_PARSERS 8
#define LOG_TEMPLATE_SCRATCH_DEEP 16
#define LOG_TEMPLATE_SCRATCH_DEEP_LEVELS 256
GString *log_template_scratch_get(int level);

/* ---- built-in output formats ------------------------------------------- */

/* The line file() writes without template(): "$STAMP $HOST $MSGHDR$MSG\n"
 * with STAMP in opts->ts_format.  Appends to out; opts may be NULL. */
void log_format_file_line(const LogMsg *msg, const LogTemplateOptions *opts, GString *out);

/* A destination's flags(no-multi-line): CR and LF in s[0..len) become
 * spaces, but for the last byte (a line's own newline), as syslog-ng does. */
void log_format_single_line(char *s, size_t len);

/* The RFC 3164 line network() sends: "<PRI>$DATE $HOST $MSGHDR$MSG\n"
 * (the date always BSD style, with opts' fraction and zone). */
void log_format_rfc3164_line(const LogMsg *msg, const LogTemplateOptions *opts, GString *out);

/* The octet-counted RFC 5424 frame syslog() sends:
 * "LEN <PRI>1 ISODATE HOST PROGRAM PID MSGID SDATA [BOM]MSG\n", "-" for
 * empty fields, the BOM when msg has LF_UTF8; LEN counts from '<' to the
 * newline. */
void log_format_rfc5424_frame(const LogMsg *msg, const LogTemplateOptions *opts, GString *out);

/* ${SDATA}: the .SDATA.* pairs of msg as RFC 5424 structured data, in the
 * order they were set, values escaped ('"', '\\', ']'). */
void log_format_sdata(const LogMsg *msg, GString *out);

/* log_format_sdata, and when seq is not 0 and msg has no
 * .SDATA.meta.sequenceId, sequenceId="SEQ" as syslog-ng 3.38's $SDATA adds
 * it: first in a "meta" element that has parameters, else as a new
 * [meta sequenceId="SEQ"] at the end. */
void log_format_sdata_seq(const LogMsg *msg, uint32_t seq, GString *out);

/* The sequence number of the message the calling thread formats for a
 * destination, 0 (the default) for none: $SEQNUM, and the sequenceId that
 * $SDATA adds (log_format_sdata_seq).  syslog-ng 3.38 numbers the local
 * messages (LF_LOCAL) each destination writes, from 1; a destination sets
 * it around log_template_format and back to 0 after.  Returns the previous
 * one. */
uint32_t log_template_seq_set(uint32_t seq);
uint32_t log_template_seq_get(void);

#endif
