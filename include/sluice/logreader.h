/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_LOGREADER_H
#define SLUICE_LOGREADER_H

/*
 * LogReader: reads one stream or datagram socket on the I/O worker that owns
 * it, frames and parses what it reads, and hands each message on.
 *
 * Everything here runs on the owning worker's thread (docs/architecture.md, "Threads"):
 * log_reader_start() and log_reader_free() must be called there (post them
 * as worker jobs).  One read gets up to LOG_FRAMER_READ_SIZE bytes; the
 * reception time is read once per read, not per message.  After each read
 * the batch_done callback lets the owner push the batch it collected to the
 * destination queues with one lock each.
 *
 * Flow control: with a window, every message takes a slot
 * (log_msg_ack_begin) and the reader stops polling its fd while the window
 * is empty; the window's wakeup (on a writer's thread) posts an event back
 * to the worker, which starts reading again.  TCP then pushes back on the
 * sender.
 *
 * Congestion (sluice/logqueue.h): when a read's messages leave a
 * destination queue half full, the reader stops polling for a millisecond
 * so the writer catches up, instead of reading on into drops.
 *
 * Multi-line (sluice/multiline.h): with opts.multi_line on a stream whose
 * framing is LF, the reader frames in LOG_FRAMING_LINES and joins lines
 * into messages; a joined message's reception time is its first line's.
 * The open message goes out when a line ends it, at the end of the
 * stream (or a read error), and when multi-line-timeout() seconds pass
 * with nothing read (an iv_timer on the reader's worker, registered only
 * while a message or a partial line is held); it is lost when the reader
 * is freed first, as in syslog-ng.  Without multi_line the reader does no
 * per-line work for it (one test per read).  The framer stats then count
 * lines, not messages.
 *
 * Encoding (sluice/charset.h): with opts.encoding each message, after
 * framing (and joining), is converted to UTF-8 by the reader's own
 * converter into a buffer the reader keeps, then parsed.  Framing, the
 * framer's counters and the file offsets stay in raw bytes.  Without it
 * the reader does no per-message work for it (one test).
 *
 * Records (opts.record_size, pad-size()): the stream is framed in
 * LOG_FRAMING_RECORD; log_reader_offset() is then past the whole record,
 * its padding included, and a partial record waits for its rest like a
 * partial line (log_reader_flush_partial sends it as it is).
 */

#include "sluice/framing.h"
#include "sluice/logmsg.h"
#include "sluice/logqueue.h"
#include "sluice/msg-format.h"
#include "sluice/multiline.h"
#include "sluice/transport.h"

#include <stdbool.h>
#include <sys/socket.h>
#include <stdint.h>

typedef struct LogReader LogReader;

typedef struct LogReaderOptions
{
  LogFramingMode framing;
  size_t log_msg_size;    /* 0 = LOG_FRAMER_DEFAULT_MSG_SIZE */
  size_t record_size;     /* pad-size(): > 0 frames a stream in records of
                           * this many bytes (LOG_FRAMING_RECORD, no
                           * multi-line), whatever framing says; at most
                           * log_msg_size (the source's config check) */
  MsgFormatOptions parse; /* header parsing */
  int iw_size;            /* log-iw-size; 0 = no flow control */
  int fetch_limit;        /* log-fetch-limit: reads per wakeup before yielding */
  const char *transport;  /* TRANSPORT value, e.g. "rfc3164+tcp"; static */
  const char *source;     /* SOURCE value (the source's name): kept for the life of the process (interned, as
                           * log_source_begin does once a source, or static), as messages refer to it */
  LogMultiLineOptions *multi_line; /* NULL: one message per line; each reader takes a reference */
  bool pollable;          /* poll the fd although fstat calls it a regular file
                           * (/proc/kmsg: its reads wait for the kernel) */
  const char *encoding;   /* encoding(): convert each message from this character
                           * set to UTF-8 (accepted by log_charset_check, which
                           * says whether there is anything to convert); NULL:
                           * none; must outlive the call to log_reader_new */
  bool passcred;          /* a unix socket with SO_PASSCRED on: read with recvmsg
                           * and keep the sender's credentials of each read
                           * (log_reader_sender_cred) */
} LogReaderOptions;

typedef struct LogReaderCallbacks
{
  /* A parsed message; the callee takes the reference. */
  void (*deliver)(LogMsg *msg, void *user_data);
  /* The end of one read's worth of messages. */
  void (*batch_done)(void *user_data);
  /* The stream ended (error is 0 at end of file, else a positive errno or
   * -1 for a framing error, described by reason).  The reader has stopped;
   * the callee frees it (log_reader_free) from here or later. */
  void (*closed)(LogReader *reader, int error, const char *reason, void *user_data);
  /* Optional, for a file that grows (file()): the reader read to the end
   * of what the file holds and stopped; log_reader_resume() reads on
   * (the part of a last line without its end waits for the rest).  NULL:
   * the end of a file is the end of the stream (closed). */
  void (*eof)(void *user_data);
} LogReaderCallbacks;

/* Defaults as syslog-ng has them for a network source. */
void log_reader_options_defaults(LogReaderOptions *opts);

/* A reader of fd (non-blocking; the reader closes it when freed) whose
 * messages come from peer (may be NULL).  opts and cb are copied; cb and
 * user_data stay the caller's.  Returns NULL (fd left open) when the
 * framer's buffer or the converter of opts.encoding cannot be had (or
 * opts->record_size exceeds log_msg_size). */
LogReader *log_reader_new(int fd, bool dgram, const LogReaderOptions *opts, const LogReaderCallbacks *cb,
                          void *user_data, const LogAddr *peer);

/* Start polling on the calling worker's loop. */
void log_reader_start(LogReader *r);

/* Stop, close the fd and free.  Messages it handed on are unaffected. */
void log_reader_free(LogReader *r);

/* Stop r and free it without closing its fd: returns the fd, and moves
 * the framer (the part of a message read so far, the framing state) into
 * *framer for another reader to adopt (sluice/handover.h).  On r's worker.
 * An open multi-line message is sent first (deliver, batch_done): the
 * joiner does not move. */
int log_reader_detach(LogReader *r, LogFramer *framer);

/* Before log_reader_start(): read on from where another reader's framer
 * stopped (its mode and buffer win over opts, except that when one frames
 * records and the other does not, or records of another size, as after a
 * reload that changed pad-size(), the bytes it holds are framed anew by
 * r's own framer).  r takes *framer. */
void log_reader_adopt_framer(LogReader *r, LogFramer *framer);

/* Before log_reader_start(), on a stream reader: read through t (TLS)
 * instead of read(2); r takes t and frees it with itself (the fd stays
 * r's to close). */
void log_reader_set_transport(LogReader *r, LogTransport *t);

/* The transport of r (NULL without one), which the caller takes: before
 * log_reader_detach() when the connection moves on (a reload). */
LogTransport *log_reader_take_transport(LogReader *r);

/* True while a multi-line reader holds part of a message (freeing or
 * detaching it would send that part as a message of its own). */
bool log_reader_holding(const LogReader *r);

/* After an eof callback: read on (on r's worker). */
void log_reader_resume(LogReader *r);

/* Before log_reader_start() and after log_reader_adopt_framer(): the
 * fd's position in its file, where log_reader_offset() counts from. */
void log_reader_set_offset(LogReader *r, uint64_t offset);

/* The file position of the end of what was read so far. */
uint64_t log_reader_file_offset(const LogReader *r);

/* The fd r reads (still r's to close). */
int log_reader_fd(const LogReader *r);

/* Inside the deliver callback: the position in the file just past the
 * message being delivered (its line end included). */
uint64_t log_reader_offset(const LogReader *r);

/* The file ended for good (it was rotated away and read to its end): a
 * last line without its end goes out as it is (on r's worker). */
void log_reader_flush_partial(LogReader *r);

/* Before log_reader_start(), with log-iw-size given: acked(msg, data)
 * runs for each message once every flow-controlled destination wrote it,
 * even after the reader is gone (sluice/logqueue.h,
 * log_window_set_acked_owned); data_free(data) when the last is acked. */
void log_reader_set_acked(LogReader *r, LogWindowAckedFunc acked, void *data, void (*data_free)(void *data));

/* Counters of this reader's framer. */
const LogFramerStats *log_reader_get_stats(const LogReader *r);

/* With opts.passcred: the credentials (pid, uid, gid) the kernel gave with
 * the read whose messages are being delivered now (call from the deliver
 * callback); NULL when that read brought none. */
const struct ucred *log_reader_sender_cred(const LogReader *r);

#endif
