/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_TEMPLATE_INTERNAL_H
#define SLUICE_TEMPLATE_INTERNAL_H

/* Internal to src/template: the macro table, the element array of a
 * compiled template, and the per-thread date cache. */

#include "sluice/strbuf.h"
#include "sluice/template.h"

#include <stddef.h>
#include <stdint.h>

/* Built-in macros that are not plain values.  Date macros come first so a
 * range check tells them apart. */
typedef enum
{
  M_NONE = 0,
  /* dates */
  M_DATE,
  M_FULLDATE,
  M_ISODATE,
  M_STAMP,
  M_UNIXTIME,
  M_YEAR,
  M_YEAR_DAY,
  M_MONTH,
  M_MONTH_WEEK,
  M_MONTH_ABBREV,
  M_MONTH_NAME,
  M_DAY,
  M_HOUR,
  M_HOUR12,
  M_MIN,
  M_SEC,
  M_USEC,
  M_MSEC,
  M_AMPM,
  M_WEEK_DAY_ABBREV, /* WEEKDAY, WEEK_DAY_ABBREV */
  M_WEEK_DAY_NAME,
  M_WEEK_DAY, /* 1 = Sunday */
  M_WEEK,     /* %W: weeks start on Monday */
  M_ISOWEEK,  /* %V */
  M_TZOFFSET, /* TZOFFSET, TZ */
  M_DATE_LAST = M_TZOFFSET,
  /* the others */
  M_FACILITY,
  M_FACILITY_NUM,
  M_SEVERITY, /* LEVEL, PRIORITY, SEVERITY */
  M_SEVERITY_NUM, /* LEVEL_NUM, SEVERITY_NUM */
  M_TAG,
  M_TAGS,
  M_BSDTAG,
  M_PRI,
  M_MSGHDR,
  M_SDATA,
  M_SOURCEIP,
  M_SEQNUM,
  M_RCPTID,
  M_HOSTID,
  M_UNIQID,
  M_LOGHOST,
  M_HOST,          /* HOST, or the first host of a chain (LF_CHAINED_HOSTNAME) */
  M_FULLHOST,      /* HOST, the whole chain */
  M_FULLHOST_FROM, /* HOST_FROM */
  M_MAX
} LogMacro;

/* The macro called name[0..len) and, for a date macro, the stamp it reads
 * (*stamp gets LM_TS_* or LM_TS_MAX for C_, "now").  M_NONE when name is
 * not a macro (it is then a value). */
LogMacro log_macro_lookup(const char *name, size_t len, int *stamp);

/* Append macro m of msg to out (dates from stamp). */
void log_macro_expand(LogMacro m, int stamp, const LogMsg *msg, const LogTemplateOptions *opts, GString *out);

/* HOST (M_HOST: the first host of a chain), FULLHOST or HOST_FROM of
 * msg, as it holds them: *len bytes, not copied. */
const char *log_macro_host(LogMacro m, const LogMsg *msg, size_t *len);

/* ---- keys as views (template-keys.c) ------------------------------------- */

typedef struct TemplateView
{
  const char *p;
  size_t len;
} TemplateView;

#define TEMPLATE_KEY_VIEWS_MAX 8

/* True when each piece of t's key (log_template_format_key) is a value,
 * a default or a host macro of the message itself, at most
 * TEMPLATE_KEY_VIEWS_MAX of them: log_template_key_views can show them. */
bool log_template_key_viewable(const LogTemplate *t);

/* The pieces log_template_format_key writes for msg (with options that
 * do not escape), each as bytes msg or t holds, not copied; their count.
 * Only for a viewable t. */
size_t log_template_key_views(const LogTemplate *t, const LogMsg *msg, TemplateView *v);

/* MSGHDR: LEGACY_MSGHDR, else "PROGRAM[PID]: " (no "[PID]" without a PID,
 * nothing without a PROGRAM). */
void log_macro_append_msghdr(const LogMsg *msg, GString *out);

/* ---- dates (timefmt.c) --------------------------------------------------- */

/* One second, rendered once and cached per thread. */
typedef struct DateSecond
{
  int64_t sec;    /* UTC */
  int32_t gmtoff; /* the offset it is shown in */
  bool valid;
  uint8_t rendered; /* DATE_FORM_*: which of the texts below are made */
  CivilTime tm;
  char bsd[16];  /* "Mar 10 11:58:01" */
  char iso[20];  /* "2025-03-10T11:58:01" */
  char tzofs[7]; /* "+00:00" */
  char unix_[24];
  uint8_t unix_len;
} DateSecond;

/* The second of stamp under opts (send_tz or the stamp's own offset), its
 * civil time worked out; each text form is made the first time it is
 * asked for (a stream of times that jump about misses the cache on every
 * message, and a template uses one form or two).  The result lives in
 * this thread's cache until the next call. */
DateSecond *date_second_get(const LogStamp *stamp, const LogTemplateOptions *opts);

/* "+hh:mm" of d's offset. */
const char *date_second_tzofs(DateSecond *d);

/* Append a date of ts_format with frac_digits of usec. */
void date_append_stamp(DateSecond *d, uint32_t usec, LogTimestampFormat fmt, int frac_digits, GString *out);

/* Append ".ddd" (frac_digits digits of usec, truncated); nothing for 0. */
void date_append_frac(uint32_t usec, int frac_digits, GString *out);

/* Append n as decimal, zero-padded to width. */
void fmt_append_uint(GString *out, uint64_t n, int width);

extern const char *const month_abbrev[12];
extern const char *const month_name[12];
extern const char *const wday_abbrev[7];
extern const char *const wday_name[7];

#endif
