/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The built-in output formats and a set of templates against the bytes
 * syslog-ng 3.38 wrote for the same input lines.
 *
 * The lines and destinations are in tests/oracle/template_cases.py;
 * tests/oracle/template-oracle.py ran them through Debian's syslog-ng and
 * generated template-corpus.h.  Each message is parsed here the way the
 * oracle's sources received it (see template-test.h) and formatted with
 * the destination's options; the output must match byte for byte.
 */
#include "template-test.h"

typedef enum
{
  DEST_FILE,     /* file() without template(): log_format_file_line */
  DEST_NETWORK,  /* network(): log_format_rfc3164_line */
  DEST_SYSLOG,   /* syslog(): log_format_rfc5424_frame */
  DEST_TEMPLATE, /* file(template(...)): log_template_format */
} DestKind;

typedef struct TemplateCase
{
  const char *name;
  const char *input;
  size_t input_len;
  bool rfc5424;
} TemplateCase;

typedef struct TemplateDest
{
  const char *name;
  DestKind kind;
  const char *template;
  LogTimestampFormat ts_format;
  int frac_digits;
  const char *tz; /* send-time-zone(), NULL for none */
} TemplateDest;

typedef struct TemplateBytes
{
  const char *bytes;
  size_t len;
} TemplateBytes;

#include "template-corpus.h"

#define N_CASES (sizeof(cases) / sizeof(cases[0]))
#define N_DESTS (sizeof(dests) / sizeof(dests[0]))

static void
_format(const TemplateDest *d, const LogTemplate *t, const LogMsg *msg, const LogTemplateOptions *opts, GString *out)
{
  switch (d->kind)
    {
    case DEST_FILE:
      log_format_file_line(msg, opts, out);
      break;
    case DEST_NETWORK:
      log_format_rfc3164_line(msg, opts, out);
      break;
    case DEST_SYSLOG:
      log_format_rfc5424_frame(msg, opts, out);
      break;
    case DEST_TEMPLATE:
      log_template_format(t, msg, opts, out);
      break;
    }
}

static void
check_dest(size_t di)
{
  const TemplateDest *d = &dests[di];
  LogTemplateOptions opts;
  log_template_options_defaults(&opts);
  opts.ts_format = d->ts_format;
  opts.frac_digits = d->frac_digits;
  if (d->tz)
    {
      opts.send_tz = tz_get(d->tz, NULL);
      cr_assert_not_null(opts.send_tz, "zone %s", d->tz);
    }
  LogTemplate *t = NULL;
  if (d->kind == DEST_TEMPLATE)
    {
      char *error = NULL;
      t = log_template_compile(d->template, &error);
      cr_assert_not_null(t, "[%s] does not compile: %s", d->name, error);
    }
  GString *out = g_string_new(NULL);
  for (size_t ci = 0; ci < N_CASES; ci++)
    {
      const TemplateCase *c = &cases[ci];
      LogMsg *msg = test_parse_len(c->input, c->input_len, c->rfc5424);
      g_string_truncate(out, 0);
      /* formatting appends: something already in out must stay */
      g_string_append(out, "keep");
      _format(d, t, msg, &opts, out);
      const TemplateBytes *e = &expected[di][ci];
      cr_expect(out->len == e->len + 4 && memcmp(out->str + 4, e->bytes, e->len) == 0 &&
                  memcmp(out->str, "keep", 4) == 0,
                "[%s / %s]\n   got: %.*s\nexpect: %.*s", d->name, c->name, (int) out->len - 4, out->str + 4,
                (int) e->len, e->bytes);
      log_msg_unref(msg);
    }
  g_string_free(out, TRUE);
  log_template_unref(t);
}

Test(template_corpus, file_lines)
{
  for (size_t i = 0; i < N_DESTS; i++)
    if (dests[i].kind == DEST_FILE)
      check_dest(i);
}

Test(template_corpus, network_lines)
{
  for (size_t i = 0; i < N_DESTS; i++)
    if (dests[i].kind == DEST_NETWORK)
      check_dest(i);
}

Test(template_corpus, syslog_frames)
{
  for (size_t i = 0; i < N_DESTS; i++)
    if (dests[i].kind == DEST_SYSLOG)
      check_dest(i);
}

Test(template_corpus, templates)
{
  for (size_t i = 0; i < N_DESTS; i++)
    if (dests[i].kind == DEST_TEMPLATE)
      check_dest(i);
}

/* every destination of the table is one of the four kinds above */
Test(template_corpus, table_is_complete)
{
  cr_assert_gt(N_DESTS, 10);
  cr_assert_gt(N_CASES, 30);
  for (size_t i = 0; i < N_DESTS; i++)
    cr_assert(dests[i].kind <= DEST_TEMPLATE);
}
