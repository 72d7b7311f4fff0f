#!/bin/sh
# @include of something that is not a regular file (issue 22): /dev/zero
# never ends and a FIFO without a writer never opens.  --syntax-only must
# answer at once with an error naming the file, and a SIGHUP reload onto
# such a configuration must keep the running one, say why in the log, and
# go on delivering.  Files the configuration names and the build reads
# (in-list(), dns-cache-hosts(), TLS files) are refused the same way.  A FIFO given as -f itself (someone writes the
# configuration into it) still works, also with a control socket.
# Usage: include-device.sh SLUICE [SLUICE_CTL]
. "$(dirname "$0")/../lib.sh"
sluice=$1 ctl=${2:-}
set -- $(free_ports udp)
port=$1
mkfifo "$work/fifo.conf"

conf() {
  cat >"$work/sluice.conf" <<EOF
@version: 3.38
$1
source s { udp(ip(127.0.0.1) port($port)); };
destination d { file("$work/out.log"); };
log { source(s); destination(d); };
EOF
}

# syntax_only: the exit status of --syntax-only, which must come within 10 s
syntax_only() {
  st=0
  timeout 10 "$sluice" --syntax-only -f "$work/sluice.conf" >"$work/syntax.out" 2>&1 || st=$?
  [ $st -ne 124 ] || fail "--syntax-only still running after 10 s: $(head -c 300 "$work/syntax.out")"
  return $st
}

for bad in /dev/zero "$work/fifo.conf"; do
  conf "@include \"$bad\""
  st=0
  syntax_only || st=$?
  [ $st -ne 0 ] || fail "--syntax-only accepted @include $bad"
  grep -q "cannot include '$bad': it is a" "$work/syntax.out" \
    || fail "--syntax-only on $bad said: $(head -c 300 "$work/syntax.out")"
done
# a directory with a FIFO in it, the same
mkdir "$work/conf.d"
echo 'destination d2 { file("/dev/null"); };' >"$work/conf.d/10-ok.conf"
mkfifo "$work/conf.d/20-fifo.conf"
conf "@include \"$work/conf.d\""
st=0
syntax_only || st=$?
[ $st -ne 0 ] && grep -q "20-fifo.conf': it is a FIFO" "$work/syntax.out" \
  || fail "directory with a FIFO: $st $(head -c 300 "$work/syntax.out")"
rm "$work/conf.d/20-fifo.conf"

# files the configuration names and the build reads: the same rule
for named in "filter f { in-list(\"$work/fifo.conf\" value(\"HOST\")); };|in-list(): cannot open the list file '$work/fifo.conf': it is a FIFO" \
             "filter f { in-list(\"/dev/zero\" value(\"HOST\")); };|in-list(): cannot open the list file '/dev/zero': it is a character device" \
             "options { use-dns(yes); dns-cache-hosts(\"$work/fifo.conf\"); };|it is a FIFO" \
             "source t { network(port(1) transport(tls) tls(key-file(\"/dev/zero\") cert-file(\"$work/fifo.conf\"))); }; log { source(t); destination(d); };|cannot load cert-file(\"$work/fifo.conf\"): it is a FIFO"; do
  conf "${named%%|*}"
  st=0
  syntax_only || st=$?
  [ $st -ne 0 ] && grep -qF "${named#*|}" "$work/syntax.out" \
    || fail "${named%%|*}: $st $(head -c 300 "$work/syntax.out")"
done

conf ""
syntax_only || fail "--syntax-only on the good configuration: $(cat "$work/syntax.out")"
start_sluice "$sluice" "$work/sluice.conf"
send() {
  python3 -c '
import socket, sys
socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(sys.argv[2].encode(), ("127.0.0.1", int(sys.argv[1])))' \
    "$port" "<13>Nov 22 10:00:00 host app: $1"
}
send before
wait_lines "$work/out.log" 1

# refused_reload N BAD: the N-th refusal in the log, naming BAD
refused_reload() {
  kill -HUP "$pid"
  i=0
  while [ "$(grep -c "keeping the running one" "$work/sluice.log" || true)" -lt "$1" ]; do
    i=$((i + 1))
    [ $i -lt 100 ] && kill -0 "$pid" 2>/dev/null || fail "no refused reload for $2"
    sleep 0.1
  done
  grep -q "cannot include '$2': it is a" "$work/sluice.log" || fail "the log does not say why ($2)"
}
conf "@include \"/dev/zero\""
refused_reload 1 /dev/zero
conf "@include \"$work/fifo.conf\""
refused_reload 2 "$work/fifo.conf"

send after
wait_lines "$work/out.log" 2
[ "$(wc -l <"$work/out.log")" -eq 2 ] || fail "the running configuration lost messages: $(cat "$work/out.log")"
echo "include-device: --syntax-only and two reloads refused /dev/zero and a FIFO at once"
rss_below 65536
stop_sluice

# -f may still name a FIFO someone writes the configuration into; with a
# control socket the daemon must not open it again (that waits for a
# writer forever) and CONFIG GET says the text is not available
if [ -n "$ctl" ]; then
  mkfifo "$work/top.fifo"
  conf ""
  cat "$work/sluice.conf" >"$work/top.fifo" &
  start_sluice "$sluice" "$work/top.fifo" -c "$work/ctl"
  "$ctl" -c "$work/ctl" healthcheck | grep -q '^state=running' || fail "healthcheck with a FIFO -f"
  st=0
  "$ctl" -c "$work/ctl" config >"$work/config.out" 2>&1 || st=$?
  [ $st -eq 1 ] && grep -q "not available" "$work/config.out" || fail "config with a FIFO -f: $st $(cat "$work/config.out")"
  stop_sluice
  echo "include-device: a FIFO as -f starts with a control socket"
fi
