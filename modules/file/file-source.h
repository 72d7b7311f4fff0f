/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_FILE_SOURCE_H
#define SLUICE_FILE_SOURCE_H
/* The file() and wildcard-file() sources (file-source.c,
 * wildcard-source.c) around FileFollowers (file-follow.h). */
#include "sluice/logsource.h"
#include "sluice/multiline.h"

#include <stddef.h>

/* The options both take. */
typedef struct FileSourceOptions
{
  LogSourceOptions src;
  char *follow_freq;       /* follow-freq(): seconds as written, a fraction allowed */
  int64_t follow_freq_ms;  /* follow_freq in ms once resolved (follow-freq(0): 1000, see resolve) */
  LogMultiLineCfg multi_line; /* multi-line-mode() and friends */
  char *format;            /* format(): "syslog" (syslog-ng's default), or "linux-kmsg" in file() */
  int64_t pad_size;        /* pad-size(): records of this many bytes; 0 = lines */
} FileSourceOptions;

/* format(): "syslog" or "linux-kmsg" (a check for the table). */
const char *file_source_check_format(const CfgOption *opt, const void *field);

/* format("linux-kmsg"): file() reads the kernel's log (kmsg.h). */
bool file_source_is_kmsg(const FileSourceOptions *o);

/* After the table: check and compile what it says into s->ro (its
 * multi-line options, which file_source_options_deinit drops). */
bool file_source_options_resolve(LogSource *s, FileSourceOptions *o, const CfgNode *call,
                                 const LogDriverContext *ctx, CfgError *err);
void file_source_options_deinit(LogSource *s);

/* pad-size() (file(), wildcard-file(), pipe()): after log_source_resolve
 * (s->ro.log_msg_size and s->ro.multi_line known), refuse a pad-size()
 * larger than log-msg-size(), as syslog-ng does, or one with multi-line
 * (which joins lines, not records), and set s->ro.record_size.  what
 * names the driver as written ("file", "pipe"). */
bool file_source_resolve_pad_size(LogSource *s, int64_t pad_size, const CfgNode *call, const char *what,
                                  CfgError *err);

/* The pad-size() row of STYPE's int64_t FIELD. */
#define FILE_SOURCE_PAD_SIZE_ROW(stype, field)                                                                    \
  { .name = "pad-size", .type = CFG_OPT_SIZE, .offset = offsetof(stype, field), .def_int = 0, .min = 0,            \
    .max = INT32_MAX }

/* follow-freq(): seconds, not negative, a fraction allowed (a check for the table). */
const char *file_source_check_follow_freq(const CfgOption *opt, const void *field);

/* The rows of FileSourceOptions held by STYPE as SMEMBER. */
#define FILE_SOURCE_OPTION_ROWS(stype, smember)                                                                    \
  LOG_SOURCE_OPTION_ROWS(stype, smember.src, 100),                                                                \
  { .name = "follow-freq", .type = CFG_OPT_STRING, .offset = offsetof(stype, smember.follow_freq),        \
    .def_str = "1", .check = file_source_check_follow_freq },                                              \
  LOG_MULTI_LINE_CFG_OPTIONS(stype, smember.multi_line),                                                          \
  LOG_MULTI_LINE_CFG_TIMEOUT_OPTION(stype, smember.multi_line),                                                   \
  { .name = "format", .type = CFG_OPT_STRING, .offset = offsetof(stype, smember.format),                          \
    .check = file_source_check_format },                                                                          \
  FILE_SOURCE_PAD_SIZE_ROW(stype, smember.pad_size)

extern const LogDriverFactory file_source_factory;
extern const LogDriverFactory wildcard_file_source_factory;

#endif
