#!/bin/sh
# logstore() under load, SIGKILLed: a file() source following a file that
# grows at 20,000 lines a second (as file-kill.sh), through a
# flow-controlled path into an encrypted logstore with fsync(yes), the
# daemon SIGKILLed five times mid-write and started again on the same
# persist file.  The source's position only moves once the logstore has
# acknowledged a message, and the logstore acknowledges only what is in a
# written chunk, so: after each kill the store reads to its last whole
# chunk (sluice-logcat) and no line is missing (loggen's checker; lines
# written but not yet acknowledged may come twice); each start seals what
# a kill tore (an OPEN chunk after the last whole one) and the chain
# holds; after a final SIGTERM --verify passes the whole file.
# With disk-buffer, the logstore has a reliable disk-buffer(): the source
# is acknowledged once a message is in the buffer's file, the buffer
# frees a record once the logstore acknowledges it (its chunk is written),
# and after a kill the buffer gives back what was not: still none lost.
# Usage: logstore-kill.sh SLUICE LOGCAT LOGGEN [disk-buffer]
. "$(dirname "$0")/lib.sh"
sluice=$1 logcat=$2 loggen=$3 mode=${4:-}
buffer=
[ "$mode" = disk-buffer ] && buffer="disk-buffer(reliable(yes) disk-buf-size(64M) dir(\"$work/dq\"))"

openssl req -x509 -newkey rsa:2048 -nodes -keyout "$work/store.key" -out "$work/store.pem" -days 2 \
  -subj "/CN=store" >/dev/null 2>&1 || fail "openssl could not make a certificate"
batch=2000 batches=600 # 20,000 lines a second, until the kills are done (60 s at most)
cat >"$work/sluice.conf" <<EOF2
@version: 3.38
source s { file("$work/in.log" follow-freq(1)); };
destination d { logstore("$work/out.lgs" encrypt-certificate("$work/store.pem") fsync(yes)
                         $buffer); };
log { source(s); destination(d); flags(flow-control); };
EOF2

: >"$work/in.log"
awk -v b="$batch" -v n="$batches" -v stop="$work/stop" 'BEGIN {
  for (k = 0; k < n; k++) {
    for (i = k * b; i < (k + 1) * b; i++)
      printf "<13>Nov 22 10:00:00 host app[1]: seq: %010d, thread: 0000, runid: 1764000030, " \
        "stamp: x PADD\n", i
    fflush()
    if (system("test -e " stop) == 0)
      exit
    system("sleep 0.1")
  }
}' >>"$work/in.log" &
writer=$!

start() {
  start_sluice "$sluice" "$work/sluice.conf" -R "$work/sluice.persist"
}
# check NAME: the store read to its last whole chunk, nothing missing
check() {
  "$logcat" --key "$work/store.key" "$work/out.lgs" >"$work/out.txt" 2>"$work/cat.err" ||
    fail "$1: the store does not read: $(cat "$work/cat.err")"
  "$loggen" --check "$work/out.txt" --allow-duplicates >"$work/report" ||
    { cat "$work/report"; fail "$1: loss"; }
  dups=$(sed -n 's/^check: .* duplicated=\([0-9]*\) .*/\1/p' "$work/report")
  uniq=$(($(sed -n 's/^check: .* received=\([0-9]*\) .*/\1/p' "$work/report") - dups))
}

kills=0 torn=0
while [ $kills -lt 5 ]; do
  start
  sleep 1.5
  kill -KILL "$pid"
  wait "$pid" 2>/dev/null || true
  pid=
  kills=$((kills + 1))
  check "kill $kills"
  if grep -q "torn tail" "$work/cat.err"; then
    torn=$((torn + 1))
  fi
  echo "kill $kills: $uniq different lines read back, $dups twice; $(cat "$work/cat.err")"
done
[ -z "$buffer" ] || ls "$work"/dq/*.rqf >/dev/null 2>&1 || fail "no disk buffer file in $work/dq"
kill -0 $writer 2>/dev/null || fail "the writer ended before the last kill: the kills were not mid-file"
touch "$work/stop"
wait $writer
lines=$(wc -l <"$work/in.log")
# a kill rarely lands inside the one write() of a chunk: tear the tail by
# hand, half a chunk header as a SIGKILL would and zeros as a power loss
# would leave it, and the next start must seal it and go on
printf 'LSCK\001\000\000\000' >>"$work/out.lgs"
head -c 300 /dev/zero >>"$work/out.lgs"
start
wait_log "torn chunk; sealed it"
grep -q "torn_bytes='308'" "$work/sluice.log" || fail "the seal: $(grep torn "$work/sluice.log")"
i=0
until check "after the kills" && [ "$uniq" -ge "$lines" ]; do
  i=$((i + 1))
  [ $i -lt 200 ] || fail "$uniq of $lines lines after the last start"
  sleep 0.3
done
stop_sluice
check "SIGTERM"
[ "$uniq" -eq "$lines" ] || fail "$uniq of $lines lines"
"$logcat" --verify --key "$work/store.key" "$work/out.lgs" >"$work/verify" 2>&1 ||
  fail "$(cat "$work/verify")"
grep -q "1 torn tails (308 bytes) sealed" "$work/verify" ||
  fail "the seal is not in the file: $(cat "$work/verify")"
echo "logstore-kill${mode:+ ($mode)}: $lines lines, $kills SIGKILLs ($torn left a torn tail): none lost, $dups twice;" \
  "$(cat "$work/verify")"
