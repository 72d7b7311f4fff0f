#!/bin/sh
# pad-size(): file(), wildcard-file() and pipe() read records of a fixed
# size.  Records padded with NULs, cut at a '\n' with junk after it, full
# to the last byte, and empty ones (no message, but their bytes count);
# a record written in two halves with a pause is one message; a restart
# goes on from the persist file at the next record (no record twice, none
# read out of step); a partial record left at the end of a file rotated
# away, or in a pipe() at the stop, goes out as it is.  Every message must arrive exactly.
# Usage: pad-size.sh SLUICE
. "$(dirname "$0")/lib.sh"
sluice=$1

mkdir "$work/w"
cat >"$work/sluice.conf" <<EOF2
@version: 3.38
source s {
  file("$work/in.rec" pad-size(64) flags(no-parse) follow-freq(1));
  wildcard-file(base-dir("$work/w") filename-pattern("*.rec") pad-size(32) flags(no-parse) follow-freq(1));
  pipe("$work/in.fifo" pad-size(48) flags(no-parse));
};
destination d { file("$work/out.log" template("\$MSG\n")); };
log { source(s); destination(d); };
EOF2

# records FILE SIZE FROM N: append N records of SIZE bytes, numbered from
# FROM, to FILE (in one write); their messages, in order, to $work/want
records() {
  python3 - "$@" "$work/want" <<'EOF2'
import sys
path, size, start, n, want = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
out, msgs = b"", []
for i in range(start, start + n):
    text = b"rec %06d size %d" % (i, size)
    kind = i % 5
    if kind == 0:    # NUL padding
        rec = text + b"\0" * (size - len(text))
    elif kind == 1:  # cut at '\n', junk after it
        rec = text + b"\n" + b"j\0\nk" * size
    elif kind == 2:  # full: no end at all
        rec = text + b"x" * size
    elif kind == 3:  # empty: starts with a NUL (consumed, no message)
        rec = b"\0" + text + b"z" * size
    else:            # '\r' kept, NUL after it
        rec = text + b"\r\0" + b"y" * size
    rec = rec[:size]
    assert len(rec) == size
    out += rec
    if kind != 3:
        msg = rec.split(b"\n")[0].split(b"\0")[0]
        msgs.append(msg)
with open(path, "ab") as f:
    f.write(out)
with open(want, "ab") as f:
    for m in msgs:
        f.write(m + b"\n")
EOF2
}

# settled WHAT: until out.log has as many lines as want, then it must be
# want exactly (messages from different files compared sorted)
settled() {
  wait_lines "$work/out.log" "$(wc -l <"$work/want")"
  sort "$work/want" >"$work/want.sorted"
  sort "$work/out.log" >"$work/got.sorted"
  cmp -s "$work/want.sorted" "$work/got.sorted" \
    || { diff "$work/want.sorted" "$work/got.sorted" | head -20; fail "$1: not the records written"; }
}

: >"$work/want"
records "$work/in.rec" 64 0 200
records "$work/w/a.rec" 32 1000 100
start_sluice "$sluice" "$work/sluice.conf" -R "$work/sluice.persist"
settled "read from the start"
records "$work/in.rec" 64 200 50
records "$work/w/b.rec" 32 2000 30
settled "followed"

# a record in two halves, a pause longer than follow-freq() between them
python3 -c 'import sys; sys.stdout.buffer.write(b"half and half".ljust(64, b"\0")[:30])' >>"$work/in.rec"
sleep 2
n=$(wc -l <"$work/out.log")
python3 -c 'import sys; sys.stdout.buffer.write(b"half and half".ljust(64, b"\0")[30:])' >>"$work/in.rec"
echo "half and half" >>"$work/want"
settled "a record in two halves"
[ "$n" -eq $(($(wc -l <"$work/want") - 1)) ] || fail "half a record was sent before its rest came"

# a pipe(): records over writers, one split between two of them
records "$work/in.fifo" 48 3000 40
python3 -c 'import sys; sys.stdout.buffer.write(b"piped in two".ljust(48, b"\0")[:20])' >"$work/in.fifo"
sleep 0.5
python3 -c 'import sys; sys.stdout.buffer.write(b"piped in two".ljust(48, b"\0")[20:])' >"$work/in.fifo"
echo "piped in two" >>"$work/want"
settled "pipe()"

# a stop and a start: on from the next record
stop_sluice
records "$work/in.rec" 64 5000 60
records "$work/w/a.rec" 32 6000 20
start_sluice "$sluice" "$work/sluice.conf" -R "$work/sluice.persist"
settled "restart"

# a partial record at the end of a file rotated away goes out as it is
python3 -c 'import sys; sys.stdout.buffer.write(b"rotated away".ljust(64, b"\0")[:25])' >>"$work/in.rec"
sleep 0.5
mv "$work/in.rec" "$work/in.rec.1"
records "$work/in.rec" 64 7000 10
echo "rotated away" >>"$work/want"
settled "a partial record at the end of a rotated file"

# a reload that changes pad-size(): the pipe() carried over frames the
# part of a record it holds in the new size
printf 'reframed\0\0' >"$work/in.fifo"
sleep 0.5
sed -i 's/pad-size(48)/pad-size(16)/' "$work/sluice.conf"
reload_sluice
printf '\0\0\0\0\0\0' >"$work/in.fifo"
echo "reframed" >>"$work/want"
settled "a reload that changed pad-size()"

# a partial record in the pipe at the stop goes out as it is
printf 'left over\0\0\0' >"$work/in.fifo"
sleep 0.5
echo "left over" >>"$work/want"
stop_sluice
settled "a partial record at the end of a pipe()"

echo "pad-size: $(wc -l <"$work/out.log") records through file(), wildcard-file() and pipe()"
