/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_STRREPR_H
#define SLUICE_STRREPR_H

#include <glib.h>

/* Append str[0..len) as syslog-ng 3.38's str-repr writes a word in a list
 * (kv-parser's stray words, json-parser's arrays, $(list-*)): as it is when
 * it holds no space, control escape, backslash or byte of forbidden (may
 * be NULL); else in ' quotes when it holds a " and no ', else in " quotes,
 * with \b \f \n \r \t \\, \xNN for other control bytes and bytes
 * that are not UTF-8, and \" when it holds both quotes.  "" for an empty
 * word. */
void str_append_repr(GString *out, const char *str, size_t len, const char *forbidden);

/* Append str[0..len) with \b \f \n \r \t \\, \xNN for other bytes
 * below 0x20 and bytes that are not UTF-8, and a backslash before each
 * byte of unsafe (may be NULL). */
void str_append_escaped(GString *out, const char *str, size_t len, const char *unsafe);

#endif
