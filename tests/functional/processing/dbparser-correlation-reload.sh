#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# db-parser() correlation across reloads: a context opened before a reload
# is closed after it by a rule of the same id, with every message it held;
# a reload whose file renames the rule drops the contexts of the old id;
# max-contexts() bounds the open contexts, the parser's counters
# (sluice-ctl stats) say how many are open and how many were not opened,
# and a warning in the log says so too.
# Usage: dbparser-correlation-reload.sh SLUICE SLUICE-CTL
. "$(dirname "$0")/../lib.sh"
sluice=$1 ctl=$2
set -- $(free_ports tcp)
port=$1

rules() { # rules ID: the login/logout rules, the login rule called ID
  cat >"$work/db.xml" <<XML
<patterndb version='4'><ruleset name='sshd' id='s'><pattern>sshd</pattern><rules>
 <rule id='$1' class='session' context-id='ssh-\$user' context-timeout='60'>
  <patterns><pattern>login @ESTRING:user: @from @ANYSTRING:ip@</pattern></patterns></rule>
 <rule id='logout' class='session' context-id='ssh-\$user' context-timeout='60'>
  <patterns><pattern>logout @ANYSTRING:user@</pattern></patterns>
  <actions><action><message inherit-mode='context'>
   <values><value name='MESSAGE'>CLOSED \${user}@1 from \${ip}@2 n=\$(context-length)</value></values>
  </message></action></actions></rule>
</rules></ruleset></patterndb>
XML
}
rules login
cat >"$work/sluice.conf" <<CONF
@version: 3.38
options { keep-hostname(yes); };
source s { tcp(ip(127.0.0.1) port($port)); };
parser p { db-parser(file("$work/db.xml") max-contexts(3)); };
destination d { file("$work/out" template("\$MESSAGE\n")); };
log { source(s); parser(p); destination(d); };
CONF

send() {
  printf '%s\n' "$@" | python3 -c 'import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(sys.stdin.buffer.read()); s.close()' "$port"
}
counter() { # counter TYPE: the db-parser's counter of that type
  "$ctl" -c "$work/ctl" stats | awk -F';' -v t="$1" '$1 == "parser" && $5 == t { print $6 }'
}

start_sluice "$sluice" "$work/sluice.conf" -c "$work/ctl"
send "<38>Nov 22 10:00:00 h1 sshd[10]: login carol from 10.0.0.3" \
     "<38>Nov 22 10:00:00 h1 sshd[11]: login dave from 10.0.0.4"
wait_lines "$work/out" 2
i=0
while [ "$(counter contexts)" != 2 ]; do
  i=$((i + 1)); [ $i -lt 50 ] || fail "expected 2 open contexts, stats say '$(counter contexts)'"; sleep 0.1
done

reload_sluice
send "<38>Nov 22 10:00:05 h1 sshd[10]: logout carol"
wait_lines "$work/out" 4
grep -qx "CLOSED carol from 10.0.0.3 n=3" "$work/out" || fail "carol's context did not survive the reload"

# the login rule is renamed: dave's context (rule 'login') goes
rules login-renamed
reload_sluice
[ "$(counter contexts)" = 1 ] || fail "expected carol's context only after the rename: '$(counter contexts)'"
send "<38>Nov 22 10:00:06 h1 sshd[11]: logout dave"
wait_lines "$work/out" 6
grep -qx "CLOSED dave from  n=2" "$work/out" || fail "dave's context outlived the rename of its rule"

# max-contexts(3): carol's and dave's are open, u1 makes 3, u2 and u3 are not opened
send "<38>Nov 22 10:00:07 h1 sshd[20]: login u1 from 1.1.1.1" \
     "<38>Nov 22 10:00:07 h1 sshd[21]: login u2 from 1.1.1.2" \
     "<38>Nov 22 10:00:07 h1 sshd[22]: login u3 from 1.1.1.3"
wait_lines "$work/out" 9
i=0
while [ "$(counter contexts_dropped)" != 2 ]; do
  i=$((i + 1)); [ $i -lt 50 ] || fail "contexts_dropped is '$(counter contexts_dropped)', not 2"; sleep 0.1
done
[ "$(counter contexts)" = 3 ] || fail "max-contexts(3) let '$(counter contexts)' open"
wait_log "Correlation dropped messages.*contexts_not_opened='2'"
stop_sluice
echo "dbparser-correlation-reload: contexts kept across a reload, dropped with their rule, bounded"
