#!/bin/sh
# wildcard-file(recursive(yes) max-files(20000)): 10,000 files in 100
# directories appearing while the daemon runs (a directory of 100 files
# every few hundredths of a second), three lines each.  loggen's checker
# counts every line: none missing, none twice.  The daemon's memory is
# measured before the files appear and once they are all read and idle:
# an idle file must cost little (a followed file that has nothing new
# keeps its descriptor and position, not its reader's 128 KiB buffer), so
# the resident growth per file must stay under 20 KiB, peak and after,
# and the address space under 100 KiB a file (plain build only).
# Usage: wildcard-many.sh SLUICE LOGGEN
. "$(dirname "$0")/lib.sh"
sluice=$1 loggen=$2
logs=$work/logs
mkdir -p "$logs"
dirs=100 per=100 nl=3
files=$((dirs * per))
perfile_max_kb=20
addr_max_kb=100

cat >"$work/sluice.conf" <<EOF2
@version: 3.38
source s { wildcard-file(base-dir("$logs") filename-pattern("*.log") recursive(yes)
                         max-files(20000) follow-freq(1)); };
destination d { file("$work/out.log" template("\$MSG\n")); };
log { source(s); destination(d); };
EOF2

# 10,000 descriptors and more
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -H -n)"
[ "$(ulimit -n)" = unlimited ] || [ "$(ulimit -n)" -gt $((files + 1000)) ] \
  || { echo "the descriptor limit ($(ulimit -n)) is too low for $files files"; exit 1; }

# meson test sets MALLOC_PERTURB_ (a random value for every test): glibc
# then fills every block at malloc() and at free(), so each reader's
# 128 KiB buffer is resident from the moment it is made and stays so in
# malloc's heaps once freed; the RSS would count the files read at once
# (every file here has a reader for the follow-freq() after its read),
# not what an idle file costs.  Without it a block's pages are resident
# only once written.
unset MALLOC_PERTURB_
start_sluice "$sluice" "$work/sluice.conf" -R "$work/sluice.persist"
# the baseline: started, its workers and the scan running, no file yet
sleep 2
base=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status")
base_data=$(awk '/^VmData:/ {print $2}' "/proc/$pid/status")
echo "before the files: $(rss_kb)"

# a directory of $per files, $nl lines each, every 0.03 s; each line's
# thread is its directory, its number the file's and the line's
t0=$(date +%s)
d=0
while [ $d -lt $dirs ]; do
  mkdir "$logs/d$d"
  awk -v dir="$logs/d$d" -v t=$d -v per=$per -v nl=$nl 'BEGIN {
    for (f = 0; f < per; f++) {
      name = sprintf("%s/f%d.log", dir, f)
      for (l = 0; l < nl; l++)
        printf "<13>Nov 22 10:00:00 host app[1]: seq: %010d, thread: %04d, runid: 1764000040, stamp: x PADD\n", f * nl + l, t >name
      close(name)
    }
  }'
  d=$((d + 1))
  sleep 0.03
done
want=$((files * nl))
wait_lines "$work/out.log" $want
t1=$(date +%s)
[ "$(wc -l <"$work/out.log")" -eq $want ] || fail "$(wc -l <"$work/out.log") lines of $want arrived"
echo "$files files in $dirs directories: $want lines in $((t1 - t0)) s"

# idle: a look a follow-freq() after the last read lets each reader go
sleep 3
kill -0 "$pid" || fail "the daemon is gone"
rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status")
hwm=$(awk '/^VmHWM:/ {print $2}' "/proc/$pid/status")
data=$(awk '/^VmData:/ {print $2}' "/proc/$pid/status")
fds=$(ls "/proc/$pid/fd" | wc -l)
echo "after the files: $(rss_kb), $fds descriptors"
echo "per file: $(((rss - base) * 1024 / files)) bytes idle, $(((hwm - base) * 1024 / files)) bytes at the peak" \
  "(on top of $base kB), $(((data - base_data) * 1024 / files)) bytes of address space (VmData $base_data -> $data kB)"
# AddressSanitizer's redzones, shadow and quarantine of freed memory
# make these no measure of Sluice's (reload-loop.sh does the same)
if [ -z "${ASAN_OPTIONS:-}" ]; then
  [ $((rss - base)) -lt $((files * perfile_max_kb)) ] \
    || fail "idle: $(((rss - base) / files)) kB a file, at least $perfile_max_kb"
  [ $((hwm - base)) -lt $((files * perfile_max_kb)) ] \
    || fail "peak: $(((hwm - base) / files)) kB a file, at least $perfile_max_kb"
  # A reader's buffer is malloc()ed and only its first page is written by
  # a read of a few lines: a regression that keeps the reader of every
  # idle file costs 128 KiB of address space per file but only a page of
  # RSS (checked: 7 kB a file of RSS, 134 kB of VmData).  The address
  # space the daemon took while the files came (freed buffers stay in
  # malloc's heaps) is bounded by the readers alive at once, the files
  # read within a follow-freq() or so: 12-48 kB a file in the runs made.
  [ $((data - base_data)) -lt $((files * addr_max_kb)) ] \
    || fail "address space: $(((data - base_data) / files)) kB a file, at least $addr_max_kb: is a reader kept per idle file?"
fi
stop_sluice

"$loggen" --check "$work/out.log" --allow-reordering >"$work/report" || { cat "$work/report"; fail "loss"; }
grep -q "threads=$dirs received=$want missing=0 duplicated=0 " "$work/report" || { cat "$work/report"; fail "report"; }
echo "wildcard-many: $files files appearing in $dirs directories, every line once"
