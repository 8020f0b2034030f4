#!/usr/bin/env bash
# Only the engine's own user may use its socket: another user cannot
# reach it through the 0700 folder, and if the modes are loosened by hand
# the SO_PEERCRED check still answers 403 and nothing else.  Also: an
# unprivileged user runs an engine of their own, with bubblewrap usable.
. "$(dirname "$0")/lib.sh"
sb_setup
if [ "$(id -u)" != 0 ]; then
	echo "1..0 # skip: needs root to create a second user"
	echo "0 passed, 0 failed"
	exit 0
fi
id sbpeer >/dev/null 2>&1 || useradd -m -s /bin/bash sbpeer
sb_app notes '{"id":"notes","name":"Notes"}'
sb_engine

as_peer() { runuser -u sbpeer -- "$@"; }

out=$(as_peer curl -s --max-time 5 --unix-socket "$SPACEBOX_SOCKET" \
    -w '%{http_code}' http://sb/api/space/apps 2>&1) && rc=0 || rc=$?
check "another user cannot connect through the 0700 folder" test "$rc" -ne 0
expect_eq "and gets no answer" "${out: -3}" "000"

# Loosen the modes as an operator might by mistake.
chmod 711 "$T" "$T/run"
chmod 666 "$SPACEBOX_SOCKET"
out=$(as_peer curl -s --max-time 5 --unix-socket "$SPACEBOX_SOCKET" \
    -w '\n%{http_code}' http://sb/api/space/apps) || true
expect_eq "the peer check answers 403" "${out##*$'\n'}" 403
expect_match "with a reason and no data" "${out%$'\n'*}" '^\{"error":"this engine belongs to another user, or the caller is inside a sandbox"\}$'
out=$(as_peer curl -s --max-time 5 --unix-socket "$SPACEBOX_SOCKET" \
    -X PUT --data-binary '{"enabled":false}' -w '\n%{http_code}' \
    http://sb/api/space/apps/notes/sandbox) || true
expect_eq "a change from another user is refused" "${out##*$'\n'}" 403
check "nothing was written for the refused change" \
    test ! -e "$SENCLAW_HOME/sandbox/app-policies/notes.json"
expect_match "the engine logs the refusal" "$(cat "$T/engine.log")" 'refused a connection from another user'
sb_api GET /api/space/apps
expect_eq "the owner is still served" "$CODE" 200

# An engine refuses a socket folder that others can enter.
out=$("$SPACEBOXD" -f --socket "$T/run/other.sock" --workspace "$WS" 2>&1) && rc=0 || rc=$?
expect_eq "engine refuses a socket folder open to others" "$rc" 1
expect_match "and says how to fix it" "$out" 'open to other users \(mode 711\); chmod 700 it'

# The unprivileged user's own engine, started by the CLI.
PH=$T/peerhome
mkdir -p "$PH/ws/space-apps/hello"
echo '{"id":"hello","name":"Hello"}' > "$PH/ws/space-apps/hello/senclaw-manifest.json"
chown -R sbpeer "$PH"
chmod 755 "$T"
peer() {
	runuser -u sbpeer -- env -i PATH=/usr/bin:/bin HOME="$PH" \
	    SENCLAW_HOME="$PH/.senclaw" "$SPACEBOX" --socket "$PH/run/sb.sock" \
	    --workspace "$PH/ws" "$@"
}
out=$(peer apps 2>&1) && rc=0 || rc=$?
expect_eq "an unprivileged user's spacebox starts its own engine" "$rc" 0
expect_match "and lists that user's apps" "$out" '^hello +Hello'
peer sandbox set hello --enabled on --read-mode strict >/dev/null
out=$(peer --json sandbox get hello | jget .effective.isolation)
expect_eq "bubblewrap is usable for the unprivileged user" "$out" bubblewrap
expect_eq "the engine runs as that user" "$(stat -c %U "$PH/run/sb.sock")" sbpeer
pkill -u sbpeer -f spaceboxd || true

sb_done
