#!/bin/sh
# example-destination(): syslog-ng 3.38's example module's destination, a
# line "thread_id=N message=MSG" a message appended to filename(); the
# global file-template() does not reach it; filename() is required.
# Usage: example-destination.sh SLUICE
. "$(dirname "$0")/lib.sh"
sluice=$1

cat >"$work/sluice.conf" <<EOF
@version: 3.38
options { stats-freq(0); file-template("global \$MSG\n"); };
source s { example-msg-generator(num(3) freq(0) template("hello there")); };
destination d { example-destination(filename("$work/ex.txt") workers(2) batch-lines(10)); };
log { source(s); destination(d); };
EOF
echo "thread_id=1 message=before" >"$work/ex.txt"
start_sluice "$sluice" "$work/sluice.conf" -c "$work/ctl"
wait_lines "$work/ex.txt" 4
stop_sluice
[ "$(head -1 "$work/ex.txt")" = "thread_id=1 message=before" ] || fail "not appended: $(cat "$work/ex.txt")"
[ "$(grep -Ec '^thread_id=[0-9]+ message=hello there$' "$work/ex.txt")" -eq 3 ] && \
  [ "$(wc -l <"$work/ex.txt")" -eq 4 ] || fail "lines: $(cat "$work/ex.txt")"

cat >"$work/bad.conf" <<EOF
@version: 3.38
source s { example-msg-generator(); };
destination d { example-destination(); };
log { source(s); destination(d); };
EOF
"$sluice" --syntax-only -f "$work/bad.conf" >"$work/bad.err" 2>&1 && fail "accepted without filename()"
grep -q "example-destination() needs filename()" "$work/bad.err" || fail "$(cat "$work/bad.err")"
echo "example-destination: syslog-ng's example lines, appended"
