# Shared by slog.sh and compare-slog.sh (sourced after lib.sh, in $work).
# conf NAME INPUT OUTPUT [KEY MAC]: a file source read whole into $(slog)
# with the host key KEY and the MAC file MAC (derived.key and cmac unless
# given)
conf() {
  cat >"$1.conf" <<EOF2
@version: 3.38
source s { file("$work/$2" flags(no-parse)); };
destination d { file("$work/$3" template("\$(slog -k $work/${4:-derived.key} -m $work/${5:-cmac} \$MSG)\n")); };
log { source(s); destination(d); };
EOF2
}
# lines FILE FROM TO: "example-message: N" for N in FROM..TO
lines() {
  seq "$2" "$3" | sed 's/^/example-message: /' >"$1"
}
# expect FILE FROM TO: what slogverify gives back for those records
expect() {
  seq "$2" "$3" | awk '{ printf "%020x: example-message: %d\n", $1, $1 }' >"$1"
}
