#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The SCL's sources and osquery()'s destination (Sluice's scl/, against
# syslog-ng 3.38's SCL): nodejs() takes winston's JSON lines over TCP,
# mbox() reads the mails of an mbox file, osquery() the JSON lines of its
# results log, linux-audit() the records of an audit log (hex values
# decoded by linux-audit-parser(), or left as they are), and osquery()'s
# destination writes CSV lines into a named pipe.  Each daemon runs the same configuration on the same input; what
# they write must be the same.  mbox()'s last mail ends only where another
# would begin, so the mails before it are compared.
#
# Usage: compare-scl-sources.sh SLUICE
# SLUICE_SYSLOG_NG names the directory Debian's syslog-ng-core is unpacked
# in (scripts/fetch-syslog-ng.sh).
. "$(dirname "$0")/lib.sh"
sluice=$1
need_syslog_ng

# the input every run reads
mkdir -p "$work/in"
cat >"$work/in/mbox" <<'EOF'
From alice@example.com Mon Mar 10 11:58:01 2025
Subject: first
To: bob@example.com

Hello Bob,
From the start of a line in a body is ">From" in an mbox.
>From here on, nothing new.

From carol@example.com Mon Mar 10 11:59:02 2025
Subject: second

short
From dave@example.com Mon Mar 10 12:00:03 2025
Subject: the last, left pending

x
EOF
mails=2
cat >"$work/in/osquery.log" <<'EOF'
{"name":"pack_it_users","hostIdentifier":"web01","calendarTime":"Mon Mar 10 11:58:01 2025 UTC","unixTime":1741607881,"columns":{"uid":"0","username":"root"},"action":"added"}
{"name":"pack_it_ports","hostIdentifier":"web02","unixTime":1741607882,"columns":{"port":"22","pid":"42"},"action":"removed","counter":3,"numerics":false}
not json at all
EOF
osq=2 # the line that is not JSON is dropped
cat >"$work/in/audit.log" <<'EOF'
type=SYSCALL msg=audit(1364481363.243:24287): arch=c000003e syscall=2 success=no exit=-13 a0=7fffd19c5592 a1=0 items=1 ppid=2686 pid=3538 comm="cat" exe="/bin/cat" key="sshd_config" name=2F746D70
type=PROCTITLE msg=audit(1364481363.243:24287): proctitle=636174002F6574632F7373682F737368645F636F6E666967
type=USER_CMD msg=audit(1364481363.243:24288): pid=1 uid=0 msg='cwd="/root" cmd=6C73202D6C61 terminal=pts/0 res=success'
type=EXECVE msg=audit(1364481363.243:24289): argc=4 a0="ls" a1=2D6C61 a2=6C73202D6C61 a3=41FF name=C3A9 cmd=2020 a1_len=2000 data='2020'
type=PATH msg=audit(1364481363.243:24290): item=0 name="/etc/ssh/sshd_config" inode=409248 dev=fd:00 mode=0100600 path=2F746D702F6120622E747874
EOF
audit=5
winston() {
  printf '["info",{"message":"server started","level":"info","port":8080}]\n'
  printf '["warn",{"message":"slow \\"query\\"","ms":1234.5,"meta":{"table":"users"}}]\n'
  printf '["error",{"level":"error"}]\n'
  printf '{"message":"not an array"}\n'
}
node=3 # the object that is not an array is dropped by json-parser()

conf() { # conf PORT OUT
  cat <<EOF
@version: 3.38
@include "scl.conf"
options { keep-hostname(yes); };
source s_node { nodejs(localip(127.0.0.1) port($1)); };
source s_mbox { mbox(filename("$work/in/mbox")); };
source s_osq { osquery(file("$work/in/osquery.log")); };
source s_audit { linux-audit(filename("$work/in/audit.log")); };
destination d_node { file("$2/nodejs.log" template("\${MSG}|\$(format-json --key .nodejs.*)\n")); };
destination d_mbox { file("$2/mbox.log" template("\$(length \${MSG})|\${MSG}\n==\n")); };
destination d_osq { file("$2/osquery.log" template("\${PROGRAM}|\${MSG}|\$(format-json --key .osquery.*)\n")); };
destination d_pipe { osquery(pipe("$2.pipe")); };
destination d_audit { file("$2/audit.log" template("\${MSG}|\$(format-json --key .auditd.* --leave-initial-dot)\n")); };
log { source(s_node); destination(d_node); };
log { source(s_mbox); destination(d_mbox); };
log { source(s_osq); destination(d_osq); };
log { source(s_audit); destination(d_audit); };
log { source(s_node); source(s_osq); rewrite { set("web01" value("HOST")); }; destination(d_pipe); };
EOF
}

wait_count() { # wait_count FILE PATTERN N WHAT
  i=0
  while [ "$(grep -c "$2" "$1" 2>/dev/null || true)" -lt "$3" ]; do
    i=$((i + 1))
    [ $i -lt 300 ] || fail "$who: $4: $(grep -c "$2" "$1" 2>/dev/null || echo 0) of $3"
    sleep 0.1
  done
}

run() { # run WHO
  who=$1
  out=$work/$who
  mkdir -p "$out"
  port=$(free_ports tcp)
  # the osquery daemon's end of the pipe
  mkfifo "$out.pipe"
  cat "$out.pipe" >"$out/pipe.log" &
  reader=$!
  if [ "$who" = syslog-ng ]; then
    sng_include_path >"$work/sng.conf"
    conf "$port" "$out" >>"$work/sng.conf"
    TZ=UTC sng_start sng
  else
    conf "$port" "$out" >"$work/sluice.conf"
    TZ=UTC start_sluice "$sluice" "$work/sluice.conf" -R "$work/persist" -c "$work/ctl"
  fi
  winston | python3 -c 'import socket, sys; s = socket.create_connection(("127.0.0.1", int(sys.argv[1]))); s.sendall(sys.stdin.buffer.read()); s.close()' "$port"
  wait_count "$out/nodejs.log" . $node "nodejs() lines"
  wait_count "$out/osquery.log" '^osquery|' $osq "osquery() lines"
  wait_count "$out/mbox.log" '^==$' $mails "mbox() mails"
  wait_count "$out/audit.log" '^type=' $audit "linux-audit() records"
  wait_count "$out/pipe.log" . $((node + osq)) "lines in osquery()'s pipe"
  # what came before the stop: the pending mail is not compared
  cp "$out/mbox.log" "$out/mbox.before-stop"
  stop_daemons
  wait "$reader" 2>/dev/null || true
  mv "$out/mbox.before-stop" "$out/mbox.log"
}

run syslog-ng
run sluice
# the pipe's lines start with the time each message was received
for who in syslog-ng sluice; do
  sed -i 's/^"[^"]*",/"T",/' "$work/$who/pipe.log"
  sort "$work/$who/pipe.log" -o "$work/$who/pipe.log"
done
diff -r "$work/syslog-ng" "$work/sluice" >"$work/diff" || fail "the outputs differ (syslog-ng <, sluice >):
$(head -40 "$work/diff")"
grep -q '"port":"8080"' "$work/sluice/nodejs.log" || fail "nodejs(): no pairs: $(head -3 "$work/sluice/nodejs.log")"
grep -q 'Subject: second' "$work/sluice/mbox.log" || fail "mbox(): $(head -5 "$work/sluice/mbox.log")"
grep -q '"a2":"ls -la"' "$work/sluice/audit.log" && grep -q '"msg":{"terminal":"pts/0"' "$work/sluice/audit.log" ||
  fail "linux-audit(): $(head -5 "$work/sluice/audit.log")"
echo "compare-scl-sources: nodejs() $node lines, mbox() $mails mails, osquery() $osq lines and its pipe, linux-audit() $audit records, as syslog-ng 3.38's SCL"
