#!/bin/bash
# proxy-bench.sh: benchmark the allowlist proxy against direct TCP and
# tinyproxy.  Run on demand, as root (network namespace, bind mounts):
#
#	sudo tests/bench/proxy-bench.sh
#
# (a) connection setup: N_LAT sequential connections, connect (+ CONNECT
#     handshake) + 1-byte echo round trip, p50/p99 per path
# (b) BYTES through one tunnel (the client sends, the origin sinks and
#     acknowledges), MiB/s per path
# (c) N_IDLE concurrent idle tunnels: VmRSS and descriptors of the proxy
#     before and after, per tunnel
#
# All traffic stays on loopback and a veth pair into a network namespace
# made here (the origin, 198.18.250.2:443, lives in it).  Everything is
# removed on exit.  Exits 0 when the benchmark ran (targets missed or
# not), non-zero when it could not run.
#
# Knobs (environment): N_LAT=1000 LAT_ROUNDS=10 BYTES=1073741824 TP_REPS=3
# N_IDLE=10000 N_TINY=(N_IDLE) HOLD_CONC=200 SB_BENCH_BUILD=<src>/build-bench
# SPACEBOXD=<path> KEEP_TMP=1

set -eu
umask 022

BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$BENCH_DIR/../.." && pwd)
BUILD=${SB_BENCH_BUILD:-$SRC/build-bench}
N_LAT=${N_LAT:-1000}
BYTES=${BYTES:-1073741824}
TP_REPS=${TP_REPS:-3}
N_IDLE=${N_IDLE:-10000}
HOLD_CONC=${HOLD_CONC:-200}

NET=198.18.250
ORIGIN_IP=$NET.2
ORIGIN_NAME=origin.bench.test
NS=sbbench$$
VETH_H=sbbh$$
VETH_N=sbbn$$

say() { printf '%s\n' "$*" >&2; }
fail() { say "proxy-bench: $*"; exit 2; }

[ "$(id -u)" -eq 0 ] || fail "run as root (sudo $0): it makes a network \
namespace and bind-mounts /etc/hosts in a private mount namespace"
for c in ip unshare mount curl cc cmake; do
	command -v "$c" >/dev/null || fail "$c is needed"
done
ip netns list >/dev/null 2>&1 || fail "ip netns does not work here"

T=$(mktemp -d /tmp/sbbench.XXXXXX)
chmod 755 "$T"
PIDS=""
NS_MADE=0
COPROC_PID=""

cleanup() {
	local rc=$? p
	trap - EXIT INT TERM
	set +e
	if [ -n "$COPROC_PID" ]; then
		kill "$COPROC_PID" 2>/dev/null
	fi
	for p in $PIDS; do
		kill "$p" 2>/dev/null
	done
	for p in $PIDS; do
		wait "$p" 2>/dev/null
	done
	if [ "$NS_MADE" = 1 ]; then
		ip link del "$VETH_H" 2>/dev/null
		ip netns del "$NS" 2>/dev/null
	fi
	if [ "${KEEP_TMP:-0}" = 1 ]; then
		say "proxy-bench: logs kept in $T"
	else
		rm -rf "$T"
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Never run away: the whole benchmark is bounded in time.
( trap 'kill $sp 2>/dev/null; exit 0' TERM
  sleep "${BENCH_WATCHDOG:-600}" & sp=$!
  wait $sp && { say "proxy-bench: watchdog: running too long, stopping";
  kill -TERM $$; } ) 2>/dev/null &
PIDS="$PIDS $!"

# Descriptors: the engine, tinyproxy and the helpers inherit this.
ulimit -Hn 65536 2>/dev/null || true
HARD=$(ulimit -Hn)
[ "$HARD" = unlimited ] && HARD=65536
NOFILE=$(( HARD < 65536 ? HARD : 65536 ))
ulimit -n "$NOFILE"
# A proxy needs two descriptors per tunnel plus a few of its own.
FIT=$(( (NOFILE - 100) / 2 ))
IDLE_NOTE=""
if [ "$N_IDLE" -gt "$FIT" ]; then
	IDLE_NOTE="RLIMIT_NOFILE is capped at $NOFILE here (hard limit, \
cannot be raised without CAP_SYS_RESOURCE): $N_IDLE tunnels need \
$((2 * N_IDLE + 100)) descriptors in the proxy, so (c) measures $FIT"
	N_IDLE=$FIT
fi
N_TINY=${N_TINY:-$N_IDLE}
[ "$N_TINY" -gt "$FIT" ] && N_TINY=$FIT

# ---------------------------------------------------------------- build

say "== building"
PB=$T/pbench
cc -O2 -Wall -o "$PB" "$BENCH_DIR/pbench.c" || fail "cannot build pbench"
if [ -n "${SPACEBOXD:-}" ]; then
	:
else
	SPACEBOXD=$BUILD/spaceboxd
	if [ ! -f "$BUILD/CMakeCache.txt" ]; then
		cmake -S "$SRC" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release \
		    >"$T/build.log" 2>&1 || { cat "$T/build.log" >&2;
		    fail "cmake configure failed"; }
	fi
	if ! cmake --build "$BUILD" -j"$(nproc)" --target spaceboxd \
	    >>"$T/build.log" 2>&1; then
		tail -20 "$T/build.log" >&2
		[ -x "$SPACEBOXD" ] || fail "cannot build spaceboxd"
		say "proxy-bench: WARNING: rebuild failed, using the existing \
$SPACEBOXD"
	fi
fi
[ -x "$SPACEBOXD" ] || fail "no spaceboxd at $SPACEBOXD"
BUILD_TYPE=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' \
    "$(dirname "$SPACEBOXD")/CMakeCache.txt" 2>/dev/null || true)

TINYPROXY=$(command -v tinyproxy || true)
if [ -z "$TINYPROXY" ]; then
	say "== installing tinyproxy"
	export DEBIAN_FRONTEND=noninteractive
	# tinyproxy-bin is the binary alone: no system service is started.
	# ("tinyproxy" is the same binary plus an init script.)
	apt-get install -y -q tinyproxy-bin >"$T/apt.log" 2>&1 ||
	    { apt-get update -q >>"$T/apt.log" 2>&1 &&
	    apt-get install -y -q tinyproxy-bin >>"$T/apt.log" 2>&1; } ||
	    true
	TINYPROXY=$(command -v tinyproxy || true)
	if [ -z "$TINYPROXY" ]; then
		tail -5 "$T/apt.log" >&2
		say "proxy-bench: tinyproxy could not be installed; its \
columns will read n/a"
	fi
fi
TP_VERSION=$([ -n "$TINYPROXY" ] && "$TINYPROXY" -v 2>&1 | head -1 || echo none)

# ---------------------------------------------------------------- network

say "== network namespace $NS, origin on $ORIGIN_IP:443"
if [ -n "$(ip -o addr show to "$NET.0/24" 2>/dev/null)" ]; then
	fail "$NET.0/24 is already in use on this host (another run?)"
fi
ip netns add "$NS"
NS_MADE=1
ip link add "$VETH_H" type veth peer name "$VETH_N"
ip link set "$VETH_N" netns "$NS"
ip addr add "$NET.1/24" dev "$VETH_H"
ip link set "$VETH_H" up
ip -n "$NS" addr add "$ORIGIN_IP/24" dev "$VETH_N"
ip -n "$NS" link set "$VETH_N" up
ip -n "$NS" link set lo up

ip netns exec "$NS" "$PB" origin 0.0.0.0 443 >"$T/origin.log" 2>&1 &
ORIGIN_PID=$!
PIDS="$PIDS $ORIGIN_PID"
for _ in $(seq 1 100); do
	grep -q listening "$T/origin.log" 2>/dev/null && break
	sleep 0.05
done
grep -q listening "$T/origin.log" || { cat "$T/origin.log" >&2;
    fail "the origin did not start"; }
for _ in $(seq 1 50); do
	"$PB" latency direct "$ORIGIN_IP:443" 1 >/dev/null 2>&1 && break
	sleep 0.1
done
"$PB" latency direct "$ORIGIN_IP:443" 1 >/dev/null ||
    fail "the origin is not reachable over the veth pair"

# Leftover TIME_WAIT towards the origin (another run in the last minute)
# slows every connect() there; so does other load on a small machine.
TW=$(ss -Htan state time-wait dst "$ORIGIN_IP" 2>/dev/null | wc -l || echo 0)
LOAD=$(cut -d' ' -f1 /proc/loadavg)
[ "$TW" -gt 2000 ] && say "proxy-bench: WARNING: $TW sockets in \
TIME_WAIT towards $ORIGIN_IP; connects will be slower"

# Name resolution for the proxies: only this file, and a resolver on
# loopback should anything ever ask DNS.
printf '127.0.0.1\tlocalhost\n%s\t%s\n' "$ORIGIN_IP" "$ORIGIN_NAME" \
    >"$T/hosts"
printf 'nameserver 127.0.0.1\noptions timeout:1 attempts:1\n' \
    >"$T/resolv.conf"

# in_private_etc CMD...: exec CMD in a private mount namespace that sees
# our hosts and resolv.conf.
in_private_etc() {
	exec unshare -m --propagation private sh -c 'mount --bind "$1" \
/etc/hosts && mount --bind "$2" /etc/resolv.conf && shift 2 && exec "$@"' \
	    sh "$T/hosts" "$T/resolv.conf" "$@"
}

# ---------------------------------------------------------------- proxies

ENGINE_PID=""
SB_PORT=""
ENG_N=0

start_engine() {
	local d sock i out
	ENG_N=$((ENG_N + 1))
	d=$T/engine$ENG_N
	mkdir -p "$d/home/.senclaw" "$d/ws/space-apps/bench" "$d/run"
	chmod 700 "$d/run"
	printf '{"id":"bench"}\n' >"$d/ws/space-apps/bench/senclaw-manifest.json"
	sock=$d/run/sb.sock
	( unset XDG_RUNTIME_DIR SPACEBOX_SOCKET
	  export HOME=$d/home SENCLAW_HOME=$d/home/.senclaw
	  in_private_etc "$SPACEBOXD" -f --socket "$sock" \
	    --workspace "$d/ws" --proxy-max-tunnels 20000 \
	    --proxy-idle-timeout 600 ) >"$d/engine.log" 2>&1 &
	ENGINE_PID=$!
	PIDS="$PIDS $ENGINE_PID"
	for i in $(seq 1 100); do
		curl -s --max-time 2 --unix-socket "$sock" \
		    http://x/api/space/apps >/dev/null 2>&1 && break
		kill -0 "$ENGINE_PID" 2>/dev/null || break
		sleep 0.05
	done
	curl -sf --max-time 5 --unix-socket "$sock" -X PUT \
	    -H 'Content-Type: application/json' \
	    -d "{\"enabled\":true,\"network\":\"hosts\",\"hosts\":[\"$ORIGIN_NAME\"]}" \
	    http://x/api/space/apps/bench/sandbox >"$d/put.json" ||
	    { cat "$d/engine.log" >&2; fail "cannot set the app's policy"; }
	out=$(curl -sf --max-time 5 --unix-socket "$sock" -X POST \
	    http://x/api/space/apps/bench/proxy) ||
	    { cat "$d/engine.log" >&2; fail "cannot start the proxy"; }
	SB_PORT=$(printf '%s' "$out" | sed -n 's/.*"port":[ ]*\([0-9]*\).*/\1/p')
	[ -n "$SB_PORT" ] || fail "no port in the proxy answer: $out"
	"$PB" latency proxy "127.0.0.1:$SB_PORT" "$ORIGIN_NAME:443" 1 \
	    >/dev/null 2>"$d/probe.err" || { cat "$d/probe.err" \
	    "$d/engine.log" >&2; fail "no tunnel through the spacebox proxy"; }
}

stop_pid() {
	local p=$1 i
	[ -n "$p" ] || return 0
	kill "$p" 2>/dev/null || true
	for i in $(seq 1 50); do
		kill -0 "$p" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$p" 2>/dev/null || true
	wait "$p" 2>/dev/null || true
}

TP_PID=""
TP_PORT=""
TP_N=0

start_tinyproxy() {
	local d i
	TP_PID=""
	[ -n "$TINYPROXY" ] || return 1
	TP_N=$((TP_N + 1))
	d=$T/tinyproxy$TP_N
	mkdir -p "$d"
	TP_PORT=$("$PB" freeport)
	cat >"$d/tinyproxy.conf" <<-EOF
	Port $TP_PORT
	Listen 127.0.0.1
	Timeout 600
	MaxClients 20000
	Allow 127.0.0.1
	ConnectPort 443
	DisableViaHeader Yes
	LogFile "$d/tinyproxy.log"
	LogLevel Error
	EOF
	( in_private_etc "$TINYPROXY" -d -c "$d/tinyproxy.conf" ) \
	    >"$d/stderr.log" 2>&1 &
	TP_PID=$!
	PIDS="$PIDS $TP_PID"
	for i in $(seq 1 100); do
		(exec 3<>"/dev/tcp/127.0.0.1/$TP_PORT") 2>/dev/null && break
		kill -0 "$TP_PID" 2>/dev/null || break
		sleep 0.05
	done
	if ! "$PB" latency proxy "127.0.0.1:$TP_PORT" "$ORIGIN_NAME:443" 1 \
	    >/dev/null 2>"$d/probe.err"; then
		cat "$d/probe.err" "$d/stderr.log" >&2
		say "proxy-bench: tinyproxy does not tunnel; its columns will \
read n/a"
		stop_pid "$TP_PID"
		TP_PID=""
		return 1
	fi
}

# ---------------------------------------------------------------- helpers

kv() {	# kv KEY LINE: the value of KEY=value in LINE
	printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -1
}

calc() { awk "BEGIN { printf \"%s\", $1 }" 2>/dev/null; }

rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
nfds() { ls "/proc/$1/fd" | wc -l; }
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# ---------------------------------------------------------------- (a)

start_engine
start_tinyproxy || true

declare -A P50 P99 MEAN LFAIL
LAT_ROUNDS=${LAT_ROUNDS:-10}
say "== (a) connection setup: $N_LAT sequential connections per path, in \
$LAT_ROUNDS interleaved rounds"
# Interleaved rounds, so that a burst of other load on the machine hits
# every path alike; the samples are pooled per path.
lat_round() {	# lat_round NAME COUNT TARGET...
	local name=$1 cnt=$2 out f
	shift 2
	out=$("$PB" latency "$@" "$cnt" "$T/lat.$name" 2>>"$T/latency.err") ||
	    true
	f=$(kv fail "$out")
	LFAIL[$name]=$(( ${LFAIL[$name]:-0} + ${f:-$cnt} ))
}
lat_stats() {	# lat_stats NAME: pooled p50, p99 (nearest rank), mean
	local name=$1 st
	[ -s "$T/lat.$name" ] || return 0
	st=$(sort -n "$T/lat.$name" | awk '{ v[NR] = $1; s += $1 }
	    END { i50 = int((NR * 50 + 99) / 100); i99 = int((NR * 99 + 99) / 100)
	    printf "%d %.1f %.1f %.1f", NR, v[i50], v[i99], s / NR }')
	set -- $st
	P50[$name]=$2
	P99[$name]=$3
	MEAN[$name]=$4
	say "   $name: ok=$1 fail=${LFAIL[$name]:-0} p50_us=$2 p99_us=$3 mean_us=$4"
}
r=0
while [ "$r" -lt "$LAT_ROUNDS" ]; do
	cnt=$(( N_LAT / LAT_ROUNDS + (r < N_LAT % LAT_ROUNDS ? 1 : 0) ))
	lat_round direct "$cnt" direct "$ORIGIN_IP:443"
	lat_round spacebox "$cnt" proxy "127.0.0.1:$SB_PORT" "$ORIGIN_NAME:443"
	if [ -n "$TP_PID" ]; then
		lat_round tinyproxy "$cnt" proxy "127.0.0.1:$TP_PORT" \
		    "$ORIGIN_NAME:443"
	fi
	r=$((r + 1))
done
for p in direct spacebox tinyproxy; do
	lat_stats "$p"
done

# ---------------------------------------------------------------- (b)

declare -A MIBPS CPUS TCPUS
say "== (b) throughput: $BYTES bytes through one tunnel, client sends, \
origin sinks (best of $TP_REPS)"
HZ=$(getconf CLK_TCK)
tput() {	# tput NAME PID TARGET...
	local name=$1 pid=$2 out m c0=0 c1 o0 o1 cpu total
	shift 2
	[ -n "$pid" ] && c0=$(cpu_ticks "$pid")
	o0=$(cpu_ticks "$ORIGIN_PID")
	out=$("$PB" throughput "$@" "$BYTES" 2>>"$T/throughput.err") ||
	    { say "   $name: failed: $(tail -1 "$T/throughput.err")"; return; }
	o1=$(cpu_ticks "$ORIGIN_PID")
	cpu=0
	if [ -n "$pid" ]; then
		c1=$(cpu_ticks "$pid")
		cpu=$(calc "($c1 - $c0) / $HZ")
	fi
	# Client + proxy + origin: what the path costs the machine.
	total=$(calc "$(kv client_cpu_s "$out") + $cpu + ($o1 - $o0) / $HZ")
	m=$(kv mibps "$out")
	say "   $name: $out proxy_cpu_s=$cpu total_cpu_s=$total"
	if [ -z "${MIBPS[$name]:-}" ] ||
	    awk "BEGIN { exit !($m > ${MIBPS[$name]}) }"; then
		MIBPS[$name]=$m
		CPUS[$name]=""
		[ -z "$pid" ] || CPUS[$name]=$cpu
		TCPUS[$name]=$total
	fi
}
for _ in $(seq 1 "$TP_REPS"); do
	tput direct "" direct "$ORIGIN_IP:443"
	tput spacebox "$ENGINE_PID" proxy "127.0.0.1:$SB_PORT" \
	    "$ORIGIN_NAME:443"
	if [ -n "$TP_PID" ]; then
		tput tinyproxy "$TP_PID" proxy "127.0.0.1:$TP_PORT" \
		    "$ORIGIN_NAME:443"
	fi
done

# ---------------------------------------------------------------- (c)

# Fresh processes, so the baseline is not the heap left by (b).
stop_pid "$ENGINE_PID"
[ -n "$TP_PID" ] && stop_pid "$TP_PID"
TP_PID=""

declare -A HOLD_OK HOLD_N RSS0 RSS1 FD0 FD1 CHECK HOLD_SECS HOLD_ERR OFD

# hold NAME PID N PROXYPORT: warm up, measure, hold N idle tunnels,
# measure again, check them all with one echo, release.
hold() {
	local name=$1 pid=$2 n=$3 port=$4 line="" ofd0
	HOLD_N[$name]=$n
	# Warm-up: the proxy's resolver threads, allocator arenas, first
	# pages; then let everything close.
	( "$PB" hold proxy "127.0.0.1:$port" "$ORIGIN_NAME:443" 100 50 \
	    < <(sleep 3; echo quit) >/dev/null 2>>"$T/hold.err" ) || true
	sleep 1
	RSS0[$name]=$(rss_kb "$pid")
	FD0[$name]=$(nfds "$pid")
	ofd0=$(nfds "$ORIGIN_PID")
	coproc HOLD { exec "$PB" hold proxy "127.0.0.1:$port" \
	    "$ORIGIN_NAME:443" "$n" "$HOLD_CONC" 2>>"$T/hold.err"; }
	COPROC_PID=$HOLD_PID
	read -r -t 150 -u "${HOLD[0]}" line || true
	say "   $name: $line"
	HOLD_OK[$name]=$(kv ok "$line")
	HOLD_SECS[$name]=$(kv secs "$line")
	HOLD_ERR[$name]=$(printf '%s' "$line" | sed -n 's/.*first_error=//p')
	sleep 1
	if kill -0 "$pid" 2>/dev/null; then
		RSS1[$name]=$(rss_kb "$pid")
		FD1[$name]=$(nfds "$pid")
	else
		RSS1[$name]=""
		FD1[$name]=""
		HOLD_ERR[$name]="${HOLD_ERR[$name]} (the proxy died)"
	fi
	OFD[$name]=$(( $(nfds "$ORIGIN_PID") - ofd0 ))
	echo check >&"${HOLD[1]}" 2>/dev/null || true
	line=""
	read -r -t 30 -u "${HOLD[0]}" line || true
	CHECK[$name]=$line
	say "   $name: after holding: $line (origin holds ${OFD[$name]})"
	echo quit >&"${HOLD[1]}" 2>/dev/null || true
	wait "$COPROC_PID" 2>/dev/null || true
	COPROC_PID=""
}

say "== (c) idle tunnels"
start_engine
hold spacebox "$ENGINE_PID" "$N_IDLE" "$SB_PORT"
stop_pid "$ENGINE_PID"
if start_tinyproxy; then
	hold tinyproxy "$TP_PID" "$N_TINY" "$TP_PORT"
	# Could not hold them all: measure again at a size it can.
	if [ "${HOLD_OK[tinyproxy]:-0}" -lt "$N_TINY" ]; then
		TP_FIRST="tried $N_TINY, held ${HOLD_OK[tinyproxy]:-0} \
(${HOLD_ERR[tinyproxy]:-?})"
		stop_pid "$TP_PID"
		if start_tinyproxy; then
			hold tinyproxy "$TP_PID" 500 "$TP_PORT"
			HOLD_ERR[tinyproxy]="$TP_FIRST; measured again at 500"
		fi
	fi
	stop_pid "$TP_PID"
fi

# ---------------------------------------------------------------- report

na() { [ -n "$1" ] && printf '%s' "$1" || printf 'n/a'; }
ratio() { [ -n "$1" ] && [ -n "$2" ] && calc "sprintf(\"%.2fx\", $1 / $2)" || printf 'n/a'; }

echo
echo "spacebox allowlist proxy benchmark"
echo "  $(nproc) CPUs, $(uname -sr), spaceboxd ${BUILD_TYPE:-?} build \
($SPACEBOXD), $TP_VERSION"
echo "  origin: $ORIGIN_IP:443 in network namespace $NS (veth); proxies \
on 127.0.0.1; $ORIGIN_NAME from a private /etc/hosts"
echo "  load average at start: $LOAD; TIME_WAIT towards the origin at \
start: $TW"
echo
echo "(a) connection setup, $N_LAT sequential per path ($LAT_ROUNDS interleaved rounds): connect (+ CONNECT) + 1-byte echo round trip, microseconds"
printf '  %-10s %9s %9s %9s %8s %12s %12s %12s\n' path p50 p99 mean fails \
    "p50 vs dir" "p50 added" "p99 vs dir"
for p in direct spacebox tinyproxy; do
	[ -n "${P50[$p]:-}" ] || { printf '  %-10s %9s\n' "$p" n/a; continue; }
	printf '  %-10s %9s %9s %9s %8s %12s %12s %12s\n' "$p" "${P50[$p]}" \
	    "${P99[$p]}" "${MEAN[$p]}" "${LFAIL[$p]}" \
	    "$(ratio "${P50[$p]}" "${P50[direct]:-}")" \
	    "$(calc "sprintf(\"%+.1f\", ${P50[$p]} - ${P50[direct]:-0})")" \
	    "$(ratio "${P99[$p]}" "${P99[direct]:-}")"
done
echo
echo "(b) $(calc "$BYTES / 1048576") MiB through one tunnel, client sends, origin sinks and acknowledges (best of $TP_REPS)"
printf '  %-10s %10s %10s %13s %12s %12s\n' path MiB/s "vs direct" \
    "vs tinyproxy" "proxy CPU s" "all CPU s"
for p in direct spacebox tinyproxy; do
	[ -n "${MIBPS[$p]:-}" ] || { printf '  %-10s %10s\n' "$p" n/a; continue; }
	printf '  %-10s %10s %10s %13s %12s %12s\n' "$p" "${MIBPS[$p]}" \
	    "$(ratio "${MIBPS[$p]}" "${MIBPS[direct]:-}")" \
	    "$(ratio "${MIBPS[$p]}" "${MIBPS[tinyproxy]:-}")" \
	    "$(na "${CPUS[$p]:-}")" "$(na "${TCPUS[$p]:-}")"
done
echo "  (all CPU s: client + proxy + origin CPU time for the transfer; \
$(nproc) CPUs on this machine)"
echo
echo "(c) concurrent idle tunnels (fresh proxy process, after a 100-tunnel warm-up)"
printf '  %-10s %8s %7s %11s %11s %12s %8s %8s %10s %7s\n' path tunnels \
    "secs" "RSS0 KiB" "RSS1 KiB" "KiB/tunnel" "fds0" "fds1" "fds/tunnel" \
    "origin"
for p in spacebox tinyproxy; do
	[ -n "${HOLD_OK[$p]:-}" ] && [ -n "${RSS1[$p]:-}" ] ||
	    { printf '  %-10s %8s\n' "$p" n/a; continue; }
	k=${HOLD_OK[$p]}
	printf '  %-10s %8s %7s %11s %11s %12s %8s %8s %10s %7s\n' "$p" \
	    "$k/${HOLD_N[$p]}" "${HOLD_SECS[$p]}" "${RSS0[$p]}" "${RSS1[$p]}" \
	    "$(calc "sprintf(\"%.2f\", $k > 0 ? (${RSS1[$p]} - ${RSS0[$p]}) / $k : 0)")" \
	    "${FD0[$p]}" "${FD1[$p]}" \
	    "$(calc "sprintf(\"%.2f\", $k > 0 ? (${FD1[$p]} - ${FD0[$p]}) / $k : 0)")" \
	    "${OFD[$p]}"
	echo "    check after holding: ${CHECK[$p]:-none}${HOLD_ERR[$p]:+; ${HOLD_ERR[$p]}}"
done
[ -n "$IDLE_NOTE" ] && echo "  note: $IDLE_NOTE"
echo

# Targets from the issue (informational).
verdict() {	# verdict OK-EXPR TEXT
	local v=MISS
	if [ -z "$1" ]; then
		v="N/A "
	elif awk "BEGIN { exit !($1) }"; then
		v=PASS
	fi
	printf '  %s  %s\n' "$v" "$2"
}
echo "targets"
S=${MIBPS[spacebox]:-}
D=${MIBPS[direct]:-}
TP=${MIBPS[tinyproxy]:-}
verdict "${S:+${D:+$S >= 0.9 * $D}}" \
    "tunnel throughput >= 0.9x direct: $(ratio "$S" "$D")"
verdict "${S:+${TP:+$S >= 1.5 * $TP}}" \
    "tunnel throughput >= 1.5x tinyproxy: $(ratio "$S" "$TP")"
S=${P50[spacebox]:-}
D=${P50[direct]:-}
verdict "${S:+${D:+$S <= 1.6 * $D}}" \
    "connection setup p50 <= 1.6x direct: $(ratio "$S" "$D")"
if [ -n "${RSS1[spacebox]:-}" ] && [ "${HOLD_OK[spacebox]:-0}" -gt 0 ]; then
	PER=$(calc "(${RSS1[spacebox]} - ${RSS0[spacebox]}) / ${HOLD_OK[spacebox]}")
	verdict "$PER <= 16 && ${HOLD_OK[spacebox]} == ${HOLD_N[spacebox]}" \
	    "<= 16 KiB per idle tunnel: $(calc "sprintf(\"%.2f\", $PER)") KiB \
(${HOLD_OK[spacebox]}/${HOLD_N[spacebox]} tunnels held)"
else
	verdict "" "<= 16 KiB per idle tunnel: not measured"
fi
exit 0
