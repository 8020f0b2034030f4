#!/usr/bin/env bash
# What waits for a person: a server (spacebox exec --server) does not run
# and is not reachable until approved, then is reachable on the host's
# 127.0.0.1:PORT; a denied one ends with exit 1 and "not approved"; a
# command to run outside the sandbox shows its reason in spacebox jobs and
# on the event stream and runs (reading $HOME) only once approved; nothing
# is approved by itself.  A plain background command that listens is not
# reachable from the host.  With bubblewrap unusable a command is refused
# with the cause, unless the engine runs with --unsandboxed-commands allow,
# and then the result says "unsandboxed".
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/netlib.sh"
sb_setup
case $T in /tmp/*) echo "Bail out! the test tree $T is under /tmp"; exit 1;; esac
if [ -x /usr/bin/python3 ]; then PY=/usr/bin/python3; else PY=python3; fi
CLIPIDS=
EVPID=
trap 'for p in $CLIPIDS $EVPID; do kill "$p" 2>/dev/null || true; done; sb_cleanup' EXIT

P=$WS/proj
home_mark=home-marker-$$
mkdir -p "$P"
echo "$home_mark" > "$HOME/notes.txt"
echo "index-$$" > "$P/index.html"

# x [exec options] -- CMD...: spacebox exec in the project; sets RC, OUT, ERR.
x() {
	RC=0
	(cd "$P" && "$SPACEBOX" --no-start exec "$@") >"$T/out" 2>"$T/err" ||
	    RC=$?
	OUT=$(cat "$T/out")
	ERR=$(cat "$T/err")
}
sbc() { "$SPACEBOX" --no-start "$@"; }
# bgx NAME [exec options] -- CMD...: spacebox exec in the background (it
# waits for an approval); $T/NAME.out, $T/NAME.err, $T/NAME.rc at the end.
bgx() {
	local name=$1
	shift
	rm -f "$T/$name.rc"
	(
		rc=0
		cd "$P" && "$SPACEBOX" --no-start exec "$@" \
		    >"$T/$name.out" 2>"$T/$name.err" || rc=$?
		echo "$rc" > "$T/$name.rc"
	) &
	CLIPIDS="$CLIPIDS $!"
}
# wait_for FILE PATTERN: poll (up to 5 s) until grep -E finds it.
wait_for() {
	local i
	for i in $(seq 1 50); do
		grep -Eq -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}
# cli_rc NAME: the background CLI's exit status (waits up to 5 s).
cli_rc() {
	local i
	for i in $(seq 1 50); do
		[ -s "$T/$1.rc" ] && { cat "$T/$1.rc"; return 0; }
		sleep 0.1
	done
	echo "still-waiting"
}
# waiting_id NAME: the job id the CLI says waits for an approval.
waiting_id() {
	wait_for "$T/$1.err" 'waits for your approval' || { echo none; return 0; }
	sed -n 's/^spacebox: job \([0-9]*\) waits for your approval.*/\1/p' "$T/$1.err" | head -1
}
job() { sbc jobs show "$1" --json 2>/dev/null; }
wait_state() {	# wait_state ID STATE
	local i
	for i in $(seq 1 50); do
		[ "$(job "$1" | jget .state)" = "$2" ] && return 0
		sleep 0.1
	done
	return 1
}
http_code() {	# http_code PORT: the status of GET / on 127.0.0.1:PORT
	curl -s -o /dev/null -w '%{http_code}' --max-time 3 "http://127.0.0.1:$1/" 2>/dev/null || true
}
wait_http() {	# wait_http PORT: poll until it answers 200 (up to 5 s)
	local i
	for i in $(seq 1 50); do
		[ "$(http_code "$1")" = 200 ] && return 0
		sleep 0.1
	done
	return 1
}
# srv_gone: no process of a server (bwrap, shim, sh, python) runs; the
# waiting CLIs, whose arguments name the same command, do not count.
srv_procs() {
	pgrep -af -- "http\.server --bind 127\.0\.0\.1 .*--directory $P\$" |
	    grep -v -- ' --no-start exec ' || true
}
srv_gone() {
	local i
	for i in $(seq 1 30); do
		[ -z "$(srv_procs)" ] && return 0
		sleep 0.1
	done
	srv_procs | sed 's/^/    left: /'
	return 1
}
free_port() {
	"$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

sb_engine --api-port 0 --exec-timeout 5
: > "$T/events"
curl -sN --unix-socket "$SPACEBOX_SOCKET" http://sb/api/events >> "$T/events" 2>/dev/null &
EVPID=$!
# The stream is connected once it carries the event of a first command.
for i in $(seq 1 30); do
	x -- true
	wait_for "$T/events" '"event" *: *"job"' && break
done
check "the event stream is connected" grep -q '"event"' "$T/events"

# ------------------------------------------------ a plain listener
LP=$(free_port)
x --background -- "$PY" -u -m http.server --bind 127.0.0.1 "$LP" --directory "$P"
LJ=$(echo "$OUT" | sed -n 's/^job \([0-9]*\) .*/\1/p')
expect_match "[listen] a plain background listener starts" "$RC:$OUT" '^0:job [0-9]+ runs'
for i in $(seq 1 50); do
	job "$LJ" | jget .output | grep -q 'Serving HTTP' && break
	sleep 0.1
done
expect_match "[listen] it listens inside the sandbox" "$(job "$LJ" | jget .output)" 'Serving HTTP'
expect_eq "[listen] but the host cannot reach it" "$(http_code "$LP")" 000
sbc jobs stop "$LJ" >/dev/null
check "[listen] it is stopped" wait_state "$LJ" done

# ------------------------------------------------ servers and outside runs
SRV="exec $PY -m http.server --bind 127.0.0.1 \$PORT --directory $P"
bgx s1 --server -- sh -c "$SRV"
S1=$(waiting_id s1)
expect_match "[server] the CLI says the server waits for approval" "$(cat "$T/s1.err")" \
    "job $S1 waits for your approval to run a server: spacebox approve $S1"
expect_eq "[server] it is pending, kind server, no port" \
    "$(job "$S1" | jget '[.state,.kind,.sandbox,.port]')" '["pending","server","bubblewrap",null]'
check "[server] nothing of it runs" srv_gone
check "[server] the approval event is on the stream" \
    wait_for "$T/events" "\"jobId\":$S1,.*\"event\":\"approval\""
expect_eq "[server] the approval event names the command" \
    "$(jq -R -c --argjson id "$S1" 'fromjson? | select(.event == "approval" and .jobId == $id) | [.kind, .argv[0]]' "$T/events" | head -1)" \
    '["server","sh"]'

bgx o1 --outside --reason "list running apps" -- sh -c "cat $HOME/notes.txt; echo ran > $HOME/outside-ran"
O1=$(waiting_id o1)
expect_match "[outside] the CLI shows the reason and how to approve" "$(cat "$T/o1.err")" \
    "job $O1 waits for your approval to run outside the sandbox, because: list running apps: spacebox approve $O1"
expect_eq "[outside] pending, kind outside, sandbox says so, with the reason" \
    "$(job "$O1" | jget '[.state,.kind,.sandbox,.reason]')" \
    '["pending","outside","outside the sandbox","list running apps"]'
jobs_out=$(sbc jobs)
expect_match "[outside] spacebox jobs shows the reason" "$jobs_out" \
    'waits for approval \(outside the sandbox\): list running apps'
expect_match "[server] spacebox jobs shows the server pending" "$jobs_out" "^$S1 +pending +server "
check "[outside] the approval event carries the reason" \
    wait_for "$T/events" '"reason":"list running apps".*"event":"approval"'
expect_eq "[outside] the event has the documented fields" \
    "$(jq -R -c --argjson id "$O1" 'fromjson? | select(.event == "approval" and .jobId == $id) | [.kind,.reason,.state]' "$T/events" | head -1)" \
    '["outside","list running apps","pending"]'

# Nothing approves by itself.
sleep 2
expect_eq "[auto] after 2 s the server is still pending" "$(job "$S1" | jget .state)" pending
expect_eq "[auto] so is the outside command" "$(job "$O1" | jget .state)" pending
check "[auto] both CLIs still wait" test ! -e "$T/s1.rc" -a ! -e "$T/o1.rc"
check "[auto] the outside command has not run" test ! -e "$HOME/outside-ran"
check "[auto] the server has not started" srv_gone

# Approve the server.
out=$(sbc approve "$S1") && rc=0 || rc=$?
expect_match "[server] spacebox approve" "$rc:$out" "^0:job $S1 approved: "
expect_eq "[server] the waiting CLI exits 0" "$(cli_rc s1)" 0
PORT1=$(job "$S1" | jget .port)
expect_match "[server] and says where it listens" "$(cat "$T/s1.out")" \
    "^job $S1 runs; it listens on 127\\.0\\.0\\.1:$PORT1\$"
expect_eq "[server] it runs" "$(job "$S1" | jget '[.state,.sandbox]')" '["running","bubblewrap"]'
check "[server] it is reachable from the host on 127.0.0.1:$PORT1" wait_http "$PORT1"
body=$(curl -s --max-time 3 "http://127.0.0.1:$PORT1/index.html" || true)
expect_eq "[server] and serves the project" "$body" "index-$$"
check "[server] control: its process is seen while it runs" test -n "$(srv_procs)"
out=$(sbc approve "$S1" 2>&1) && rc=0 || rc=$?
expect_match "[server] approving it again is refused" "$rc:$out" '^1:.*not waiting'

# Deny another.
bgx s2 --server -- sh -c "$SRV"
S2=$(waiting_id s2)
expect_eq "[deny] the second server waits" "$(job "$S2" | jget .state)" pending
out=$(sbc deny "$S2") && rc=0 || rc=$?
expect_match "[deny] spacebox deny" "$rc:$out" "^0:job $S2 denied: "
expect_eq "[deny] the waiting CLI exits 1" "$(cli_rc s2)" 1
expect_match "[deny] saying it was not approved" "$(cat "$T/s2.err")" "job $S2 was not approved"
expect_eq "[deny] the job is denied, with no port" "$(job "$S2" | jget '[.state,.port]')" '["denied",null]'
out=$(sbc approve "$S2" 2>&1) && rc=0 || rc=$?
expect_eq "[deny] a denied job cannot be approved later" "$rc" 1

# Approve the outside command.
out=$(sbc approve "$O1") && rc=0 || rc=$?
expect_match "[outside] spacebox approve" "$rc:$out" "^0:job $O1 approved: "
expect_eq "[outside] the waiting CLI exits 0" "$(cli_rc o1)" 0
expect_eq "[outside] it read a file in \$HOME" "$(cat "$T/o1.out")" "$home_mark"
check "[outside] and could write there" test -e "$HOME/outside-ran"
expect_match "[outside] the note says it ran outside the sandbox" "$(cat "$T/o1.err")" \
    'ran outside the sandbox'
expect_eq "[outside] the result" "$(job "$O1" | jget '[.state,.exitCode,.sandbox]')" \
    '["done",0,"outside the sandbox"]'

# Stop the server.
out=$(sbc jobs stop "$S1") && rc=0 || rc=$?
expect_eq "[server] jobs stop" "$rc:$out" "0:job $S1 stopped"
check "[server] it is done" wait_state "$S1" done
expect_eq "[server] and no longer reachable" "$(http_code "$PORT1")" 000
check "[server] and its process is gone" srv_gone

# The rules of the request.
x --outside -- true
expect_eq "[outside] --outside without --reason is a usage error" "$RC" 2
sb_api POST /api/exec "{\"argv\":[\"true\"],\"cwd\":\"$P\",\"outside\":true}"
expect_eq "[outside] the API wants a reason too" "$CODE" 400
x -- sh -c 'ls "$HOME"; cat "$HOME/notes.txt"'
check "[outside] a plain command stays sandboxed" sh -c '! grep -q "$1" "$2"' _ "$home_mark" "$T/out"

net_engine_stop
kill "$EVPID" 2>/dev/null || true

# ------------------------------------------------ no usable bubblewrap
SPACEBOX_BWRAP=/bin/false sb_engine --api-port 0 --exec-timeout 5
x -- sh -c 'echo ran'
expect_eq "[nobwrap] a command is refused (exit 1)" "$RC" 1
expect_match "[nobwrap] with the cause, naming bubblewrap" "$ERR" 'bubblewrap'
check "[nobwrap] in one line" test "$(wc -l < "$T/err")" -eq 1
expect_eq "[nobwrap] and nothing ran" "$OUT" ""
x --background -- sh -c 'echo ran'
expect_eq "[nobwrap] a background command is refused too" "$RC" 1
x --server -- sh -c "$SRV"
expect_eq "[nobwrap] and a server" "$RC" 1
sbc jobs >"$T/jobs.out" 2>&1 || true
expect_eq "[nobwrap] no job was made" "$(grep -c '^[0-9]' "$T/jobs.out" || true)" 0
net_engine_stop

printf '#!/bin/sh\necho "bwrap: no permission to create namespaces" >&2\nexit 1\n' > "$T/badbwrap"
chmod 755 "$T/badbwrap"
SPACEBOX_BWRAP=$T/badbwrap sb_engine --api-port 0 --exec-timeout 5 --unsandboxed-commands allow
x -- sh -c 'echo ran-unsandboxed'
expect_eq "[unsandboxed] with --unsandboxed-commands allow it runs" "$RC:$OUT" "0:ran-unsandboxed"
expect_match "[unsandboxed] and the note says unsandboxed" "$ERR" 'unsandboxed'
x --json -- true
expect_eq "[unsandboxed] the result says unsandboxed" "$(echo "$OUT" | jget .sandbox)" unsandboxed
bgx s3 --server -- sh -c "$SRV"
S3=$(waiting_id s3)
expect_eq "[unsandboxed] a server still waits for approval" \
    "$(job "$S3" | jget '[.state,.sandbox]')" '["pending","unsandboxed"]'
sbc deny "$S3" >/dev/null
expect_eq "[unsandboxed] and deny ends it" "$(cli_rc s3)" 1

sb_done
