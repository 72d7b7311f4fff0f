#!/bin/sh
# suppress() of file() and network destinations.
#  1. against syslog-ng 3.38 (compare.sh on data/suppress.conf): Sluice run
#     through a link named syslog-ng, so that its summaries name the same
#     daemon, writes the same lines;
#  2. the summary is also written when no other message comes: suppress(1)
#     on a tcp() destination, three repeats, then nothing for two seconds.
# Usage: suppress.sh SLUICE SRCDIR   (SLUICE_SYSLOG_NG as for compare.sh)
. "$(dirname "$0")/lib.sh"
sluice=$1 srcdir=$2
mkdir "$work/bin"
ln -s "$(readlink -f "$sluice")" "$work/bin/syslog-ng"
sh "$srcdir/tests/functional/compare.sh" "$work/bin/syslog-ng" "$srcdir/tests/functional/data/suppress.conf" \
  "$srcdir/tests/functional/data/suppress-input.txt" || fail "compare with syslog-ng"

set -- $(free_ports tcp tcp)
in=$1 out=$2
cat >"$work/sluice.conf" <<EOC
@version: 3.38
options { keep-hostname(yes); stats-freq(0); };
source s { network(ip(127.0.0.1) port($in)); };
source s_out { network(ip(127.0.0.1) port($out)); };
destination d { tcp("127.0.0.1" port($out) suppress(1)); };
destination d_out { file("$work/out.log" template("\$HOST \$PROGRAM \$MSG\n")); };
log { source(s); destination(d); };
log { source(s_out); destination(d_out); };
EOC
start_sluice "$sluice" "$work/sluice.conf"
python3 - "$in" <<'EOP'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"<13>Jan 10 10:00:00 h1 app[7]: again and again\n" * 3)
s.close()
EOP
wait_lines "$work/out.log" 2
stop_sluice
[ "$(head -1 "$work/out.log")" = "h1 app again and again" ] || fail "first line: $(cat "$work/out.log")"
case "$(sed -n 2p "$work/out.log")" in
"h1 app Last message 'again and again' repeated 2 times, suppressed by Sluice on "?*) ;;
*) fail "timer summary: $(cat "$work/out.log")" ;;
esac
[ "$(wc -l <"$work/out.log")" -eq 2 ] || fail "more than the summary: $(cat "$work/out.log")"
echo "suppress: as syslog-ng 3.38, and the summary comes on time"
