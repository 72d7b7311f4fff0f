#!/bin/sh
# Install what building Sluice needs on Debian 12, and nothing that is
# already there.  Safe to run again.
#   install-deps.sh         what the build and the whole test suite need
#   install-deps.sh --run   only what building and running the daemon needs
#                           (quickstart.sh)
set -eu

# the daemon and its tools: compiler, meson, the libraries it links, and
# clang, whose BPF target compiles the reuseport balancer (contrib/bpf)
# that libbpf loads (ebpf(), udp-balancer(); without either they are off)
run="gcc meson ninja-build pkg-config
  libglib2.0-dev libssl-dev libpcre2-dev libjson-c-dev libivykis-dev libzstd-dev
  libcurl4-openssl-dev libbpf-dev libsystemd-dev librdkafka-dev clang python3"
# the tests: Criterion, clang and its sanitizer and libFuzzer runtimes, the
# commands the functional tests run (openssl makes the TLS certificates,
# python3 runs the helpers and peers, systemd-journal-remote feeds the
# journal tests, logrotate rotates under file-logrotate, GNU time measures
# slogverify's peak memory in slog), time zones for
# the timestamp tests, a JDK and Maven for the Apache Kafka broker of the
# kafka tests (tests/kafka/kafka-broker.sh) and the OpenSearch node of the
# elasticsearch-http() test (tests/opensearch), with Java's CA store (Maven
# fetches over https) and curl (the node's readiness checks)
tests="clang libclang-rt-14-dev libcriterion-dev
  openssl python3 systemd-journal-remote logrotate time tzdata util-linux procps
  openjdk-17-jdk-headless ca-certificates-java maven curl"

case "${1:-}" in
  --run) set -- $run ;;
  "") set -- $run $tests ;;
  *) echo "usage: $0 [--run]" >&2; exit 2 ;;
esac
exec "$(dirname "$0")/apt-missing.sh" "$@"
