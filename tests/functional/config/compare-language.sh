#!/bin/sh
# The configuration language against syslog-ng 3.38: the same configuration
# and the same lines over TCP, every output file identical.  It has
# channel {} inside source and destination statements (one or several) and
# directly in a log path (syslog-ng's shape, as in its Kafka documentation;
# Sluice segfaulted on the first of these in its pipeline compiler), and
# block definitions of type source, destination, parser, rewrite, filter,
# log and root with defaults, mandatory parameters, `__VARARGS__`, @define'd
# names and one block using another.
#
# Usage: compare-language.sh SLUICE   (SLUICE_SYSLOG_NG names the unpacked
# syslog-ng-core, as for compare-network.sh)
. "$(dirname "$0")/../lib.sh"
sluice=$1
need_syslog_ng

t='${MSG}|${kv.a}|${chan}|${tag}|${SOURCE}\n'
# conf DIR PORTS...: the configuration, writing into DIR
conf() {
  cat <<EOF
@version: 3.38
@define local "127.0.0.1"
options { use-dns(no); };
block source local_tcp(port() ...) {
  tcp(ip(\`local\`) port(\`port\`) \`__VARARGS__\`);
};
block destination out(name() tpl($t)) {
  file("$1/\`name\`" template("\`tpl\`"));
};
# (syslog-ng 3.38 substitutes the backticks of a body that starts on the
# definition's own line before the block's parameters are known: bodies
# start on the next line here)
block parser kv(prefix("kv.")) {
  kv-parser(prefix(\`prefix\`));
};
block rewrite tag(value()) {
  set("\`value\`" value("tag"));
};
block filter not_dropped() { not message("drop-me") };
block log to_plain() { destination(d_plain); };
block root plain_path(src()) {
  log { source(\`src\`); channel { rewrite { tag(value(in-path)); }; to_plain(); }; };
};
source s_net {
  local_tcp(port($2) flags(no-multi-line));
  channel {
    source { local_tcp(port($3)); };
    filter { not_dropped(); };
    parser { kv(); };
    rewrite { set("via-channel" value("chan")); };
  };
};
source s_two {
  channel { source { tcp(ip(127.0.0.1) port($4)); }; rewrite { set("left" value("chan")); }; };
  channel { source { tcp(ip(127.0.0.1) port($5)); }; rewrite { set("right" value("chan")); }; };
};
source s_plain { tcp(ip(127.0.0.1) port($6)); };
destination d_split {
  out(name(direct));
  channel {
    rewrite { tag(value(dest-channel)); };
    destination { out(name(channel)); };
  };
};
destination d_two {
  channel { filter { message("left|right" type(pcre)); }; destination { file("$1/j-matched" template("$t")); }; };
  channel { destination { file("$1/j-all" template("$t")); }; };
};
destination d_plain { file("$1/plain" template("$t")); };
log { source(s_net); destination(d_split); };
log { source(s_two); destination(d_two); };
plain_path(src(s_plain));
EOF
}

set -- $(free_ports tcp tcp tcp tcp tcp)
ports="$*"
mkdir "$work/sluice" "$work/sng"
conf "$work/sluice" $ports >"$work/sluice.conf"
conf "$work/sng" $ports >"$work/sng.conf"
"$sluice" --syntax-only -f "$work/sluice.conf" || fail "sluice --syntax-only refused the configuration"

# send PORT TEXT: one connection, TEXT's lines
send() {
  python3 -c '
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(sys.argv[2].encode())
s.close()' "$1" "$2"
}

# run WHO: start the daemon, send every line, wait for them, stop it
run() {
  if [ "$1" = sluice ]; then
    start_sluice "$sluice" "$work/sluice.conf"
  else
    sng_start sng
  fi
  dir=$work/$1
  set -- $ports
  send "$1" "<13>Nov 26 10:00:00 h p: a=1 direct
"
  wait_lines "$dir/channel" 1
  send "$2" "<13>Nov 26 10:00:01 h p: a=2 through the channel
<13>Nov 26 10:00:02 h p: a=3 drop-me
<13>Nov 26 10:00:03 h p: a=4 after the dropped one
"
  wait_lines "$dir/channel" 3
  send "$3" "<13>Nov 26 10:00:04 h p: from the left
"
  wait_lines "$dir/j-all" 1
  send "$4" "<13>Nov 26 10:00:05 h p: from the right
"
  wait_lines "$dir/j-all" 2
  send "$5" "<13>Nov 26 10:00:06 h p: a=5 plain
"
  wait_lines "$dir/plain" 1
  sleep 0.3
}

run sluice
# a reload into the same file: channels crashed the running daemon
reload_sluice
kill -0 "$pid" || fail "the reload killed the daemon"
stop_sluice
run sng
kill $sng_pids
wait $sng_pids || true
sng_pids=

for f in direct channel j-matched j-all plain; do
  [ -s "$work/sng/$f" ] || fail "syslog-ng wrote no $f"
  cmp -s "$work/sluice/$f" "$work/sng/$f" || fail "$f differs from syslog-ng's:
$(diff "$work/sng/$f" "$work/sluice/$f")"
done
grep -q "drop-me" "$work/sluice/direct" && fail "the channel's filter let drop-me through"
echo "OK: channels and blocks, as syslog-ng 3.38 runs them ($(cat "$work/sluice/"* | wc -l) lines)"
