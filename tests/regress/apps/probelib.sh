# Helpers for the tests that run real apps (launch, escape, escape-user,
# supervise), sourced after lib.sh and sb_setup.  The app is probe.py,
# driven with curl from the host: it performs one action inside the
# sandbox per request and answers {"ok": bool, "error": ...}.

PB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PB_PROBE=$PB_DIR/probe.py
# The engine's PATH (and so the apps'): system folders only, so that a
# python3 from a developer's $HOME (pyenv shims) never decides a result.
PB_PATH=/usr/local/bin:/usr/bin:/bin
PB_SPAWNED=

# pb_app ID START [RUNTIME_EXTRA_JSON [TOP_EXTRA_JSON]]: install the probe
# (probe.py in the app dir) with that start command.
pb_app() {
	local id=$1 start=$2 rt=${3:-'{}'} top=${4:-'{}'}
	mkdir -p "$WS/space-apps/$id"
	cp "$PB_PROBE" "$WS/space-apps/$id/probe.py"
	jq -n -c --arg id "$id" --arg start "$start" --argjson rt "$rt" \
	    --argjson top "$top" \
	    '{id: $id, name: $id, runtime: ({kind: "server", start: $start,
	      port: 0, healthPath: "/health"} + $rt)} + $top' \
	    > "$WS/space-apps/$id/senclaw-manifest.json"
}

# pb_policy ID JSON: PUT the policy; 0 when the engine took it.
pb_policy() {
	sb_api PUT "/api/space/apps/$1/sandbox" "$2"
	if [ "$CODE" != 200 ]; then
		echo "    PUT sandbox $1: $CODE $BODY"
		return 1
	fi
}

# pb_runtime ID: GET runtime into RT; STATE.
pb_runtime() {
	sb_api GET "/api/space/apps/$1/runtime"
	RT=$BODY
	STATE=$(echo "$RT" | jget '.state' 2>/dev/null || echo "?")
}

# pb_wait ID STATE [TRIES]: poll (0.1 s) until the app is in STATE.
pb_wait() {
	local i
	for i in $(seq 1 "${3:-150}"); do
		pb_runtime "$1"
		[ "$STATE" = "$2" ] && return 0
		sleep 0.1
	done
	echo "    $1: state $STATE, wanted $2: $RT"
	return 1
}

# pb_start ID: start and wait until running; sets PORT and PID.
pb_start() {
	PORT= PID=
	sb_api POST "/api/space/apps/$1/start"
	if [ "$CODE" != 200 ]; then
		echo "    POST start $1: $CODE $BODY"
		return 1
	fi
	pb_wait "$1" running || { pb_log "$1"; return 1; }
	PORT=$(echo "$RT" | jget .process.port)
	PID=$(echo "$RT" | jget .process.pid)
}

# pb_restart ID: restart and wait until running again (a new pid).
pb_restart() {
	local old=$PID i
	sb_api POST "/api/space/apps/$1/restart"
	if [ "$CODE" != 200 ]; then
		echo "    POST restart $1: $CODE $BODY"
		return 1
	fi
	for i in $(seq 1 150); do
		pb_runtime "$1"
		if [ "$STATE" = running ] &&
		    [ "$(echo "$RT" | jget .process.pid)" != "$old" ]; then
			PORT=$(echo "$RT" | jget .process.port)
			PID=$(echo "$RT" | jget .process.pid)
			return 0
		fi
		sleep 0.1
	done
	echo "    restart $1: state $STATE: $RT"
	pb_log "$1"
	return 1
}

# pb_stop ID: stop and wait until stopped.
pb_stop() {
	sb_api POST "/api/space/apps/$1/stop"
	pb_wait "$1" stopped 120
}

# pb_use ID POLICY: save the policy and (re)start the app with it.
pb_use() {
	pb_policy "$1" "$2" || return 1
	pb_runtime "$1"
	if [ "$STATE" = running ]; then
		PID=$(echo "$RT" | jget .process.pid)
		pb_restart "$1"
	else
		pb_start "$1"
	fi
}

pb_log() {
	echo "    --- log of $1:"
	sed 's/^/    | /' "$SENCLAW_HOME/sandbox/logs/$1.log" 2>/dev/null |
	    tail -n 15 || true
}

# probe OP [KEY=VALUE]...: one action in the app on $PORT; the answer in P.
probe() {
	local op=$1 kv
	local args=(-s -G --max-time 15 "http://127.0.0.1:$PORT/probe"
	    --data-urlencode "op=$op")
	shift
	for kv in "$@"; do
		args+=(--data-urlencode "$kv")
	done
	P=$(curl "${args[@]}" 2>/dev/null) || P='{"ok":null,"error":"no answer from the probe"}'
	[ -n "$P" ] || P='{"ok":null,"error":"empty answer from the probe"}'
}

# allowed DESC OP ARGS...: the probe's action succeeded.
allowed() {
	local desc=$1
	shift
	probe "$@"
	if [ "$(echo "$P" | jget .ok)" = true ]; then
		ok "$desc"
	else
		not_ok "$desc"
		echo "    probe $*: $(printf '%s' "$P" | head -c 400)"
	fi
}

# refused DESC OP ARGS...: the probe answered, and its action failed.
refused() {
	local desc=$1
	shift
	probe "$@"
	if [ "$(echo "$P" | jget .ok)" = false ]; then
		ok "$desc"
	else
		not_ok "$desc"
		echo "    probe $*: $(printf '%s' "$P" | head -c 400)"
	fi
}

# pb_listen PORT_VAR: a TCP listener on the host's 127.0.0.1 that answers
# "hello" to each connection; its port in the named variable.
pb_listen() {
	local f=$T/listen.$1
	/usr/bin/python3 -c '
import os, socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(16)
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1]))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
s.settimeout(1)
while os.getppid() == int(sys.argv[2]):
    try:
        c, _ = s.accept()
    except socket.timeout:
        continue
    c.sendall(b"hello\n")
    c.close()
' "$f" $$ &
	PB_SPAWNED="$PB_SPAWNED $!"
	local i
	for i in $(seq 1 50); do
		[ -s "$f" ] && break
		sleep 0.05
	done
	printf -v "$1" '%s' "$(cat "$f")"
}

pb_cleanup() {
	local pid
	for pid in $PB_SPAWNED; do
		kill "$pid" 2>/dev/null || true
	done
}

# pb_engine_stop: SIGTERM the engines of this test and check that each
# stops by itself, with status 0, within 10 s (the apps' grace is 5 s).
pb_engine_stop() {
	local pid i rc
	for pid in $(cat "$T/engine.pid" 2>/dev/null); do
		kill -TERM "$pid" 2>/dev/null || continue
		for i in $(seq 1 100); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		rc=0
		wait "$pid" 2>/dev/null || rc=$?
		expect_eq "the engine (pid $pid) stops on SIGTERM with status 0" "$rc" 0
		[ "$rc" = 0 ] || tail -n 5 "$T/engine.log" | sed 's/^/    | /'
	done
	: > "$T/engine.pid"
}
