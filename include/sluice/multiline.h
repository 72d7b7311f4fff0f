/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_MULTILINE_H
#define SLUICE_MULTILINE_H

/*
 * Multi-line messages: syslog-ng 3.38's multi-line-mode() and its
 * companions, for any stream reader (LogReaderOptions.multi_line).  The
 * reader frames in LOG_FRAMING_LINES (sluice/framing.h) and feeds every
 * line, as it is, to a LogMultiLine, which joins lines into messages.
 *
 * What syslog-ng 3.38 does, and so what this does (each rule checked by
 * running syslog-ng 3.38.1 on a file() or stdin() source; the unit tests
 * name the runs):
 *
 *  - A message is the text from the start of its first line to the end of
 *    its last, the line ends between them kept as they were ('\n', or a
 *    NUL that ended a line, and '\r' before them): "a\r\n b" stays so.
 *    '\r', '\n' and NUL at the very end are dropped, and a message left
 *    empty is not sent.
 *  - The first line after a message (or of the stream) always begins one,
 *    whatever it looks like: a continuation or a line the prefix does not
 *    match starts a message of its own.  Empty lines continue the message
 *    (in every mode), so "a\n\n b" is one message.
 *  - indented: a line starting with ' ' or '\t' continues the message; any
 *    other non-empty line ends it and begins the next.
 *  - regexp (= prefix-garbage): a line that multi-line-prefix() matches
 *    (anywhere: it is not anchored unless it says '^') ends the message and
 *    begins the next.  multi-line-garbage() is looked for first, in every
 *    line including the first: where it matches, the message ends just
 *    before the match, and the match and the rest of that line are dropped.
 *  - prefix-suffix: the same, but multi-line-suffix() (another name for
 *    multi-line-garbage()) ends the message just after its match, which is
 *    kept; the rest of that line is dropped.  The suffix is looked for
 *    before the prefix, so "START e END" after an open message ends that
 *    message.  Text between a suffix and the next prefix is not dropped:
 *    it begins a message of its own (the first-line rule).
 *  - Either regexp may be missing (a regexp mode needs one of the two); a
 *    missing one never matches.  Patterns are PCRE, byte-wise, unanchored,
 *    matched against one line with its '\r' but without its end, except
 *    on an empty line after some text: syslog-ng then matches garbage or
 *    suffix against the whole message so far and the line end after it
 *    (so a pattern spanning lines can match there, and only there).
 *  - The end of the stream, or multi-line-timeout() seconds with nothing
 *    read, sends what is held, the partial line after it included, as one
 *    message (LOG_FRAMER_NO_END lines: log_multi_line_feed appends them
 *    whatever they look like and sends).  Without a timeout a message
 *    waits for the line that ends it; stopping the reader loses it, as
 *    stopping syslog-ng does.
 *
 * Departure, safer than syslog-ng: a message never grows past
 * log_msg_size.  syslog-ng splits it there and reads on from the middle
 * of a line as if a new message began; we send the first log_msg_size
 * bytes, flagged LOG_FRAMER_TRUNCATED, and drop its further continuation
 * lines until a line ends it, as the LF framer truncates an over-long line.
 *
 * LogMultiLineOptions is compiled once from the configuration, immutable
 * and shared by every reader using it (on any thread); a LogMultiLine is
 * one reader's state, for its thread only.
 */

#include "sluice/cfg-options.h"
#include "sluice/cfg-tree.h"
#include "sluice/logmsg.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum LogMultiLineMode
{
  LOG_MULTI_LINE_NONE,           /* each line a message (as LF) */
  LOG_MULTI_LINE_INDENTED,
  LOG_MULTI_LINE_PREFIX_GARBAGE, /* "regexp" and "prefix-garbage" */
  LOG_MULTI_LINE_PREFIX_SUFFIX,
} LogMultiLineMode;

/* Compiled options: immutable once made, shared by reference. */
typedef struct LogMultiLineOptions
{
  LogMultiLineMode mode;
  pcre2_code *prefix;  /* NULL: never matches */
  pcre2_code *garbage; /* multi-line-garbage() or -suffix(); NULL: never matches */
  bool prefix_jit, garbage_jit;
  int64_t timeout;     /* multi-line-timeout(), seconds; 0: none */
  int refs;            /* atomic */
} LogMultiLineOptions;

/* Compile prefix and garbage (either may be NULL) for mode.  Returns the
 * options (one reference), or NULL with *error set (g_malloc'd) when a
 * pattern does not compile. */
LogMultiLineOptions *log_multi_line_options_new(LogMultiLineMode mode, const char *prefix, const char *garbage,
                                                int64_t timeout, char **error);
LogMultiLineOptions *log_multi_line_options_ref(LogMultiLineOptions *o);
void log_multi_line_options_unref(LogMultiLineOptions *o);

/* ---- configuration ------------------------------------------------------ */

/* Where a driver's option table stores the options, as written. */
typedef struct LogMultiLineCfg
{
  char *mode;    /* multi-line-mode(); NULL: none */
  char *prefix;  /* multi-line-prefix() */
  char *garbage; /* multi-line-garbage() or multi-line-suffix() */
  int64_t timeout; /* multi-line-timeout() */
} LogMultiLineCfg;

/* .check of multi-line-mode(): syslog-ng's names, case-insensitively. */
const char *log_multi_line_check_mode(const CfgOption *opt, const void *field);

/* The option rows, for a driver whose options struct `stype` holds a
 * LogMultiLineCfg named `member`.  cfg-options.h has no way to splice one
 * table into another, so these are macros to put in the driver's table,
 * as NET_READER_OPTIONS is.  syslog-ng 3.38 takes the first four in
 * file(), wildcard-file(), stdin() and pipe(), and multi-line-timeout() in
 * all of those but pipe(); no network source takes any. */
#define LOG_MULTI_LINE_CFG_OPTIONS(stype, member)                                                                   \
  { .name = "multi-line-mode", .type = CFG_OPT_STRING, .offset = offsetof(stype, member.mode),                      \
    .check = log_multi_line_check_mode },                                                                           \
  { .name = "multi-line-prefix", .type = CFG_OPT_STRING, .offset = offsetof(stype, member.prefix) },                \
  { .name = "multi-line-garbage", .type = CFG_OPT_STRING, .offset = offsetof(stype, member.garbage) },              \
  { .name = "multi-line-suffix", .type = CFG_OPT_STRING, .offset = offsetof(stype, member.garbage) }

#define LOG_MULTI_LINE_CFG_TIMEOUT_OPTION(stype, member)                                                            \
  { .name = "multi-line-timeout", .type = CFG_OPT_INT, .offset = offsetof(stype, member.timeout), .def_int = 0,      \
    .min = 0, .max = INT32_MAX / 1000 }

/* Check cfg as syslog-ng 3.38 does and compile it: *out is NULL for
 * multi-line-mode(none) (the reader then frames as before, at no cost),
 * else new options the caller owns (one reference; LogReaderOptions
 * borrows it, each reader takes its own).  loc (may be NULL) is the
 * driver call, for the errors syslog-ng gives when the driver starts:
 * "multi-line-prefix() and/or multi-line-garbage() specified but
 * multi-line-mode() is not regexp based ...", "To follow files in
 * multi-line-mode() 'regexp', 'prefix-garbage', 'prefix-suffix', please
 * also specify regexps using the multi-line-prefix/garbage options", and
 * "error compiling multi-line regexp: ..." for a pattern PCRE2 refuses. */
bool log_multi_line_resolve(const LogMultiLineCfg *cfg, const CfgLocation *loc, LogMultiLineOptions **out,
                            CfgError *err);

/* ---- the joiner ---------------------------------------------------------- */

/* What a line means for the message being collected. */
typedef enum LogMultiLineVerdict
{
  LOG_MULTI_LINE_APPEND,      /* it continues the message (or begins one when none is open) */
  LOG_MULTI_LINE_EMIT_BEFORE, /* the open message is complete: send it; this line begins the next */
  LOG_MULTI_LINE_EMIT_WITH,   /* it ends the message: send the first *keep bytes of the message
                               * so far, the line end and this line (of this line alone when none
                               * is open); the rest is garbage */
  LOG_MULTI_LINE_DROP,        /* as EMIT_WITH, but nothing is kept: the message so far and the line
                               * are dropped */
} LogMultiLineVerdict;

typedef struct LogMultiLine
{
  const LogMultiLineOptions *opts; /* borrowed */
  size_t log_msg_size;
  char *buf;      /* the message so far, without its last line end */
  size_t len, cap; /* cap grows up to log_msg_size + 1 */
  char term;      /* the last line's end: '\n' or NUL */
  bool open;      /* a message has begun */
  bool discard;   /* it was cut at log_msg_size and sent: drop its continuation lines */
  uint32_t flags; /* LOG_FRAMER_TRUNCATED when one of its lines was cut */
  LogStamp recvd; /* when its first line was read */
  bool sent_before_line; /* the last message sent ended before the line being fed
                          * (a line that starts the next one); else it ended
                          * with that line, or with the last one fed */
} LogMultiLine;

/* A complete message: msg[0..len) (1 ≤ len ≤ log_msg_size), valid during
 * the call; flags are LOG_FRAMER_* flags; recvd is its first line's. */
typedef void (*LogMultiLineEmit)(const char *msg, size_t len, uint32_t flags, const LogStamp *recvd,
                                 void *user_data);

/* opts stays the caller's (it must outlive ml).  Allocates nothing yet:
 * the buffer grows with the messages, up to log_msg_size + 1 bytes. */
void log_multi_line_init(LogMultiLine *ml, const LogMultiLineOptions *opts, size_t log_msg_size);
void log_multi_line_deinit(LogMultiLine *ml);

/* syslog-ng's verdict on line[0..len) (with its '\r', without its end);
 * ignores the discard state.  Changes nothing. */
LogMultiLineVerdict log_multi_line_classify(LogMultiLine *ml, const char *line, size_t len, size_t *keep);

/* One line from a LOG_FRAMING_LINES framer (flags as it gave them), read
 * at recvd: calls emit for the message it completes, if any (at most
 * one per line). */
void log_multi_line_feed(LogMultiLine *ml, const char *line, size_t len, uint32_t flags, const LogStamp *recvd,
                         LogMultiLineEmit emit, void *user_data);

/* Send the open message, if any (end of stream, timeout). */
void log_multi_line_flush(LogMultiLine *ml, LogMultiLineEmit emit, void *user_data);

/* Whether a message is open (a flush would send or drop something). */
static inline bool
log_multi_line_is_open(const LogMultiLine *ml)
{
  return ml->open;
}

#endif
