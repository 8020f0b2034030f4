#!/usr/bin/env bash
# spacebox exec with the engine run by an unprivileged user (made here
# with useradd, removed at the end; everything it uses belongs to it):
# the command runs as that user, writes the project but not $HOME,
# reads nothing of ~/.ssh or the rest of $HOME, gets none of the engine's
# environment and has no network; the project rules hold.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/netlib.sh"
sb_setup
[ "$(id -u)" = 0 ] || { echo "skip - needs root to create a user"; echo "0 passed, 0 failed"; exit 0; }
command -v useradd >/dev/null && command -v runuser >/dev/null ||
    { echo "skip - no useradd/runuser"; echo "0 passed, 0 failed"; exit 0; }
net_setup
case $T in /tmp/*) echo "Bail out! the test tree $T is under /tmp"; exit 1;; esac

U=sbx$$
UPIDS=
user_cleanup() {
	local pid i
	for pid in $UPIDS; do kill -TERM "$pid" 2>/dev/null || true; done
	for i in $(seq 1 70); do
		pgrep -u "$U" >/dev/null 2>&1 || break
		sleep 0.1
	done
	for pid in $(pgrep -u "$U" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null || true; done
	userdel -r "$U" >/dev/null 2>&1 || userdel "$U" >/dev/null 2>&1 || true
}
trap 'user_cleanup; net_cleanup; sb_cleanup' EXIT
if ! useradd -m -s /bin/sh "$U" 2>"$T/useradd.err"; then
	echo "skip - useradd failed: $(cat "$T/useradd.err")"
	echo "0 passed, 0 failed"
	exit 0
fi
UHOME=$(getent passwd "$U" | cut -d: -f6)
UID_U=$(id -u "$U")

# Everything the user's engine uses belongs to the user.
mkdir -p "$T/bin" "$T/urun"
cp "$SB_BIN/spaceboxd" "$SB_BIN/spacebox" "$SB_BIN/spacebox-shim" "$T/bin/"
chmod 755 "$T/bin" "$T/bin"/*
chown "$U:" "$T/urun"
chmod 700 "$T/urun"
export HOME=$UHOME SENCLAW_HOME=$UHOME/.senclaw
export SPACEBOX_SOCKET=$T/urun/sb.sock
WS=$UHOME/ws
P=$WS/proj
ssh_mark=ssh-key-marker-$$
home_mark=home-marker-$$
mkdir -p "$UHOME/.ssh" "$P"
printf -- '-----BEGIN OPENSSH PRIVATE KEY-----\n%s\n' "$ssh_mark" > "$UHOME/.ssh/id_rsa"
chmod 700 "$UHOME/.ssh"
chmod 600 "$UHOME/.ssh/id_rsa"
echo "$home_mark" > "$UHOME/notes.txt"
chown -R "$U:" "$UHOME"
if [ -x /usr/bin/python3 ]; then PY=/usr/bin/python3; else PY=python3; fi

# x [exec options] -- CMD...: spacebox exec in the project, as the user;
# sets RC, OUT, ERR.
x() {
	RC=0
	runuser -u "$U" -- sh -c 'cd "$1" && shift && exec "$@"' sh "$P" \
	    env SPACEBOX_SOCKET="$SPACEBOX_SOCKET" "$T/bin/spacebox" --no-start exec "$@" \
	    >"$T/out" 2>"$T/err" || RC=$?
	OUT=$(cat "$T/out")
	ERR=$(cat "$T/err")
}
lacks() { ! grep -q -- "$1" "$2"; }	# lacks PATTERN FILE

# The user's engine: its own environment only, with a secret in it, and
# the test's hosts file (private mount namespace, made as root first).
unshare -m --propagation private sh -c \
    'mount --bind "$1" /etc/hosts && mount --bind "$2" /etc/resolv.conf && shift 2 && exec "$@"' \
    sh "$T/hosts" "$T/resolv.conf" \
    runuser -u "$U" -- env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$UHOME" USER="$U" \
    LANG=C.UTF-8 SENCLAW_HOME="$SENCLAW_HOME" SECRET_API_KEY="xyz-$$" \
    "$T/bin/spaceboxd" -f --socket "$SPACEBOX_SOCKET" --workspace "$WS" \
    --api-port 0 --exec-timeout 2 2>>"$T/engine.log" &
UPIDS=$!
up=no
for i in $(seq 1 100); do
	if runuser -u "$U" -- curl -s --max-time 2 --unix-socket "$SPACEBOX_SOCKET" \
	    http://sb/api/space/apps >/dev/null 2>&1; then
		up=yes
		break
	fi
	sleep 0.05
done
if [ "$up" != yes ]; then
	echo "Bail out! the user's engine did not start:"; cat "$T/engine.log"
	exit 1
fi
EPID=$(pgrep -u "$U" -x spaceboxd | head -1)
UPIDS="$EPID $UPIDS"
expect_eq "the engine runs as $U" "$(ps -o user= -p "$EPID" | tr -d ' ')" "$U"

x -- id -u
expect_eq "the command runs as the user's uid" "$RC:$OUT" "0:$UID_U"
x --json -- true
expect_eq "under bubblewrap, workspace-write" "$(echo "$OUT" | jget '[.sandbox,.level,.exitCode]')" \
    '["bubblewrap","workspace-write",0]'

x -- sh -c 'echo made > written.txt && cat written.txt'
expect_eq "a write in the project succeeds" "$RC:$OUT" "0:made"
expect_eq "the file is on the host" "$(cat "$P/written.txt" 2>/dev/null)" made
expect_eq "owned by the user" "$(stat -c %U "$P/written.txt" 2>/dev/null)" "$U"
x -- sh -c 'echo t > "$TMPDIR/t" && cat "$TMPDIR/t"'
expect_eq "the private TMPDIR is writable" "$RC:$OUT" "0:t"

x -- sh -c 'echo planted > "$HOME/planted"'
check "a write in \$HOME fails" test "$RC" -ne 0
check "and nothing appears in \$HOME" test ! -e "$UHOME/planted"
x -- sh -c 'echo k >> "$HOME/.ssh/authorized_keys"'
check "~/.ssh/authorized_keys cannot be written" test "$RC" -ne 0 -a ! -e "$UHOME/.ssh/authorized_keys"
x -- sh -c 'echo x > /etc/sbx-planted-'$$
check "a write in /etc fails" test "$RC" -ne 0 -a ! -e "/etc/sbx-planted-$$"

x -- cat "$UHOME/.ssh/id_rsa"
check "reading ~/.ssh/id_rsa fails" test "$RC" -ne 0
check "and shows nothing of the key" lacks "$ssh_mark" "$T/out"
x -- cat "$UHOME/notes.txt"
check "reading another file of \$HOME fails" test "$RC" -ne 0
check "and shows nothing of it" lacks "$home_mark" "$T/out"
x -- sh -c 'head -1 /etc/passwd'
expect_match "system files are readable" "$RC:$OUT" '^0:root:'
check "control: the user itself can read its key" \
    sh -c 'runuser -u "$1" -- cat "$2" | grep -q "$3"' _ "$U" "$UHOME/.ssh/id_rsa" "$ssh_mark"

x -- env
expect_eq "env runs" "$RC" 0
check "the engine's SECRET_API_KEY is not passed" lacks "SECRET_API_KEY\|xyz-$$" "$T/out"
check "no SENCLAW_* variable is passed" lacks '^SENCLAW_' "$T/out"

# The network.
connect_py="import socket,sys
try:
    socket.create_connection((sys.argv[1], 80), timeout=3)
except OSError as e:
    print('refused', e); sys.exit(3)
print('connected')"
check "control: the user reaches the origin from the host" \
    sh -c 'runuser -u "$1" -- "$2" -c "$3" "$4" | grep -qx connected' _ "$U" "$PY" "$connect_py" "$NET_ORIGIN_IP"
before=$(net_log_lines)
x -- "$PY" -c "$connect_py" "$NET_ORIGIN_IP"
expect_match "a connect to the origin fails" "$RC:$OUT" '^3:refused'
sleep 0.2
expect_eq "the origin saw nothing" "$(net_log_lines)" "$before"

# The project rules.
for d in "$UHOME" / "$(dirname "$UHOME")" "$UHOME/.ssh"; do
	x --cwd "$d" -- sh -c 'echo ran'
	expect_eq "--cwd $d is refused (exit 1)" "$RC" 1
	check "--cwd $d: with a one-line message" test "$(wc -l < "$T/err")" -eq 1
	check "--cwd $d: nothing ran" lacks ran "$T/out"
done

# The time limit as the user.
M=30.0$$1
x -- sh -c "sleep $M & sleep $M"
expect_eq "a command over the limit exits 137" "$RC" 137
left=yes
for i in $(seq 1 30); do
	pgrep -f -- "sleep $M" >/dev/null || { left=no; break; }
	sleep 0.1
done
expect_eq "and nothing it started is left" "$left" no

sb_done
