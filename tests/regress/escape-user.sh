#!/usr/bin/env bash
# The escape cases again with the engine run by an unprivileged user (made
# here with useradd, removed at the end), on its own home and state root,
# with the management socket at its default place under XDG_RUNTIME_DIR:
# the app runs as that user in a user namespace, reaches nothing of ~/.ssh,
# the state root or other apps, cannot write into $HOME, has no network in
# off mode, is reachable on its port, and strict mode works with a runtime
# installed under $HOME on PATH.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/netlib.sh"
. "$(dirname "$0")/apps/probelib.sh"
sb_setup
[ "$(id -u)" = 0 ] || { echo "skip - needs root to create a user"; echo "0 passed, 0 failed"; exit 0; }
command -v useradd >/dev/null && command -v runuser >/dev/null ||
    { echo "skip - no useradd/runuser"; echo "0 passed, 0 failed"; exit 0; }
net_setup
case $T in /tmp/*) echo "Bail out! the test tree $T is under /tmp"; exit 1;; esac

U=sbu$$
UPIDS=
user_cleanup() {
	local pid i
	for pid in $UPIDS; do kill -TERM "$pid" 2>/dev/null || true; done
	for i in $(seq 1 70); do
		pgrep -u "$U" >/dev/null 2>&1 || break
		sleep 0.1
	done
	for pid in $UPIDS; do kill -KILL "$pid" 2>/dev/null || true; done
	userdel -r "$U" >/dev/null 2>&1 || userdel "$U" >/dev/null 2>&1 || true
}
trap 'pb_cleanup; user_cleanup; net_cleanup; sb_cleanup' EXIT
if ! useradd -m -s /bin/sh "$U" 2>"$T/useradd.err"; then
	echo "skip - useradd failed: $(cat "$T/useradd.err")"
	echo "0 passed, 0 failed"
	exit 0
fi
UHOME=$(getent passwd "$U" | cut -d: -f6)
UID_U=$(id -u "$U")

# Everything the user's engine uses belongs to the user.
mkdir -p "$T/bin" "$T/xdg"
cp "$SB_BIN/spaceboxd" "$SB_BIN/spacebox" "$SB_BIN/spacebox-shim" "$T/bin/"
chmod 755 "$T/bin" "$T/bin"/*
chown "$U:" "$T/xdg"
chmod 700 "$T/xdg"
export HOME=$UHOME SENCLAW_HOME=$UHOME/.senclaw
WS=$UHOME/ws
export SPACEBOX_SOCKET=$T/xdg/spacebox/spaceboxd.sock	# the default place

mkdir -p "$UHOME/.ssh" "$WS/space-apps" "$SENCLAW_HOME/space-apps-data/other"
printf -- '-----BEGIN OPENSSH PRIVATE KEY-----\nssh-marker-%s\n' $$ > "$UHOME/.ssh/id_rsa"
chmod 700 "$UHOME/.ssh"; chmod 600 "$UHOME/.ssh/id_rsa"
echo "home-marker-$$" > "$UHOME/marker.txt"
echo "other-secret-$$" > "$SENCLAW_HOME/space-apps-data/other/secret"
RTROOT=$UHOME/.fakeruntime/v1
mkdir -p "$RTROOT/bin" "$RTROOT/lib/fakepy"
cp "$(readlink -f /usr/bin/python3)" "$RTROOT/lib/fakepy/python"
printf '#!/bin/sh\nexec "$(dirname "$0")/../lib/fakepy/python" "$@"\n' > "$RTROOT/bin/fakepy"
chmod 755 "$RTROOT/bin/fakepy"
TAG=sbuesc$$
pb_app probe "python3 probe.py --tag $TAG"
pb_app rt "fakepy probe.py --tag $TAG"
chown -R "$U:" "$UHOME"

# The management API as the user (the engine checks the peer's uid).
sb_api() {
	local out
	if [ $# -ge 3 ]; then
		out=$(runuser -u "$U" -- curl -s --max-time 10 --unix-socket "$SPACEBOX_SOCKET" \
		    -X "$1" -H 'Content-Type: application/json' \
		    --data-binary "$3" -w '\n%{http_code}' "http://sb$2") || true
	else
		out=$(runuser -u "$U" -- curl -s --max-time 10 --unix-socket "$SPACEBOX_SOCKET" \
		    -X "$1" -w '\n%{http_code}' "http://sb$2") || true
	fi
	CODE=${out##*$'\n'}
	BODY=${out%$'\n'*}
}
sbc() { runuser -u "$U" -- env SPACEBOX_SOCKET="$SPACEBOX_SOCKET" "$T/bin/spacebox" --no-start "$@"; }

# The user's engine, with a secret in its environment and the test's
# hosts file (private mount namespace, made as root before dropping).
unshare -m --propagation private sh -c \
    'mount --bind "$1" /etc/hosts && mount --bind "$2" /etc/resolv.conf && shift 2 && exec "$@"' \
    sh "$T/hosts" "$T/resolv.conf" \
    runuser -u "$U" -- env -i PATH="$RTROOT/bin:$PB_PATH" HOME="$UHOME" USER="$U" \
    LANG=C.UTF-8 SENCLAW_HOME="$SENCLAW_HOME" XDG_RUNTIME_DIR="$T/xdg" \
    SECRET_API_KEY="xyz-$$" \
    "$T/bin/spaceboxd" -f --workspace "$WS" --api-port 0 2>>"$T/engine.log" &
UPIDS=$!
for i in $(seq 1 100); do
	sb_api GET /api/space/apps
	[ "$CODE" = 200 ] && break
	sleep 0.05
done
if [ "$CODE" != 200 ]; then
	echo "Bail out! the user's engine did not start:"; cat "$T/engine.log"
	exit 1
fi
EPID=$(pgrep -P "$UPIDS" | head -1)
UPIDS="$EPID $UPIDS"
expect_eq "the engine runs as $U" "$(ps -o user= -p "$EPID" | tr -d ' ')" "$U"
check "its socket is at the default place, mode 0600" test "$(stat -c %a "$SPACEBOX_SOCKET")" = 600
pb_listen LPORT

OPEN_OFF='{"enabled":true,"readMode":"open","network":"off"}'
# ------------------------------------------------ open, network off
if pb_use probe "$OPEN_OFF"; then
	code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "http://127.0.0.1:$PORT/health")
	expect_eq "[open] the app is reachable on its port from the host" "$code" 200
	probe id
	expect_eq "[open] the app runs as the user's uid" "$(echo "$P" | jget .uid)" "$UID_U"
	if pgrep -u 0 -f "probe\\.py --tag $TAG" >/dev/null; then
		not_ok "[open] no app process runs as root"
	else
		ok "[open] no app process runs as root"
	fi
	allowed "[open] control: \$HOME is readable in open mode" read path="$UHOME/marker.txt"
	refused "[open] ~/.ssh/id_rsa is not readable" read path="$UHOME/.ssh/id_rsa"
	refused "[open] cannot write into \$HOME" write path="$UHOME/planted"
	refused "[open] cannot write ~/.ssh/authorized_keys" write path="$UHOME/.ssh/authorized_keys"
	check "[open] nothing reached the real home" test ! -e "$UHOME/planted" -a ! -e "$UHOME/.ssh/authorized_keys"
	refused "[open] the engine's policy file is not readable" \
	    read path="$SENCLAW_HOME/sandbox/app-policies/probe.json"
	refused "[open] another app's data is not readable" \
	    read path="$SENCLAW_HOME/space-apps-data/other/secret"
	allowed "[open] control: its own data dir is writable" \
	    write path="$SENCLAW_HOME/space-apps-data/probe/w"
	expect_eq "[open] and the file on the host is the user's" \
	    "$(stat -c %U "$SENCLAW_HOME/space-apps-data/probe/w" 2>&1)" "$U"
	refused "[open] no direct connection to the origin $NET_ORIGIN_IP:80" \
	    connect host="$NET_ORIGIN_IP" port=80
	refused "[open] no host loopback service" connect host=127.0.0.1 port="$LPORT"
	refused "[open] the management socket (default place) is not reachable" \
	    unix path="$SPACEBOX_SOCKET"
	refused "[open] the app cannot PUT its own policy over the management socket" \
	    unix path="$SPACEBOX_SOCKET" method=PUT url=/api/space/apps/probe/sandbox body="$OPEN_OFF"
	allowed "[open] the app-facing API answers with the token" api path=/api/space/apps/probe/health
	probe api method=PUT path=/api/space/apps/probe/sandbox body='{"enabled":false}'
	expect_match "[open] the app-facing API has no policy route" "$(echo "$P" | jget .status)" '^40[0-9]$'
	probe env
	expect_eq "[open] the engine's SECRET_API_KEY is not passed on" \
	    "$(echo "$P" | jget '.env.SECRET_API_KEY // "absent"')" absent
	expect_eq "[open] XDG_RUNTIME_DIR is not passed on" \
	    "$(echo "$P" | jget '.env.XDG_RUNTIME_DIR // "absent"')" absent
	expect_eq "[open] USER and HOME are the user's" \
	    "$(echo "$P" | jget '[.env.USER, .env.HOME]')" "[\"$U\",\"$UHOME\"]"
else
	not_ok "[open] the probe runs as $U"
	tail -5 "$T/engine.log"
fi

# ------------------------------------------------ strict, a runtime under $HOME
out=$(sbc sandbox set rt --enabled on --read-mode strict --network off 2>&1) && rc=0 || rc=$?
expect_eq "[strict] spacebox sandbox set as the user" "$rc" 0
out=$(sbc start rt 2>&1) && rc=0 || rc=$?
expect_eq "[strict] a runtime under \$HOME on PATH starts" "$rc" 0
[ "$rc" = 0 ] || { echo "$out" | sed 's/^/    /'; pb_log rt; }
pb_runtime rt
PORT=$(echo "$RT" | jget .process.port)
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "http://127.0.0.1:$PORT/health")
expect_eq "[strict] reachable on its port" "$code" 200
refused "[strict] \$HOME (a marker file) is not readable" read path="$UHOME/marker.txt"
refused "[strict] ~/.ssh/id_rsa is not readable" read path="$UHOME/.ssh/id_rsa"
refused "[strict] cannot write into \$HOME" write path="$UHOME/planted"
check "[strict] nothing reached the real home" test ! -e "$UHOME/planted"
allowed "[strict] sqlite in its data dir" sqlite path="$SENCLAW_HOME/space-apps-data/rt/app.db"
refused "[strict] no direct connection to the origin" connect host="$NET_ORIGIN_IP" port=80
refused "[strict] the management socket is not reachable" unix path="$SPACEBOX_SOCKET"

# ------------------------------------------------ hosts and all
if pb_use probe '{"enabled":true,"network":"hosts","hosts":["example.com"]}'; then
	allowed "[hosts] an allowed site through the proxy" fetch url=http://example.com/
	refused "[hosts] a site off the list is refused" fetch url=http://evil.test/
	refused "[hosts] no direct connection to the origin" connect host="$NET_ORIGIN_IP" port=80
else
	not_ok "[hosts] the probe runs"
fi
if pb_use probe '{"enabled":true,"network":"all"}'; then
	allowed "[all] control: the direct connection works in all mode" \
	    connect host="$NET_ORIGIN_IP" port=80
	refused "[all] still no ~/.ssh" read path="$UHOME/.ssh/id_rsa"
else
	not_ok "[all] the probe runs"
fi

# ------------------------------------------------ stop
pb_stop probe && ok "the user's engine stops the app" || not_ok "the user's engine stops the app"
sb_done
