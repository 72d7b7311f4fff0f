#!/bin/sh
# Sluice and Debian's syslog-ng 3.38 follow the same files with file()
# sources (plain, every multi-line mode, an ISO-8859-1 file read with
# encoding(), and pad-size()), are stopped, the files grow
# (the rest of a message each held back, new lines), and both run again:
# what they wrote must be identical, byte for byte.
# Usage: compare-file-source.sh SLUICE CONF DATADIR
#   CONF     a configuration; @IN@ and @OUT@ become each daemon's input
#            and output directories
#   DATADIR  NAME.log files (the first run) and NAME.more (added before
#            the second)
. "$(dirname "$0")/lib.sh"
sluice=$1 conf=$2 data=$3
sng=${SLUICE_SYSLOG_NG:-}
[ -n "$sng" ] && [ -x "$sng/usr/sbin/syslog-ng" ] || fail "SLUICE_SYSLOG_NG must name an unpacked syslog-ng-core"

for who in sluice syslog-ng; do
  mkdir -p "$work/$who/in" "$work/$who/out"
  cp "$data"/*.log "$work/$who/in/"
  sed "s|@IN@|$work/$who/in|g; s|@OUT@|$work/$who/out|g" "$conf" >"$work/$who/conf"
done

# run WHO: start, wait until its output has not changed for 2.5 s (the
# files are read within a follow-freq()), stop
run() {
  d=$work/$1
  if [ "$1" = sluice ]; then
    TZ=UTC "$sluice" -F -f "$d/conf" -R "$d/persist" -p "$d/pid" -c "$d/ctl" >"$d/stderr" 2>&1 &
  else
    TZ=UTC LD_LIBRARY_PATH="$sng/usr/lib/syslog-ng" "$sng/usr/sbin/syslog-ng" \
      --module-path="$sng/usr/lib/syslog-ng/3.38" -F -f "$d/conf" -R "$d/persist" -p "$d/pid" -c "$d/ctl" \
      >"$d/stderr" 2>&1 &
  fi
  p=$!
  last="" same=0 i=0
  while [ $same -lt 5 ]; do
    sleep 0.5
    now=$(cat "$d"/out/* 2>/dev/null | cksum)
    if [ "$now" = "$last" ] && [ -n "$(ls "$d/out")" ]; then same=$((same + 1)); else same=0; fi
    last=$now
    i=$((i + 1)); [ $i -lt 60 ] || fail "$1: its output never settled"
    kill -0 $p 2>/dev/null || { cat "$d/stderr"; fail "$1 exited"; }
  done
  kill -TERM $p
  wait $p || { cat "$d/stderr"; fail "$1 did not stop cleanly"; }
}

for who in sluice syslog-ng; do run $who; done
for who in sluice syslog-ng; do
  for f in "$data"/*.more; do
    n=$(basename "$f" .more)
    cat "$f" >>"$work/$who/in/$n.log"
  done
  run $who
done

for f in "$work/syslog-ng/out"/*; do
  n=$(basename "$f")
  cmp -s "$f" "$work/sluice/out/$n" || { diff -u "$f" "$work/sluice/out/$n"; fail "$n differs"; }
done
[ "$(ls "$work/sluice/out" | wc -l)" -eq "$(ls "$work/syslog-ng/out" | wc -l)" ] || fail "different files written"
echo "compare-file-source: $(cat "$work"/sluice/out/* | wc -l) lines, as syslog-ng 3.38 wrote them"
