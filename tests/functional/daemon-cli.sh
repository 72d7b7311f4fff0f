#!/bin/sh
# The daemon's command line on the edges an operator meets first:
#  - stdin() redirected from a regular file (epoll cannot watch one);
#  - a one-line input that ends while the daemon is still starting: it must
#    exit all the same (the stop request comes before the main loop runs);
#  - --syntax-only finds what only building the configuration finds (a bad
#    template function call), and accepts the shipped default configuration;
#  - threaded(no) runs one I/O worker, and --worker-threads overrides it;
#  - -R: nothing is written while nothing is remembered, a damaged file is
#    moved aside and the daemon starts, a directory that cannot be written
#    stops the start with an error naming it;
#  - syslog-ng's command line: --version in its shape, its options taken,
#    --enable-core; stdin() on /dev/null (epoll refuses it) read to its end.
# Usage: daemon-cli.sh SLUICE SRCDIR
. "$(dirname "$0")/lib.sh"
sluice=$1 srcdir=$2

cat >"$work/file.conf" <<CONF
@version: 3.38
options { keep-hostname(yes); };
source s { stdin(); };
destination d { file("$work/out.log"); };
log { source(s); destination(d); };
CONF

i=0
while [ $i -lt 20000 ]; do
  echo "<13>Nov 22 10:00:00 host prog[1]: line $i"
  i=$((i + 1))
done >"$work/in.txt"
timeout 30 "$sluice" -F -f "$work/file.conf" <"$work/in.txt" 2>"$work/err" || { cat "$work/err"; fail "stdin from a regular file"; }
[ "$(wc -l <"$work/out.log")" -eq 20000 ] || fail "stdin from a regular file: $(wc -l <"$work/out.log") lines"
[ "$(tail -n 1 "$work/out.log")" = "Nov 22 10:00:00 host prog[1]: line 19999" ] || fail "last line: $(tail -n 1 "$work/out.log")"

# from a file and from a pipe (before the fix about 1 run in 20 hung)
echo "<13>Nov 22 10:00:00 host prog[1]: one" >"$work/one.txt"
n=0
while [ $n -lt 30 ]; do
  rm -f "$work/out.log"
  if [ $((n % 2)) -eq 0 ]; then
    timeout 10 "$sluice" -F -f "$work/file.conf" <"$work/one.txt" 2>"$work/err" || fail "run $n did not stop at the end of a one-line file"
  else
    cat "$work/one.txt" | timeout 10 "$sluice" -F -f "$work/file.conf" 2>"$work/err" || fail "run $n did not stop at the end of a one-line pipe"
  fi
  [ "$(cat "$work/out.log")" = "Nov 22 10:00:00 host prog[1]: one" ] || fail "run $n wrote: $(cat "$work/out.log")"
  n=$((n + 1))
done

cat >"$work/bad.conf" <<CONF
@version: 3.38
source s { stdin(); };
destination d { file("$work/out.log" template("\$(padding \$PID)")); };
log { source(s); destination(d); };
CONF
if "$sluice" -s -f "$work/bad.conf" 2>"$work/err"; then
  fail "--syntax-only accepted a bad template function call"
fi
grep -q 'bad.conf:3:.*padding' "$work/err" || { cat "$work/err"; fail "--syntax-only error"; }

SLUICE_LOGDIR=$work "$sluice" -s -f "$srcdir/etc/sluice.conf" 2>"$work/err" || { cat "$work/err"; fail "the default configuration"; }

# threaded(no) is one I/O worker; --worker-threads wins over it
port=$(free_ports tcp)
tasks() { # tasks THREADED [ARGS...]: the daemon's thread count
  sed "s/@THREADED@/$1/" "$work/thr.in" >"$work/thr.conf"
  shift
  start_sluice "$sluice" "$work/thr.conf" "$@"
  n=$(ls "/proc/$pid/task" | wc -l)
  stop_sluice
  echo "$n"
}
cat >"$work/thr.in" <<CONF
@version: 3.38
options { threaded(@THREADED@); };
source s { network(ip(127.0.0.1) port($port)); };
destination d { file("$work/thr.log"); };
log { source(s); destination(d); };
CONF
a=$(tasks no)
b=$(tasks yes --worker-threads 1)
c=$(tasks no --worker-threads 3)
[ "$a" -eq "$b" ] || fail "threaded(no) runs $a threads, one worker runs $b"
[ "$c" -eq $((a + 2)) ] || fail "--worker-threads 3 under threaded(no) runs $c threads, not $((a + 2))"

# -R (no source remembers anything yet: the file is never written)
mkdir "$work/state"
start_sluice "$sluice" "$work/thr.conf" -R "$work/state/p.persist"
reload_sluice
stop_sluice
[ -z "$(ls "$work/state")" ] || fail "-R wrote with nothing to remember: $(ls "$work/state")"
echo "not a persist file" >"$work/state/p.persist"
start_sluice "$sluice" "$work/thr.conf" -R "$work/state/p.persist"
stop_sluice
grep -q "Persist file damaged.*not a Sluice persist file" "$work/sluice.log" || { cat "$work/sluice.log"; fail "-R damaged file"; }
[ ! -e "$work/state/p.persist" ] && ls "$work/state" | grep -q '^p.persist.corrupt-' || fail "-R damaged file not moved aside: $(ls "$work/state")"
if "$sluice" -F -f "$work/thr.conf" -R "$work/none/p.persist" 2>"$work/err"; then
  fail "-R in a missing directory started"
fi
grep -q "persist file $work/none/p.persist: its directory $work/none cannot be written" "$work/err" \
  || { cat "$work/err"; fail "-R in a missing directory: the error"; }


# syslog-ng's command line: --version in its shape (the second line's third
# word is the configuration version its test framework writes), its own
# options taken (no-ops say so in --help), --enable-core raising the limit
"$sluice" --version >"$work/version" || fail "--version"
[ "$(sed -n 2p "$work/version" | cut -d' ' -f3)" = "3.38" ] || fail "--version: $(cat "$work/version")"
grep -q "^Available-Modules: .*network" "$work/version" || fail "--version modules: $(cat "$work/version")"
"$sluice" --no-caps --caps=cap_sys_admin --module-path=/nowhere --no-module-discovery -S -t -r --enable-core \
  --syntax-only -f "$work/file.conf" 2>"$work/err" || fail "syslog-ng's options: $(cat "$work/err")"
"$sluice" --module-registry | grep -qx "file" || fail "--module-registry"
printf '@version: 3.38\nsource s { internal(); };\ndestination d { file("%s/internal.log"); };\nlog { source(s); destination(d); };\n' \
  "$work" >"$work/internal.conf"
sh -c 'ulimit -S -c 0; "$1" --enable-core -F -f "$2" -p "$3/core.pid" >/dev/null 2>&1 & p=$!
  i=0; while [ ! -s "$3/core.pid" ] && [ $i -lt 100 ]; do i=$((i + 1)); sleep 0.05; done
  grep "Max core file size" "/proc/$p/limits" >"$3/core.limits"; kill $p; wait $p' sh "$sluice" "$work/internal.conf" "$work"
soft=$(awk '{print $5}' "$work/core.limits") hard=$(awk '{print $6}' "$work/core.limits")
[ "$soft" = "$hard" ] && [ "$soft" != 0 ] || fail "--enable-core: $(cat "$work/core.limits")"

# stdin() on /dev/null, as systemd gives a service: epoll refuses it, and
# the daemon reads it as a file (its end ends the daemon) instead of aborting
timeout 10 "$sluice" -F -f "$work/file.conf" </dev/null 2>"$work/err" || { cat "$work/err"; fail "stdin from /dev/null"; }
grep -q "End of file on stdin" "$work/err" || fail "stdin from /dev/null: $(cat "$work/err")"

echo "daemon-cli: ok"
