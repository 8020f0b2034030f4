#!/usr/bin/env bash
# Supervision of real sandboxed apps: stop sends TERM (an app that cleans
# up gets to finish, and lastExit shows its exit), a TERM-ignoring app is
# KILLed after the grace; a crashing background app is restarted with
# backoff, five quick crashes mark it failed with the last exit, and
# spacebox start brings it back once fixed; an idle session app is stopped
# after idleTimeoutSecs while a busy one keeps running; the log rotates
# past 1 MiB; a broken manifest, a corrupt policy and a missing sandbox
# refuse to start with the reason; SIGTERM to the engine stops every app.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/apps/probelib.sh"
sb_setup
trap 'pb_cleanup; sb_cleanup' EXIT
case $T in /tmp/*) echo "Bail out! the test tree $T is under /tmp"; exit 1;; esac

TAG=sbsup$$
BOX='{"sandbox":{"enabled":true,"network":"off"}}'
pb_app termer "exec python3 probe.py --term exit --tag $TAG" '{}' "$BOX"
pb_app wrapped "python3 probe.py --term exit --term-delay 1 --tag $TAG" '{}' "$BOX"
pb_app wrapped-plain "python3 probe.py --term exit --term-delay 1 --tag $TAG" '{}' \
    '{"sandbox":{"enabled":false}}'
pb_app plain "exec python3 probe.py --term exit --tag $TAG" '{}' \
    '{"sandbox":{"enabled":false}}'
pb_app stubborn "exec python3 probe.py --term ignore --tag $TAG" '{}' "$BOX"
pb_app flaky "python3 probe.py --crash-once --tag $TAG" '{"mode":"background"}' "$BOX"
pb_app crashy "python3 probe.py --crash-unless fixed --tag $TAG" '{"mode":"background"}' "$BOX"
pb_app idle "python3 probe.py --tag $TAG" '{"idleTimeoutSecs":15}' "$BOX"
pb_app busy "python3 probe.py --tag $TAG" '{"idleTimeoutSecs":15}' "$BOX"
pb_app chatty "python3 probe.py --spew 1300000 --tag $TAG" '{}' "$BOX"
sb_app broken '{"id": "broken", "runtime": {"kind": "server", '
pb_app badpol "python3 probe.py --tag $TAG" '{}'
mkdir -p "$SENCLAW_HOME/sandbox/app-policies"
printf '{"enabled": true, "network": "off",' > "$SENCLAW_HOME/sandbox/app-policies/badpol.json"

sbc() { "$SPACEBOX" --no-start "$@"; }
no_proc() { ! pgrep -f -- "$1" >/dev/null; }	# no_proc REGEX
LOGS=$SENCLAW_HOME/sandbox/logs

PATH=$PB_PATH sb_engine --api-port 0
EPID=$(tail -1 "$T/engine.pid")
: > "$T/events"
curl -sN --unix-socket "$SPACEBOX_SOCKET" http://sb/api/events >> "$T/events" 2>/dev/null &
PB_SPAWNED="$PB_SPAWNED $!"
t_engine=$SECONDS

# ------------------------------------------------ idle and busy session apps
pb_start idle && ok "idle session app runs" || not_ok "idle session app runs"
t_idle0=$SECONDS
pb_start busy && ok "busy session app runs" || not_ok "busy session app runs"
# Hold one connection to the busy app open for 28 s.
curl -s -G --max-time 40 "http://127.0.0.1:$PORT/probe" --data-urlencode op=sleep \
    --data-urlencode secs=28 -o /dev/null &
PB_SPAWNED="$PB_SPAWNED $!"

# ------------------------------------------------ stop: TERM, then KILL
stop_timed() {	# stop_timed ID: POST stop, wait until stopped; sets TOOK (s)
	local t0=$(date +%s.%N)
	pb_stop "$1" || true
	TOOK=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
}
if pb_start termer; then
	stop_timed termer
	check "a stopped app that handles TERM stops within the grace (${TOOK}s)" \
	    awk -v t="$TOOK" 'BEGIN { exit !(t < 4) }'
	check "its TERM handler wrote the marker in its data dir" \
	    grep -q '^term ' "$SENCLAW_HOME/space-apps-data/termer/term-marker"
	expect_eq "lastExit shows its exit 0" "$(echo "$RT" | jget '[.state, .lastExit]')" '["stopped","exit 0"]'
else
	not_ok "termer runs"
fi
if pb_start plain; then
	stop_timed plain
	check "[sandbox off] TERM reaches the app: marker written" \
	    test -s "$SENCLAW_HOME/space-apps-data/plain/term-marker"
	expect_eq "[sandbox off] lastExit exit 0" "$(echo "$RT" | jget .lastExit)" "exit 0"
else
	not_ok "plain runs"
fi
# A start command that is not a single exec (sh stays the parent): the
# app's own cleanup (1 s) must still get its grace.
for id in wrapped wrapped-plain; do
	if pb_start $id; then
		stop_timed $id
		if test -s "$SENCLAW_HOME/space-apps-data/$id/term-marker"; then
			ok "[$id] behind a shell, the app's 1 s TERM cleanup is not cut short"
		else
			not_ok "[$id] behind a shell, the app's 1 s TERM cleanup is not cut short"
			echo "    no marker; stopped after ${TOOK}s, lastExit $(echo "$RT" | jget .lastExit)"
		fi
	else
		not_ok "$id runs"
	fi
done
if pb_start stubborn; then
	stop_timed stubborn
	check "a TERM-ignoring app is stopped only after the 5 s grace (${TOOK}s)" \
	    awk -v t="$TOOK" 'BEGIN { exit !(t >= 4.5 && t < 10) }'
	expect_match "and then KILLed" "$(echo "$RT" | jget '.state + " " + .lastExit')" \
	    '^stopped (signal 9|exit 137)$'
	check "the log says so" grep -q 'did not stop within the grace time: SIGKILL' "$LOGS/stubborn.log"
	check "no process of it is left" no_proc "probe.py --term ignore --tag $TAG"
else
	not_ok "stubborn runs"
fi

# ------------------------------------------------ log rotation
if pb_start chatty; then
	for i in $(seq 1 50); do [ -e "$LOGS/chatty.log.1" ] && break; sleep 0.1; done
	check "a log past 1 MiB is rotated (chatty.log.1 exists)" test -e "$LOGS/chatty.log.1"
	check "the rotated file holds over 1 MiB" \
	    test "$(stat -c %s "$LOGS/chatty.log.1" 2>/dev/null || echo 0)" -gt 1048576
	check "the current log is small again" \
	    test "$(stat -c %s "$LOGS/chatty.log" 2>/dev/null || echo 9999999)" -lt 1048576
	check "logs are the engine's, mode 0600" test "$(stat -c %a "$LOGS/chatty.log")" = 600
	pb_stop chatty || true
else
	not_ok "chatty runs"
fi

# ------------------------------------------------ refusals with the reason
out=$(sbc start broken 2>&1) && rc=0 || rc=$?
expect_eq "a broken manifest: spacebox start exits 1" "$rc" 1
expect_match "and says why" "$out" 'senclaw-manifest\.json.*(JSON|json)'
sb_api POST /api/space/apps/broken/start
expect_eq "POST start on it: 409" "$CODE" 409
out=$(sbc start badpol 2>&1) && rc=0 || rc=$?
expect_eq "a corrupt policy: spacebox start exits 1" "$rc" 1
expect_match "and names the file" "$out" 'app-policies/badpol\.json'
check "the app did not run" no_proc "space-apps/badpol"
pb_runtime badpol
expect_eq "badpol is stopped" "$STATE" stopped

# ------------------------------------------------ crash, backoff, restart
for i in $(seq 1 100); do
	pb_runtime flaky
	[ "$(echo "$RT" | jget .restarts)" -ge 1 ] && [ "$STATE" = running ] && break
	sleep 0.1
done
expect_eq "a background app that crashed is running again, restarts 1" \
    "$(echo "$RT" | jget '[.state, .restarts, .lastExit]')" '["running",1,"exit 3"]'
flaky_states=$(jq -R -r 'fromjson? | select(.appId == "flaky") | .state' "$T/events" | uniq | tr '\n' ' ')
expect_match "it went backoff, starting, running" "$flaky_states" \
    'backoff starting running $'
check "the log says it crashed and restarts" grep -q 'crashed (exit 3); restarting in 1 s' "$LOGS/flaky.log"
pb_stop flaky
sleep 1.5
pb_runtime flaky
expect_eq "a background app stopped by request stays stopped" "$STATE" stopped

# crashy fails five times: 1+2+4+8 s of backoff from the engine's start.
for i in $(seq 1 300); do
	pb_runtime crashy
	[ "$STATE" = failed ] && break
	[ $((SECONDS - t_engine)) -gt 40 ] && break
	sleep 0.1
done
expect_eq "five quick crashes: failed, with the last exit" \
    "$(echo "$RT" | jget '[.state, .lastExit, .restarts]')" '["failed","exit 3",4]'
expect_match "and the reason" "$(echo "$RT" | jget .error)" '5 crashes'
crashy_states=$(jq -R -r 'fromjson? | select(.appId == "crashy") | .state' "$T/events" | tr '\n' ' ')
expect_match "backoff between the crashes" "$crashy_states" \
    '(backoff starting ){3,4}failed $'
sleep 2
pb_runtime crashy
expect_eq "a failed app is not restarted by itself" "$STATE" failed
touch "$SENCLAW_HOME/space-apps-data/crashy/fixed"
out=$(sbc start crashy 2>&1) && rc=0 || rc=$?
expect_eq "spacebox start on a failed (now fixed) app: exit 0" "$rc" 0
pb_runtime crashy
expect_eq "and it runs" "$STATE" running

# ------------------------------------------------ idle
for i in $(seq 1 400); do
	pb_runtime idle
	[ "$STATE" = stopped ] && break
	[ $((SECONDS - t_idle0)) -gt 40 ] && break
	sleep 0.1
done
expect_eq "the idle session app was stopped" "$STATE" stopped
ts() { date -d "$(sed -n "s/^\[spacebox \([^]]*\)\] $2.*/\1/p" "$LOGS/$1.log" | tail -1)" +%s 2>/dev/null || echo 0; }
t_run=$(ts idle 'running on') t_idle=$(ts idle 'idle: stopping')
idle_for=$((t_idle - t_run))
check "after 15-25 s without a connection (took ${idle_for}s)" \
    test "$idle_for" -ge 14 -a "$idle_for" -le 26
pb_runtime busy
expect_eq "the busy session app (a connection open) still runs" "$STATE" running

# ------------------------------------------------ engine SIGTERM
pb_start stubborn || true
pb_start termer || true
check "apps of this test are running before the engine stops" pgrep -f "$TAG" >/dev/null
t0=$SECONDS
kill -TERM "$EPID"
rc=0
for i in $(seq 1 150); do kill -0 "$EPID" 2>/dev/null || break; sleep 0.1; done
wait "$EPID" 2>/dev/null || rc=$?
: > "$T/engine.pid"
expect_eq "SIGTERM: the engine exits 0 after stopping its apps" "$rc" 0
check "within the grace and a little (took $((SECONDS - t0)) s)" test $((SECONDS - t0)) -le 9
left=$(pgrep -af "$TAG" || true)
expect_eq "no app process is left" "$left" ""
check "the TERM-handling app got its TERM" test -s "$SENCLAW_HOME/space-apps-data/termer/term-marker"
check "the engine log says it stopped" grep -q 'stopped' "$T/engine.log"

# ------------------------------------------------ a second SIGTERM
PATH=$PB_PATH sb_engine --api-port 0
EPID=$(tail -1 "$T/engine.pid")
pb_start stubborn || true
kill -TERM "$EPID"; sleep 0.3; kill -TERM "$EPID" 2>/dev/null || true
rc=0
for i in $(seq 1 100); do kill -0 "$EPID" 2>/dev/null || break; sleep 0.1; done
wait "$EPID" 2>/dev/null || rc=$?
: > "$T/engine.pid"
expect_eq "a second SIGTERM: the engine exits at once, status 0" "$rc" 0
sleep 0.5
expect_eq "and no app process is left" "$(pgrep -af "$TAG" || true)" ""

# ------------------------------------------------ no usable sandbox
SPACEBOX_BWRAP=$T/no-such-bwrap PATH=$PB_PATH sb_engine --api-port 0
out=$(sbc start termer 2>&1) && rc=0 || rc=$?
expect_eq "bwrap missing: a sandboxed app does not start" "$rc" 1
expect_match "the reason names the cause and the fix" "$out" 'bubblewrap is not installed.*apt-get install bubblewrap'
sb_api POST /api/space/apps/termer/start
expect_eq "POST start: 503" "$CODE" 503
out=$(sbc start plain 2>&1) && rc=0 || rc=$?
expect_eq "an app with the sandbox off still starts" "$rc" 0
check "no sandbox was made" no_proc "bwrap.*$TAG"
pb_runtime termer
expect_eq "the sandboxed one is stopped" "$STATE" stopped
kill -TERM "$(tail -1 "$T/engine.pid")"; wait "$(tail -1 "$T/engine.pid")" 2>/dev/null || true
: > "$T/engine.pid"

cat > "$T/broken-bwrap" <<'SH'
#!/bin/sh
echo "bwrap: setting up uid map: Permission denied" >&2
exit 1
SH
chmod 755 "$T/broken-bwrap"
SPACEBOX_BWRAP=$T/broken-bwrap PATH=$PB_PATH sb_engine --api-port 0
out=$(sbc start termer 2>&1) && rc=0 || rc=$?
expect_eq "user namespaces refused: a sandboxed app does not start" "$rc" 1
expect_match "the reason names the cause and the fix" "$out" 'cannot create user namespaces.*Permission denied'
kill -TERM "$(tail -1 "$T/engine.pid")"; wait "$(tail -1 "$T/engine.pid")" 2>/dev/null || true
: > "$T/engine.pid"

SPACEBOX_BWRAP=$T/broken-bwrap PATH=$PB_PATH sb_engine --api-port 0 --unsandboxed-apps allow
out=$(sbc start termer 2>&1) && rc=0 || rc=$?
expect_eq "--unsandboxed-apps allow: it starts" "$rc" 0
pb_runtime termer
expect_eq "and every status says unconfined" \
    "$(echo "$RT" | jget '[.process.isolation, (.process.logLine | test("UNCONFINED"))]')" \
    '["unconfined",true]'
sb_api GET /api/space/apps/termer/sandbox
expect_eq "the sandbox GET says so too" "$(echo "$BODY" | jget .effective.isolation)" unconfined

pb_engine_stop
sb_done
