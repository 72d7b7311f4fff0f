#!/bin/sh
# flags() of network destinations against Debian's syslog-ng 3.38: the
# same multi-line RFC 5424 frames go through Sluice and through syslog-ng
# to tcp(flags(no-multi-line)), syslog(flags(no-multi-line)) and
# network(flags(syslog-protocol)); each destination's bytes, as a loopback
# sink receives them, are equal.
# Usage: compare-dest-flags.sh SLUICE LOGGEN_SINK  (SLUICE_SYSLOG_NG names
# the unpacked syslog-ng-core)
. "$(dirname "$0")/../lib.sh"
sluice=$1 sink=$2
need_syslog_ng
sinks=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; for p in $sng_pids $sinks; do kill "$p" 2>/dev/null; done; rm -rf "$work"' EXIT
dests="nml5424 nml3164 proto"

# run NAME START_COMMAND: the daemon NAME (sl or sg) with its sinks, fed,
# stopped; its sinks' bytes in $work/NAME.DEST
run() {
  name=$1
  for d in $dests; do
    "$sink" --tcp --port-file "$work/$name.$d.port" --out "$work/$name.$d" --idle 2 --max 30 2>/dev/null &
    sinks="$sinks $!"
  done
  for d in $dests; do
    i=0
    until [ -s "$work/$name.$d.port" ]; do
      i=$((i + 1))
      [ $i -lt 100 ] || fail "no sink port"
      sleep 0.05
    done
  done
  set -- $(free_ports tcp)
  in=$1
  cat >"$work/$name.conf" <<EOC
@version: 3.38
options { keep-hostname(yes); use-dns(no); stats-freq(0); };
source s { syslog(ip(127.0.0.1) port($in)); };
destination d {
  tcp("127.0.0.1" port($(cat "$work/$name.nml3164.port")) flags(no-multi-line));
  syslog("127.0.0.1" port($(cat "$work/$name.nml5424.port")) flags(no-multi-line));
  network("127.0.0.1" port($(cat "$work/$name.proto.port")) flags(syslog-protocol));
};
log { source(s); destination(d); };
EOC
  if [ "$name" = sl ]; then
    start_sluice "$sluice" "$work/sl.conf"
  else
    sng_start sg
  fi
  python3 - "$in" <<'EOP'
import socket, sys, time
frames = [b"<13>1 2025-03-10T11:58:02Z host1 app 42 ID1 - first\nsecond\rthird",
          b"<14>1 2025-03-10T11:58:03Z host2 app - - [x@1 a=\"b\"] one line",
          b"<15>1 2025-03-10T11:58:04Z host3 app 7 - - ends in a newline\n"]
for _ in range(50):
    try:
        s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
        break
    except OSError:
        time.sleep(0.1)
s.sendall(b"".join(b"%d %s" % (len(f), f) for f in frames))
s.close()
EOP
  for d in $dests; do
    i=0
    until [ "$(grep -c "app" "$work/$name.$d" 2>/dev/null)" -ge 3 ]; do
      i=$((i + 1))
      [ $i -lt 100 ] || fail "$name $d: $(cat "$work/$name.$d" 2>/dev/null)"
      sleep 0.1
    done
  done
  if [ "$name" = sl ]; then
    stop_sluice
  else
    kill $sng_pids
    wait $sng_pids || true
    sng_pids=
  fi
}

run sl
run sg
for d in $dests; do
  cmp -s "$work/sl.$d" "$work/sg.$d" || {
    echo "--- sluice $d"; od -c "$work/sl.$d" | head -20
    echo "--- syslog-ng $d"; od -c "$work/sg.$d" | head -20
    fail "$d differs"
  }
done
grep -q "first second third" "$work/sl.nml3164" || fail "no-multi-line did nothing: $(cat "$work/sl.nml3164")"
echo "compare-dest-flags: $dests byte for byte equal to syslog-ng 3.38's"
