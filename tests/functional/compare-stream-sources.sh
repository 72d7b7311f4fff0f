#!/bin/sh
# pipe() and program() sources against syslog-ng 3.38 on the same lines:
# each daemon reads INPUT from a FIFO of its own (twice: as it is, and
# with flags(expect-hostname) keep-hostname(yes)) and from a program that
# prints it (`cat INPUT`, then sleeps so that neither daemon restarts it),
# and the files they write must be identical.  Needs SLUICE_SYSLOG_NG, as
# compare.sh.
# Usage: compare-stream-sources.sh SLUICE INPUT
. "$(dirname "$0")/lib.sh"
sluice=$1 input=$2
need_syslog_ng

n=$(wc -l <"$input")
for who in sluice sng; do
  mkdir -p "$work/$who.out"
  cat >"$work/$who.conf" <<EOF2
@version: 3.38
template t { template("[\${TAGS}] [\${SOURCE}] [\${HOST}] [\${HOST_FROM}] \${PROGRAM} [\${PID}] \${FACILITY}.\${LEVEL}: \${MSG} [\${FILE_NAME}]\n"); };
source s_pipe { pipe("$work/$who.out/in.fifo"); };
source s_pipe_host { pipe("$work/$who.out/host.fifo" flags(expect-hostname) keep-hostname(yes) tags(t1)); };
source s_prog { program("cat '$input'; exec sleep 600"); };
source s_prog_host { program("cat '$input'; exec sleep 601" keep-hostname(yes) program-override(over)); };
destination d_pipe { file("$work/$who.out/pipe.log" template(t)); };
destination d_pipe_host { file("$work/$who.out/pipe-host.log" template(t)); };
destination d_prog { file("$work/$who.out/prog.log" template(t)); };
destination d_prog_host { file("$work/$who.out/prog-host.log" template(t)); };
log { source(s_pipe); destination(d_pipe); };
log { source(s_pipe_host); destination(d_pipe_host); };
log { source(s_prog); destination(d_prog); };
log { source(s_prog_host); destination(d_prog_host); };
EOF2
done

start_sluice "$sluice" "$work/sluice.conf"
sng_start sng
for who in sluice sng; do
  cat "$input" >"$work/$who.out/in.fifo"
  cat "$input" >"$work/$who.out/host.fifo"
  for f in pipe pipe-host prog prog-host; do
    wait_lines "$work/$who.out/$f.log" "$n"
  done
done
stop_sluice
for p in $sng_pids; do kill "$p"; done
for p in $sng_pids; do while kill -0 "$p" 2>/dev/null; do sleep 0.1; done; done
sng_pids=
rm -f "$work"/*.out/*.fifo
# FILE_NAME names each daemon's own FIFO
for who in sluice sng; do
  sed -i "s|$work/$who.out/|DIR/|g" "$work/$who.out"/*.log
done

# the sleeps ended with their daemons
pgrep -f "exec sleep 60[01]" >/dev/null && fail "a program outlived its daemon"

if ! diff -r "$work/sng.out" "$work/sluice.out" >"$work/diff"; then
  echo "Sluice's output differs from syslog-ng's:"
  head -40 "$work/diff"
  exit 1
fi
total=$(cat "$work"/sluice.out/*.log | wc -l)
[ "$total" -eq $((4 * n)) ] || fail "$total lines, want $((4 * n))"
echo "ok: $total lines identical"
