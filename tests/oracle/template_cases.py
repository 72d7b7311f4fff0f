# SPDX-License-Identifier: GPL-2.0-or-later
"""Input lines and destinations of the template corpus test.

template-oracle.py sends every case to syslog-ng 3.38 and records what each
destination in DESTS wrote for it in tests/unit/template/template-corpus.h.

A case: C(name, line, proto) where proto is "3164" (network() source) or
"5424" (syslog() source, octet-counted).
A destination: kind "file" (default line or template(...)), "network" or
"syslog" (TCP), opts are the driver's other options; enum names the
Sluice formatter the unit test compares it with.
"""

NOW = "2025-03-10 12:00:00"
BOM = "\ufeff"


def C(name, line, proto="3164"):
    return dict(name=name, input=line.encode("utf-8", "surrogateescape") if isinstance(line, str) else line,
                proto=proto)


CASES = [
    C("fac-%d" % f, "<%d>Mar 10 11:%02d:00 h%d p%d[%d]: facility %d" % (f * 8 + f % 8, f, f, f, f, f)) for f in range(24)
] + [
    C("bsd-pid", "<38>Mar 10 11:58:01 web01 sshd[2345]: Accepted publickey for deploy from 10.0.0.5"),
    C("bsd-nopid", "<85>Mar 10 11:59:00 web01 sudo:   alice : TTY=pts/0 ; COMMAND=/usr/bin/id"),
    C("bsd-noprog", "<14>Mar 10 11:59:30 web01 just a message without a tag"),
    C("bsd-nohost", "<13>Mar  9 08:07:06 cron[77]: (root) CMD (run-parts /etc/cron.hourly)"),
    C("bsd-frac", "<165>Mar 10 11:59:59.123456 fw1 kernel: [12345.678] eth0: link up"),
    C("iso-offset", "<134>2025-03-10T13:30:00.5+02:00 app1 java[999]: started in 1.2s"),
    C("bsd-empty-msg", "<30>Mar 10 11:00:00 host2 systemd[1]:"),
    C("5424-full", '<165>1 2025-03-10T11:58:00.003Z mymachine.example.com evntslog 4711 ID47 [exampleSDID@32473 iut="3" eventSource="Application" eventID="1011"] An application event log entry', "5424"),
    C("5424-escapes", '<14>1 2025-03-10T11:58:01.123456+01:00 h1 app 12 m1 [x@1 q="a\\"b" bs="c\\\\d" br="e\\]f"][y@2 k="v"] msg body', "5424"),
    C("5424-nil", "<13>1 2025-03-10T11:58:02Z - - - - - nil everything", "5424"),
    C("5424-bom", "<11>1 2025-03-10T11:58:03-05:30 bomhost bomapp - - - " + BOM + "unicode \u00e9t\u00e9", "5424"),
    C("5424-sd-names", '<14>1 2025-03-10T11:58:05Z h p - - [x@1 a="1" b="2"][x@2 c="\\]" d=""][x@1 e="f"] done', "5424"),
    C("iso-dec31", "<13>2024-12-31T23:59:59.999999-01:00 h p: new year", "3164"),
    C("iso-jan1", "<13>2027-01-01T00:00:00Z h p: iso week 53", "3164"),
    C("5424-nomsg", "<11>1 2025-03-10T11:58:04Z h p 1 id [a b=\"c\"]", "5424"),
]

# the macros of the issue; every one is checked on every case
MACROS1 = ("HOST|${HOST_FROM}|$FULLHOST|$PROGRAM|$PID|$MSGID|$MSG|$MESSAGE|$MSGHDR|$LEGACY_MSGHDR|$PRI|$FACILITY|"
           "$FACILITY_NUM|$LEVEL|$PRIORITY|$SEVERITY|$LEVEL_NUM|$TAG|$SDATA|$SOURCEIP")
DATES = ("$ISODATE|$DATE|$STAMP|$FULLDATE|$UNIXTIME|$YEAR|$MONTH|$MONTH_NAME|$MONTH_ABBREV|$DAY|$HOUR|$MIN|$SEC|"
         "$USEC|$MSEC|$TZOFFSET|$TZ|$WEEKDAY|$WEEK_DAY|$WEEK_DAY_NAME|$WEEK_DAY_ABBREV|$WEEK|$ISOWEEK|$JULIAN|$HOUR12|$AMPM|$YEAR_DAY|$DAY_OF_YEAR")



def D(name, kind, template=None, ts=None, frac=None, tz=None):
    """A destination; ts/frac/tz are its ts-format(), frac-digits() and
    send-time-zone() (None: syslog-ng's default)."""
    d = dict(name=name, kind=kind, ts=ts, frac=frac, tz=tz)
    if template is not None:
        d["template"] = template
    opts = []
    if ts:
        opts.append("ts-format(%s)" % ts)
    if frac is not None:
        opts.append("frac-digits(%d)" % frac)
    if tz:
        opts.append('send-time-zone("%s")' % tz)
    d["opts"] = " ".join(opts)
    return d


DESTS = [
    D("file-default", "file"),
    D("file-iso-frac3-cet", "file", ts="iso", frac=3, tz="Europe/Budapest"),
    D("file-full-frac6", "file", ts="full", frac=6),
    D("file-unix-frac1", "file", ts="unix", frac=1),
    D("file-rfc3339-frac0-m0930", "file", ts="rfc3339", tz="-09:30"),
    D("network-default", "network"),
    D("network-iso-frac2-p0330", "network", ts="iso", frac=2, tz="+03:30"),
    D("syslog-default", "syslog"),
    D("syslog-frac6-ny", "syslog", frac=6, tz="America/New_York"),
    D("syslog-frac1-utc", "syslog", frac=1, tz="UTC"),
    D("tpl-macros", "file", template="$" + MACROS1 + "\n"),
    D("tpl-more", "file", template="$BSDTAG|$SEVERITY_NUM|$MONTH_WEEK|${FULLHOST_FROM}|$SEQNUM|$RCPTID|$C_NOSUCH|${S_MONTH_WEEK}\n"),
    D("tpl-dates", "file", template=DATES + "\n"),
    D("tpl-dates-iso-frac4-la", "file", template=DATES + "\n", ts="iso", frac=4, tz="America/Los_Angeles"),
    D("tpl-dates-full-frac5-tokyo", "file", template=DATES + "\n", ts="full", frac=5, tz="Asia/Tokyo"),
    D("tpl-s-dates-bsd-frac3", "file", template="${S_ISODATE} $S_DATE $S_STAMP ${S_HOUR}:$S_MIN $S_TZ $S_UNIXTIME\n",
      ts="rfc3164", frac=3),
    D("tpl-sdata", "file",
      template="${.SDATA.exampleSDID@32473.iut}|${.SDATA.x@1.q}|${.SDATA.x@1.bs}|${.SDATA.y@2.k}|${nosuch}|$SDATA\n"),
    D("tpl-escapes", "file", template="a$$b \\$PID \\\\ \\n\\t\\x $ $1 ${} $)$} x$ ${HOST}@2 $\n"),
    # ${NAME:-DEFAULT}: text written for an empty value or macro, up to the
    # first '}' (the SCL's graylog2(), logmatic() and discord() use it)
    D("tpl-defaults", "file",
      template="${HOST:--}|${PID:--}|${MSGID:-none}|${NOPE:-$HOST}|${NOPE:-}|${NOPE:-a:-b}|${NOPE:- sp }|"
               "${.SDATA.exampleSDID@32473.iut:-z}|${R_YEAR:-y}|${NOPE:-a}}|$(echo ${NOPE:-q})|${MSG:-[empty]}\n"),
    D("tpl-functions", "file", template='$(echo $HOST $(echo "$PID" x)  y)|$(echo "a b" c)|$(echo ""x)|$( echo )|$()|$(echo a\\ b)|$(echo (a b))\n'),
]
