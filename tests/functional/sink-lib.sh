# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by the loggen tests that send to loggen-sink: they set $work,
# $sink_pid and fail() first.

# sink_port: wait until the sink started in the background wrote its
# --port-file ($work/port); sets $port.
sink_port() {
  _sp=0
  while [ ! -s "$work/port" ]; do
    _sp=$((_sp + 1))
    [ $_sp -lt 100 ] || fail "sink did not start"
    sleep 0.1
  done
  port=$(cat "$work/port")
}

# stop_sink: wait for the sink ($sink_pid) to end on its own, successfully.
stop_sink() {
  wait "$sink_pid" || fail "sink failed"
  sink_pid=
}
