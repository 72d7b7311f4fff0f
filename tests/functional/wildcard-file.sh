#!/bin/sh
# wildcard-file(): 200 files in 20 directories (recursive), more files and
# directories appearing while it runs, files growing, rotated
# (rename-and-create), deleted after their last lines, a file the
# exclude-pattern() keeps out, max-files() making files wait for a place,
# a reload and a restart through the persist file.  loggen's checker
# counts every line: none missing, none twice.
# Usage: wildcard-file.sh SLUICE LOGGEN
. "$(dirname "$0")/lib.sh"
sluice=$1 loggen=$2
logs=$work/logs
mkdir -p "$logs"

conf() {
  cat >"$work/sluice.conf" <<EOF2
@version: 3.38
source s { wildcard-file(base-dir("$logs") filename-pattern("*.log") exclude-pattern("skip*")
                         recursive(yes) max-files($1) follow-freq(1)); };
destination d { file("$work/out.log" template("\$MSG\n")); };
log { source(s); destination(d); };
EOF2
}

gen_runid=1764000001 # gen and arrived: lib.sh
start() {
  start_sluice "$sluice" "$work/sluice.conf" -R "$work/sluice.persist"
}

d=0
while [ $d -lt 20 ]; do
  mkdir -p "$logs/d$d"
  f=0
  while [ $f -lt 10 ]; do
    gen "$logs/d$d/f$f.log" 50
    f=$((f + 1))
  done
  d=$((d + 1))
done
# never read: the pattern does not match, or the exclude-pattern() does
printf 'not a match\n' >"$logs/d0/notes.txt"
printf 'excluded\n' >"$logs/d0/skipme.log"

conf 1000
start
arrived "200 files at the start"

# new directories and files, growth, rotation, deletion
mkdir -p "$logs/new/deeper"
gen "$logs/new/deeper/late.log" 100
gen "$logs/d1/f1.log" 100
gen "$logs/d2/f2.log" 100
mv "$logs/d3/f3.log" "$logs/d3/f3.log.1"
gen "$logs/d3/f3.log.1" 20
gen "$logs/d3/f3.log" 30
gen "$logs/d4/f4.log" 10
arrived "new, grown and rotated files"
wait_log "moved to a new file"
rm "$logs/d4/f4.log"
gen "$logs/d9/gone.log" 10
arrived "a file to delete"
rm "$logs/d9/gone.log"
sleep 1.5
gen "$logs/d4/f4.log" 40
arrived "a deleted file's name used again"

# a reload while lines stream in
i=0
while [ $i -lt 10 ]; do
  gen "$logs/d5/f5.log" 100
  gen "$logs/d6/f$i.log" 10
  [ $i -eq 5 ] && kill -HUP "$pid"
  sleep 0.05
  i=$((i + 1))
done
wait_log "Configuration reload finished"
arrived "reload"

# a restart: on from the kept positions
stop_sluice
# a file deleted for good leaves nothing in the persist file
grep -q "d4/f4.log" "$work/sluice.persist" || fail "the persist file has no position of d4/f4.log"
grep -q "gone.log" "$work/sluice.persist" && fail "a deleted file's position stayed in the persist file"
gen "$logs/d7/f7.log" 100
gen "$logs/d8/new.log" 100
start
arrived "restart"
stop_sluice

# files are read side by side: their lines interleave
check() {
  grep -q "excluded\|not a match" "$work/out.log" && fail "a file the patterns leave out was read"
  "$loggen" --check "$work/out.log" --allow-reordering >"$work/report" || { cat "$work/report"; fail "$1: loss"; }
  grep -q "received=$seq missing=0 duplicated=0 " "$work/report" || { cat "$work/report"; fail "$1: report"; }
}
check "tree"

# max-files(5): the files beyond wait for a place, none is lost
rm -rf "$logs"/* "$work/sluice.persist" "$work/out.log"
mkdir -p "$logs"
seq=0
i=0
while [ $i -lt 12 ]; do
  gen "$logs/m$i.log" 30
  i=$((i + 1))
done
conf 5
start
wait_log "max-files() reached"
wait_lines "$work/out.log" 150
[ "$(wc -l <"$work/out.log")" -eq 150 ] || fail "max-files(5): $(wc -l <"$work/out.log") lines of 5 files' 150"
# deleting the files read lets the others in, five at a time
i=0
while [ "$(wc -l <"$work/out.log")" -lt $seq ]; do
  for f in "$logs"/m*.log; do
    [ -e "$f" ] && grep -q "$(head -n 1 "$f" | cut -d' ' -f7)" "$work/out.log" && rm "$f"
  done
  i=$((i + 1)); [ $i -lt 60 ] || break
  sleep 0.5
done
arrived "max-files(), the rest after the first were let go"
stop_sluice

check "max-files()"
echo "wildcard-file: all lines of 200+ files, rotated, deleted, reloaded, restarted; max-files() waits"
