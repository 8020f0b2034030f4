#!/bin/sh
# Install what spacebox needs to build, run and test, from Debian, if any
# of it is missing.  Needs root (or sudo).
set -eu

pkgs="build-essential cmake pkg-config libuv1-dev libcjson-dev
libncurses-dev libedit-dev libhttp-parser-dev libseccomp-dev libcmocka-dev
bubblewrap curl jq mandoc tmux iproute2 util-linux passwd procps
python3 nodejs clang libclang-rt-14-dev"

missing=""
for p in $pkgs; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
	    grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
	as_root=""
elif command -v sudo >/dev/null 2>&1; then
	as_root="sudo"
else
	echo "spacebox: missing packages:$missing; install them as root" >&2
	exit 1
fi
echo "spacebox: installing$missing"
$as_root apt-get update -qq
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $as_root apt-get install -y -qq $missing \
    >/dev/null
