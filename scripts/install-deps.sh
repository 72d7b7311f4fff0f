#!/bin/sh
# Install what building and testing Sluice needs on Debian 12, and nothing
# that is already there.  Safe to run again.
set -eu

PACKAGES="
  gcc clang libclang-rt-14-dev meson ninja-build pkg-config
  libglib2.0-dev libssl-dev libpcre2-dev libjson-c-dev libivykis-dev
  libcriterion-dev libbpf-dev libsystemd-dev systemd-journal-remote
  tzdata util-linux procps
"

missing=""
for p in $PACKAGES; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $p"
  fi
done

if [ -z "$missing" ]; then
  exit 0
fi

SUDO=""
if [ "$(id -u)" != 0 ]; then
  SUDO="sudo"
fi
echo "install-deps: installing:$missing"
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends $missing
