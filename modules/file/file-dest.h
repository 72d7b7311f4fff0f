/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The file module's shared internals: file(), pipe() and stdout() are one
 * destination type (FileDest) with a kind.  Split over:
 *
 *   file-options.c  option tables, defaults from options {}, named
 *                   templates, owner/group names: the FileDest is built
 *                   complete at configuration time, or refused;
 *   file-open.c     turning an expanded path into an open descriptor:
 *                   the '..' check, create-dirs, ownership, permissions,
 *                   mkfifo for pipe();
 *   file-writer.c   the LogWriterOps run on the destination's own thread:
 *                   the open-file table, one writev per file per batch,
 *                   partial writes, time-reap, reopen.
 *
 * Everything in a FileDest after configuration belongs to its writer
 * thread (start() runs before that thread exists), so nothing here locks.
 */
#ifndef SLUICE_FILE_DEST_H
#define SLUICE_FILE_DEST_H

#include "file-perm.h"

#include "sluice/driver.h"
#include "sluice/template.h"

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

typedef enum FileKind
{
  FILE_KIND_FILE,
  FILE_KIND_PIPE,
  FILE_KIND_STDOUT,
  FILE_KIND_PROGRAM, /* program("command"): a child's stdin (program.c) */
} FileKind;

/* What the option tables write (offsets point here).  Fields syslog-ng
 * takes from options {} when the driver does not set them are copied from
 * the global options after the table is applied. */
typedef struct FileDestOptions
{
  char *template_text;   /* template(): text or the name of a template {} */
  bool template_escape;
  bool create_dirs;
  char *owner, *group;   /* NULL: the global one; "": leave alone */
  int64_t perm;          /* -2: the global one; -1: leave as created */
  char *dir_owner, *dir_group;
  int64_t dir_perm;
  int64_t time_reap;     /* -1: the global one; 0: never */
  int64_t flush_lines;   /* 0: the global one */
  bool fsync;
  int64_t log_fifo_size; /* 0: the global one */
  int64_t time_reopen;   /* 0: the global one */
  int64_t throttle;      /* throttle(): messages a second, 0: no limit */
  int64_t suppress;      /* suppress(): seconds to hold repeats back, 0: off */
  int ts_format;         /* CfgTsFormat */
  int on_error;          /* CfgOnError */
  int64_t frac_digits;
  char *send_time_zone;  /* also set by time-zone() */
  char *local_time_zone; /* the zone of date macros in the path */
  int64_t overwrite_if_older; /* seconds; 0: never truncate */
  uint32_t flags;        /* FILE_FLAG_* */
  char *symlink_as;      /* a symlink kept pointing at the file last opened */
  bool keep_alive;       /* program(): the child lives on across a reload */
  bool inherit_environment; /* program(): the daemon's environment, else none */
  char *persist_name;    /* program(): the reload handover's key */
  char *filename;        /* example-destination(): the file's path */
} FileDestOptions;

/* flags(): the writer flags of syslog-ng 3.38 that Sluice has */
enum
{
  FILE_FLAG_NO_MULTI_LINE = 1 << 0, /* CR and LF inside a line become spaces */
};

typedef struct OpenFile
{
  char *path;            /* owned; also the table's key */
  int fd;                /* -1 while closed */
  int64_t last_used;     /* CLOCK_MONOTONIC seconds */
  GArray *lines;         /* per batch: indices into FileDest.lines */
  GString *body;         /* per batch: those lines, formatted one after the other */
  guint lines_room;      /* what lines has room for (file-writer.c: _push) */
} OpenFile;

/* One formatted line of the batch being written. */
typedef struct FileLine
{
  OpenFile *file;        /* NULL: dropped (spurious path) */
  size_t offset, len;    /* in file->body */
  size_t done;           /* bytes of it already written */
  bool rest;             /* it is the rest of a line an earlier try wrote in part */
  bool local;            /* its message is local: it took a sequence number */
  uint32_t seq;          /* that number ($SEQNUM) */
} FileLine;

typedef struct FileDest
{
  LogDestDriver super;
  FileKind kind;
  bool example;               /* example-destination(): a file() whose lines are "thread_id=N message=MSG" */
  FileDestOptions o;
  char *name;                 /* for internal log lines: the statement's name */
  LogTemplate *path;          /* NULL for stdout() */
  bool path_is_literal;       /* no macros: never reaped */
  LogTemplate *tmpl;          /* NULL: syslog-ng's file line */
  LogTemplateOptions topts;   /* the lines' ts-format, zone, escape */
  LogTemplateOptions popts;   /* the path's: the same without zone or escape */
  FilePerm file_perm, dir_perm;
  int64_t time_reap;

  /* writer thread state */
  GHashTable *files;          /* path -> OpenFile* */
  LogTemplateKeys *by_key;    /* a path with macros: its key (file-writer.c:
                               * _file_by_key) -> OpenFile* of files, emptied
                               * whenever files loses an entry */
  OpenFile *last;             /* where the previous message went: a one-entry
                               * cache in front of files (NULL whenever an
                               * entry may have been removed) */
  GString *path_buf;
  GArray *lines;              /* FileLine, this batch */
  guint lines_room;           /* what lines has room for (file-writer.c: _push) */
  GPtrArray *order;           /* OpenFile* in order of first use this batch */
  GArray *iov;                /* struct iovec */
  guint iov_room;             /* what iov has room for (file-writer.c: _push) */
  size_t *ahead;              /* what became of items not yet reported (file-writer.c: AHEAD_*) */
  size_t *rest_off, *rest_len; /* an AHEAD_REST item's unwritten bytes in rest */
  size_t ahead_n, ahead_cap;
  GString *rest, *rest_next;
  const LogMsg **ahead_msgs;  /* the message of each entry (compared, never read) */
  uint32_t seq;               /* local messages written: $SEQNUM, as in syslog-ng 3.38 */
  uint64_t dropped;           /* messages refused for a spurious path */
  bool sigpipe_blocked;       /* SIGPIPE blocked on the writer thread */

  /* program(): the running child (started at start on the main thread,
   * then the writer thread's).  child_fd is the pipe to its stdin; the
   * open-file table's one entry only borrows it. */
  char *command;
  pid_t child_pid;            /* 0: none running */
  int child_fd;
  int64_t restart_at_ms;      /* CLOCK_MONOTONIC: no new child before this */
  bool child_given_up;        /* exit 127: the command does not exist */
  /* the last bytes written to the child (at least its pipe's capacity),
   * so that what a dead child never read can go to the next one */
  char *sent;
  size_t sent_cap, sent_len, sent_end; /* ring: sent_end is one past the newest byte */
  GString *resend;            /* bytes the dead child did not read: the next one gets them first */
} FileDest;

/* file-options.c: the module's factories. */
extern const LogDriverFactory file_dest_factory;
extern const LogDriverFactory pipe_dest_factory;
extern const LogDriverFactory stdout_dest_factory;
extern const LogDriverFactory example_dest_factory;
extern const LogDriverFactory program_dest_factory;

/* file-open.c */

/* Open path for appending as d's kind needs (creating directories, the
 * FIFO, setting owner and mode).  Returns the descriptor or a negative
 * errno; logs what went wrong. */
int file_dest_open(FileDest *d, const char *path);

/* program.c: the child of program(), for the writer (file-writer.c) */
bool program_dest_start(FileDest *d, char **error); /* main thread */
int program_dest_open(FileDest *d);       /* the pipe, starting a child if it may */
void program_dest_broken(FileDest *d);    /* a write failed: stop the child */
void program_dest_sent(FileDest *d, const struct iovec *iov, int n, size_t bytes); /* bytes went out */
bool program_dest_housekeep(FileDest *d); /* false: the child is gone */
/* Hand the child over (a reload with keep-alive(yes)) or stop it;
 * partial: a line was written only in part (then it is not kept). */
void program_dest_finish(FileDest *d, bool partial);
void program_dest_free(FileDest *d);

/* file-writer.c */
extern const LogWriterOps file_writer_ops;


/* Release the writer state (the open files are closed by finish). */
void file_writer_free(FileDest *d);

#endif
