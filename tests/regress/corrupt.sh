#!/usr/bin/env bash
# A policy file that does not parse, or names something the rules refuse,
# is reported with its path and reason and is never read as "sandbox off";
# saving a new policy keeps the bad file aside, byte for byte.
. "$(dirname "$0")/lib.sh"
sb_setup

sb_app notes '{"id":"notes","name":"Notes"}'
sb_app other '{"id":"other","name":"Other"}'
sb_app locked '{"id":"locked","name":"Locked","sandbox":{"force":true}}'
pol=$SENCLAW_HOME/sandbox/app-policies
mkdir -p "$pol"
printf '{"enabled": true, "network": "hosts", "hosts": ["a.example.com"' > "$pol/notes.json"
printf '{"enabled": true, "hosts": ["*"]}\n' > "$pol/other.json"
printf 'garbage\n' > "$pol/locked.json"
cp "$pol/notes.json" "$T/notes.orig"
sb_engine

sb_api GET /api/space/apps/notes/sandbox
expect_eq "GET of a truncated policy is 409, not a default policy" "$CODE" 409
expect_match "the error names the file and the parse error" "$(echo "$BODY" | jget .error)" \
    "$pol/notes.json: not valid JSON"
sb_api GET /api/space/apps/other/sandbox
expect_eq "a policy the rules refuse is also 409" "$CODE" 409
expect_match "naming the field" "$(echo "$BODY" | jget .error)" "$pol/other.json: hosts\[0\] \"\*\""

sb_api GET /api/space/apps
expect_eq "the list shows the app in error, without a sandbox summary" \
    "$(echo "$BODY" | jget '.apps[] | select(.id=="notes") | [.state, .sandbox]')" '["error",null]'
expect_match "the list carries the policy error" \
    "$(echo "$BODY" | jget '.apps[] | select(.id=="notes") | .policyError')" "notes.json: not valid JSON"

out=$("$SPACEBOX" sandbox get notes 2>&1) && rc=0 || rc=$?
expect_eq "CLI get exits 1" "$rc" 1
expect_match "and tells how to recover" "$out" "spacebox sandbox put notes"
out=$("$SPACEBOX" apps)
expect_match "CLI apps shows the problem under the app" "$out" '^  ! policy: .*notes\.json: not valid JSON'
out=$("$SPACEBOX" allow notes b.example.com 2>&1) && rc=0 || rc=$?
expect_eq "allow on an unusable policy is refused" "$rc" 1
check "and did not touch the file" cmp -s "$pol/notes.json" "$T/notes.orig"

# A forced app with a corrupt file stays forced.
sb_api GET /api/space/apps
expect_eq "forced app with a corrupt file is in error, not off" \
    "$(echo "$BODY" | jget '.apps[] | select(.id=="locked") | .state')" error

# Saving a new policy keeps the bad file aside.
sb_api PUT /api/space/apps/notes/sandbox '{"enabled":true,"network":"off"}'
expect_eq "PUT of a new policy succeeds" "$CODE" 200
aside=$(ls "$pol" | grep '^notes\.json\.corrupt-' || true)
check "the corrupt file is kept aside as notes.json.corrupt-<time>" test -n "$aside"
check "byte for byte" cmp -s "$pol/$aside" "$T/notes.orig"
sb_api GET /api/space/apps/notes/sandbox
expect_eq "the new policy is in force" "$(echo "$BODY" | jget '[.config.enabled,.config.network]')" '[true,"off"]'

# A JSON-valid file whose only problem is a value is replaced, not kept.
sb_api PUT /api/space/apps/other/sandbox '{"enabled":false}'
expect_eq "PUT over a refused value succeeds" "$CODE" 200

sb_done
