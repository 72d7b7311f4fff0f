#!/bin/sh
# $(format-json) of the name-value pair scopes against syslog-ng 3.38 on
# messages from tcp(), udp(), network(transport(tcp|udp)), syslog() over
# TCP and UDP, a store-raw-message source and unix-dgram(): the same keys
# and values, the plan (a message nothing added a pair to) and the walk (a
# rewrite set one) alike.  Sluice's sources set TRANSPORT (syslog-ng 4's
# names), which 3.38 does not have: it must not show, under a scope or
# under --key.  Both daemons run at once, each on its own ports, and one
# sender writes each step to both.
# Usage: compare-nv-pairs.sh SLUICE   (SLUICE_SYSLOG_NG as for compare.sh)
. "$(dirname "$0")/lib.sh"
sluice=$1
need_syslog_ng

conf() { # conf NAME PORT...: $work/NAME.conf, writing $work/NAME.*.out
  n=$1
  shift
  cat >"$work/$n.conf" <<EOC
@version: 3.38
options { use-dns(no); stats-freq(0); };
source s_tcp { tcp(ip(127.0.0.1) port($1)); };
source s_udp { udp(ip(127.0.0.1) port($2)); };
source s_ntcp { network(ip(127.0.0.1) port($3) transport(tcp)); };
source s_nudp { network(ip(127.0.0.1) port($4) transport("udp")); };
source s_stcp { syslog(ip(127.0.0.1) port($5) transport(tcp)); };
source s_sudp { syslog(ip(127.0.0.1) port($6) transport(udp)); };
source s_raw { network(ip(127.0.0.1) port($7) flags(store-raw-message)); };
source s_unix { unix-dgram("$work/$n.sock"); };
rewrite r_set { set("\${MSG}-x" value("extra")); };
template t_nv { template("\$(format-json --scope nv-pairs)\n"); };
template t_rfc { template("\$(format-json --scope rfc5424 --scope nv-pairs)\n"); };
template t_all { template("\$(format-json --scope all-nv-pairs --exclude .unix.*)\n"); };
template t_key { template("\$(format-json --key TRANSPORT --key SOURCE --key HOST --key HOST_*)\n"); };
destination d { file("$work/$n.nv.out" template(t_nv)); file("$work/$n.rfc.out" template(t_rfc));
                file("$work/$n.all.out" template(t_all)); file("$work/$n.key.out" template(t_key)); };
log { source(s_tcp); source(s_udp); source(s_ntcp); source(s_nudp); source(s_stcp); source(s_sudp);
      source(s_raw); source(s_unix);
      log { destination(d); };
      log { rewrite(r_set); destination(d); }; };
EOC
}

set -- $(free_ports tcp udp tcp udp tcp udp tcp tcp udp tcp udp tcp udp tcp)
conf sng $1 $2 $3 $4 $5 $6 $7
sng_ports="$1 $2 $3 $4 $5 $6 $7"
shift 7
conf slc $1 $2 $3 $4 $5 $6 $7
slc_ports="$1 $2 $3 $4 $5 $6 $7"
TZ=UTC
export TZ
sng_start sng
start_sluice "$sluice" "$work/slc.conf"
for i in $(seq 100); do [ -S "$work/sng.sock" ] && [ -S "$work/slc.sock" ] && break; sleep 0.1; done

# each step goes to both daemons, and the next waits for its two lines in
# both (a path with the rewrite and one without): one line at a time keeps
# the files in the same order whichever worker reads what
python3 - "$work" $sng_ports $slc_ports <<'EOP'
import os, socket, sys, time
work = sys.argv[1]
ports = {"sng": [int(p) for p in sys.argv[2:9]], "slc": [int(p) for p in sys.argv[9:16]]}
bsd = b"<13>Nov 22 10:00:00 h1 prog[5]: text"
r5 = b'<165>1 2026-11-22T10:00:00.123+02:00 h1 app 42 ID7 [a@1 x="y"] m1'
def frame(m):
    return str(len(m)).encode() + b" " + m
def lines(who):
    try:
        with open(os.path.join(work, who + ".nv.out"), "rb") as f:
            return f.read().count(b"\n")
    except FileNotFoundError:
        return 0
def tcp(port, data):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(data)
    s.close()
def udp(port, data):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.sendto(data, ("127.0.0.1", port))
    s.close()
def unix(who, data):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.sendto(data, os.path.join(work, who + ".sock"))
    s.close()
steps = [
    lambda w, p: tcp(p[0], bsd + b"\n"),
    lambda w, p: udp(p[1], bsd),
    lambda w, p: tcp(p[2], bsd + b"\n"),
    lambda w, p: udp(p[3], bsd),
    lambda w, p: tcp(p[4], frame(r5)),
    lambda w, p: udp(p[5], r5),
    lambda w, p: tcp(p[6], bsd + b"\n"),
    lambda w, p: unix(w, b"<13>Nov 22 10:00:00 app[9]: local"),
    lambda w, p: tcp(p[0], b"<14>Nov 22 10:00:01 h2 p2: no pid\n"),
    lambda w, p: tcp(p[4], frame(b"<13>1 2026-11-22T10:00:00Z - - - - - only a message")),
]
for step in steps:
    want = {w: lines(w) + 2 for w in ports}
    for w, p in ports.items():
        step(w, p)
    end = time.time() + 10
    while any(lines(w) < want[w] for w in ports) and time.time() < end:
        time.sleep(0.02)
EOP
for f in nv rfc all key; do
  wait_lines "$work/slc.$f.out" 20
  wait_lines "$work/sng.$f.out" 20
done
for f in nv rfc all key; do
  cmp -s "$work/sng.$f.out" "$work/slc.$f.out" \
    || { diff "$work/sng.$f.out" "$work/slc.$f.out"; fail "$f differs (< syslog-ng, > sluice)"; }
done
[ "$(wc -l <"$work/slc.nv.out")" -eq 20 ] || fail "not 20 lines"
! grep -q TRANSPORT "$work"/slc.*.out || fail "TRANSPORT written"
grep -q '"extra":"text-x"' "$work/slc.nv.out" || fail "no rewritten pair"
stop_sluice
echo "compare-nv-pairs: format-json's name-value pair scopes as syslog-ng 3.38's on 20 messages of 8 sources"
