#!/bin/sh
# Install what building and testing Sluice needs on Debian 12, and nothing
# that is already there.  Safe to run again.
set -eu

exec "$(dirname "$0")/apt-missing.sh" \
  gcc clang libclang-rt-14-dev meson ninja-build pkg-config \
  libglib2.0-dev libssl-dev libpcre2-dev libjson-c-dev libivykis-dev \
  libcriterion-dev libbpf-dev libsystemd-dev systemd-journal-remote \
  tzdata util-linux procps
