/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * date-parser(format("..." ...) template() time-zone() time-stamp()
 * flags(guess-timezone)): the input (template(), $MESSAGE by default)
 * read with the first format (date-scan.h) that takes all of it becomes
 * the message's timestamp (time-stamp(stamp), the default) or its
 * reception time (time-stamp(recvd)).  An input no format takes leaves
 * the log path.
 *
 * What a format leaves out, as syslog-ng 3.38 fills it (checked against
 * it): the year is this year, except a December date seen in January (last
 * year) and a January date seen in December (next year); a format without
 * a date is today; missing time fields are 0; %j alone places the day in
 * the year; without a zone in the input, time-zone() (else the local zone)
 * gives the offset.  "This year" and "today" are those of the message's
 * reception time in that zone, so a message costs no clock read and no
 * localtime(): zone offsets come from the cached zone (timeutil.h).
 *
 * One departure: syslog-ng gives a zone-less time the offset time-zone()
 * has now, Sluice the offset it has at that time (a July time in
 * Europe/Budapest is +02:00 in winter too), as the sources do
 * (msg-format.h).
 *
 * guess-timezone: a zone-less time within 30 seconds of the reception time
 * in some zone gets that zone's offset: the difference, rounded to 15
 * minutes, when it is -12:00 to +14:00 and the rest is at most 30 seconds
 * (syslog-ng 3.38 guesses for 29 seconds and not for 31); otherwise
 * time-zone() as without the flag.
 */
#include "date-scan.h"
#include "parser-input.h"
#include "timestamp.h"

#include "sluice/cfg-options.h"
#include "sluice/timeutil.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>

#define DATE_DEFAULT_FORMAT "%FT%T%z"

typedef struct DateParserOptions
{
  char **formats;
  char *template_text;
  char *time_zone;
  int time_stamp;
  uint32_t flags;
} DateParserOptions;

static const char *const time_stamp_names[] = { "stamp", "recvd", NULL };
static const char *const flag_names[] = { "guess-timezone", NULL };
enum
{
  DATE_GUESS_TIMEZONE = 1u << 0,
};

#define OFF(field) offsetof(DateParserOptions, field)
static const CfgOption date_parser_options[] = {
  { .name = "format", .type = CFG_OPT_STRING_LIST, .offset = OFF(formats) },
  { .name = "template", .type = CFG_OPT_TEMPLATE, .offset = OFF(template_text) },
  { .name = "time-zone", .type = CFG_OPT_STRING, .offset = OFF(time_zone), .check = cfg_check_time_zone },
  { .name = "time-stamp", .type = CFG_OPT_ENUM, .offset = OFF(time_stamp), .names = time_stamp_names },
  { .name = "flags", .type = CFG_OPT_FLAGS, .offset = OFF(flags), .names = flag_names },
  { .name = NULL },
};

typedef struct DateParser
{
  LogProcessor super;
  ParserInput input;
  char **formats;
  TimeZoneInfo *tz; /* time-zone(), else the local zone */
  int stamp;        /* LM_TS_STAMP or LM_TS_RECVD */
  bool guess_timezone;
} DateParser;

static void
_date_parser_free(LogProcessor *p)
{
  DateParser *self = (DateParser *) p;
  parser_input_clear(&self->input);
  g_strfreev(self->formats);
  free(self);
}

/* syslog-ng's year for a date without one (see the top of the file). */
static int32_t
_year_for(const DateFields *f, const CivilTime *now)
{
  if (f->has_mon && f->mon == 11 && now->mon == 0)
    return now->year - 1;
  if (f->has_mon && f->mon == 0 && now->mon == 11)
    return now->year + 1;
  return now->year;
}

static bool
_guess_offset(int64_t wall, const LogStamp *recvd, int32_t *gmtoff)
{
  int64_t diff = wall - recvd->sec;
  int64_t quarters = (diff >= 0 ? diff + 450 : diff - 450) / 900;
  int64_t off = quarters * 900;
  if (off < -12 * 3600 || off > 14 * 3600 || diff - off > 30 || off - diff > 30)
    return false;
  *gmtoff = (int32_t) off;
  return true;
}

static void
_to_stamp(const DateParser *self, const DateFields *f, const LogStamp *recvd, LogStamp *out)
{
  out->usec = f->usec;
  if (f->has_epoch)
    {
      /* %s is broken down in the local zone; a %z reinterprets that wall
       * clock in its own offset */
      int32_t local = tz_offset_at(tz_local(), f->epoch);
      out->gmtoff = f->has_gmtoff ? f->gmtoff : local;
      out->sec = f->epoch + local - out->gmtoff;
      return;
    }
  CivilTime now;
  civil_from_seconds(recvd->sec + tz_offset_at(self->tz, recvd->sec), &now);
  int32_t year = f->has_year ? f->year : _year_for(f, &now);
  int mon, mday;
  if (f->has_yday && !f->has_mon && !f->has_mday)
    {
      mon = 0;
      mday = f->yday + 1;
    }
  else
    {
      bool dated = f->has_year || f->has_mon;
      mon = f->has_mon ? f->mon : (f->has_year ? 0 : now.mon);
      mday = f->has_mday ? f->mday : (dated ? 1 : now.mday);
    }
  int64_t wall = civil_to_seconds(year, mon, mday, f->hour, f->min, f->sec);
  int32_t gmtoff;
  if (f->has_gmtoff)
    gmtoff = f->gmtoff;
  else if (!self->guess_timezone || !_guess_offset(wall, recvd, &gmtoff))
    {
      out->sec = tz_local_to_utc(self->tz, year, mon, mday, f->hour, f->min, f->sec, &out->gmtoff);
      return;
    }
  out->sec = wall - gmtoff;
  out->gmtoff = gmtoff;
}

static bool
_date_parser_process(LogProcessor *p, LogMsg **pmsg)
{
  DateParser *self = (DateParser *) p;
  size_t len;
  const char *input = parser_input_get(&self->input, *pmsg, &len);
  DateFields f;
  for (char **fmt = self->formats; *fmt; fmt++)
    if (date_scan(*fmt, input, len, &f))
      {
        LogStamp stamp;
        _to_stamp(self, &f, &(*pmsg)->stamps[LM_TS_RECVD], &stamp);
        LogMsg *msg = log_msg_make_writable(pmsg);
        msg->stamps[self->stamp] = stamp;
        return true;
      }
  return false;
}

static const LogProcessorOps date_parser_ops = { _date_parser_process, _date_parser_free };

static bool
_setup(DateParser *self, DateParserOptions *o, const CfgNode *call, CfgError *err)
{
  if (o->formats && !o->formats[0])
    {
      const CfgNode *opt = cfg_option_given(call, "format");
      cfg_error_set(err, opt ? &opt->loc : &call->loc, "%s(): format() needs at least one format", call->name);
      return false;
    }
  for (char **fmt = o->formats; fmt && *fmt; fmt++)
    {
      const char *why = date_format_check(*fmt);
      if (why)
        {
          const CfgNode *opt = cfg_option_given(call, "format");
          cfg_error_set(err, opt ? &opt->loc : &call->loc, "%s(): format \"%s\" %s", call->name, *fmt, why);
          return false;
        }
    }
  if (o->formats)
    {
      self->formats = o->formats;
      o->formats = NULL;
    }
  else
    {
      self->formats = g_new0(char *, 2);
      self->formats[0] = g_strdup(DATE_DEFAULT_FORMAT);
    }
  date_scan_init();
  self->tz = o->time_zone ? tz_get(o->time_zone, NULL) : tz_local();
  self->stamp = o->time_stamp == 1 ? LM_TS_RECVD : LM_TS_STAMP;
  self->guess_timezone = (o->flags & DATE_GUESS_TIMEZONE) != 0;
  return true;
}

static LogProcessor *
_date_parser_new(const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  DateParserOptions o;
  cfg_options_defaults(date_parser_options, &o);
  DateParser *self = calloc(1, sizeof(*self));
  self->super.ops = &date_parser_ops;
  self->super.driver = "date-parser";
  self->super.loc = call->loc;
  bool ok = cfg_options_apply(date_parser_options, call, &o, "date-parser()", err) &&
            parser_input_init(&self->input, o.template_text, call, ctx, err) && _setup(self, &o, call, err);
  cfg_options_free(date_parser_options, &o);
  if (!ok)
    {
      _date_parser_free(&self->super);
      return NULL;
    }
  return &self->super;
}

const LogDriverFactory date_parser_factory = {
  .def = { .kind = CFG_OBJ_PARSER, .name = "date-parser", .options = date_parser_options,
           .struct_size = sizeof(DateParserOptions), .min_args = 0, .max_args = 0 },
  .new_processor = _date_parser_new,
};
