# Shared by the functional test scripts: source it with
#   . "$(dirname "$0")/lib.sh"
# It sets LC_ALL=C and -eu, makes $work (a mktemp directory removed at exit,
# after killing $pid when it is set and the syslog-ng daemons of sng_start)
# and gives fail, free_ports, start_sluice(_or_skip), wait_lines, wait_log,
# reload_sluice, stop_sluice, rss_kb, rss_below, need_syslog_ng, sng_start,
# sng_include_path and stop_daemons.
set -eu
LC_ALL=C
export LC_ALL
work=$(mktemp -d)
pid=
sng_pids=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; for _p in $sng_pids; do kill "$_p" 2>/dev/null; done; rm -rf "$work"' EXIT

# fail MESSAGE: print it and the daemon's log, exit 1
fail() {
  echo "FAIL: $*"
  [ -f "$work/sluice.log" ] && tail -20 "$work/sluice.log"
  exit 1
}

# free_ports KIND...: one free 127.0.0.1 port per KIND (tcp or udp), outside
# the kernel's ephemeral range, printed on one line (free-ports.py)
free_ports() {
  for _fp in "$(dirname "$0")/free-ports.py" "$(dirname "$0")/../free-ports.py" \
      "$(dirname "$0")/../functional/free-ports.py"; do
    [ -f "$_fp" ] && python3 "$_fp" "$@" && return
  done
  echo "free_ports: free-ports.py not found or failed" >&2
  return 1
}

# start_sluice SLUICE CONF [ARGS...]: run it in the foreground in the
# background (log in $work/sluice.log, $pid set) until it says it started
start_sluice() {
  start_sluice_or_skip "" "$@"
}

# start_sluice_or_skip PATTERN SLUICE CONF [ARGS...]: start_sluice, but when
# the daemon exits with a log line matching PATTERN (something this machine
# lacks), the test is skipped (exit 77) with that line
start_sluice_or_skip() {
  _start_skip=$1 _start_bin=$2 _start_conf=$3
  shift 3
  # a restart must not take the last run's "starting up" for its own
  rm -f "$work/sluice.log"
  "$_start_bin" -F -v -f "$_start_conf" -p "$work/pid" "$@" >"$work/sluice.log" 2>&1 &
  pid=$!
  i=0
  while ! grep -q "starting up" "$work/sluice.log" 2>/dev/null; do
    i=$((i + 1))
    if ! kill -0 "$pid" 2>/dev/null && [ -n "$_start_skip" ] &&
        grep -q "$_start_skip" "$work/sluice.log"; then
      pid=
      echo "$(basename "$0" .sh): skipped: $(grep "$_start_skip" "$work/sluice.log" | tail -1)"
      exit 77
    fi
    [ $i -lt 100 ] && kill -0 "$pid" 2>/dev/null || fail "sluice did not start"
    sleep 0.1
  done
}

# wait_lines FILE N: until FILE has N lines, or 60 s passed
wait_lines() {
  i=0
  while [ "$(wc -l <"$1" 2>/dev/null || echo 0)" -lt "$2" ]; do
    i=$((i + 1))
    [ $i -lt 600 ] || break
    sleep 0.1
  done
}

# wait_file FILE WHAT: until FILE exists; fails after 10 s ("WHAT did not start")
wait_file() {
  _wf=0
  until [ -f "$1" ]; do
    _wf=$((_wf + 1))
    [ $_wf -lt 100 ] || fail "$2 did not start"
    sleep 0.1
  done
}

# wait_line FILE LINE: until FILE has LINE (the whole line), or 60 s passed
wait_line() {
  i=0
  until grep -qxF "$2" "$1" 2>/dev/null; do
    i=$((i + 1))
    [ $i -lt 600 ] || break
    sleep 0.1
  done
}

# wait_log TEXT: until the daemon's log ($work/sluice.log) has a line with
# TEXT (a grep pattern); fails after 30 s or when the daemon is gone
wait_log() {
  _wl=0
  until grep -q "$1" "$work/sluice.log" 2>/dev/null; do
    _wl=$((_wl + 1))
    [ $_wl -lt 300 ] && kill -0 "$pid" 2>/dev/null || fail "no '$1' in the daemon's log"
    sleep 0.1
  done
}

# reload_sluice [TEXT]: SIGHUP, and wait (30 s at most, failing when the
# daemon is gone) for one more log line with TEXT ("Configuration reload
# finished" by default) than before it
reload_sluice() {
  _rl_text=${1:-Configuration reload finished}
  _rl_before=$(grep -c "$_rl_text" "$work/sluice.log" || true)
  kill -HUP "$pid"
  _rl=0
  while [ "$(grep -c "$_rl_text" "$work/sluice.log" || true)" -le "$_rl_before" ]; do
    _rl=$((_rl + 1))
    [ $_rl -lt 300 ] && kill -0 "$pid" 2>/dev/null || fail "no '$_rl_text' after the reload"
    sleep 0.1
  done
}

# stop_sluice: SIGTERM, and wait for it to exit; fails on a bad exit
stop_sluice() {
  kill -TERM "$pid"
  st=0
  wait "$pid" || st=$?
  pid=
  [ $st -eq 0 ] || fail "sluice exited with $st"
}

# dest_stat SOCKET DRIVER NAME: counter NAME of the destination driver
# DRIVER ("dst.tcp;d_relay#0"), from sluice-ctl ($ctl) on SOCKET
dest_stat() {
  "$ctl" -c "$1" stats 2>/dev/null | sed -n "s/^$2;[^;]*;a;$3;//p"
}

# wait_dest_stat SOCKET DRIVER NAME VALUE: until that counter is VALUE
# (30 s at most)
wait_dest_stat() {
  _ws=0
  while [ "$(dest_stat "$1" "$2" "$3")" != "$4" ]; do
    _ws=$((_ws + 1))
    [ $_ws -lt 300 ] || fail "$2 $3 is $(dest_stat "$1" "$2" "$3"), expected $4"
    sleep 0.1
  done
}

# rss_kb [PID]: the daemon's ($pid by default) current and peak resident
# memory in kB, as "RSS N kB (peak N kB)"
rss_kb() {
  _rss_pid=${1:-$pid}
  awk '/^VmRSS:/ {r=$2} /^VmHWM:/ {h=$2} END {printf "RSS %d kB (peak %d kB)\n", r, h}' \
    "/proc/$_rss_pid/status"
}

# rss_below LIMIT_KB [PID]: print rss_kb and fail when the peak is above LIMIT_KB
rss_below() {
  _rss_line=$(rss_kb "${2:-$pid}")
  echo "daemon memory: $_rss_line"
  _rss_peak=$(echo "$_rss_line" | sed 's/.*peak \([0-9]*\).*/\1/')
  [ "$_rss_peak" -le "$1" ] || fail "daemon peak RSS ${_rss_peak} kB is above ${1} kB"
}

# need_syslog_ng: set $sng to the unpacked syslog-ng-core that
# SLUICE_SYSLOG_NG names (scripts/fetch-syslog-ng.sh DIR), or exit 1 saying so
need_syslog_ng() {
  sng=${SLUICE_SYSLOG_NG:-}
  if [ -z "$sng" ] || [ ! -x "$sng/usr/sbin/syslog-ng" ]; then
    echo "SLUICE_SYSLOG_NG must name an unpacked syslog-ng-core (scripts/fetch-syslog-ng.sh DIR)" >&2
    exit 1
  fi
}

# sng_include_path: the @define that gives syslog-ng ($sng) Debian's include
# path (the unpacked /etc/syslog-ng and SCL), for a configuration that
# includes scl.conf
sng_include_path() {
  printf '@define include-path "%s/etc/syslog-ng:%s/usr/share/syslog-ng/include"\n' "$sng" "$sng"
}

# stop_daemons: the syslog-ng daemons of sng_start (killed, waited for),
# then the Sluice of start_sluice (stop_sluice) when there is one
stop_daemons() {
  if [ -n "$sng_pids" ]; then
    kill $sng_pids
    wait $sng_pids 2>/dev/null || true
    sng_pids=
  fi
  if [ -n "$pid" ]; then
    stop_sluice
  fi
}

# sng_start NAME: syslog-ng ($sng) on $work/NAME.conf, its log in
# $work/NAME.log and its files in $work/NAME.d, until its control socket is
# there; its pid joins $sng_pids, which the exit trap kills
sng_start() {
  mkdir -p "$work/$1.d"
  LD_LIBRARY_PATH=$sng/usr/lib/syslog-ng "$sng/usr/sbin/syslog-ng" -F -e --no-caps \
    --module-path="$sng/usr/lib/syslog-ng/3.38" -f "$work/$1.conf" -R "$work/$1.d/persist" \
    -p "$work/$1.d/pid" -c "$work/$1.d/ctl" >"$work/$1.log" 2>&1 &
  sng_pids="$sng_pids $!"
  _sng=0
  while [ ! -S "$work/$1.d/ctl" ]; do
    _sng=$((_sng + 1))
    [ $_sng -lt 100 ] || fail "syslog-ng $1 did not start: $(cat "$work/$1.log")"
    sleep 0.1
  done
}

# gen FILE N: append N lines in loggen's format (runid $gen_runid, thread
# 0) to FILE, numbered on from the last one ($seq counts them all)
seq=0
gen_runid=1764000000
gen() {
  awk -v from=$seq -v n="$2" -v r=$gen_runid 'BEGIN {
    for (i = from; i < from + n; i++)
      printf "<13>Nov 22 10:00:00 host app[1]: seq: %010d, thread: 0000, runid: %d, stamp: x PADD\n", i, r
  }' >>"$1"
  seq=$((seq + $2))
}

# arrived WHAT: until $work/out.log holds $seq lines (wait_lines), then
# fail, naming WHAT, unless it holds exactly that many
arrived() {
  wait_lines "$work/out.log" $seq
  [ "$(wc -l <"$work/out.log")" -eq $seq ] || fail "$1: out.log has $(wc -l <"$work/out.log") lines, want $seq"
}
