#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Sluice and Debian's syslog-ng 3.38 receive the same bytes on the same
# network sources (TCP lines, octet-counted syslog(), UDP, unix-dgram,
# broken input) configured with the host options (keep-hostname,
# chain-hostnames, overrides, default priority, flags, bad-hostname); the
# files they write must be identical.  Dates of BSD lines and ${TRANSPORT}
# (empty in 3.38) are left out of the templates; ${HOST} of chained names is
# compared as ${FULLHOST}, and ${SOURCEIP} only for network peers (Sluice
# leaves it empty for unix sockets, syslog-ng says 127.0.0.1).
#
# Usage: compare-network.sh SLUICE
# SLUICE_SYSLOG_NG names the directory Debian's syslog-ng-core is unpacked
# in (scripts/fetch-syslog-ng.sh; scripts/test.sh sets it up).
set -eu
sluice=$1
sng=${SLUICE_SYSLOG_NG:-}
if [ -z "$sng" ] || [ ! -x "$sng/usr/sbin/syslog-ng" ]; then
  echo "SLUICE_SYSLOG_NG must name an unpacked syslog-ng-core (scripts/fetch-syslog-ng.sh DIR)" >&2
  exit 1
fi
work=$(mktemp -d)
pid=""
trap 'if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; fi; rm -rf "$work"' EXIT
[ -n "${KEEP:-}" ] && trap - EXIT && echo "keeping $work"

ports=$(python3 "$(dirname "$0")/free-ports.py" tcp tcp tcp tcp tcp tcp udp tcp tcp tcp tcp tcp tcp tcp tcp tcp)
set -- $ports
p_plain=$1 p_keep=$2 p_chain=$3 p_over=$4 p_syslog=$5 p_bad=$6 p_udp=$7 p_dns=$8 p_dns2=$9
shift 9
p_tz=$1 p_flags=$2 p_nohost=$3 p_six=$4 p_prefix=$5 p_nuls=$6 p_nulsml=$7

cat >"$work/conf.in" <<EOF
@version: 3.38
options { use-dns(no); bad-hostname("^bad"); dns-cache-hosts("@OUT@/../hosts"); check-hostname(yes); };
template t_bsd { template("\${SOURCE}|\${HOST}|\${HOST_FROM}|\${SOURCEIP}|\${PROGRAM}|\${PID}|\${PRI}|\${MSG}|\${LEGACY_MSGHDR}\n"); };
template t_chain { template("\${SOURCE}|\${FULLHOST}|\${HOST_FROM}|\${PROGRAM}|\${PRI}|\${MSG}\n"); };
template t_5424 { template("\${SOURCE}|\${HOST}|\${HOST_FROM}|\${PROGRAM}|\${PID}|\${MSGID}|\${PRI}|\${ISODATE}|\${SDATA}|\${MSG}\n"); };
template t_local { template("\${SOURCE}|\${HOST}|\${HOST_FROM}|\${PROGRAM}|\${PID}|\${PRI}|\${MSG}\n"); };
source s_plain { network(ip(127.0.0.1) port($p_plain)); };
source s_keep { network(ip(127.0.0.1) port($p_keep) keep-hostname(yes)); };
source s_chain { network(ip(127.0.0.1) port($p_chain) chain-hostnames(yes) flags(no-multi-line)); };
source s_over { network(ip(127.0.0.1) port($p_over) host-override("ovr") program-override("prg")
                        default-facility(local3) default-priority(err));
                network(ip(127.0.0.1) port($p_prefix) log-prefix("lp")); };
source s_syslog { syslog(ip(127.0.0.1) port($p_syslog)); };
source s_bad { network(ip(127.0.0.1) port($p_bad) keep-hostname(yes) flags(check-hostname)); tcp(ip(127.0.0.1) port($p_udp) flags(no-parse)); };
source s_udp { udp(ip(127.0.0.1) port($p_udp) keep-hostname(yes)); };
source s_dns { network(ip(127.0.0.1) port($p_dns) use-dns(yes) use-fqdn(yes) normalize-hostnames(yes));
               network(ip(127.0.0.1) port($p_dns2) use-dns(yes) chain-hostnames(yes)); };
source s_tz { network(ip(127.0.0.1) port($p_tz) time-zone("+05:00") default-priority(warning) tags("net.a", "net.b")); };
source s_flags { network(ip(127.0.0.1) port($p_flags) flags(syslog-protocol, store-raw-message)); };
source s_nohost { network(ip(127.0.0.1) port($p_nohost) flags(no-hostname) default-facility(daemon));
                  unix-stream("@OUT@/../stream" flags(expect-hostname)); };
source s_six { tcp6(ip("::") port($p_six)); udp6(ip("::") port($p_six)); };
source s_local { unix-dgram("@OUT@/../log" keep-hostname(yes)); };
source s_nuls { network(ip(127.0.0.1) port($p_nuls) transport("text-with-nuls"));
                network(ip(127.0.0.1) port($p_nulsml) transport(text-with-nuls) flags(no-multi-line)); };
destination d_plain { file("@OUT@/plain" template(t_bsd)); };
destination d_keep { file("@OUT@/keep" template(t_bsd)); };
destination d_chain { file("@OUT@/chain" template(t_chain)); };
destination d_over { file("@OUT@/over" template(t_bsd)); };
destination d_syslog { file("@OUT@/syslog" template(t_5424)); };
destination d_bad { file("@OUT@/bad" template(t_bsd)); };
destination d_udp { file("@OUT@/udp" template(t_bsd)); };
destination d_dns { file("@OUT@/dns" template(t_chain)); };
destination d_tz { file("@OUT@/tz" template("\${SOURCE}|\${ISODATE}|\${PRI}|\${TAGS}|\${MSG}\n")); };
destination d_flags { file("@OUT@/flags" template("\${SOURCE}|\${HOST}|\${PROGRAM}|\${PRI}|\${MSG}|\${RAWMSG}\n")); };
destination d_nohost { file("@OUT@/nohost" template(t_local)); };
destination d_six { file("@OUT@/six" template(t_bsd)); };
destination d_local { file("@OUT@/local" template(t_local)); };
destination d_nuls { file("@OUT@/nuls" template(t_bsd)); };
log { source(s_plain); destination(d_plain); };
log { source(s_keep); destination(d_keep); };
log { source(s_chain); destination(d_chain); };
log { source(s_over); destination(d_over); };
log { source(s_syslog); destination(d_syslog); };
log { source(s_bad); destination(d_bad); };
log { source(s_udp); destination(d_udp); };
log { source(s_local); destination(d_local); };
log { source(s_nohost); destination(d_nohost); };
log { source(s_six); destination(d_six); };
log { source(s_dns); destination(d_dns); };
log { source(s_tz); destination(d_tz); };
log { source(s_flags); destination(d_flags); };
log { source(s_nuls); destination(d_nuls); };
EOF

# The sender: each step is (where, bytes, lines it should add); it waits
# for those lines (3 s at most) before the next step, so that the order of
# lines in each file does not depend on which worker read which connection.
cat >"$work/send.py" <<'EOF'
import os, socket, sys, time

out, ports = sys.argv[1], dict(a.split("=") for a in sys.argv[2:])

def lines():
    n = 0
    for f in os.listdir(out):
        with open(os.path.join(out, f), "rb") as fh:
            n += fh.read().count(b"\n")
    return n

def tcp(port, data, close_wait=0.0):
    s = socket.create_connection(("127.0.0.1", int(port)))
    for piece in data if isinstance(data, list) else [data]:
        s.sendall(piece)
        time.sleep(0.02)
    s.close()

def udp(port, data):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.sendto(data, ("127.0.0.1", int(port)))
    s.close()

def unix(data):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.sendto(data, os.path.join(out, "..", "log"))
    s.close()

def ustream(data):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(os.path.join(out, "..", "stream"))
    s.sendall(data)
    s.close()

def frame(m):
    return str(len(m)).encode() + b" " + m

P = ports
steps = [
    (lambda: tcp(P["plain"], b"<13>Nov 22 10:00:00 h1 prog[5]: text\n<14>Nov 22 10:00:01 h2 p2: two\n"), 2),
    (lambda: tcp(P["plain"], [b"<13>Nov 22 10:00:02 h3 p3: sp", b"lit\n<13>Nov 22 10:00:03 h4 p4: crlf\r\n"]), 2),
    (lambda: tcp(P["plain"], b"Nov 22 10:00:04 h5 nopri: no pri\n<13>h6 p6: no date\n"), 2),
    (lambda: tcp(P["plain"], b"<13>Nov 22 10:00:05 h7 p7: half a li"), 1),
    (lambda: tcp(P["plain"], b"\x01\xfe\xff garbage \x00<13>Nov 22 10:00:06 h8 p8: after garbage\n"), 2),
    (lambda: tcp(P["keep"], b"<13>Nov 22 10:00:00 h1 prog[5]: kept\n<13>Nov 22 10:00:00 p: nohost\n"), 2),
    (lambda: tcp(P["keep"], b"<13>Nov 22 10:00:00 bad#host p: odd characters\n"), 1),
    (lambda: tcp(P["chain"], b"<13>Nov 22 10:00:00 h1 prog: chained\n<13>Nov 22 10:00:00 h1 prog: two\nlines\n"), 3),
    (lambda: tcp(P["over"], b"<13>Nov 22 10:00:00 h1 prog: o1\nNov 22 10:00:00 h1 prog: o2\n"), 2),
    (lambda: tcp(P["prefix"], b"<13>Nov 22 10:00:00 h1 prog[3]: prefixed\n"), 1),
    (lambda: tcp(P["nuls"], b"<13>Nov 22 10:00:00 h1 prog: with\x00nul\x00s\n\x00<14>Nov 22 10:00:01 h2 p: x\n"), 2),
    (lambda: tcp(P["nulsml"], b"<13>Nov 22 10:00:00 h1 prog: with\x00nul\x00s\n"), 1),
    (lambda: tcp(P["syslog"], frame(b"<165>1 2026-11-22T10:00:00.123+02:00 h1 app 42 ID7 [a@1 x=\"y\"] m1")
                 + frame(b"<13>1 2026-11-22T10:00:00Z h2 app2 - - - has\nnewline")), 2),
    (lambda: tcp(P["syslog"], [b"5", b"2 <13>1 2026-11-22T10:00:00Z h3 app3 - - ", b"- split fra", b"me"]), 1),
    (lambda: tcp(P["syslog"], b"40 <13>1 - h app - - - dropped mid-fra"), 0),
    (lambda: tcp(P["bad"], b"<13>Nov 22 10:00:00 badhost p1[3]: m1\n<13>Nov 22 10:00:00 goodhost p2: m2\n"
                 b"<13>Nov 22 10:00:00 badhost: m3\n<13>Nov 22 10:00:00 odd#host p4: m4\n"), 4),
    (lambda: tcp(P["udp"], b"<13>Nov 22 10:00:00 h1 p1: not parsed\n"), 1),
    (lambda: udp(P["udp"], b"<13>Nov 22 10:00:00 u1 p1: dgram\n"), 1),
    (lambda: udp(P["udp"], b"<13>Nov 22 10:00:00 u2 p2: two\nlines"), 1),
    (lambda: unix(b"<13>Nov 22 10:00:00 app[9]: local"), 1),
    (lambda: tcp(P["dns"], b"<13>Nov 22 10:00:00 h1 p: resolved\n"), 1),
    (lambda: tcp(P["dns2"], b"<13>Nov 22 10:00:00 h1 p: resolved short\n"), 1),
    (lambda: tcp(P["tz"], b"<13>Nov 22 10:00:00 h1 p: zoned\nNov 22 10:00:00 h1 p: zoned, no pri\n"
                 b"<13>2026-11-22T10:00:00-02:00 h1 p: own zone\n"), 3),
    (lambda: tcp(P["nohost"], b"<13>Nov 22 10:00:00 h1 p: no host\nNov 22 10:00:00 h1 p: no pri\n"), 2),
    (lambda: ustream(b"<13>Nov 22 10:00:00 h1 p[1]: expected\n<13>Nov 22 10:00:00 p2: bare\n"), 2),
    (lambda: tcp(P["syslog"], b"0 " + frame(b"<13>1 2026-11-22T10:00:00Z h0 a0 - - - after an empty frame")), 1),
    (lambda: tcp(P["syslog"], b"x1 <13>1 - h app - - - not a frame\n"), 0),
    (lambda: tcp(P["six"], b"<13>Nov 22 10:00:00 h1 p: v4 client on a v6 socket\n"), 1),
    (lambda: udp(P["six"], b"<13>Nov 22 10:00:00 h1 p: v4 datagram on a v6 socket"), 1),
    (lambda: tcp(P["flags"], b"<13>1 2026-11-22T10:00:00Z h1 app - - - five\n<13>Nov 22 10:00:00 h1 p: bsd\n"), 2),
    (lambda: unix(b"<30>Nov 22 10:00:00 h9 app: expect no hostname"), 1),
]
for send, n in steps:
    before = lines()
    send()
    end = time.time() + 3
    while lines() < before + n and time.time() < end:
        time.sleep(0.02)
print(lines())
EOF

run() {
  who=$1
  shift
  mkdir -p "$work/$who/out"
  printf '# static names\n127.0.0.1 Loop.Example.COM loop\n' >"$work/$who/hosts"
  sed "s|@OUT@|$work/$who/out|g" "$work/conf.in" >"$work/$who/conf"
  TZ=UTC "$@" -f "$work/$who/conf" 2>"$work/$who/stderr" &
  pid=$!
  i=0
  until [ -S "$work/$who/log" ]; do
    i=$((i + 1))
    if [ $i -gt 100 ] || ! kill -0 "$pid" 2>/dev/null; then
      echo "$who did not start:"; cat "$work/$who/stderr"; exit 1
    fi
    sleep 0.1
  done
  python3 "$work/send.py" "$work/$who/out" plain=$p_plain keep=$p_keep chain=$p_chain over=$p_over \
    syslog=$p_syslog bad=$p_bad udp=$p_udp dns=$p_dns dns2=$p_dns2 tz=$p_tz flags=$p_flags nohost=$p_nohost six=$p_six prefix=$p_prefix nuls=$p_nuls nulsml=$p_nulsml >"$work/$who/count"
  kill -TERM "$pid"
  wait "$pid" || true
  pid=""
}

run sluice "$sluice" -F
run syslog-ng env LD_LIBRARY_PATH="$sng/usr/lib/syslog-ng" "$sng/usr/sbin/syslog-ng" -F --no-caps \
  --module-path="$sng/usr/lib/syslog-ng/3.38" -R "$work/syslog-ng/persist" -p "$work/syslog-ng/pid" \
  -c "$work/syslog-ng/ctl"

if ! diff -r "$work/syslog-ng/out" "$work/sluice/out" >"$work/diff"; then
  echo "Sluice's output differs from syslog-ng's (< syslog-ng, > sluice):"
  cat -v "$work/diff" | head -60
  exit 1
fi
echo "identical: $(cat "$work/sluice/count") lines"
