#!/bin/sh
# encoding(): an ISO-8859-1 file read by file(... encoding("ISO-8859-1"))
# and a CP1252 stream sent to tcp(... encoding("CP1252")) arrive in the
# file() destination as UTF-8; a restart goes on from the persisted
# position (kept in the file's raw bytes) with nothing lost or repeated;
# an EUC-JP byte that is no character arrives as U+FFFD.
# Usage: encoding.sh SLUICE
. "$(dirname "$0")/lib.sh"
sluice=$1
set -- $(free_ports tcp tcp)
port=$1 port2=$2

cat >"$work/sluice.conf" <<EOF2
@version: 3.38
source s { file("$work/in.log" encoding("ISO-8859-1") follow-freq(1));
           tcp(ip(127.0.0.1) port($port) encoding("CP1252"));
           network(ip(127.0.0.1) port($port2) encoding("EUC-JP")); };
destination d { file("$work/out.log" template("\$PROGRAM|\$MSG\n")); };
log { source(s); destination(d); };
EOF2

start() {
  start_sluice "$sluice" "$work/sluice.conf" -R "$work/sluice.persist"
}

# send PORT BYTES: BYTES (a Python bytes literal) over TCP to 127.0.0.1:PORT
send() {
  python3 -c "
import socket, sys
s = socket.create_connection(('127.0.0.1', int(sys.argv[1])))
s.sendall($2)
s.close()" "$1"
}

# expect N TEXT: until out.log has N lines, then fail unless it is TEXT
# (printf escapes)
expect() {
  wait_lines "$work/out.log" "$1"
  printf "$2" >"$work/want"
  cmp -s "$work/want" "$work/out.log" || { diff "$work/want" "$work/out.log" || :; fail "out.log differs"; }
}

# latin1 in the file: é è ç, © Ö ß, and every printable byte of the upper half
printf '<13>Nov 22 10:00:00 host caf\351[1]: cr\350me \340 la fran\347aise\n' >"$work/in.log"
printf '<13>Nov 22 10:00:01 host prog: \251 \326sterreich \337\n' >>"$work/in.log"
start
expect 2 'caf\303\251|cr\303\250me \303\240 la fran\303\247aise\nprog|\302\251 \303\226sterreich \303\237\n'

# CP1252 over tcp(): the euro sign, curly quotes, oe, and the latin1 part
send "$port" "b'<13>Nov 22 10:00:02 host net: \\x80 5 \\x93q\\x94 \\x9c \\xe9\\n'"
expect 3 'caf\303\251|cr\303\250me \303\240 la fran\303\247aise\nprog|\302\251 \303\226sterreich \303\237\n'\
'net|\342\202\254 5 \342\200\234q\342\200\235 \305\223 \303\251\n'

# a stop, lines added, a start: on from the persisted (raw) position
stop_sluice
printf '<13>Nov 22 10:00:03 host prog: apr\350s le red\351marrage\n' >>"$work/in.log"
start
expect 4 'caf\303\251|cr\303\250me \303\240 la fran\303\247aise\nprog|\302\251 \303\226sterreich \303\237\n'\
'net|\342\202\254 5 \342\200\234q\342\200\235 \305\223 \303\251\n'\
'prog|apr\303\250s le red\303\251marrage\n'

# EUC-JP over network(): A4 A2 is HIRAGANA A, FF no character: U+FFFD
send "$port2" "b'<13>Nov 22 10:00:04 host jp: \\xa4\\xa2 \\xff!\\n'"
expect 5 'caf\303\251|cr\303\250me \303\240 la fran\303\247aise\nprog|\302\251 \303\226sterreich \303\237\n'\
'net|\342\202\254 5 \342\200\234q\342\200\235 \305\223 \303\251\n'\
'prog|apr\303\250s le red\303\251marrage\n'\
'jp|\343\201\202 \357\277\275!\n'
stop_sluice
echo "encoding: ISO-8859-1 from file(), CP1252 from tcp(), EUC-JP from network() arrived as UTF-8, across a restart"
