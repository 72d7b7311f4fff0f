/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_PARSER_INPUT_H
#define SLUICE_PARSER_INPUT_H

/*
 * What a parser parses: its template() option, $MESSAGE by default, as
 * syslog-ng's parsers take it.  template(NAME) names a template {} block
 * when there is one, else it is template text (both checked against
 * syslog-ng 3.38).  The default and a plain $MESSAGE / $MSG read the value
 * in place; anything else is formatted into a per-thread buffer.
 */

#include "sluice/driver.h"
#include "sluice/template.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct ParserInput
{
  LogTemplate *tmpl;        /* NULL: handle is read in place */
  NVHandle handle;
  LogTemplateOptions topts; /* template-escape() of a named template */
} ParserInput;

/* Set up in from text (the template() option, NULL for $MESSAGE) of call.
 * Returns false with *err at the template() option when the template does
 * not compile. */
bool parser_input_init(ParserInput *in, const char *text, const CfgNode *call, const LogDriverContext *ctx,
                       CfgError *err);

/* The input of msg; *len gets its length.  The bytes live until msg
 * changes or the next parser_input_get on this thread; they are not NUL
 * terminated. */
const char *parser_input_get(const ParserInput *in, const LogMsg *msg, size_t *len);

void parser_input_clear(ParserInput *in);


#endif
