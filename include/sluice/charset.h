/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_CHARSET_H
#define SLUICE_CHARSET_H

/*
 * A source's encoding() (syslog-ng's option of the same name): messages
 * read in another character set are converted to UTF-8 before they are
 * parsed, one message at a time, with glib's iconv (GIConv).
 *
 * The conversion comes after framing, so framing and the file positions
 * a file() source persists stay in raw bytes.  That is only right for a
 * character set in which a newline is the byte 0x0A and that byte is
 * never part of another character: log_charset_check() accepts only
 * those whose ASCII characters (newline, space, letters, digits, the
 * syslog header's punctuation) are their own single bytes, and refuses
 * UTF-16, UTF-32, UCS-2, EBCDIC and the like by name.
 *
 * Bytes that are not a character of the source's set become U+FFFD, one
 * per byte, and the conversion goes on; a multi-byte character cut short
 * by the end of the message likewise.  (syslog-ng 3.38 skips such bytes:
 * Sluice keeps a trace of them, so nothing vanishes silently.)
 *
 * Threads: log_charset_check() anywhere (configuration time); a
 * LogCharsetConv belongs to one thread at a time (an iconv descriptor
 * is not thread-safe): each LogReader, each RELP connection has its own.
 */

#include <stdbool.h>
#include <stddef.h>

/* Whether name can be a source's encoding().  True with *convert false
 * when name is UTF-8 in any spelling iconv knows ("utf8", "UTF-8": there
 * is nothing to convert), true with *convert true when messages need
 * converting; false with *error (g_free) when name is unknown or not
 * ASCII-compatible (see above).  The error names the encoding. */
bool log_charset_check(const char *name, bool *convert, char **error);

typedef struct LogCharsetConv LogCharsetConv;

/* A converter from name (accepted by log_charset_check with *convert
 * true) to UTF-8; NULL when iconv cannot open one now. */
LogCharsetConv *log_charset_conv_new(const char *name);

void log_charset_conv_free(LogCharsetConv *c);

/* data[0..len) converted to UTF-8 into c's buffer (valid until the next
 * call), its length in *out_len.  The converter starts each message in
 * its initial state.  The buffer grows as a message needs: to 4 * len + 4
 * bytes (every input byte gives at most 4 bytes of UTF-8, U+FFFD 3), at
 * most twice that for an odd character set; what would not fit even
 * then is cut. */
const char *log_charset_convert(LogCharsetConv *c, const char *data, size_t len, size_t *out_len);

#endif
