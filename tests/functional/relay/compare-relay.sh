#!/bin/sh
# Network destinations against Debian's syslog-ng 3.38, both ways.
#
# Two senders with the same configuration, one Sluice and one syslog-ng,
# get the same RFC 3164 lines and RFC 5424 frames and forward them with
# tcp() (RFC 3164 lines) and syslog() (RFC 5424, octet counting) and keep a
# local file() of what they got.  Then:
#  1. a syslog-ng receiver gets both senders' streams: the raw bytes
#     Sluice sent equal the raw bytes syslog-ng sent, and what the receiver
#     writes of Sluice's stream equals Sluice's own local file;
#  2. a Sluice receiver gets syslog-ng's stream: what it writes equals
#     syslog-ng's own local file.
# The same raw-bytes comparison runs for udp(), unix-stream(),
# unix-dgram(), network(transport(framed)), a template() with
# template-escape(yes) and syslog() with a template() (which replaces only
# MSG there).
#
# Usage: compare-relay.sh SLUICE   (SLUICE_SYSLOG_NG names the unpacked
# syslog-ng-core, as for compare-network.sh)
. "$(dirname "$0")/../lib.sh"
sluice=$1
need_syslog_ng
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; for p in $sng_pids $rcv_pid; do kill "$p" 2>/dev/null; done; rm -rf "$work"' EXIT
rcv_pid=

set -- $(free_ports tcp tcp tcp tcp tcp tcp tcp tcp tcp tcp tcp tcp udp udp tcp tcp tcp tcp)
s_in3164=$1 s_in5424=$2 g_in3164=$3 g_in5424=$4 a3164=$5 a5424=$6 b3164=$7 b5424=$8 c3164=$9
shift 9
c5424=$1 aframed=$2 bframed=$3 audp=$4 budp=$5 atmpl=$6 btmpl=$7 a5tmpl=$8 b5tmpl=$9
mkdir "$work/sl" "$work/sg" "$work/rg" "$work/rs"

t3164='${PRI}|${HOST}|${PROGRAM}|${PID}|${MSG}\n'
t5424='${PRI}|${HOST}|${PROGRAM}|${PID}|${MSGID}|${ISODATE}|${SDATA}|${MSG}\n'

# extra X: the other destinations of sender X (a: Sluice, b: syslog-ng)
extra() {
  eval "framed=\$${1}framed udp=\$${1}udp tmpl=\$${1}tmpl s5tmpl=\$${1}5tmpl"
  echo "network(\"127.0.0.1\" port($framed) transport(framed)); udp(\"127.0.0.1\" port($udp));"
  echo "tcp(\"127.0.0.1\" port($tmpl) template(\"\$PROGRAM|\$MSG\\n\") template-escape(yes));"
  echo "syslog(\"127.0.0.1\" port($s5tmpl) template(\"S:\$MSG\"));"
  echo "unix-stream(\"$work/rg/${1}us.sock\"); unix-dgram(\"$work/rg/${1}ud.sock\");"
}

# sender OUTDIR IN3164 IN5424 F3164 F5424 [EXTRA]
sender() {
  cat <<EOC
@version: 3.38
options { keep-hostname(yes); use-dns(no); stats-freq(0); };
source s_bsd { network(ip(127.0.0.1) port($2)); };
source s_5424 { syslog(ip(127.0.0.1) port($3)); };
destination d_local { file("$1/local3164" template("$t3164")); file("$1/local5424" template("$t5424")); };
destination d_fwd { tcp("127.0.0.1" port($4)); syslog("127.0.0.1" port($5)); ${6:-} };
log { source(s_bsd); source(s_5424); destination(d_local); destination(d_fwd); };
EOC
}
sender "$work/sl" $s_in3164 $s_in5424 $a3164 $a5424 "$(extra a)" >"$work/s.conf"
sender "$work/sg" $g_in3164 $g_in5424 $b3164 $b5424 \
  "tcp(\"127.0.0.1\" port($c3164)); syslog(\"127.0.0.1\" port($c5424)); $(extra b)" >"$work/g.conf"

# receiver OUTDIR SOURCE... : one source and its files per NAME:PORT
receiver() {
  out=$1
  shift
  echo '@version: 3.38'
  echo 'options { keep-hostname(yes); use-dns(no); stats-freq(0); };'
  for s in "$@"; do
    name=${s%%:*} port=${s#*:}
    t=$t3164
    case $name in
    *5tmpl) drv="syslog(ip(127.0.0.1) port($port) flags(store-raw-message))" ;;
    *3164 | *tmpl) drv="network(ip(127.0.0.1) port($port) flags(store-raw-message))" ;;
    *framed) drv="network(ip(127.0.0.1) port($port) transport(framed) flags(store-raw-message))" ;;
    *udp) drv="udp(ip(127.0.0.1) port($port) flags(store-raw-message))" ;;
    *us) drv="unix-stream(\"$out/$name.sock\" flags(store-raw-message))" ;;
    *ud) drv="unix-dgram(\"$out/$name.sock\" flags(store-raw-message))" ;;
    *) drv="syslog(ip(127.0.0.1) port($port) flags(store-raw-message))" t=$t5424 ;;
    esac
    echo "source s_$name { $drv; };"
    echo "destination d_$name { file(\"$out/$name\" template(\"$t\")); file(\"$out/$name.raw\" template(\"\${RAWMSG}\\n\")); };"
    echo "log { source(s_$name); destination(d_$name); };"
  done
}
receiver "$work/rg" a3164:$a3164 a5424:$a5424 b3164:$b3164 b5424:$b5424 aframed:$aframed bframed:$bframed \
  audp:$audp budp:$budp atmpl:$atmpl btmpl:$btmpl a5tmpl:$a5tmpl b5tmpl:$b5tmpl aus:- bus:- aud:- bud:- \
  >"$work/rg.conf"
receiver "$work/rs" c3164:$c3164 c5424:$c5424 >"$work/rs.conf"

# the receivers listen before the senders start, so no sender waits for time-reopen
sng_start rg
"$sluice" -F -f "$work/rs.conf" -p "$work/rs.pid" >"$work/rs.log" 2>&1 &
rcv_pid=$!
i=0
until grep -q "Accepting connections.*$c5424" "$work/rs.log" 2>/dev/null; do
  i=$((i + 1))
  [ $i -lt 100 ] || fail "the Sluice receiver did not start: $(cat "$work/rs.log")"
  sleep 0.1
done
sng_start g
start_sluice "$sluice" "$work/s.conf"

# send PORT KIND: the input lines (bsd) or frames (5424) to PORT
send() {
  python3 - "$1" "$2" <<'PY'
import socket, sys
port, kind = int(sys.argv[1]), sys.argv[2]
bsd = [
    b'<13>Oct 11 22:14:15 host1 su[123]: hello world',
    b'<165>Oct  1 02:03:04 host2 cron: with "quotes", \\backslash and ]brackets[',
    b'<34>Oct 11 22:14:15 host3 app[1]: unicode \xc3\xa9 \xc3\xbc',
    b'<0>Oct 11 22:14:15 host4 kernel: [ 1.0] x',
    b'<191>Nov 23 10:00:00.123 host5 prog[9]: fraction',
]
ietf = [
    b'<165>1 2026-10-11T22:14:15.003Z mymachine.example.com evntslog - ID47 [exampleSDID@32473 iut="3" eventSource="Application" eventID="1011"] \xef\xbb\xbfAn application event log entry',
    b'<13>1 2026-10-11T22:14:15Z h5 app 42 - - plain message',
    b'<14>1 2026-10-11T22:14:15+02:00 h6 app - ID1 [a@1 x="y\\]z"][b@2] with two elements',
    b'<15>1 2026-10-11T22:14:15.5-05:00 h7 app2 7 - - trailing space ',
]
s = socket.create_connection(("127.0.0.1", port))
if kind == "bsd":
    s.sendall(b"".join(l + b"\n" for l in bsd))
else:
    s.sendall(b"".join(str(len(l)).encode() + b" " + l for l in ietf))
s.close()
PY
}
for p in $s_in3164 $g_in3164; do send $p bsd; done
for f in sl/local3164 sg/local3164; do wait_lines "$work/$f" 5; done
for p in $s_in5424 $g_in5424; do send $p ietf; done
for f in sl/local3164 sg/local3164; do wait_lines "$work/$f" 9; done
for f in rg/a3164 rg/a5424 rg/b3164 rg/b5424 rs/c3164 rs/c5424 rg/aframed rg/bframed rg/audp rg/budp rg/atmpl \
  rg/btmpl rg/a5tmpl rg/b5tmpl rg/aus rg/bus rg/aud rg/bud; do
  wait_lines "$work/$f" 9
  [ "$(wc -l <"$work/$f")" -eq 9 ] || fail "$f has $(wc -l <"$work/$f") lines, want 9"
done

same() {
  cmp -s "$work/$1" "$work/$2" || { diff "$work/$1" "$work/$2"; fail "$1 and $2 differ"; }
}
# 1. Sluice -> syslog-ng: the same bytes as syslog-ng sends, read back as Sluice wrote them
same rg/a3164.raw rg/b3164.raw
same rg/a5424.raw rg/b5424.raw
for x in framed udp tmpl 5tmpl us ud; do
  same rg/a$x.raw rg/b$x.raw
done
same rg/a3164 sl/local3164
same rg/a5424 sl/local5424
# 2. syslog-ng -> Sluice
same rs/c3164 sg/local3164
same rs/c5424 sg/local5424
# the senders themselves agree on what they got
same sl/local3164 sg/local3164
same sl/local5424 sg/local5424
[ "$(wc -l <"$work/rg/a5424")" -eq 9 ] || fail "lines: $(wc -l <"$work/rg/a5424")"
echo "compare-relay: Sluice and syslog-ng send and read back the same 9 messages over tcp() and syslog()," \
  "and the same bytes over framed, udp(), templates, unix-stream() and unix-dgram()"
