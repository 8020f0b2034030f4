#!/usr/bin/env bash
# Crash safety of the store: SIGKILL the engine in the middle of hundreds
# of saves; every policy file must then parse and equal either the old or
# the new policy, never a mix or a truncated file.
. "$(dirname "$0")/lib.sh"
sb_setup

apps="a1 a2 a3"
for a in $apps; do sb_app "$a" '{"id":"'"$a"'"}'; done
mkdir -p "$HOME/d1" "$HOME/d2"
A='{"enabled":true,"readMode":"strict","folders":[{"path":"'"$HOME"'/d1"}],"network":"hosts","hosts":["one.example.com","*.two.example.org"],"loopback":[5432],"padding":"'"$(head -c 3000 /dev/zero | tr '\0' a)"'"}'
B='{"enabled":false,"folders":[{"path":"'"$HOME"'/d2","readOnly":true}],"network":"off","daemonApi":false,"padding":"'"$(head -c 5000 /dev/zero | tr '\0' b)"'"}'

sb_engine
sb_api PUT /api/space/apps/a1/sandbox "$A"; canonA=$(echo "$BODY" | jget '.config' | jq -S -c .)
sb_api PUT /api/space/apps/a1/sandbox "$B"; canonB=$(echo "$BODY" | jget '.config' | jq -S -c .)
kill -9 "$(cat "$T/engine.pid")"; wait "$(cat "$T/engine.pid")" 2>/dev/null || true; : > "$T/engine.pid"

# One client sends saves as fast as the engine takes them, over and over.
saver() {
	local i=0 a
	while :; do
		for a in $apps; do
			curl -s --max-time 2 --unix-socket "$SPACEBOX_SOCKET" -X PUT \
			    --data-binary "$([ $((i % 2)) = 0 ] && echo "$A" || echo "$B")" \
			    "http://sb/api/space/apps/$a/sandbox" -o /dev/null &&
			    printf x >> "$T/saves" || true
		done
		i=$((i + 1))
	done
}

# Kill the engine again and again until hundreds of saves were made
# (a loaded machine needs more rounds), bounded at 100 rounds.
rounds=0 total=0 bad=0
: > "$T/saves"
while [ "$total" -lt 300 ] && [ "$rounds" -lt 100 ]; do
	rounds=$((rounds + 1)) r=$rounds
	sb_engine
	saver & spid=$!
	sleep "0.$((RANDOM % 3 + 1))"
	kill -9 "$(tail -1 "$T/engine.pid")"
	wait "$(tail -1 "$T/engine.pid")" 2>/dev/null || true
	kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null || true
	total=$(stat -c %s "$T/saves")
	for a in $apps; do
		f=$SENCLAW_HOME/sandbox/app-policies/$a.json
		[ -e "$f" ] || continue
		got=$(jq -S -c . "$f" 2>/dev/null || echo unparsable)
		if [ "$got" != "$canonA" ] && [ "$got" != "$canonB" ]; then
			bad=$((bad + 1))
			echo "round $r: $f is neither policy: $(head -c 200 "$f")"
		fi
	done
done
echo "# $total saves across $rounds SIGKILLs"
check "hundreds of saves were interrupted (got $total)" test "$total" -ge 300
expect_eq "every policy file is the old or the new policy" "$bad" 0

sb_engine
sb_api GET /api/space/apps
expect_eq "after the crashes every app is usable" \
    "$(echo "$BODY" | jget '[.apps[] | .state] | unique')" '["stopped"]'
left=$(ls -A "$SENCLAW_HOME/sandbox/app-policies" | grep -c '\.tmp-' || true)
expect_eq "a restarted engine sweeps temporary files of killed saves" "$left" 0

sb_done
