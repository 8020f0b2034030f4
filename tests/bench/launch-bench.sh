#!/bin/bash
# launch-bench.sh: what the sandbox costs an app, measured on demand.
#
#	sudo tests/bench/launch-bench.sh
#
# (1) launch overhead: the exact argv `spacebox plan ID --json` gives for
#     an app whose start is /bin/true in network mode "all" (bwrap +
#     spacebox-shim + /bin/sh -c), run N times, against a bare bwrap with
#     the same namespace and mount flags running /bin/true directly; read
#     modes strict and open.  Runs are interleaved.  The `spacebox plan`
#     round trip (client start + engine builds the plan) is shown apart.
# (2) requests/s through the port forward: a tiny HTTP server (C, epoll,
#     keep-alive, fixed 200) started by the engine as an app in network
#     mode "off" (so reached through the shim's inbound relay), against the
#     same binary run directly on the host; wrk -t2 -c32 and -t1 -c1.
#
# Everything runs on a private engine, socket and state root in a
# temporary tree under /var/tmp (a sandboxed app gets a private /tmp);
# traffic stays on 127.0.0.1.  The tree, the engine and its apps are
# removed on exit.  Exit 0 when the benchmark ran, targets met or not;
# non-zero when it could not run.
#
# Knobs (environment): N=200 N_PLAN=50 WRK_DURATION=5s REPS=2
# SB_BENCH_BUILD=<src>/build-bench KEEP_TMP=1 BENCH_WATCHDOG=300

set -eu
umask 022

BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$BENCH_DIR/../.." && pwd)
BUILD=${SB_BENCH_BUILD:-$SRC/build-bench}
N=${N:-200}
N_PLAN=${N_PLAN:-50}
WRK_DURATION=${WRK_DURATION:-5s}
REPS=${REPS:-2}

say() { printf '%s\n' "$*" >&2; }
fail() { say "launch-bench: $*"; exit 2; }

[ "$(id -u)" -eq 0 ] || fail "run as root (sudo $0)"
for c in cc cmake bwrap; do
	command -v "$c" >/dev/null || fail "$c is needed"
done

T=$(mktemp -d /var/tmp/sblaunch.XXXXXX)
chmod 755 "$T"
SOCK=$T/run/s.sock
ENGINE_PID=""
DIRECT_PID=""
WATCHDOG_PID=""
APPS_STARTED=""

cleanup() {
	local rc=$? a
	trap - EXIT INT TERM
	set +e
	for a in $APPS_STARTED; do
		timeout 10 "$BUILD/spacebox" --no-start --socket "$SOCK" \
		    stop "$a" >/dev/null 2>&1
	done
	[ -n "$DIRECT_PID" ] && kill "$DIRECT_PID" 2>/dev/null
	if [ -n "$ENGINE_PID" ]; then
		kill "$ENGINE_PID" 2>/dev/null
		wait "$ENGINE_PID" 2>/dev/null
	fi
	[ -n "$DIRECT_PID" ] && wait "$DIRECT_PID" 2>/dev/null
	[ -n "$WATCHDOG_PID" ] && kill "$WATCHDOG_PID" 2>/dev/null
	if [ "${KEEP_TMP:-0}" = 1 ]; then
		say "launch-bench: logs kept in $T"
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
  sleep "${BENCH_WATCHDOG:-300}" & sp=$!
  wait $sp && { say "launch-bench: watchdog: running too long, stopping";
  kill -TERM $$; } ) 2>/dev/null &
WATCHDOG_PID=$!

# ---------------------------------------------------------------- tools

need_pkg() {	# need_pkg COMMAND PACKAGE
	command -v "$1" >/dev/null && return 0
	say "== installing $2"
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y -q "$2" >>"$T/apt.log" 2>&1 ||
	    { apt-get update -q >>"$T/apt.log" 2>&1 &&
	    apt-get install -y -q "$2" >>"$T/apt.log" 2>&1; } || true
	command -v "$1" >/dev/null || { tail -5 "$T/apt.log" >&2;
	    fail "$1 is needed and $2 could not be installed"; }
}
need_pkg jq jq
need_pkg wrk wrk

say "== building"
BUILD_NOTE="rebuilt from the working tree"
if [ ! -f "$BUILD/CMakeCache.txt" ]; then
	cmake -S "$SRC" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release \
	    >"$T/build.log" 2>&1 || { cat "$T/build.log" >&2;
	    fail "cmake configure failed"; }
fi
# Only the three binaries: an up-to-date tree makes this a no-op.
if ! cmake --build "$BUILD" -j"$(nproc)" --target spaceboxd spacebox \
    spacebox-shim >>"$T/build.log" 2>&1; then
	tail -20 "$T/build.log" >&2
	say "launch-bench: WARNING: rebuild failed, using the binaries \
already in $BUILD"
	BUILD_NOTE="rebuild FAILED: older binaries measured"
fi
for b in spaceboxd spacebox spacebox-shim; do
	[ -x "$BUILD/$b" ] || fail "no $b in $BUILD"
done
BUILD_TYPE=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' \
    "$BUILD/CMakeCache.txt" 2>/dev/null || true)
SB="$BUILD/spacebox --no-start --socket $SOCK"

# The launch timer: runs each command (argv and env from NUL-separated
# files) N times, interleaved, fd 4 on /dev/null (bwrap --info-fd 4),
# and prints per command: median p90 min mean (wall, µs), median CPU of
# the child and everything it waited for (µs), failures.
cat >"$T/lbench.c" <<'EOF'
#include <sys/resource.h>
#include <sys/wait.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
extern char **environ;
static pid_t cur;
static void on_alarm(int s) { (void)s; if (cur > 0) kill(cur, SIGKILL); }
static char **load(const char *path) {
	FILE *f = fopen(path, "r"); char *buf = NULL, **v; size_t len = 0, n = 0, i, k = 0;
	if (f == NULL) { perror(path); exit(2); }
	if (getdelim(&buf, &len, EOF, f) < 0) { fprintf(stderr, "%s: empty\n", path); exit(2); }
	len = (size_t)ftell(f); fclose(f);
	for (i = 0; i < len; i++) n += buf[i] == '\0';
	v = calloc(n + 1, sizeof *v);
	for (i = 0; i < len; i += strlen(buf + i) + 1) v[k++] = buf + i;
	return v;
}
static int cmp(const void *a, const void *b) {
	double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y);
}
int main(int argc, char **argv) {
	int n, k, r, j, c, st; char **env; struct sigaction sa;
	if (argc < 4) { fprintf(stderr, "usage: lbench N ENVFILE|- ARGVFILE...\n"); return 2; }
	n = atoi(argv[1]); env = strcmp(argv[2], "-") ? load(argv[2]) : environ; k = argc - 3;
	char ***cmds = calloc(k, sizeof *cmds); double *w = calloc((size_t)n * k, sizeof *w),
	    *cpu = calloc((size_t)n * k, sizeof *cpu); int *fails = calloc(k, sizeof *fails);
	for (c = 0; c < k; c++) cmds[c] = load(argv[3 + c]);
	memset(&sa, 0, sizeof sa); sa.sa_handler = on_alarm; sigaction(SIGALRM, &sa, NULL);
	posix_spawn_file_actions_t fa; posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 4, "/dev/null", O_WRONLY, 0);
	for (r = -2; r < n; r++)	/* two warm-up rounds */
		for (j = 0; j < k; j++) {
			struct timespec a, b; struct rusage ru;
			c = (r & 1) ? k - 1 - j : j;
			clock_gettime(CLOCK_MONOTONIC, &a);
			if (posix_spawn(&cur, cmds[c][0], &fa, NULL, cmds[c], env) != 0) { perror(cmds[c][0]); return 2; }
			alarm(10);
			while (wait4(cur, &st, 0, &ru) == -1 && errno == EINTR) ;
			alarm(0); cur = 0;
			clock_gettime(CLOCK_MONOTONIC, &b);
			if (r < 0) continue;
			fails[c] += !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
			w[c * n + r] = (b.tv_sec - a.tv_sec) * 1e6 + (b.tv_nsec - a.tv_nsec) / 1e3;
			cpu[c * n + r] = ru.ru_utime.tv_sec * 1e6 + ru.ru_utime.tv_usec + ru.ru_stime.tv_sec * 1e6 + ru.ru_stime.tv_usec;
		}
	for (c = 0; c < k; c++) {
		double *x = w + c * n, *y = cpu + c * n, sum = 0; int i;
		for (i = 0; i < n; i++) sum += x[i];
		qsort(x, n, sizeof *x, cmp); qsort(y, n, sizeof *y, cmp);
		printf("%.0f %.0f %.0f %.0f %.0f %d\n", x[n / 2], x[(n * 9) / 10], x[0], sum / n, y[n / 2], fails[c]);
	}
	return 0;
}
EOF
cc -O2 -Wall -o "$T/lbench" "$T/lbench.c" || fail "cannot build the launch timer"

# The server: single-threaded epoll, keep-alive, one fixed 200 per request
# (it counts "\r\n\r\n"; wrk sends no bodies).  Listens on 127.0.0.1:$PORT
# (0: any), writes the port it got to $1 when given.
cat >"$T/tinyhttpd.c" <<'EOF'
#define _GNU_SOURCE
#include <sys/epoll.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static const char R[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain\r\n"
    "Connection: keep-alive\r\n\r\nok";
static unsigned char st[65536];		/* per fd: how much of \r\n\r\n matched */
int main(int argc, char **argv) {
	struct sockaddr_in sin = { .sin_family = AF_INET }; socklen_t sl = sizeof sin;
	struct epoll_event ev, evs[256]; static char in[16384], out[64 * sizeof R];
	int ls, ep, one = 1, n, i, fd;
	sin.sin_port = htons(getenv("PORT") ? atoi(getenv("PORT")) : 0);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ls = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (bind(ls, (struct sockaddr *)&sin, sizeof sin) || listen(ls, 1024)) { perror("listen"); return 1; }
	getsockname(ls, (struct sockaddr *)&sin, &sl);
	if (argc > 1) { FILE *f = fopen(argv[1], "w"); fprintf(f, "%d\n", ntohs(sin.sin_port)); fclose(f); }
	ep = epoll_create1(0); ev.events = EPOLLIN; ev.data.fd = ls; epoll_ctl(ep, EPOLL_CTL_ADD, ls, &ev);
	for (;;) {
		n = epoll_wait(ep, evs, 256, -1);
		for (i = 0; i < n; i++) {
			if ((fd = evs[i].data.fd) == ls) {
				while ((fd = accept4(ls, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
					if (fd >= 65536) { close(fd); continue; }
					setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
					st[fd] = 0; ev.events = EPOLLIN; ev.data.fd = fd; epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
				}
				continue;
			}
			ssize_t r = read(fd, in, sizeof in), j; size_t o = 0;
			if (r <= 0) { close(fd); continue; }
			for (j = 0; j < r; j++) {
				st[fd] = in[j] == "\r\n\r\n"[st[fd]] ? st[fd] + 1 : in[j] == '\r';
				if (st[fd] == 4) { st[fd] = 0; if (o + sizeof R - 1 <= sizeof out) { memcpy(out + o, R, sizeof R - 1); o += sizeof R - 1; } }
			}
			if (o > 0 && write(fd, out, o) < 0) close(fd);
		}
	}
}
EOF
cc -O2 -Wall -o "$T/tinyhttpd" "$T/tinyhttpd.c" || fail "cannot build the HTTP server"

# ---------------------------------------------------------------- engine

say "== engine and apps in $T"
mkdir -p "$T/home" "$T/ws/space-apps/bench" "$T/ws/space-apps/srv"
mkdir -m 700 "$T/run"
printf '%s\n' '{"id":"bench","runtime":{"kind":"server","start":"/bin/true"}}' \
    >"$T/ws/space-apps/bench/senclaw-manifest.json"
# The server lives in its install dir, which strict mode shows.  A
# session app (a background one would be started, unsandboxed, with the
# engine), idle-stopped only after an hour.
cp "$T/tinyhttpd" "$T/ws/space-apps/srv/tinyhttpd"
printf '{"id":"srv","runtime":{"kind":"server","idleTimeoutSecs":3600,"start":"%s"}}\n' \
    "$T/ws/space-apps/srv/tinyhttpd" >"$T/ws/space-apps/srv/senclaw-manifest.json"

export HOME=$T/home SENCLAW_HOME=$T/home/.senclaw
unset XDG_RUNTIME_DIR SPACEBOX_SOCKET
"$BUILD/spaceboxd" -f --socket "$SOCK" --workspace "$T/ws" --api-port 0 \
    2>"$T/engine.log" &
ENGINE_PID=$!
for _ in $(seq 1 100); do
	$SB apps >/dev/null 2>&1 && break
	sleep 0.05
done
$SB apps >/dev/null 2>&1 || { cat "$T/engine.log" >&2;
    fail "the engine did not answer on $SOCK"; }

# ---------------------------------------------------------------- (1)

# launch_mode MODE: plan, argv files, timings; sets L_<MODE>_* variables.
declare -A RES
launch_mode() {
	local mode=$1 i shim=-1 nargs
	local -a A E
	$SB sandbox set bench --enabled on --read-mode "$mode" --network all \
	    >/dev/null || fail "sandbox set bench ($mode) refused"
	$SB plan bench --json >"$T/plan-$mode.json" ||
	    fail "spacebox plan bench failed"
	jq -e '.isolation == "bubblewrap" and (.networkNamespace | not)' \
	    "$T/plan-$mode.json" >/dev/null || { cat "$T/plan-$mode.json" >&2;
	    fail "the plan is not a bubblewrap plan in the host's network"; }
	jq -j '.argv[] | (., "\u0000")' "$T/plan-$mode.json" >"$T/argv-$mode"
	jq -j '.env[] | (., "\u0000")' "$T/plan-$mode.json" >"$T/env-$mode"
	mapfile -d '' A <"$T/argv-$mode"
	nargs=${#A[@]}
	[ "${A[nargs - 1]}" = /bin/true ] ||
	    fail "the plan's argv does not end with the start command"
	# The shim as the command (the last time its path is named).
	for ((i = 0; i < nargs; i++)); do
		[ "${A[i]##*/}" = spacebox-shim ] && shim=$i
	done
	[ "$shim" -gt 0 ] || fail "no spacebox-shim in the plan's argv"
	# The engine creates the app's own folders at start; the plan only
	# names them.  bwrap needs every bind source to exist.
	for ((i = 0; i < shim; i++)); do
		case ${A[i]} in
		--bind) mkdir -p "${A[i + 1]}" ;;
		esac
	done
	printf '%s\0' "${A[@]:0:shim}" -- /bin/true >"$T/bare-$mode"
	printf '%s\0' "${A[@]:0:shim}" -- /bin/sh -c /bin/true >"$T/sh-$mode"
	# One checked run each, with its error shown, before timing.
	mapfile -d '' E <"$T/env-$mode"
	for v in argv bare sh; do
		mapfile -d '' A <"$T/$v-$mode"
		env -i "${E[@]}" "${A[@]}" 4>/dev/null </dev/null \
		    >"$T/check.log" 2>&1 || { cat "$T/check.log" >&2;
		    fail "the $v argv ($mode) does not run"; }
	done
	RES[$mode.nargs]=$nargs
	RES[$mode.mounts]=$(grep -zcE '^--(ro-bind|bind|tmpfs|dev|proc|symlink|dir)$' \
	    "$T/argv-$mode" || true)
	say "== (1) launch, read mode $mode: $N runs of each, interleaved"
	"$T/lbench" "$N" "$T/env-$mode" "$T/argv-$mode" "$T/sh-$mode" \
	    "$T/bare-$mode" >"$T/lbench-$mode.out" || fail "launch timer failed"
	RES[$mode.argv]=$(sed -n 1p "$T/lbench-$mode.out")
	RES[$mode.sh]=$(sed -n 2p "$T/lbench-$mode.out")
	RES[$mode.bare]=$(sed -n 3p "$T/lbench-$mode.out")
}

LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
launch_mode strict
launch_mode open

say "== (1) plan round trip: $N_PLAN runs of spacebox plan bench --json"
printf '%s\0' "$BUILD/spacebox" --no-start --socket "$SOCK" plan bench --json \
    >"$T/argv-plan"
"$T/lbench" "$N_PLAN" - "$T/argv-plan" >"$T/lbench-plan.out" ||
    fail "launch timer failed"
RES[plan]=$(cat "$T/lbench-plan.out")

# ---------------------------------------------------------------- (2)

# Sum of utime+stime (clock ticks) of a process.
cpu_ticks() {
	local s
	s=$(cat "/proc/$1/stat" 2>/dev/null) || { echo 0; return; }
	s=${s##*) }
	set -- $s
	echo $(( ${12} + ${13} ))
}

# Children of a pid, from /proc (procps may be missing).
pid_children() {
	local want=$1 f s
	for f in /proc/[0-9]*/stat; do
		s=$(cat "$f" 2>/dev/null) || continue
		s=${s##*) }
		set -- $s
		if [ "$2" = "$want" ]; then
			f=${f#/proc/}
			echo "${f%/stat}"
		fi
	done
	return 0
}

# find_desc PID NAME: the first process named NAME under PID (breadth
# first), or nothing.
find_desc() {
	local name=$2 p c
	local -a q=("$1")
	while [ ${#q[@]} -gt 0 ]; do
		p=${q[0]}
		q=("${q[@]:1}")
		if [ "$(cat "/proc/$p/comm" 2>/dev/null)" = "$name" ]; then
			echo "$p"
			return 0
		fi
		for c in $(pid_children "$p"); do
			q+=("$c")
		done
	done
	return 0
}

say "== (2) HTTP server as app srv (network off) and on the host"
$SB sandbox set srv --enabled on --read-mode strict --network off \
    >/dev/null || fail "sandbox set srv refused"
APPS_STARTED="srv"
$SB start srv >"$T/start-srv.log" 2>&1 || { cat "$T/start-srv.log" >&2;
    tail -20 "$T/engine.log" >&2; fail "the app srv did not start"; }
$SB --json status srv >"$T/status-srv.json"
SPORT=$(jq -r '.process.port' "$T/status-srv.json")
SB_PID=$(jq -r '.process.pid' "$T/status-srv.json")
jq -e '.process.isolation == "bubblewrap" and .process.networkNamespace' \
    "$T/status-srv.json" >/dev/null || { cat "$T/status-srv.json" >&2;
    fail "srv does not run in bubblewrap with its own network namespace"; }
[ "$SPORT" -gt 0 ] 2>/dev/null || fail "no port for srv"

PORT=0 "$T/tinyhttpd" "$T/direct.port" >/dev/null 2>&1 &
DIRECT_PID=$!
for _ in $(seq 1 100); do
	[ -s "$T/direct.port" ] && break
	sleep 0.02
done
DPORT=$(cat "$T/direct.port" 2>/dev/null) || fail "the direct server did not start"

SHIM_PID=$(find_desc "$SB_PID" spacebox-shim)
APP_PID=$(find_desc "$SB_PID" tinyhttpd)
[ -n "$SHIM_PID" ] && [ -n "$APP_PID" ] || say "launch-bench: WARNING: \
shim or server process not found under pid $SB_PID; CPU columns read 0"

# run_wrk NAME PORT ARGS...: one wrk run, its results in RES[NAME.*].
run_wrk() {
	local name=$1 port=$2 out c0s c0a c1s c1a
	shift 2
	c0s=$(cpu_ticks "${SHIM_PID:-0}")
	c0a=$(cpu_ticks "$([ "${name%%.*}" = direct ] && echo "$DIRECT_PID" ||
	    echo "${APP_PID:-0}")")
	out=$(wrk "$@" -d "$WRK_DURATION" --latency "http://127.0.0.1:$port/" 2>&1) ||
	    { say "$out"; fail "wrk failed against 127.0.0.1:$port"; }
	c1s=$(cpu_ticks "${SHIM_PID:-0}")
	c1a=$(cpu_ticks "$([ "${name%%.*}" = direct ] && echo "$DIRECT_PID" ||
	    echo "${APP_PID:-0}")")
	printf '%s\n' "== $name" "$out" >>"$T/wrk.log"
	local rps p50 p99 errs
	rps=$(printf '%s\n' "$out" | awk '/^Requests\/sec:/ {print $2}')
	p50=$(printf '%s\n' "$out" | awk '$1 == "50%" {print $2}')
	p99=$(printf '%s\n' "$out" | awk '$1 == "99%" {print $2}')
	errs=$(printf '%s\n' "$out" | grep -E 'Socket errors|Non-2xx' | tr -s ' ' |
	    paste -sd';' || true)
	# Keep the best run of the REPS.
	if [ -z "${RES[$name.rps]:-}" ] || awk -v a="$rps" -v b="${RES[$name.rps]}" \
	    'BEGIN { exit !(a > b) }'; then
		RES[$name.rps]=$rps
		RES[$name.p50]=$p50
		RES[$name.p99]=$p99
		RES[$name.cpu_shim]=$((c1s - c0s))
		RES[$name.cpu_app]=$((c1a - c0a))
	fi
	RES[$name.all]="${RES[$name.all]:-}${RES[$name.all]:+ }$rps"
	[ -n "$errs" ] && RES[$name.errs]="${RES[$name.errs]:-}$errs "
	return 0
}

# Warm both paths up (connections, page cache), then interleave.
wrk -t1 -c4 -d1s "http://127.0.0.1:$SPORT/" >/dev/null 2>&1 || true
wrk -t1 -c4 -d1s "http://127.0.0.1:$DPORT/" >/dev/null 2>&1 || true
for load in c32 c1; do
	case $load in
	c32) args="-t2 -c32" ;;
	c1) args="-t1 -c1" ;;
	esac
	for ((rep = 0; rep < REPS; rep++)); do
		say "== (2) wrk $args -d$WRK_DURATION, round $((rep + 1))/$REPS"
		if ((rep % 2 == 0)); then
			run_wrk "direct.$load" "$DPORT" $args
			run_wrk "sandbox.$load" "$SPORT" $args
		else
			run_wrk "sandbox.$load" "$SPORT" $args
			run_wrk "direct.$load" "$DPORT" $args
		fi
	done
done
LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)

# ---------------------------------------------------------------- report

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
ms() { awk -v u="$1" 'BEGIN { printf "%.2f", u / 1000 }'; }
verdict() {	# verdict VALUE OP LIMIT
	awk -v v="$1" -v l="$3" -v op="$2" 'BEGIN {
	    ok = (op == "<=") ? v <= l : v >= l; print ok ? "PASS" : "MISS" }'
}
HZ=$(getconf CLK_TCK)
cpu_s() { awk -v t="$1" -v hz="$HZ" 'BEGIN { printf "%.2f", t / hz }'; }

COMMIT=$(git -C "$SRC" rev-parse --short HEAD 2>/dev/null || echo unknown)
DIRTY=$(git -C "$SRC" status --porcelain -- engine tui 2>/dev/null |
    awk '{print $2}' | paste -sd' ' || true)

echo
echo "spacebox launch and port-forward benchmark"
echo "  commit $COMMIT${DIRTY:+ (modified: $DIRTY)}, build $BUILD (${BUILD_TYPE:-?}, $BUILD_NOTE)"
echo "  $(nproc) CPUs, kernel $(uname -r), $(bwrap --version), $(wrk -v 2>&1 | head -1 | awk '{print $1, $2}')"
echo "  load average at start $LOAD0, at end $LOAD1"
if awk -v l="${LOAD0%% *}" -v n="$(nproc)" 'BEGIN { exit !(l > n / 2) }'; then
	echo "  NOTE: the machine was busy when the run started (load ${LOAD0%% *} on $(nproc) CPUs): expect noise"
fi
echo
echo "(1) launch to exit of /bin/true, network all, N=$N each, interleaved (wall ms)"
printf '  %-7s %-34s %8s %8s %8s %9s %6s %6s\n' mode path median p90 min "cpu med" fails ratio
for mode in strict open; do
	set -- ${RES[$mode.bare]}
	bare_med=$1
	for v in argv sh bare; do
		set -- ${RES[$mode.$v]}
		case $v in
		argv) label="plan argv: bwrap+shim+sh -c" ;;
		sh) label="bwrap same flags, sh -c (no shim)" ;;
		bare) label="bwrap same flags (baseline)" ;;
		esac
		printf '  %-7s %-34s %8s %8s %8s %9s %6s %5sx\n' "$mode" "$label" \
		    "$(ms "$1")" "$(ms "$2")" "$(ms "$3")" "$(ms "$5")" "$6" \
		    "$(ratio "$1" "$bare_med")"
	done
	set -- ${RES[$mode.bare]}
	bare_min=$3
	set -- ${RES[$mode.argv]}
	r=$(ratio "$1" "$bare_med")
	printf '  %-7s launch overhead %s ms median (%sx baseline; target <= 1.30x: %s), %s ms min (%sx)\n' \
	    "$mode" "$(awk -v a="$1" -v b="$bare_med" 'BEGIN { printf "%+.2f", (a - b) / 1000 }')" \
	    "$r" "$(verdict "$r" "<=" 1.3)" \
	    "$(awk -v a="$3" -v b="$bare_min" 'BEGIN { printf "%+.2f", (a - b) / 1000 }')" \
	    "$(ratio "$3" "$bare_min")"
	printf '  %-7s the plan: %s argv words, %s mount operations\n' "$mode" \
	    "${RES[$mode.nargs]}" "${RES[$mode.mounts]}"
done
set -- ${RES[plan]}
printf '  plan round trip (spacebox plan bench --json, N=%s, information): median %s ms, p90 %s ms, fails %s\n' \
    "$N_PLAN" "$(ms "$1")" "$(ms "$2")" "$6"
echo
echo "(2) HTTP requests/s, tiny epoll server, direct vs app in network off (shim relay);"
echo "    wrk -d$WRK_DURATION, best of $REPS (all runs in brackets)"
printf '  %-14s %-9s %12s %9s %9s %18s %6s\n' load path "req/s" "p50" "p99" "cpu shim/app (s)" ratio
for load in c32 c1; do
	case $load in
	c32) args="-t2 -c32" ;;
	c1) args="-t1 -c1" ;;
	esac
	for p in direct sandbox; do
		k=$p.$load
		printf '  %-14s %-9s %12s %9s %9s %18s %5sx   [%s]\n' "$args" "$p" \
		    "${RES[$k.rps]}" "${RES[$k.p50]}" "${RES[$k.p99]}" \
		    "$([ $p = sandbox ] && echo "$(cpu_s "${RES[$k.cpu_shim]}")/" || echo "-/")$(cpu_s "${RES[$k.cpu_app]}")" \
		    "$(ratio "${RES[$k.rps]}" "${RES[direct.$load.rps]}")" "${RES[$k.all]}"
		[ -n "${RES[$k.errs]:-}" ] && echo "      wrk reported: ${RES[$k.errs]}"
	done
	r=$(ratio "${RES[sandbox.$load.rps]}" "${RES[direct.$load.rps]}")
	printf '  %-14s sandboxed/direct %sx (target >= 0.90x: %s)\n' "$args" "$r" \
	    "$(verdict "$r" ">=" 0.9)"
done
echo
echo "targets are informational: the exit status is 0 whenever the benchmark ran"
exit 0
