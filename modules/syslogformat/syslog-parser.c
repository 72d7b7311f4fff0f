/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * syslog-parser(flags() template() drop-invalid() time-zone()
 * default-facility() default-severity()): the input (template(), $MESSAGE
 * by default) parsed as a syslog line by the sources' own parsers
 * (sluice/msg-format.h), its fields set on the message.
 *
 * As syslog-ng 3.38 does (checked against it): the PRI and the timestamp
 * are always set (a line without a timestamp gets the reception time), the
 * other fields (HOST, PROGRAM, PID, MSGID, MESSAGE, LEGACY_MSGHDR, SDATA)
 * only when the line carries them, so a line without a hostname keeps the
 * message's HOST; the message's other values and tags stay.
 *
 * An invalid line with drop-invalid(yes) leaves the log path (syslog-ng
 * 3.38 drops only invalid RFC 3164 lines: with flags(syslog-protocol) it
 * lets them through as errors whatever drop-invalid() says).  Without it,
 * syslog-ng replaces the whole message with "Error processing log
 * message: ..."; Sluice keeps the message and marks it as its sources do
 * (msg-format.h): MESSAGE is the input, PRI syslog.err, the timestamp the
 * reception time and the tag message.parse_error.
 *
 * The line is parsed into a message of its own (one from the per-thread
 * cache) and its fields are copied over: the parsers build a message, they
 * do not fill one in.
 */
#include "parser-input.h"
#include "syslogformat.h"

#include "sluice/cfg-options.h"
#include "sluice/msg-format.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>

typedef struct SyslogParserOptions
{
  uint32_t flags;
  char *template_text;
  bool drop_invalid;
  char *time_zone;
  int default_facility;
  int default_severity;
} SyslogParserOptions;

/* flags(): syslog-ng's names (those Sluice's parsers have) and, at the same
 * index, the MF_* bit each sets */
static const char *const flag_names[] = {
  "no-parse", "check-hostname", "syslog-protocol", "assume-utf8", "validate-utf8",
  "no-multi-line", "expect-hostname", "no-hostname", "store-raw-message", "dont-store-legacy-msghdr",
  "no-header", "no-rfc3164-fallback", "store-legacy-msghdr", NULL,
};
static const uint32_t flag_bits[] = {
  MF_NO_PARSE, MF_CHECK_HOSTNAME, MF_SYSLOG_PROTOCOL, MF_ASSUME_UTF8, MF_VALIDATE_UTF8,
  MF_NO_MULTI_LINE, MF_EXPECT_HOSTNAME, MF_NO_HOSTNAME, MF_STORE_RAW_MESSAGE, MF_DONT_STORE_LEGACY_MSGHDR,
  MF_NO_HEADER, MF_NO_RFC3164_FALLBACK,
  0, /* store-legacy-msghdr: what the parser does unless told otherwise */
};
G_STATIC_ASSERT(G_N_ELEMENTS(flag_names) == G_N_ELEMENTS(flag_bits) + 1);

#define OFF(field) offsetof(SyslogParserOptions, field)
static const CfgOption syslog_parser_options[] = {
  { .name = "flags", .type = CFG_OPT_FLAGS, .offset = OFF(flags), .names = flag_names },
  { .name = "template", .type = CFG_OPT_TEMPLATE, .offset = OFF(template_text) },
  { .name = "drop-invalid", .type = CFG_OPT_BOOL, .offset = OFF(drop_invalid), .def_int = 0 },
  { .name = "time-zone", .type = CFG_OPT_STRING, .offset = OFF(time_zone), .check = cfg_check_time_zone },
  { .name = "default-facility", .type = CFG_OPT_ENUM, .offset = OFF(default_facility), .def_int = 1,
    .names = cfg_facility_names },
  { .name = "default-severity", .type = CFG_OPT_ENUM, .offset = OFF(default_severity), .def_int = 5,
    .names = cfg_level_names },
  { .name = NULL },
};

typedef struct SyslogParser
{
  LogProcessor super;
  ParserInput input;
  MsgFormatOptions parse;
  bool drop_invalid;
  LogTagId parse_error_tag;
} SyslogParser;

static void
_syslog_parser_free(LogProcessor *p)
{
  SyslogParser *self = (SyslogParser *) p;
  parser_input_clear(&self->input);
  free(self);
}

static bool
_copy_nv(NVHandle handle, const char *name, const char *value, size_t value_len, void *user_data)
{
  log_msg_set_value(user_data, handle, value, (ssize_t) value_len);
  return true;
}

/* The fields of parsed onto msg; see the top of the file for which. */
static void
_copy_fields(LogMsg *msg, const LogMsg *parsed)
{
  msg->pri = parsed->pri;
  msg->stamps[LM_TS_STAMP] = parsed->stamps[LM_TS_STAMP];
  msg->flags = (msg->flags & ~(uint32_t) (LF_RFC5424 | LF_UTF8)) | (parsed->flags & (LF_RFC5424 | LF_UTF8));
  static const NVHandle fields[] = { LM_V_HOST,    LM_V_PROGRAM,       LM_V_PID,   LM_V_MSGID,
                                     LM_V_MESSAGE, LM_V_LEGACY_MSGHDR, LM_V_RAWMSG };
  for (size_t i = 0; i < G_N_ELEMENTS(fields); i++)
    if (log_msg_is_value_set(parsed, fields[i]))
      {
        size_t len;
        const char *v = log_msg_get_value(parsed, fields[i], &len);
        log_msg_set_value(msg, fields[i], v, (ssize_t) len);
      }
  /* LEGACY_MSGHDR is the header PROGRAM and PID came from: syslog-ng
   * drops it when they are set without it (an RFC 5424 line) */
  if (!log_msg_is_value_set(parsed, LM_V_LEGACY_MSGHDR) &&
      (log_msg_is_value_set(parsed, LM_V_PROGRAM) || log_msg_is_value_set(parsed, LM_V_PID)))
    log_msg_unset_value(msg, LM_V_LEGACY_MSGHDR);
  /* syslog-ng parses into the message itself, as a source's parser
   * (initial_parse): new SD parameters after the ones it has */
  msg->flags |= LF_SDATA_IN_ORDER;
  log_msg_foreach_nv(parsed, _copy_nv, msg);
  msg->flags &= ~(uint32_t) LF_SDATA_IN_ORDER;
}

static bool
_syslog_parser_process(LogProcessor *p, LogMsg **pmsg)
{
  SyslogParser *self = (SyslogParser *) p;
  size_t len;
  const char *input = parser_input_get(&self->input, *pmsg, &len);
  /* a line without a timestamp gets the reception time, shown in
   * time-zone() when there is one (as syslog-ng shows it) */
  LogStamp recvd = (*pmsg)->stamps[LM_TS_RECVD];
  if (self->parse.recv_tz)
    recvd.gmtoff = tz_offset_at(self->parse.recv_tz, recvd.sec);
  LogMsg *parsed = msg_format_parse(&self->parse, input, len, &recvd);
  bool invalid = (parsed->flags & LF_PARSE_ERROR) != 0;

  if (invalid && self->drop_invalid)
    {
      log_msg_unref(parsed);
      return false;
    }
  LogMsg *msg = log_msg_make_writable(pmsg);
  if (invalid)
    {
      msg->pri = parsed->pri;
      msg->stamps[LM_TS_STAMP] = recvd;
      msg->flags |= LF_PARSE_ERROR;
      log_msg_set_value(msg, LM_V_MESSAGE, input, (ssize_t) len);
      log_msg_set_tag(msg, self->parse_error_tag);
    }
  else
    _copy_fields(msg, parsed);
  log_msg_unref(parsed);
  return true;
}

static const LogProcessorOps syslog_parser_ops = { _syslog_parser_process, _syslog_parser_free };

static LogProcessor *
_syslog_parser_new(const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  SyslogParserOptions o;
  cfg_options_defaults(syslog_parser_options, &o);
  SyslogParser *self = calloc(1, sizeof(*self));
  self->super.ops = &syslog_parser_ops;
  self->super.driver = "syslog-parser";
  self->super.loc = call->loc;
  self->parse_error_tag = log_tags_get_by_name(LOG_TAG_PARSE_ERROR_NAME);
  bool ok = cfg_options_apply(syslog_parser_options, call, &o, "syslog-parser()", err) &&
            parser_input_init(&self->input, o.template_text, call, ctx, err);
  if (ok)
    {
      msg_format_options_defaults(&self->parse);
      for (size_t i = 0; flag_names[i]; i++)
        if (o.flags & (1u << i))
          self->parse.flags |= flag_bits[i];
      if (self->parse.flags & MF_NO_HOSTNAME)
        self->parse.flags &= ~(uint32_t) MF_EXPECT_HOSTNAME;
      self->parse.default_pri = (uint16_t) (o.default_facility * 8 + cfg_level_codes[o.default_severity]);
      self->parse.recv_tz = o.time_zone ? tz_get(o.time_zone, NULL) : NULL;
      self->drop_invalid = o.drop_invalid;
    }
  cfg_options_free(syslog_parser_options, &o);
  if (!ok)
    {
      _syslog_parser_free(&self->super);
      return NULL;
    }
  return &self->super;
}

const LogDriverFactory syslog_parser_factory = {
  .def = { .kind = CFG_OBJ_PARSER, .name = "syslog-parser", .options = syslog_parser_options,
           .struct_size = sizeof(SyslogParserOptions), .min_args = 0, .max_args = 0 },
  .new_processor = _syslog_parser_new,
};
