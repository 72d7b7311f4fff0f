/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_FILE_KMSG_H
#define SLUICE_FILE_KMSG_H
/*
 * file(... format("linux-kmsg")): the kernel's log, /dev/kmsg, read as
 * syslog-ng 3.38 reads it (kmsg-source.c).  system() is built on it, with
 * syslog-ng's expansion: file("/dev/kmsg" program-override("kernel")
 * flags(kernel) format("linux-kmsg") keep-timestamp(no)).
 */
#include "sluice/logmsg.h"
#include "sluice/logsource.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One /dev/kmsg record header: "PRI,SEQ,USEC,FLAGS[,...];TEXT". */
typedef struct KmsgRecord
{
  int pri;          /* facility * 8 + severity */
  uint64_t seq;
  uint64_t usec;    /* since boot */
  size_t text_off;  /* where TEXT starts in the line */
} KmsgRecord;

/* Parse the header of line (len bytes, no newline).  false when it is not
 * a record header (a continuation line starts with a space). */
bool kmsg_parse_header(const char *line, size_t len, KmsgRecord *rec);

/* Turn msg, whose MESSAGE is a whole record line, into the kernel's
 * message as syslog-ng's linux-kmsg format makes it: PRI, TEXT as MESSAGE,
 * SEQ as MSGID, USEC as .linux.timestamp, and as its time the boot time
 * plus USEC (keep-timestamp(no) puts the reception's back).  A line that
 * is not a record (rec NULL) keeps its text, as kern.notice (syslog-ng
 * makes a parse-error message of it). */
void kmsg_msg_apply(LogMsg *msg, const KmsgRecord *rec);

/* Add a continuation line (" KEY=VALUE") to msg as ".linux.KEY". */
void kmsg_msg_add_dict(LogMsg *msg, const char *line, size_t len);

/* The reader of path, the kernel's log (a character device, or a FIFO
 * standing in for one in tests), for the file() call with the source
 * options o (resolved here).  Its start opens path and reads it on a
 * worker, false with *error (g_free).  NULL with *err when the options
 * cannot be resolved. */
LogSourceDriver *kmsg_source_new(const CfgNode *call, const LogDriverContext *ctx, const char *path,
                                 const LogSourceOptions *o, CfgError *err);

#endif
