#!/bin/sh
# file() source: a file read from its start, followed as it grows, rotated
# by rename-and-create while its writer still appends to the old one,
# truncated in place (copytruncate), a file that appears only after the
# start, a reload while lines stream in, and a restart that goes on from
# the persist file (-R), also when the file was rotated meanwhile.  loggen's checker counts every line: none
# missing, none twice.
# Usage: file-source.sh SLUICE LOGGEN
. "$(dirname "$0")/lib.sh"
sluice=$1 loggen=$2

cat >"$work/sluice.conf" <<EOF2
@version: 3.38
source s { file("$work/in.log" follow-freq(1)); file("$work/later.log"); };
destination d { file("$work/out.log" template("\$MSG\n")); };
log { source(s); destination(d); };
EOF2

# gen and arrived: lib.sh
start() {
  start_sluice "$sluice" "$work/sluice.conf" -R "$work/sluice.persist"
}

gen "$work/in.log" 1000
start
arrived "read from the start"
gen "$work/in.log" 1000
arrived "followed"

# rename-and-create; the writer adds to the old file for a while (less
# than follow-freq()) before it reopens: inotify sees the rename at once,
# and the old file must not be let go then
gen "$work/in.log" 500
mv "$work/in.log" "$work/in.log.1"
sleep 0.5
gen "$work/in.log.1" 500
gen "$work/in.log" 500
arrived "rotated"
wait_log "moved to a new file"

# copytruncate: what was there is read before the truncation
gen "$work/in.log" 200
arrived "before the truncation"
: >"$work/in.log"
sleep 1.2
gen "$work/in.log" 300
arrived "truncated"
wait_log "File was truncated"

# a file that appears after the start
gen "$work/later.log" 100
arrived "a file that came later"

# a reload while lines stream in: nothing twice, nothing lost
i=0
while [ $i -lt 20 ]; do
  gen "$work/in.log" 100
  [ $i -eq 10 ] && kill -HUP "$pid"
  sleep 0.05
  i=$((i + 1))
done
wait_log "Configuration reload finished"
arrived "reload"

# a stop and a start: on from where the destinations had everything
stop_sluice
gen "$work/in.log" 400
start
arrived "restart"

# rotated while stopped: the old file, found by its inode, is read to its
# end before the new one (syslog-ng 3.38 loses these)
stop_sluice
gen "$work/in.log" 300
mv "$work/in.log" "$work/in.log.3"
gen "$work/in.log" 200
start
arrived "rotated while stopped"
wait_log "rotated while Sluice was stopped"
stop_sluice

# what the file sources do not read is refused before start, by name
refused() {
  printf '@version: 3.38\nsource s { %s };\ndestination d { file("%s/x"); };\nlog { source(s); destination(d); };\n' \
    "$1" "$work" >"$work/bad.conf"
  "$sluice" --syntax-only -f "$work/bad.conf" >"$work/bad.err" 2>&1 && fail "accepted: $1"
  grep -q "$2" "$work/bad.err" || fail "$1: $(cat "$work/bad.err")"
}
refused "file(\"$work/x\" format(\"json\"));" "file() reads format('syslog') and format('linux-kmsg')"
refused "file(\"$work/x\" format(\"linux-kmsg\") multi-line-mode(indented));" "does not go with format('linux-kmsg')"
refused "file(\"$work/x\" format(\"linux-kmsg\") pad-size(64));" "pad-size() does not go with format('linux-kmsg')"
refused "wildcard-file(base-dir(\"$work\") filename-pattern(\"*\") format(\"linux-kmsg\"));" "is for the kernel's log"
refused "file(\"$work/x\" encoding(\"UTF-16\"));" "encoding(\"UTF-16\") is not supported: Sluice frames messages by their bytes"
refused "file(\"$work/x\" encoding(\"no-such-charset\"));" "encoding(\"no-such-charset\"): unknown character set"
refused "wildcard-file(base-dir(\"$work\") filename-pattern(\"*\") log-msg-size(32) pad-size(64));" \
  "pad-size(64) is larger than log-msg-size(32)"
refused "file(\"$work/x\" pad-size(64) multi-line-mode(indented));" "pad-size() cannot be used with multi-line-mode()"
refused "wildcard-file(filename-pattern(\"*.log\"));" "base-dir() is required"
refused "wildcard-file(base-dir(\"$work\") filename-pattern(\"a/*.log\"));" "cannot hold a '/'"
refused "file(\"$work/x\" follow-freq(-0.1));" "takes a number of seconds, not negative"
refused "file(\"$work/x\" follow-freq(soon));" "takes a number of seconds, not negative"
# syslog-ng 3.38 takes a fraction of a second and 0 too
for freq in 0 0.0 0.1 1.0; do
  printf '@version: 3.38\nsource s { file("%s/x" follow-freq(%s)); };\n' "$work" "$freq" >"$work/ok.conf"
  "$sluice" --syntax-only -f "$work/ok.conf" >"$work/ok.err" 2>&1 \
    || fail "follow-freq($freq): $(cat "$work/ok.err")"
done
refused "file(\"$work/x\" multi-line-mode(regexp));" "please also specify regexps"

"$loggen" --check "$work/out.log" >"$work/report" || { cat "$work/report"; fail "loss"; }
grep -q "received=$seq missing=0 duplicated=0 reordered=0: OK\$" "$work/report" \
  || { cat "$work/report"; fail "report"; }
echo "file-source: $seq lines through file(): rotated, truncated, reloaded, restarted"
