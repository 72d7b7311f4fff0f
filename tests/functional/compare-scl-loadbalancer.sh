#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# network-load-balancer() (Sluice's scl/loadbalancer/ and its genlb(),
# against syslog-ng 3.38's SCL and its gen-loadbalancer.sh): two targets,
# 127.0.0.1 and 127.0.0.2 on one port, with a template that starts with
# the millisecond the daemon received the message at.  Each daemon gets
# the same 40 lines, spread over about half a second; every line must
# reach exactly one target, the one whose number is that millisecond
# modulo 2, and both daemons must deliver the same lines.
#
# Usage: compare-scl-loadbalancer.sh SLUICE
# SLUICE_SYSLOG_NG names the directory Debian's syslog-ng-core and
# syslog-ng-scl are unpacked in (scripts/fetch-syslog-ng.sh).
. "$(dirname "$0")/lib.sh"
sluice=$1
need_syslog_ng
lines=40

conf() { # conf IN_PORT OUT_PORT: the configuration both daemons run
  cat <<EOF
@version: 3.38
@include "scl.conf"
source s_in { network(ip(127.0.0.1) port($1) transport(tcp)); };
destination d_lb { network-load-balancer(targets(127.0.0.1 127.0.0.2) port($2) transport(tcp)
                                         template("\${R_MSEC} \${MSG}\n")); };
log { source(s_in); destination(d_lb); };
EOF
}

run() { # run WHO: one daemon; what each target got in $work/WHO.0 and $work/WHO.1
  who=$1
  set -- $(free_ports tcp tcp)
  python3 - "$2" "$work/$who" <<'EOF' &
import socket, sys, threading
port, out = int(sys.argv[1]), sys.argv[2]
def serve(n, addr):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, port))
    s.listen(8)
    while True:
        c, _ = s.accept()
        threading.Thread(target=lambda c=c: [open("%s.%d" % (out, n), "ab").write(d) for d in iter(lambda: c.recv(65536), b"")], daemon=True).start()
for n, addr in enumerate(("127.0.0.1", "127.0.0.2")):
    threading.Thread(target=serve, args=(n, addr), daemon=True).start()
open(out + ".ready", "w").close()
threading.Event().wait()
EOF
  peers=$!
  wait_file "$work/$who.ready" "$who: the targets"
  if [ "$who" = syslog-ng ]; then
    sng_include_path >"$work/sng.conf"
    # where its SCL runs gen-loadbalancer.sh from
    printf '@define scl-root "%s/usr/share/syslog-ng/include/scl"\n' "$sng" >>"$work/sng.conf"
    conf "$1" "$2" >>"$work/sng.conf"
    sng_start sng
  else
    conf "$1" "$2" >"$work/sluice.conf"
    start_sluice "$sluice" "$work/sluice.conf" -R "$work/persist" -c "$work/ctl"
  fi
  python3 -c '
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
for i in range(int(sys.argv[2])):
    s.sendall(b"<13>Mar 10 11:58:01 web01 app[1]: line %d\n" % i)
    time.sleep(0.013)
s.close()' "$1" $lines
  i=0
  while [ "$(cat "$work/$who".[01] 2>/dev/null | wc -l)" -lt $lines ]; do
    i=$((i + 1))
    [ $i -lt 200 ] || fail "$who: the targets got $(cat "$work/$who".[01] 2>/dev/null | wc -l) of $lines lines"
    sleep 0.1
  done
  stop_daemons
  kill "$peers"
  wait "$peers" 2>/dev/null || true
  for n in 0 1; do
    [ -s "$work/$who.$n" ] || fail "$who: target $n got nothing (the millisecond of 40 lines never gave $n)"
    awk -v n=$n '$1 % 2 != n { bad++ } END { exit bad > 0 }' "$work/$who.$n" ||
      fail "$who: target $n got lines of the other millisecond: $(head -5 "$work/$who.$n")"
  done
  cat "$work/$who".[01] | cut -d' ' -f2- | sort >"$work/$who.all"
}

run syslog-ng
run sluice
[ "$(wc -l <"$work/sluice.all")" -eq $lines ] || fail "sluice: $(wc -l <"$work/sluice.all") lines, not $lines"
cmp -s "$work/syslog-ng.all" "$work/sluice.all" ||
  fail "the lines delivered differ: $(diff "$work/syslog-ng.all" "$work/sluice.all" | head -10)"
