/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_FRAMING_H
#define SLUICE_FRAMING_H

/*
 * Framing: cutting a byte stream (or a series of datagrams) into syslog
 * messages.  One LogFramer per connection, file or socket, owned by the
 * thread that reads it.
 *
 * Zero copy.  The framer owns its buffer; the reader reads straight into it
 * (log_framer_read_space + log_framer_commit) and log_framer_next hands out
 * each complete message as a view into that buffer.  The buffer is
 * allocated once, at init, with room for log_msg_size bytes of pending
 * message plus LOG_FRAMER_READ_SIZE bytes of fresh data, and never grows:
 * nothing is allocated or copied per message (except the one memmove of a
 * partial message to the front of the buffer before each read).
 *
 * Modes, as syslog-ng 3.38 frames them (the unit tests record its answers):
 *
 *  - LF (transport(tcp), files): a message ends at '\n' or NUL; '\r' bytes
 *    before the end are dropped (so CRLF works); empty lines give nothing.
 *    A partial line at end of stream is a message.
 *  - OCTET_COUNTED (RFC 6587, transport(framed), syslog(transport(tcp))):
 *    "LEN SP MSG", LEN of 1 to 10 decimal digits (leading zeros allowed);
 *    a zero-length frame gives nothing.  Anything else where a LEN is
 *    expected is a framing error and the stream must be closed.  A partial
 *    frame at end of stream is a framing error, not a message.
 *  - AUTO (syslog-ng 4's transport(auto); 3.38 has no such transport):
 *    decided once, by the first byte of the stream: a digit means
 *    octet-counted, anything else LF.
 *  - DGRAM: one datagram is one message; trailing '\n' and NUL bytes are
 *    dropped (not '\r'), and a zero-length datagram gives nothing.
 *  - LINES (for multi-line readers, sluice/multiline.h; no syslog-ng
 *    transport): LF's lines as they are, for a joiner that needs what LF
 *    drops: '\r' bytes are kept, empty lines are handed out (length 0),
 *    and the flags say how each line ended: LOG_FRAMER_NUL_END for a NUL
 *    instead of '\n', LOG_FRAMER_NO_END for the partial line at end of
 *    stream or from log_framer_take_partial().  A line longer than
 *    log_msg_size is cut there ('\r' bytes count) and the rest skipped.
 *  - RECORD (pad-size() of file(), wildcard-file() and pipe(); syslog-ng's
 *    "padded record server"): the stream is records of exactly record_size
 *    bytes (1 ≤ record_size ≤ log_msg_size, so nothing is ever truncated);
 *    a record's message is its bytes up to the first '\n' or NUL, the
 *    whole record when it holds neither ('\r' is kept).  A record whose
 *    message is empty gives nothing, but its bytes are consumed all the
 *    same: each record moves the position by record_size, padding
 *    included.
 *
 * Over-long messages are truncated to log_msg_size, flagged
 * LOG_FRAMER_TRUNCATED and counted; the rest of that message is discarded
 * and framing continues with the next one.  Departures from syslog-ng 3.38,
 * each safer than what it does:
 *  - LF: syslog-ng splits an over-long line into log_msg_size pieces and
 *    passes each piece on as a message of its own (garbage headers); we
 *    truncate, as its trim-large-messages(yes) does for framed input.
 *  - OCTET_COUNTED: syslog-ng closes the connection on a frame longer than
 *    log_msg_size; we truncate and skip the rest of the frame (its
 *    trim-large-messages(yes) behaviour).  A LEN above LOG_FRAMER_MAX_FRAME
 *    is still a framing error: no sane sender means it.
 *  - OCTET_COUNTED: '\n', '\r' and NUL between frames are skipped; syslog-ng
 *    closes the connection, losing what follows, although senders that end
 *    every frame with '\n' exist.
 *  - AUTO: when a stream that starts with a digit does not start with a
 *    valid frame header ("2024-01-01 ..."), it is read as LF instead of
 *    being closed.
 *  - RECORD: syslog-ng fails a read that ends inside a record (EIO); we
 *    wait for the rest of it (a file may still be growing, as for a
 *    partial line), and at end of stream the partial record is a message,
 *    cut at '\n' or NUL as a whole one is.
 *
 * Every function is for the owning thread only.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bytes a stream reader is offered per read (docs/architecture.md, "Data flow": ≥64 KiB). */
#define LOG_FRAMER_READ_SIZE 65536
/* log-msg-size's default, as in syslog-ng. */
#define LOG_FRAMER_DEFAULT_MSG_SIZE 65536
/* RFC 6587 LEN: at most this many digits (syslog-ng's limit) ... */
#define LOG_FRAMER_MAX_LEN_DIGITS 10
/* ... and at most this value; larger is a framing error, not a truncation. */
#define LOG_FRAMER_MAX_FRAME (1u << 30)

typedef enum LogFramingMode
{
  LOG_FRAMING_LF,
  LOG_FRAMING_OCTET_COUNTED,
  LOG_FRAMING_AUTO,
  LOG_FRAMING_DGRAM,
  LOG_FRAMING_LINES,
  LOG_FRAMING_RECORD, /* log_framer_init_record() only */
  LOG_FRAMING_TEXT_WITH_NULS, /* LF where a NUL is part of the line (init only: the framer runs as LF) */
} LogFramingMode;

typedef enum LogFramerStatus
{
  LOG_FRAMER_NEED_MORE, /* no complete message buffered: read more */
  LOG_FRAMER_MESSAGE,   /* *msg, *len, *flags hold the next message */
  LOG_FRAMER_ERROR,     /* framing error (counted): close the stream */
  LOG_FRAMER_EOF,       /* after log_framer_eof(): everything has been handed out */
} LogFramerStatus;

/* Message flags returned by log_framer_next. */
enum
{
  LOG_FRAMER_TRUNCATED = 1u << 0, /* the message was longer than log_msg_size */
  LOG_FRAMER_NUL_END = 1u << 1,   /* LINES: the line ended at a NUL, not '\n' */
  LOG_FRAMER_NO_END = 1u << 2,    /* LINES: the line has no end (end of stream, take_partial) */
};

/* Per-framer counters; the owner sums them into its statistics. */
typedef struct LogFramerStats
{
  uint64_t messages;       /* messages handed out */
  uint64_t truncated;      /* of which truncated */
  uint64_t framing_errors; /* framing errors (each ends the stream) */
} LogFramerStats;

typedef struct LogFramer
{
  LogFramingMode mode;   /* as configured */
  LogFramingMode active; /* AUTO until decided, then LF or OCTET_COUNTED */
  size_t log_msg_size;
  size_t record_size;    /* RECORD: the bytes of one record; else 0 */
  char *buf;
  size_t cap;
  size_t pos;  /* first byte not yet consumed */
  size_t scan; /* LF: [pos, scan) holds no line end */
  size_t end;  /* end of the data read so far */
  uint64_t frame_left; /* OCTET_COUNTED: bytes left of the frame body / to skip */
  uint8_t state;       /* mode-specific parser state */
  bool tentative;      /* AUTO chose octet-counting but saw no valid header yet */
  bool eof;
  bool nul_is_data;    /* LF: only '\n' ends a line (transport(text-with-nuls)) */
  bool dgram_ready;    /* DGRAM: a committed datagram not yet handed out */
  const char *error;   /* why the stream failed, NULL while it is fine */
  LogFramerStats stats;
} LogFramer;

/* Prepare *f for a new stream (or datagram socket) in the given mode.
 * log_msg_size (≥1; 0 means LOG_FRAMER_DEFAULT_MSG_SIZE) is the longest
 * message handed out.  Allocates the buffer: returns false (and leaves
 * nothing to free) only when that fails or log_msg_size is absurd (above
 * LOG_FRAMER_MAX_FRAME).  Release with log_framer_deinit. */
bool log_framer_init(LogFramer *f, LogFramingMode mode, size_t log_msg_size);

/* log_framer_init in RECORD mode, for records of record_size bytes.
 * Returns false (nothing to free) also when record_size is 0 or larger
 * than log_msg_size (after its default): a record must fit a message, as
 * syslog-ng requires of pad-size() and log-msg-size(). */
bool log_framer_init_record(LogFramer *f, size_t record_size, size_t log_msg_size);

/* Free the buffer.  *f may be initialised again afterwards. */
void log_framer_deinit(LogFramer *f);

/* Where the next read should go: *ptr, and *avail bytes of room (≥
 * LOG_FRAMER_READ_SIZE once every message has been fetched with
 * log_framer_next; 0 after an error or EOF).  Moves a partial message to
 * the front of the buffer, so views from log_framer_next become invalid.
 * In DGRAM mode the whole buffer is offered for one datagram: read one
 * datagram and commit it before asking again. */
void log_framer_read_space(LogFramer *f, char **ptr, size_t *avail);

/* n bytes (≤ the last *avail) were read into the space returned by
 * log_framer_read_space.  In DGRAM mode they are one datagram. */
void log_framer_commit(LogFramer *f, size_t n);

/* Copying convenience for tests and fuzzing: append up to len bytes of data
 * (one datagram in DGRAM mode, truncated to the buffer).  Returns how many
 * bytes were taken; fetch messages and call again with the rest when that
 * is fewer than len.  Invalidates views, like log_framer_read_space. */
size_t log_framer_feed(LogFramer *f, const void *data, size_t len);

/* The stream ended: a partial line or record becomes a message, a partial
 * frame a framing error.  log_framer_next then drains what is left and returns
 * LOG_FRAMER_EOF (or LOG_FRAMER_ERROR). */
void log_framer_eof(LogFramer *f);

/* The next message.  On LOG_FRAMER_MESSAGE, *msg points at *len bytes
 * (1 ≤ *len ≤ log_msg_size, except that a DGRAM of only '\n'/NUL gives an
 * empty message, as in syslog-ng, and LINES gives empty lines; in RECORD
 * mode *len ≤ record_size) inside the framer's buffer, valid until
 * the next log_framer_read_space, log_framer_feed or log_framer_deinit; the
 * terminator is not included, and *flags holds LOG_FRAMER_* flags.
 * LOG_FRAMER_ERROR is sticky: the stream is broken and the caller should
 * log log_framer_error_reason() and close it.  Messages framed before the
 * error are still handed out first. */
LogFramerStatus log_framer_next(LogFramer *f, const char **msg, size_t *len, uint32_t *flags);

/* DGRAM mode, for a datagram read outside the framer's buffer (a batch
 * of recvmmsg(2)): len bytes of data as read, cut when the datagram was
 * longer than the space it was read into.  Frames it as log_framer_next
 * would (a cut datagram is truncated), with the view into data.  Returns
 * LOG_FRAMER_MESSAGE, or LOG_FRAMER_NEED_MORE for an empty datagram. */
LogFramerStatus log_framer_dgram(LogFramer *f, const char *data, size_t len, bool cut, const char **msg,
                                 size_t *msg_len, uint32_t *flags);

/* LINES mode: hand out the partial line buffered after the last complete
 * one as a line (LOG_FRAMER_NO_END) and forget it, as if it had ended;
 * what comes next starts a new line.  Returns false when there is none
 * (also when it is the rest of a line already cut at log_msg_size, which
 * is dropped).  A multi-line reader's timeout uses this: syslog-ng 3.38
 * sends what it holds, partial line included, when multi-line-timeout()
 * passes.  The view is valid as for log_framer_next. */
bool log_framer_take_partial(LogFramer *f, const char **msg, size_t *len, uint32_t *flags);

/* Why the stream failed (a static string), or NULL. */
const char *log_framer_error_reason(const LogFramer *f);

#endif
