# Shared set-up for regress tests: a private engine per test on a
# temporary state root, workspace and socket, and small assertions.
# Each test script sources this, calls sb_setup, and ends with sb_done.

set -eu

SB_SRC=${SB_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
SB_BIN=${SB_BIN:-$SB_SRC/build}
SPACEBOX=$SB_BIN/spacebox
SPACEBOXD=$SB_BIN/spaceboxd
sb_pass=0
sb_fail=0

sb_setup() {
	# Not under /tmp: a sandboxed app gets a private, empty /tmp, so a fake
	# HOME there would vanish and escape tests would pass for nothing.
	T=$(mktemp -d /var/tmp/sbreg.XXXXXX)
	chmod 755 "$T"
	export HOME=$T/home SENCLAW_HOME=$T/home/.senclaw
	export SPACEBOX_SOCKET=$T/run/sb.sock
	unset XDG_RUNTIME_DIR
	WS=$T/ws
	mkdir -p "$HOME" "$WS/space-apps"
	trap sb_cleanup EXIT
}

sb_cleanup() {
	local pid i f
	# A failed test shows what its engines said, before it is all gone.
	if [ "${sb_fail:-0}" -gt 0 ]; then
		for f in "$T"/*.log; do
			[ -s "$f" ] || continue
			echo "--- last lines of $(basename "$f"):"
			tail -n 40 "$f" | sed 's/^/    /'
		done
	fi
	# Engines found by their socket (sb_engine's and any the CLI
	# started), stopped once, waited for, then killed.
	pids="$(cat "$T"/engine.pid 2>/dev/null || true)"
	pids="$pids $(pgrep -f -- "--socket $SPACEBOX_SOCKET" 2>/dev/null || true)"
	for pid in $pids; do
		kill "$pid" 2>/dev/null || true
	done
	for i in $(seq 1 50); do
		alive=0
		for pid in $pids; do
			kill -0 "$pid" 2>/dev/null && alive=1
		done
		[ "$alive" = 0 ] && break
		sleep 0.1
	done
	for pid in $pids; do
		kill -9 "$pid" 2>/dev/null || true
	done
	rm -rf "$T"
}

# sb_app ID JSON: install an app with that manifest into the workspace.
sb_app() {
	mkdir -p "$WS/space-apps/$1"
	printf '%s\n' "$2" > "$WS/space-apps/$1/senclaw-manifest.json"
}

# sb_engine [args]: start a private engine in the foreground (background
# job) and wait until its socket answers.
sb_engine() {
	"$SPACEBOXD" -f --socket "$SPACEBOX_SOCKET" --workspace "$WS" --api-port 0 "$@" \
	    2>>"$T/engine.log" &
	echo $! >> "$T/engine.pid"
	local i
	for i in $(seq 1 100); do
		if curl -s --max-time 2 --unix-socket "$SPACEBOX_SOCKET" \
		    http://sb/api/space/apps >/dev/null 2>&1; then
			return 0
		fi
		sleep 0.05
	done
	echo "engine did not start:"; cat "$T/engine.log"
	return 1
}

# sb_api METHOD PATH [BODY]: prints the body, sets CODE.
sb_api() {
	local out
	if [ $# -ge 3 ]; then
		out=$(curl -s --max-time 10 --unix-socket "$SPACEBOX_SOCKET" \
		    -X "$1" -H 'Content-Type: application/json' \
		    --data-binary "$3" -w '\n%{http_code}' "http://sb$2")
	else
		out=$(curl -s --max-time 10 --unix-socket "$SPACEBOX_SOCKET" \
		    -X "$1" -w '\n%{http_code}' "http://sb$2")
	fi
	CODE=${out##*$'\n'}
	BODY=${out%$'\n'*}
}

ok() {
	sb_pass=$((sb_pass + 1))
	echo "ok - $*"
}

not_ok() {
	sb_fail=$((sb_fail + 1))
	echo "not ok - $*"
}

# check DESC COMMAND...: runs the command, ok if it succeeds.
check() {
	local desc=$1
	shift
	if "$@"; then ok "$desc"; else not_ok "$desc"; fi
}

# expect_eq DESC GOT WANT
expect_eq() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		not_ok "$1"
		echo "    got:  $2"
		echo "    want: $3"
	fi
}

# expect_match DESC TEXT PATTERN (grep -E)
expect_match() {
	if printf '%s\n' "$2" | grep -Eq -- "$3"; then
		ok "$1"
	else
		not_ok "$1"
		echo "    text:    $2"
		echo "    pattern: $3"
	fi
}

sb_done() {
	echo "$sb_pass passed, $sb_fail failed"
	[ "$sb_fail" -eq 0 ]
}

# jget FILTER: a jq query on standard input, compact, strings raw.
jget() {
	jq -c -r "$1"
}
