# "The internet" for the proxy regress tests, sourced after lib.sh and
# sb_setup.  net_setup makes a network namespace joined to this one by a
# veth pair on 198.18.N.0/24 (benchmark range) with a test origin
# (origin.py) inside, and a hosts file and resolver setting that the
# engine sees through a private mount namespace (net_engine), so that every
# name the tests use resolves to an address the test created, and a name
# missing from the hosts file is asked of 127.0.0.1 only.  Traffic never
# leaves the machine.
#
#   198.18.N.1   this side of the veth (an address of the engine's machine)
#   198.18.N.2   the origin: HTTP on 80 and 8080, TCP echo on 443, 22, 8443
#   198.18.N.3   a black hole: the namespace routes every packet from this
#                address nowhere, so a connect to it never completes
#
# Needs root (ip netns, unshare -m, mount); otherwise the test is skipped.

NET_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
NET_ORIGIN=$NET_DIR/origin.py
if [ -x /usr/bin/python3 ]; then NET_PY=/usr/bin/python3; else NET_PY=python3; fi
NET_NS=
NET_HV=
NET_PIDS=

net_skip() {
	echo "skip - $*"
	echo "0 passed, 0 failed"
	exit 0
}

# net_setup: the namespace, the veth pair, the origin, $T/hosts and
# $T/resolv.conf.  Sets NET_N, NET_NS, NET_HOST (198.18.N.1), NET_ORIGIN_IP
# (198.18.N.2), NET_HOLE_IP (198.18.N.3), NET_LOG (the origin's log).
net_setup() {
	local i lockfd n try
	[ "$(id -u)" = 0 ] || net_skip "needs root for network namespaces"
	command -v ip >/dev/null 2>&1 || net_skip "no ip(8)"
	command -v unshare >/dev/null 2>&1 || net_skip "no unshare(1)"
	ip netns list >/dev/null 2>&1 || net_skip "ip netns is unavailable"

	NET_NS=sbo$$
	NET_HV=sbh$$
	# N from the pid, moved on while another test holds that subnet.
	exec {lockfd}>/tmp/spacebox-netlib.lock
	flock -w 10 "$lockfd" || true
	for try in $(seq 0 249); do
		n=$(( ($$ + try) % 250 + 1 ))
		if ! ip -4 -o addr show | grep -q " 198\.18\.$n\."; then
			break
		fi
	done
	NET_N=$n
	NET_HOST=198.18.$n.1
	NET_ORIGIN_IP=198.18.$n.2
	NET_HOLE_IP=198.18.$n.3
	if ! ip netns add "$NET_NS" 2>"$T/netns.err"; then
		flock -u "$lockfd"
		net_skip "cannot create a network namespace: $(cat "$T/netns.err")"
	fi
	trap 'net_cleanup; sb_cleanup' EXIT
	ip link add "$NET_HV" type veth peer name sbn$$ netns "$NET_NS"
	ip addr add "$NET_HOST/24" dev "$NET_HV"
	ip link set "$NET_HV" up
	flock -u "$lockfd"
	exec {lockfd}>&-
	ip -n "$NET_NS" link set lo up
	ip -n "$NET_NS" addr add "$NET_ORIGIN_IP/24" dev sbn$$
	ip -n "$NET_NS" addr add "$NET_HOLE_IP/24" dev sbn$$
	ip -n "$NET_NS" link set sbn$$ up
	# The black hole: replies from .3 (SYN-ACK, RST) are routed nowhere.
	ip -n "$NET_NS" rule add from "$NET_HOLE_IP" lookup 100
	ip -n "$NET_NS" route add blackhole default table 100

	NET_LOG=$T/origin.log
	: > "$NET_LOG"
	ip netns exec "$NET_NS" "$NET_PY" "$NET_ORIGIN" serve \
	    --bind "$NET_ORIGIN_IP" --log "$NET_LOG" --ready "$T/origin.ready" \
	    --parent $$ 2>>"$T/origin.err" &
	NET_PIDS="$NET_PIDS $!"
	for i in $(seq 1 100); do
		[ -s "$T/origin.ready" ] && break
		sleep 0.05
	done
	if [ ! -s "$T/origin.ready" ]; then
		echo "origin did not start:"; cat "$T/origin.err"
		exit 1
	fi

	# glibc's files backend returns every line that names the host, and
	# getaddrinfo then sorts them (RFC 6724): for mixed.example.org the
	# loopback address comes FIRST, the public one second.
	cat > "$T/hosts" <<-EOF
	127.0.0.1	localhost $(hostname)
	::1	localhost ip6-localhost ip6-loopback
	$NET_ORIGIN_IP	example.com example.org a.b.example.org api.example.org evil.test
	127.0.0.1	rebind.example.org
	127.0.0.1	mixed.example.org
	$NET_ORIGIN_IP	mixed.example.org
	192.168.1.10	lan.example.org
	100.100.100.200	cgnat.example.org
	$NET_HOST	self.example.org
	$NET_HOLE_IP	blackhole.example.org
	EOF
	printf 'nameserver 127.0.0.1\noptions timeout:1 attempts:1\n' \
	    > "$T/resolv.conf"
	chmod 644 "$T/hosts" "$T/resolv.conf"
}

net_cleanup() {
	local pid
	for pid in $NET_PIDS; do
		kill "$pid" 2>/dev/null || true
	done
	if [ -n "$NET_NS" ]; then
		ip netns del "$NET_NS" 2>/dev/null || true
	fi
	if [ -n "$NET_HV" ]; then
		ip link del "$NET_HV" 2>/dev/null || true
	fi
}

# net_in_ns CMD...: run CMD with the test's hosts file and resolver.
net_in_ns() {
	unshare -m --propagation private sh -c \
	    'mount --bind "$1" /etc/hosts && mount --bind "$2" /etc/resolv.conf && shift 2 && exec "$@"' \
	    sh "$T/hosts" "$T/resolv.conf" "$@"
}

# net_resolve NAME: the addresses getaddrinfo gives the engine, in its
# order, one line.
net_resolve() {
	net_in_ns getent ahostsv4 "$1" 2>/dev/null |
	    awk '$2 == "STREAM" { printf "%s%s", sep, $1; sep = " " } END { print "" }'
}

# net_engine [args]: sb_engine, but the engine sees $T/hosts and
# $T/resolv.conf (a private mount namespace).
net_engine() {
	# unshare and sh exec, so $! is the engine itself.
	unshare -m --propagation private sh -c \
	    'mount --bind "$1" /etc/hosts && mount --bind "$2" /etc/resolv.conf && shift 2 && exec "$@"' \
	    sh "$T/hosts" "$T/resolv.conf" \
	    "$SPACEBOXD" -f --socket "$SPACEBOX_SOCKET" --workspace "$WS" \
	    "$@" 2>>"$T/engine.log" &
	local pid=$! i
	echo "$pid" >> "$T/engine.pid"
	for i in $(seq 1 100); do
		kill -0 "$pid" 2>/dev/null || break
		if curl -s --max-time 2 --unix-socket "$SPACEBOX_SOCKET" \
		    http://sb/api/space/apps >/dev/null 2>&1; then
			return 0
		fi
		sleep 0.05
	done
	echo "engine did not start:"; cat "$T/engine.log"
	return 1
}

# net_engine_stop: SIGTERM the engines started so far, wait for the socket
# to go.
net_engine_stop() {
	local pid i
	for pid in $(cat "$T/engine.pid" 2>/dev/null); do
		kill -TERM "$pid" 2>/dev/null || true
	done
	for i in $(seq 1 100); do
		[ -e "$SPACEBOX_SOCKET" ] || break
		sleep 0.05
	done
	for pid in $(cat "$T/engine.pid" 2>/dev/null); do
		for i in $(seq 1 100); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.05
		done
	done
	: > "$T/engine.pid"
}

# net_proxy APP: start the app's proxy; sets PROXY_PORT.
net_proxy() {
	sb_api POST "/api/space/apps/$1/proxy"
	PROXY_PORT=$(echo "$BODY" | jq -r '.port // empty' 2>/dev/null || true)
	if [ "$CODE" != 200 ] || [ -z "$PROXY_PORT" ]; then
		echo "    POST proxy for $1: $CODE $BODY"
		PROXY_PORT=
		return 1
	fi
}

# net_send [origin.py send options]: exact bytes to the proxy (see
# origin.py); prints the status code, "close" or "timeout".
net_send() {
	"$NET_PY" "$NET_ORIGIN" send --port "$PROXY_PORT" "$@" 2>>"$T/client.err" ||
	    echo "client-error"
}

# net_log_lines: the number of connections the origin has logged.
net_log_lines() {
	wc -l < "$NET_LOG" | tr -d ' '
}

# net_events_start: follow GET /api/events into $T/events.
net_events_start() {
	: > "$T/events"
	curl -sN --unix-socket "$SPACEBOX_SOCKET" http://sb/api/events \
	    >> "$T/events" 2>/dev/null &
	NET_EVENTS_PID=$!
	NET_PIDS="$NET_PIDS $!"
}

# net_wait_for FILE PATTERN [TRIES]: poll (0.1 s steps) until grep -E finds
# PATTERN in FILE.
net_wait_for() {
	local i tries=${3:-50}
	for i in $(seq 1 "$tries"); do
		grep -Eq -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# Background tunnels.  net_tunnel NAME HOST:PORT [--keepalive S]: open a
# CONNECT tunnel; sets TUN_STATUS (200, 403, 429, close, ...).
net_tunnel() {
	local name=$1 target=$2 d=$T/tun/$1 i
	shift 2
	rm -rf "$d"
	mkdir -p "$d"
	mkfifo "$d/in"
	: > "$d/ev"
	: > "$d/rx"
	"$NET_PY" "$NET_ORIGIN" tunnel --port "$PROXY_PORT" --target "$target" \
	    --dir "$d" --parent $$ "$@" 2>>"$d/err" &
	echo $! > "$d/pid"
	NET_PIDS="$NET_PIDS $!"
	TUN_STATUS=none
	for i in $(seq 1 100); do
		if grep -q '^status ' "$d/ev"; then
			TUN_STATUS=$(sed -n 's/^status //p' "$d/ev" | head -1)
			return 0
		fi
		sleep 0.05
	done
}

# net_tsend NAME TEXT: send TEXT down the tunnel and wait (up to 3 s) for
# its echo.
net_tsend() {
	local d=$T/tun/$1
	kill -0 "$(cat "$d/pid")" 2>/dev/null || return 1
	timeout 2 sh -c 'printf "send %s\n" "$1" > "$2"' sh "$2" "$d/in" ||
	    return 1
	net_wait_for "$d/rx" "$2" 30
}

# net_teof NAME TRIES: wait (0.1 s steps) for the proxy to close the tunnel;
# sets TUN_EOF to the seconds it stayed open.
net_teof() {
	local d=$T/tun/$1
	TUN_EOF=
	net_wait_for "$d/ev" '^eof ' "$2" || return 1
	TUN_EOF=$(sed -n 's/^eof \([0-9.]*\).*/\1/p' "$d/ev" | head -1)
}

# net_talive NAME: the tunnel has not been closed by the proxy.
net_talive() {
	local d=$T/tun/$1
	! grep -q '^eof ' "$d/ev" && kill -0 "$(cat "$d/pid")" 2>/dev/null
}

# net_tclose NAME: close the tunnel from the client side.
net_tclose() {
	local d=$T/tun/$1 i
	if kill -0 "$(cat "$d/pid")" 2>/dev/null; then
		timeout 2 sh -c 'echo close > "$1"' sh "$d/in" || true
	fi
	for i in $(seq 1 50); do
		kill -0 "$(cat "$d/pid")" 2>/dev/null || return 0
		sleep 0.05
	done
	kill "$(cat "$d/pid")" 2>/dev/null || true
}

# net_port_open PORT: something accepts on 127.0.0.1:PORT.
net_port_open() {
	"$NET_PY" -c 'import socket,sys
s = socket.socket()
s.settimeout(2)
try:
    s.connect(("127.0.0.1", int(sys.argv[1])))
except OSError:
    sys.exit(1)' "$1"
}
