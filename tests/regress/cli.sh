#!/usr/bin/env bash
# The spacebox CLI against a real engine: it starts the engine when none
# runs (unless --no-start), shows the same policy as the API, refuses with
# one actionable line and the exit codes of spacebox(1).
. "$(dirname "$0")/lib.sh"
sb_setup

sb_app notes '{"id":"notes","name":"Notes","runtime":{"kind":"server","start":"python3 app.py"}}'
sb_app locked '{"id":"locked","name":"Locked","sandbox":{"force":true}}'
mkdir -p "$HOME/data"
sb() { "$SPACEBOX" --workspace "$WS" "$@"; }

out=$(sb --no-start apps 2>&1) && rc=0 || rc=$?
expect_eq "--no-start with no engine exits 1" "$rc" 1
expect_match "and names the socket and what to run" "$out" \
    "no engine is running on $SPACEBOX_SOCKET; start one with 'spaceboxd"
check "--no-start started nothing" test ! -e "$SPACEBOX_SOCKET"

out=$(sb apps 2>&1) && rc=0 || rc=$?
expect_eq "apps starts the engine and exits 0" "$rc" 0
expect_match "apps lists notes with its sandbox badge" "$out" '^notes +Notes +stopped +off +all$'
expect_match "a forced app is marked" "$out" '^locked +Locked +stopped +open, forced +all$'
check "the engine keeps running after the client exits" test -S "$SPACEBOX_SOCKET"

out=$(sb sandbox set notes --enabled on --read-mode strict --network hosts \
    --host A.example.com --host '*.example.org' --folder "$HOME/data:ro" \
    --loopback 5432 --daemon-api off 2>&1) && rc=0 || rc=$?
expect_eq "sandbox set exits 0" "$rc" 0
expect_match "set prints the result" "$out" 'sites +a\.example\.com, \*\.example\.org'
cli=$(sb sandbox get notes --json | jget .config)
sb_api GET /api/space/apps/notes/sandbox
expect_eq "CLI --json shows what the API stores" "$cli" "$(echo "$BODY" | jget .config)"
expect_eq "set changed exactly the named fields" "$cli" \
    '{"enabled":true,"readMode":"strict","folders":[{"path":"'"$HOME"'/data","readOnly":true}],"network":"hosts","hosts":["a.example.com","*.example.org"],"daemonApi":false,"loopback":[5432],"forced":false,"allowPrivate":false}'

out=$(sb sandbox set notes --daemon-api on)
cli=$(sb --json sandbox get notes | jget '[.config.daemonApi,.config.hosts,.config.readMode]')
expect_eq "a second set keeps the other fields" "$cli" '[true,["a.example.com","*.example.org"],"strict"]'

out=$(sb sandbox get notes)
expect_match "human get shows the site list" "$out" '^sites +a\.example\.com, \*\.example\.org$'
expect_match "human get shows the folder" "$out" "^  $HOME/data \(read-only\)$"
expect_match "human get shows isolation" "$out" '^isolation +bubblewrap$'

out=$(sb sandbox set locked --enabled off 2>&1) && rc=0 || rc=$?
expect_eq "disabling a forced app exits 1" "$rc" 1
expect_eq "with the spec's message" "$out" \
    "spacebox: This app requires the sandbox (its manifest declares sandbox.force). You can change what it may reach, but not turn the sandbox off."

out=$(sb sandbox set notes --host 'exa mple.com' 2>&1) && rc=0 || rc=$?
expect_eq "a bad site exits 1" "$rc" 1
expect_match "naming the field and the value" "$out" '^spacebox: hosts\[0\] "exa mple\.com": '
expect_eq "and loses nothing" "$(sb --json sandbox get notes | jget .config.hosts)" '["a.example.com","*.example.org"]'

out=$(sb sandbox set notes --folder "$HOME/.ssh-not-there" 2>&1) && rc=0 || rc=$?
expect_match "a missing folder is refused with what to do" "$out" 'does not exist; create the folder first'

echo '{"enabled": true, "network": "off"}' > "$T/p.json"
out=$(sb sandbox put notes < "$T/p.json") && rc=0 || rc=$?
expect_eq "sandbox put exits 0" "$rc" 0
expect_eq "put is a full replace" "$(sb --json sandbox get notes | jget '[.config.network,.config.hosts,.config.readMode]')" '["off",[],"open"]'
out=$(echo '{"enabled": tru' | sb sandbox put notes 2>&1) && rc=0 || rc=$?
expect_eq "put of bad JSON exits 1" "$rc" 1
expect_match "with a one-line reason" "$out" '^spacebox: .*not valid JSON'

out=$(sb allow notes 'https://News.Example.net/path')
expect_match "allow adds the normalised site" "$out" '^sites +news\.example\.net$'
expect_match "allow says when the site list is not in use" "$out" 'network is "off"'
out=$(sb allow notes localhost 2>&1) && rc=0 || rc=$?
expect_eq "allow localhost exits 1" "$rc" 1
expect_eq "allow --json answers JSON" "$(sb allow notes api.example.net --json | jget '.config.hosts | length')" 2

for args in "sandbox" "sandbox get" "bogus" "sandbox set notes" "sandbox set notes --enabled maybe" "allow notes" "apps extra" "sandbox get ../x"; do
	# shellcheck disable=SC2086
	sb $args >/dev/null 2>&1 && rc=0 || rc=$?
	expect_eq "usage error exits 2: spacebox $args" "$rc" 2
done
out=$(sb sandbox get nosuch 2>&1) && rc=0 || rc=$?
expect_eq "unknown app exits 1" "$rc" 1
expect_match "and says which workspace was searched" "$out" "no app \"nosuch\" in $WS/space-apps"
check "--help lists every command" sh -c "'$SPACEBOX' --help | grep -q 'spacebox allow' && '$SPACEBOX' --help | grep -q 'spacebox sandbox' && '$SPACEBOX' --help | grep -q 'spacebox apps'"

sb_done
