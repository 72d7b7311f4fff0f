# Sourced after ../lib.sh by the tests that run Debian's rsyslogd beside
# Sluice (relp-rsyslog.sh, relp-rsyslog-tls.sh).  rsyslog comes from
# $SLUICE_RSYSLOG (scripts/fetch-rsyslog.sh DIR, as scripts/test.sh sets
# it); without it it is unpacked into the test's own directory, and the
# test skips (77) only when that cannot be done.  Sets rs_root, rs_lib and
# start_rsyslog/stop_rsyslog; the EXIT trap stops a rsyslogd left running.
rs_root=${SLUICE_RSYSLOG:-}
if [ -z "$rs_root" ]; then
  rs_root=$work/rsyslog-root
  "$(dirname "$0")/../../../scripts/fetch-rsyslog.sh" "$rs_root" >"$work/fetch.log" 2>&1 || {
    echo "SKIP: no SLUICE_RSYSLOG, and rsyslog with rsyslog-relp cannot be unpacked: $(tail -3 "$work/fetch.log")"
    exit 77
  }
fi
[ -x "$rs_root/usr/sbin/rsyslogd" ] || fail "SLUICE_RSYSLOG=$rs_root has no usr/sbin/rsyslogd"
rs_lib="$rs_root/usr/lib/x86_64-linux-gnu"
rs_pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; [ -n "$rs_pid" ] && kill -9 "$rs_pid" 2>/dev/null; rm -rf "$work"' EXIT

# start_rsyslog CONF: run rsyslogd in the foreground in the background
start_rsyslog() {
  rm -f "$work/rs.pid"
  LD_LIBRARY_PATH="$rs_lib" "$rs_root/usr/sbin/rsyslogd" -n -f "$1" -i "$work/rs.pid" -M "$rs_lib/rsyslog" \
    >>"$work/rsyslog.log" 2>&1 &
  rs_pid=$!
  i=0
  while [ ! -s "$work/rs.pid" ]; do
    i=$((i + 1))
    [ $i -lt 100 ] && kill -0 "$rs_pid" 2>/dev/null || fail "rsyslogd did not start: $(cat "$work/rsyslog.log")"
    sleep 0.1
  done
  sleep 0.3 # its inputs listen once the pid file is there, not before
}

stop_rsyslog() {
  kill -TERM "$rs_pid"
  wait "$rs_pid" || true
  rs_pid=
}
