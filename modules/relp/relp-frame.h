/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_RELP_FRAME_H
#define SLUICE_RELP_FRAME_H

/*
 * RELP frames (Rainer Gerhards, "RELP - the Reliable Event Logging
 * Protocol", as librelp speaks it):
 *
 *   TXNR SP COMMAND SP DATALEN [SP DATA] LF
 *
 * TXNR is 1..999999999 (0 only for serverclose, which no one answers) and
 * wraps to 1; COMMAND is 1..32 letters; DATALEN is the byte count of DATA
 * (at most 9 digits); a frame without data ends right after DATALEN ("0"),
 * with the trailer LF, or with "SP LF".  The answer to a command is an
 * "rsp" frame with the command's TXNR whose data is "CODE SP TEXT [LF
 * offers]"; 200 means done.
 *
 * The parser works on whatever bytes arrived: it says "more" for a frame
 * cut short and rejects garbage as soon as a byte cannot belong to a
 * header, so a peer that sends junk is closed at once (the server answers
 * it with serverclose) instead of being waited for.
 */

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RELP_TXNR_MAX 999999999u
#define RELP_DATALEN_MAX 999999999u
#define RELP_COMMAND_MAX 32

typedef enum RelpCommand
{
  RELP_CMD_OTHER = 0, /* a command this side does not know */
  RELP_CMD_OPEN,
  RELP_CMD_SYSLOG,
  RELP_CMD_CLOSE,
  RELP_CMD_RSP,
  RELP_CMD_SERVERCLOSE,
} RelpCommand;

typedef struct RelpFrame
{
  uint32_t txnr;
  RelpCommand cmd;
  const char *command; /* into the parsed buffer, command_len bytes */
  size_t command_len;
  const char *data;    /* into the parsed buffer, data_len bytes */
  size_t data_len;
} RelpFrame;

typedef enum RelpParseStatus
{
  RELP_PARSE_ERROR = -1, /* not RELP: *error says why (static text) */
  RELP_PARSE_MORE = 0,   /* a frame has begun; its rest has not arrived */
  RELP_PARSE_FRAME = 1,  /* *frame is the first frame; it took *used bytes */
} RelpParseStatus;

/* Parse the frame at the start of buf[0..len).  Data longer than max_data
 * bytes is an error.  *frame points into buf.  Never reads past len. */
RelpParseStatus relp_frame_parse(const char *buf, size_t len, size_t max_data, RelpFrame *frame, size_t *used,
                                 const char **error);

/* Append one frame to out. */
void relp_frame_append(GString *out, uint32_t txnr, const char *command, const char *data, size_t len);

/* Append "TXNR rsp 6 200 OK\n", the answer to a message taken (as
 * relp_frame_append would, in one append: one runs per message). */
void relp_frame_append_ok(GString *out, uint32_t txnr);

/* A frame whose data is formatted straight into out, without a copy:
 * relp_frame_begin() appends "TXNR COMMAND " and room for a DATALEN of
 * digits digits (a guess: the last frame's); the caller appends the data;
 * relp_frame_end() writes DATALEN and the trailer, moving the data only
 * when the guess was wrong.  Returns the digits DATALEN took (the next
 * guess). */
typedef struct RelpFrameMark
{
  size_t len_at;   /* where DATALEN goes */
  size_t data_at;  /* where the data starts */
  int digits;      /* the room left for DATALEN */
} RelpFrameMark;

void relp_frame_begin(GString *out, uint32_t txnr, const char *command, int digits, RelpFrameMark *mark);
int relp_frame_end(GString *out, const RelpFrameMark *mark);

/* The TXNR after txnr (999999999 wraps to 1). */
static inline uint32_t
relp_txnr_next(uint32_t txnr)
{
  return txnr >= RELP_TXNR_MAX ? 1 : txnr + 1;
}

/* The response code of an rsp frame's data ("200 OK..." gives 200), or -1
 * when it does not start with three digits and a space, LF or its end. */
int relp_rsp_code(const char *data, size_t len);

/* True when the offers (lines "name=value" of an open frame or of its
 * rsp, after the "200 OK" line for an rsp) name offer with value among
 * its comma-separated values ("commands", "syslog"). */
bool relp_offers_have(const char *data, size_t len, const char *offer, const char *value);

/* The value of offer in the offers (NULL when absent), copied (g_free). */
char *relp_offers_get(const char *data, size_t len, const char *offer);

#endif
