#!/bin/sh
# http() against python peers (http-peer.py, a real HTTP server): one
# loggen run goes to four destinations on a flags(flow-control) path:
#   a: PUT with headers(), user()/password(), user-agent(), body(),
#      body-prefix(), body-suffix(), delimiter(), batch-lines() with
#      batch-timeout() and workers(2): every message once, framed, batches
#      full;
#   b: three 503 answers first: sent again (retries()), nothing lost, through a
#      reliable disk-buffer();
#   c: response-action(418 => drop, 404 => retry): the 418 batch is
#      dropped (logged, and counted dropped, not written, in the stats),
#      the 404 ones are sent again;
#   d: url() of a port nobody listens on, then the peer: failover.
# Then with response-format(elasticsearch-bulk): a 200 that is not a bulk
# answer is refused at once and its batch sent again, and a bulk answer of
# more than 16 MiB is read item by item with memory bounded: its items
# refused at the end are dropped (counted dropped, not written), those
# told to come again are sent again and arrive.  A peer answering 503
# leaves every message in a reliable disk buffer across kill -9 (acked
# only on success) and gets them all after the restart, a reload while
# failing loses nothing, a server that never answers holds up neither a
# stop nor a reload (nothing lost, nothing it acknowledged sent twice),
# batch-timeout() keeps to throttle(), and options Sluice does not take
# are refused.
# Usage: http.sh SLUICE LOGGEN DQTOOL CTL
. "$(dirname "$0")/lib.sh"
sluice=$1 loggen=$2 dqtool=$3 ctl=$4
here=$(dirname "$0")
peers=
trap '[ -n "$peers" ] && kill $peers 2>/dev/null; [ -n "$pid" ] && kill "$pid" 2>/dev/null
  rm -rf "$work"' EXIT
n=300

# peer NAME PORT PLAN PREFIX SUFFIX DELIM
peer() {
  mkdir -p "$work/$1"
  : >"$work/$1/lines"
  python3 "$here/http-peer.py" "$2" "$work/$1" 120 "$3" "$4" "$5" "$6" 2>"$work/$1/err" &
  peers="$peers $!"
  _pw=0
  until python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])))' "$2" \
      2>/dev/null; do
    _pw=$((_pw + 1))
    [ $_pw -lt 50 ] || fail "peer $1 did not start: $(cat "$work/$1/err")"
    sleep 0.1
  done
}

set -- $(free_ports tcp tcp tcp tcp tcp tcp tcp)
port=$1 pa=$2 pb=$3 pc=$4 pd=$5 dead=$6 ph=$7
peer a "$pa" "" "[" "]" "|"
peer b "$pb" "503,503,503" "" "" "
"
peer c "$pc" "418,404,404" "" "" "
"
peer d "$pd" "" "" "" "
"

cat >"$work/sluice.conf" <<EOF2
@version: 3.38
source s { tcp(ip(127.0.0.1) port($port) log-iw-size(1000)); };
destination a { http(url("http://127.0.0.1:$pa/in?x=1") method("PUT")
  headers("X-Test: one" "Content-Type: text/plain") user("alice") password("s3cret") user-agent("ua-test")
  body("<\${PROGRAM}>\${MSG}") body-prefix("[") body-suffix("]") delimiter("|")
  batch-lines(10) batch-timeout(2000) workers(2)); };
destination b { http(url("http://127.0.0.1:$pb/") body("\$MSG") batch-lines(25) retries(5)
  disk-buffer(reliable(yes) disk-buf-size(1048576) dir("$work/db"))); };
destination c { http(url("http://127.0.0.1:$pc/") body("\$MSG") batch-lines(10) retries(5)
  response-action(418 => drop, 404 => retry)); };
destination d { http(url("http://127.0.0.1:$dead/" "http://127.0.0.1:$pd/") body("\$MSG") batch-lines(20)); };
log { source(s); destination(a); destination(b); destination(c); destination(d); flags(flow-control); };
EOF2
start_sluice "$sluice" "$work/sluice.conf" -c "$work/ctl"
"$loggen" -S -n $n -r 2000 127.0.0.1 "$port" 2>"$work/loggen.err" || fail "loggen: $(cat "$work/loggen.err")"

# c delivers all but the dropped batch; the others all $n
for p in a b d; do
  wait_lines "$work/$p/lines" $n
done
i=0
while [ "$(wc -l <"$work/c/lines")" -lt $((n - 10)) ] && [ $i -lt 300 ]; do
  i=$((i + 1))
  sleep 0.1
done
sleep 0.5
# c's dropped batch is counted dropped, the rest written
nd=$(python3 -c 'import json, sys; print(json.loads(open(sys.argv[1]).readline())["body"].count("seq: "))' \
  "$work/c/requests")
"$ctl" -c "$work/ctl" stats >"$work/stats.csv" || fail "sluice-ctl stats"
grep -q "^dst.http;c#0;.*;a;dropped;$nd$" "$work/stats.csv" &&
  grep -q "^dst.http;c#0;.*;a;written;$((n - nd))$" "$work/stats.csv" ||
  fail "c: not $nd dropped and $((n - nd)) written: $(grep '^dst.http;c#0' "$work/stats.csv")"
stop_sluice
# b's disk buffer gave up each record only once the peer had it: empty now
"$dqtool" info "$work/db/sluice-b_0.rqf" >"$work/info" 2>&1 || fail "dqtool info: $(cat "$work/info")"
grep -q "^messages: 0 " "$work/info" || fail "b's disk buffer is not empty: $(cat "$work/info")"

python3 - "$work" $n <<'EOF2' || fail "what the peers got is wrong"
import base64, json, re, sys
work, n = sys.argv[1], int(sys.argv[2])
ok = True

def check(cond, what):
    global ok
    if not cond:
        print("FAIL:", what)
        ok = False

def seqs(lines):
    return [int(m.group(1)) for m in (re.search(r"seq: (\d+)", l) for l in lines) if m]

def reqs(name):
    return [json.loads(l) for l in open("%s/%s/requests" % (work, name))]

def lines(name):
    return open("%s/%s/lines" % (work, name)).read().splitlines()

# a: framing, method, headers, batches
ra, la = reqs("a"), lines("a")
check(sorted(seqs(la)) == list(range(n)), "a: not every message once (%d lines)" % len(la))
check(all(l.startswith("<") and ">seq: " in l for l in la), "a: body() not applied: %r" % la[:2])
check(all(r["method"] == "PUT" and r["path"] == "/in?x=1" for r in ra), "a: method or path")
h = ra[0]["headers"]
check(h.get("x-test") == "one" and h.get("content-type") == "text/plain", "a: headers(): %r" % h)
check(h.get("user-agent") == "ua-test", "a: user-agent(): %r" % h.get("user-agent"))
check(h.get("authorization") == "Basic " + base64.b64encode(b"alice:s3cret").decode(), "a: user()/password()")
sizes = [r["body"].count(">seq: ") for r in ra]
check(max(sizes) == 10 and sizes.count(10) >= len(sizes) - 3, "a: batches not filled to 10: %r" % sizes)

# b: 503 three times, then everything
rb, lb = reqs("b"), lines("b")
check([r["status"] for r in rb[:3]] == [503, 503, 503], "b: the peer did not answer 503 first")
check(sorted(set(seqs(lb))) == list(range(n)), "b: lost messages after 503 (%d)" % len(set(seqs(lb))))

# c: the 418 batch dropped, the 404 ones sent again
rc, lc = reqs("c"), lines("c")
check([r["status"] for r in rc[:3]] == [418, 404, 404], "c: statuses %r" % [r["status"] for r in rc[:3]])
dropped = seqs(rc[0]["body"].split("\n"))
check(len(dropped) >= 1, "c: the 418 batch was empty")
got = seqs(lc)
check(len(got) == len(set(got)), "c: duplicates")
check(sorted(got + dropped) == list(range(n)),
      "c: %d delivered + %d dropped != %d" % (len(got), len(dropped), n))

# d: all at the second url
check(sorted(seqs(lines("d"))) == list(range(n)), "d: failover lost messages")
sys.exit(0 if ok else 1)
EOF2
grep -q "HTTP server refused the batch, its messages are dropped.*status_code=418" "$work/sluice.log" ||
  grep -q "status_code.*418" "$work/sluice.log" || fail "the 418 drop was not logged"

# response-format(elasticsearch-bulk): the first answer (200) is an
# endless body that is not a bulk answer: refused at its first bytes, not
# read on, the batch sent again.  The second is a bulk answer that opens
# its items and never ends: cut once past what a batch's answer can take
# (64 MiB and 64 KiB an item), the batch sent again.  The next one is a bulk answer of more
# than 16 MiB whose failed items come at its end (http-peer.py): seq 7 and
# 8 refused for good (400: dropped, counted dropped and not written), 9
# told to come again (429: sent again, then taken).  The daemon's memory
# stays far below the answer's length.
peer h "$ph" "huge,endless,bulk" "" "" "
"
cat >"$work/sluice.conf" <<EOF2
@version: 3.38
source s { tcp(ip(127.0.0.1) port($port)); };
destination h { http(url("http://127.0.0.1:$ph/") body("\$MSG") response-format(elasticsearch-bulk)
  batch-lines(10) batch-timeout(3000) retries(5) time-reopen(1)); };
log { source(s); destination(h); flags(flow-control); };
EOF2
start_sluice "$sluice" "$work/sluice.conf" -c "$work/ctl"
rss_before=$(rss_kb | sed 's/.*peak \([0-9]*\).*/\1/')
"$loggen" -S -n 10 -r 1000 127.0.0.1 "$port" 2>"$work/loggen.err" || fail "loggen: $(cat "$work/loggen.err")"
wait_log "Bulk API response not understood, sending the batch again"
wait_log "Bulk API response not understood, sending the batch again.*longer than its items can take"
wait_log "Bulk API refused documents, they are dropped.*dropped='2'"
wait_log "Bulk API could not take some documents now, sending them again.*documents='1'"
wait_lines "$work/h/lines" 8
i=0
until "$ctl" -c "$work/ctl" stats >"$work/stats.csv" && grep -q "^dst.http;h#0;.*;a;written;8$" "$work/stats.csv"; do
  i=$((i + 1))
  [ $i -lt 100 ] || fail "h: not 8 written: $(grep '^dst.http;h#0' "$work/stats.csv")"
  sleep 0.1
done
grep -q "^dst.http;h#0;.*;a;dropped;2$" "$work/stats.csv" || fail "h: not 2 dropped: $(grep '^dst.http;h#0' "$work/stats.csv")"
rss_after=$(rss_kb | sed 's/.*peak \([0-9]*\).*/\1/')
echo "daemon peak RSS: $rss_before kB before the bulk answers, $rss_after kB after"
# the answer was 19 MiB; the old reader held 16 MiB of it
[ $((rss_after - rss_before)) -lt 8192 ] || fail "the peak RSS grew by $((rss_after - rss_before)) kB"
grep -q "reason='mapper_parsing_exception: failed to parse rrr" "$work/sluice.log" ||
  fail "the dropped item's reason was not logged"
stop_sluice
python3 - "$work/h" <<'EOF2' || fail "what the bulk peer got is wrong"
import json, re, sys
d = sys.argv[1]
reqs = [json.loads(l) for l in open(d + "/requests")]
got = sorted(int(m.group(1)) for m in (re.search(r"seq: (\d+)", l) for l in open(d + "/lines")) if m)
sent = [sorted(int(x) for x in re.findall(r"seq: (\d+)", r["body"])) for r in reqs]
print("bulk requests:", sent)
ok = got == [0, 1, 2, 3, 4, 5, 6, 9]
# the batch went again after each of the two answers cut short, 9 once
# more after its 429, the dropped ones never again
ok &= sent[0] == list(range(10)) and sent[1] == sent[0] and sent[2] == sent[0]
ok &= sum(s.count(7) for s in sent) == 3 and sum(s.count(9) for s in sent) == 4
sys.exit(0 if ok else 1)
EOF2

# acked only on success: a peer that answers 503 keeps every message in
# a reliable disk buffer across kill -9; after the restart they all arrive
set -- $(free_ports tcp)
pe=$1
peer e "$pe" "503,503,503,503" "" "" "
"
cat >"$work/sluice.conf" <<EOF2
@version: 3.38
source s { tcp(ip(127.0.0.1) port($port)); };
destination e { http(url("http://127.0.0.1:$pe/") body("\$MSG") batch-lines(10) retries(1) time-reopen(1)
  disk-buffer(reliable(yes) disk-buf-size(1048576) dir("$work/dbe"))); };
log { source(s); destination(e); flags(flow-control); };
EOF2
start_sluice "$sluice" "$work/sluice.conf"
"$loggen" -S -n 50 -r 1000 127.0.0.1 "$port" 2>"$work/loggen.err" || fail "loggen: $(cat "$work/loggen.err")"
wait_log "HTTP destination failing"
kill -9 "$pid"
wait "$pid" 2>/dev/null || true
pid=
"$dqtool" info "$work/dbe/sluice-e_0.rqf" >"$work/info" 2>&1 || fail "dqtool info: $(cat "$work/info")"
grep -q "^messages: 50 " "$work/info" || fail "503 answers acked messages: $(cat "$work/info")"
[ ! -s "$work/e/lines" ] || fail "the peer took messages while answering 503"
start_sluice "$sluice" "$work/sluice.conf"
wait_lines "$work/e/lines" 50
stop_sluice
python3 - "$work/e/lines" <<'EOF2' || fail "after the restart: $(wc -l <"$work/e/lines") lines"
import re, sys
got = sorted(int(m.group(1)) for m in (re.search(r"seq: (\d+)", l) for l in open(sys.argv[1])) if m)
sys.exit(0 if got == list(range(50)) else 1)
EOF2

# a reload while the destination is failing hands its pending batch back
# to the queue, and the new configuration's http() delivers it
set -- $(free_ports tcp)
pf=$1
peer f "$pf" "503,503,503,503,503,503" "" "" "
"
cat >"$work/sluice.conf" <<EOF2
@version: 3.38
source s { tcp(ip(127.0.0.1) port($port)); };
destination f { http(url("http://127.0.0.1:$pf/") body("\$MSG") batch-lines(10) retries(0) time-reopen(1)); };
log { source(s); destination(f); flags(flow-control); };
EOF2
start_sluice "$sluice" "$work/sluice.conf"
"$loggen" -S -n 40 -r 1000 127.0.0.1 "$port" 2>"$work/loggen.err" || fail "loggen: $(cat "$work/loggen.err")"
wait_log "HTTP destination failing"
reload_sluice
wait_lines "$work/f/lines" 40
stop_sluice
python3 - "$work/f/lines" <<'EOF2' || fail "after the reload: $(wc -l <"$work/f/lines") lines"
import re, sys
got = sorted(int(m.group(1)) for m in (re.search(r"seq: (\d+)", l) for l in open(sys.argv[1])) if m)
sys.exit(0 if got == list(range(40)) else 1)
EOF2

# seqs_once FILE N: FILE has messages 0..N-1, each once
seqs_once() {
  python3 - "$1" "$2" <<'EOF2' || fail "$1: $(wc -l <"$1") lines, not $2 messages once each"
import re, sys
got = sorted(int(m.group(1)) for m in (re.search(r"seq: (\d+)", l) for l in open(sys.argv[1])) if m)
sys.exit(0 if got == list(range(int(sys.argv[2]))) else 1)
EOF2
}

# a server that takes requests and never answers (timeout(0), the
# default): a stop does not wait for it (the request is cut short) and the
# disk buffer keeps the messages for the next start, at a server that
# answers
set -- $(free_ports tcp tcp)
pg=$1 pg2=$2
peer g "$pg" "silent" "" "" "
"
peer g2 "$pg2" "" "" "" "
"
cat >"$work/sluice.conf" <<EOF2
@version: 3.38
source s { tcp(ip(127.0.0.1) port($port)); };
destination g { http(url("http://127.0.0.1:$pg/") body("\$MSG") batch-lines(10)
  disk-buffer(reliable(yes) disk-buf-size(1048576) dir("$work/dbg"))); };
log { source(s); destination(g); flags(flow-control); };
EOF2
start_sluice "$sluice" "$work/sluice.conf"
"$loggen" -S -n 20 -r 1000 127.0.0.1 "$port" 2>"$work/loggen.err" || fail "loggen: $(cat "$work/loggen.err")"
wait_lines "$work/g/held" 1
kill -TERM "$pid"
i=0
while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do
  i=$((i + 1))
  sleep 0.1
done
kill -0 "$pid" 2>/dev/null && fail "the stop waits for a request the server never answers"
st=0
wait "$pid" || st=$?
pid=
[ $st -eq 0 ] || fail "sluice exited with $st"
sed -i "s/:$pg\//:$pg2\//" "$work/sluice.conf"
start_sluice "$sluice" "$work/sluice.conf"
wait_lines "$work/g2/lines" 20
sleep 0.5
stop_sluice
seqs_once "$work/g2/lines" 20

# two workers: the request with the first messages is never answered, the
# others are; the second worker goes on with the later messages meanwhile
# (workers do not wait for each other); a reload does not wait for the
# first and sends only its messages again, not the ones the server
# acknowledged
set -- $(free_ports tcp)
pi=$1
peer i "$pi" "hold0" "" "" "
"
cat >"$work/sluice.conf" <<EOF2
@version: 3.38
source s { tcp(ip(127.0.0.1) port($port)); };
destination i { http(url("http://127.0.0.1:$pi/") body("\$MSG") batch-lines(5) batch-timeout(2000) workers(2)); };
log { source(s); destination(i); flags(flow-control); };
EOF2
start_sluice "$sluice" "$work/sluice.conf"
# 40 messages over 2 s: the later ones come long after the held request
# went out
"$loggen" -S -n 40 -r 20 127.0.0.1 "$port" 2>"$work/loggen.err" || fail "loggen: $(cat "$work/loggen.err")"
wait_lines "$work/i/held" 1
wait_lines "$work/i/lines" 35
[ "$(wc -l <"$work/i/lines")" -ge 35 ] ||
  fail "the other worker waited for the held request: $(wc -l <"$work/i/lines") of 35 lines"
sleep 0.5
reload_sluice
wait_lines "$work/i/lines" 40
sleep 0.5
stop_sluice
grep -q "seq: 0000000000" "$work/i/held" && ! grep -q "seq: 0000000009" "$work/i/held" ||
  fail "the held request: $(cat "$work/i/held")"
seqs_once "$work/i/lines" 40

# batch-timeout() fills a batch within throttle(), not past it: one
# message starts a batch, 29 more come while it waits for them
set -- $(free_ports tcp)
pj=$1
peer j "$pj" "" "" "" "
"
cat >"$work/sluice.conf" <<EOF2
@version: 3.38
source s { tcp(ip(127.0.0.1) port($port) log-iw-size(1000)); };
destination j { http(url("http://127.0.0.1:$pj/") body("\$MSG") batch-lines(100) batch-timeout(2000) throttle(10)); };
log { source(s); destination(j); flags(flow-control); };
EOF2
start_sluice "$sluice" "$work/sluice.conf"
"$loggen" -S -n 1 127.0.0.1 "$port" 2>"$work/loggen.err" || fail "loggen: $(cat "$work/loggen.err")"
"$loggen" -S -n 29 127.0.0.1 "$port" 2>"$work/loggen.err" || fail "loggen: $(cat "$work/loggen.err")"
wait_lines "$work/j/lines" 30
sleep 0.5
stop_sluice
python3 - "$work/j/requests" <<'EOF2' || fail "throttle(10) let a batch past it"
import json, sys
sizes = [json.loads(l)["body"].count("seq: ") for l in open(sys.argv[1])]
print("throttled batches:", sizes)
sys.exit(0 if sum(sizes) == 30 and max(sizes) <= 10 else 1)
EOF2

# a server that is down for 1.2 s: the url is down for every worker, and
# after each back-off (100 ms, doubling) one request tries it again, not
# one per worker; the requests out when it went down fail as one
set -- $(free_ports tcp)
pk=$1
peer k "$pk" "down:1.2" "" "" "
"
cat >"$work/sluice.conf" <<EOF2
@version: 3.38
source s { tcp(ip(127.0.0.1) port($port)); };
destination k { http(url("http://127.0.0.1:$pk/") body("\$MSG") batch-lines(5) workers(4) retries(20)); };
log { source(s); destination(k); flags(flow-control); };
EOF2
start_sluice "$sluice" "$work/sluice.conf"
"$loggen" -S -n 40 -r 1000 127.0.0.1 "$port" 2>"$work/loggen.err" || fail "loggen: $(cat "$work/loggen.err")"
wait_lines "$work/k/lines" 40
stop_sluice
seqs_once "$work/k/lines" 40
python3 - "$work/k/requests" <<'EOF2' || fail "a url that is down was tried by every worker"
import json, sys
codes = [json.loads(l)["status"] for l in open(sys.argv[1])]
print("tries while down:", codes.count(503))
# at most the 4 requests out at first, and a probe at 0.1, 0.3 and 0.7 s
sys.exit(0 if 1 <= codes.count(503) <= 8 else 1)
EOF2

# two urls, the first down for 0.5 s: the workers whose url it is go to
# the other meanwhile, and back to it once it answers again
set -- $(free_ports tcp tcp)
pl=$1 pl2=$2
peer l "$pl" "down:0.5" "" "" "
"
peer l2 "$pl2" "" "" "" "
"
cat >"$work/sluice.conf" <<EOF2
@version: 3.38
source s { tcp(ip(127.0.0.1) port($port)); };
destination l { http(url("http://127.0.0.1:$pl/" "http://127.0.0.1:$pl2/") body("\$MSG") batch-lines(5)
  workers(4) retries(20)); };
log { source(s); destination(l); flags(flow-control); };
EOF2
start_sluice "$sluice" "$work/sluice.conf"
"$loggen" -S -n 40 -r 1000 127.0.0.1 "$port" 2>"$work/loggen.err" || fail "loggen: $(cat "$work/loggen.err")"
wait_lines "$work/l2/lines" 40
sleep 1
"$loggen" -S -n 200 -r 1000 127.0.0.1 "$port" 2>"$work/loggen.err" || fail "loggen: $(cat "$work/loggen.err")"
i=0
while [ $(($(wc -l <"$work/l/lines") + $(wc -l <"$work/l2/lines"))) -lt 240 ] && [ $i -lt 300 ]; do
  i=$((i + 1))
  sleep 0.1
done
stop_sluice
cat "$work/l/lines" "$work/l2/lines" >"$work/l-all"
python3 - "$work/l-all" "$work/l/lines" <<'EOF2' || fail "the url back from its outage: $(wc -l <"$work/l/lines") lines"
import re, sys
def seqs(path):
    return sorted(int(m.group(1)) for m in (re.search(r"seq: (\d+)", l) for l in open(path)) if m)
got, back = seqs(sys.argv[1]), seqs(sys.argv[2])
print("lines at the url that was down:", len(back))
# loggen numbers each run from 0: 0..39 and 0..199, each once, some at the first url
ok = sorted(got) == sorted(list(range(40)) + list(range(200))) and len(back) > 0
sys.exit(0 if ok else 1)
EOF2

# a bulk answer that asks for a document again is an answer: the url stays
# up and the document goes again at once, retries(0) or not
set -- $(free_ports tcp)
pm=$1
peer m "$pm" "bulk" "" "" "
"
cat >"$work/sluice.conf" <<EOF2
@version: 3.38
source s { tcp(ip(127.0.0.1) port($port)); };
destination m { http(url("http://127.0.0.1:$pm/") body("\$MSG") response-format(elasticsearch-bulk)
  batch-lines(10) retries(0) time-reopen(600)); };
log { source(s); destination(m); flags(flow-control); };
EOF2
start_sluice "$sluice" "$work/sluice.conf"
"$loggen" -S -n 10 -r 1000 127.0.0.1 "$port" 2>"$work/loggen.err" || fail "loggen: $(cat "$work/loggen.err")"
wait_lines "$work/m/lines" 8
stop_sluice
python3 - "$work/m/lines" <<'EOF2' || fail "a bulk item to send again: $(wc -l <"$work/m/lines") lines"
import re, sys
got = sorted(int(m.group(1)) for m in (re.search(r"seq: (\d+)", l) for l in open(sys.argv[1])) if m)
sys.exit(0 if got == [0, 1, 2, 3, 4, 5, 6, 9] else 1)
EOF2

# refused, with the reason
refused() {
  printf '@version: 3.38\ndestination d { %s };\nlog { destination(d); };\n' "$1" >"$work/bad.conf"
  if "$sluice" -s -f "$work/bad.conf" >"$work/bad.out" 2>&1; then
    fail "accepted: $1"
  fi
  grep -q "$2" "$work/bad.out" || fail "$1: $(cat "$work/bad.out"), want '$2'"
}
refused 'http(url("ftp://x/"));' "not an http:// or https:// URL"
refused 'http(url("http://x/") method("DELETE"));' "method(DELETE) is not supported"
refused 'http(url("http://x/") response-action(418 => explode));' "unknown action 'explode'"
refused 'http(url("http://x/") response-action(700 => drop));' "not an HTTP status code"
refused 'http(url("http://x/") content-compression("gzip"));' "not supported"
refused 'http(url("http://x/") worker-partition-key("\$HOST"));' "not supported"
refused 'http(url("http://x/") body("\$(nosuchfunc)"));' "body()"
refused 'http(url("http://x/") workers(0));' "workers"
refused 'http(url("https://x/") ssl-version(sslv2));' "libcurl refuses CURLOPT_SSLVERSION"
echo "http: ok"
