#!/usr/bin/env bash
# The management API over the real unix socket: PUT then GET returns the
# canonical policy, validation errors name the field, forced apps refuse
# to be disabled, the socket's folder and file are private, a second
# engine on the same socket is refused.
. "$(dirname "$0")/lib.sh"
sb_setup

sb_app notes '{"id":"notes","name":"Notes","runtime":{"kind":"server","start":"python3 app.py","port":0}}'
sb_app locked '{"id":"locked","name":"Locked","runtime":{"kind":"server","start":"node app.js"},"sandbox":{"force":true,"network":"sites","hosts":["Example.COM"]}}'
sb_app broken '{"id": "broken", '
sb_app Sandbox '{"id":"Sandbox"}'
mkdir -p "$HOME/projects/data" "$HOME/.ssh"
ln -s "$HOME/projects/data" "$HOME/link-to-data"
sb_engine

sb_api GET /api/space/apps
expect_eq "apps list answers 200" "$CODE" 200
expect_eq "apps listed in id order" "$(echo "$BODY" | jget '[.apps[].id]')" \
    '["Sandbox","broken","locked","notes"]'
expect_match "broken manifest is an app in error, with the reason" \
    "$(echo "$BODY" | jget '.apps[] | select(.id=="broken") | .state + " " + .error')" \
    '^error .*senclaw-manifest.json.*not a valid JSON'
expect_match "reserved id is refused with a reason" \
    "$(echo "$BODY" | jget '.apps[] | select(.id=="Sandbox") | .error')" \
    'reserved'
expect_eq "declaration applied on first sight" \
    "$(echo "$BODY" | jget '.apps[] | select(.id=="locked") | .sandbox | [.enabled,.network,.hosts,.forced]')" \
    '[true,"hosts",["example.com"],true]'

# PUT then GET returns the canonical policy.
sb_api PUT /api/space/apps/notes/sandbox \
    '{"enabled":true,"readMode":"allowlist","folders":[{"path":"'"$HOME"'/link-to-data","readOnly":true}],"network":"hosts","hosts":["https://API.Example.com/v1?x=1","api.example.com","*.Example.org."],"loopback":[5432,80,5432],"daemonApi":false,"futureKey":{"x":[1]},"forced":true}'
expect_eq "PUT answers 200" "$CODE" 200
expect_eq "PUT answer shape" "$(echo "$BODY" | jget '[.ok,.hostsAppliedLive,.restartRequired]')" '[true,false,false]'
want='{"enabled":true,"readMode":"strict","folders":[{"path":"'"$HOME"'/projects/data","readOnly":true}],"network":"hosts","hosts":["api.example.com","*.example.org"],"daemonApi":false,"loopback":[80,5432],"forced":false,"allowPrivate":false,"futureKey":{"x":[1]}}'
expect_eq "PUT answers the canonical policy" "$(echo "$BODY" | jget .config)" "$want"
sb_api GET /api/space/apps/notes/sandbox
expect_eq "GET returns what PUT stored" "$(echo "$BODY" | jget .config)" "$want"
expect_eq "GET answers appId and a null proxy" "$(echo "$BODY" | jget '[.appId,.proxy]')" '["notes",null]'
expect_eq "effective block has SenClaw's keys" \
    "$(echo "$BODY" | jget '.effective | keys')" \
    '["alwaysGranted","daemonPort","enforceable","isolation","networkEnforceable","note"]'
expect_eq "isolation is bubblewrap" "$(echo "$BODY" | jget .effective.isolation)" bubblewrap
expect_eq "always granted: install dir, five data dirs, private tmp" \
    "$(echo "$BODY" | jget '.effective.alwaysGranted | length')" 7
check "the policy file is on disk, mode 0600" \
    test "$(stat -c %a "$SENCLAW_HOME/sandbox/app-policies/notes.json")" = 600

# Missing keys take defaults: a full replace.
sb_api PUT /api/space/apps/notes/sandbox '{"enabled":true}'
expect_eq "PUT replaces the whole policy" "$(echo "$BODY" | jget '[.config.network,.config.hosts,.config.daemonApi]')" '["all",[],true]'

# Validation: 400, one line naming the field and the value, nothing lost.
sb_api PUT /api/space/apps/notes/sandbox '{"enabled":true,"folders":[{"path":"'"$HOME"'/.ssh"}]}'
expect_eq "credential store refused with 400" "$CODE" 400
expect_match "message names the field and the value" "$(echo "$BODY" | jget .error)" \
    '^folders\[0\]\.path ".*/\.ssh": inside the credential store'
sb_api PUT /api/space/apps/notes/sandbox '{"hosts":["ok.example","*.com"]}'
expect_match "wildcard over a TLD refused, naming hosts[1]" "$(echo "$BODY" | jget .error)" '^hosts\[1\] "\*\.com"'
sb_api PUT /api/space/apps/notes/sandbox '{"loopback":[70000]}'
expect_match "port out of range refused" "$(echo "$BODY" | jget .error)" '^loopback\[0\] 70000'
sb_api PUT /api/space/apps/notes/sandbox 'not json'
expect_eq "bad JSON is 400" "$CODE" 400
sb_api GET /api/space/apps/notes/sandbox
expect_eq "refused PUTs lost nothing" "$(echo "$BODY" | jget .config.enabled)" true

# Forced app: 409 with the spec's message; other changes allowed.
sb_api PUT /api/space/apps/locked/sandbox '{"enabled":false}'
expect_eq "disabling a forced app is 409" "$CODE" 409
expect_eq "409 carries the exact message" "$(echo "$BODY" | jget .error)" \
    "This app requires the sandbox (its manifest declares sandbox.force). You can change what it may reach, but not turn the sandbox off."
sb_api PUT /api/space/apps/locked/sandbox '{"network":"off","hosts":["example.com"]}'
expect_eq "a forced app may change what it reaches" "$(echo "$BODY" | jget '[.config.enabled,.config.forced,.config.network]')" '[true,true,"off"]'

# Adding one site.
sb_api POST /api/space/apps/locked/sandbox/hosts '{"host":"HTTPS://News.Example.net/x"}'
expect_eq "POST hosts adds the normalised site" "$(echo "$BODY" | jget .config.hosts)" '["example.com","news.example.net"]'
sb_api POST /api/space/apps/locked/sandbox/hosts '{"host":"127.0.0.1"}'
expect_eq "an IP literal is refused" "$CODE" 400

# Unknown app and route, and ids that try to leave the workspace.
sb_api GET /api/space/apps/nosuch/sandbox
expect_eq "unknown app is 404" "$CODE" 404
sb_api GET /api/space/apps/../sandbox
check "dot-dot id is never served" test "$CODE" != 200
sb_api GET /api/space/nothing
expect_eq "unknown route is 404" "$CODE" 404
sb_api DELETE /api/space/apps/notes/sandbox
expect_eq "wrong method is 405" "$CODE" 405
sb_api GET /api/space/apps/sandbox-overview
expect_eq "overview lists every app" "$(echo "$BODY" | jget '[.apps[].appId] | length')" 4
expect_eq "overview says what the machine enforces" "$(echo "$BODY" | jget .machine.isolation)" bubblewrap

# Oversized and malformed requests get an answer, not a crash.
big=$(head -c 2000000 /dev/zero | tr '\0' a)
code=$(printf '{"x":"%s"}' "$big" | curl -s -o /dev/null -w '%{http_code}' --unix-socket "$SPACEBOX_SOCKET" -X PUT --data-binary @- http://sb/api/space/apps/notes/sandbox)
expect_eq "a 2 MB body is refused with 413" "$code" 413
sb_api GET /api/space/apps
expect_eq "engine still answers" "$CODE" 200

# The socket's folder and file are private.
expect_eq "socket folder is 0700" "$(stat -c %a "$(dirname "$SPACEBOX_SOCKET")")" 700
expect_eq "socket is 0600" "$(stat -c %a "$SPACEBOX_SOCKET")" 600

# A second engine on the same socket is refused and the first survives.
out=$("$SPACEBOXD" -f --socket "$SPACEBOX_SOCKET" --workspace "$WS" 2>&1) && rc=0 || rc=$?
expect_eq "second engine exits 1" "$rc" 1
expect_match "second engine says why" "$out" "another spaceboxd is already running on $SPACEBOX_SOCKET"
sb_api GET /api/space/apps
expect_eq "first engine still serves" "$CODE" 200

# SIGTERM: clean shutdown removes the socket.
kill -TERM "$(head -1 "$T/engine.pid")"
for i in $(seq 1 50); do [ -e "$SPACEBOX_SOCKET" ] || break; sleep 0.1; done
check "SIGTERM removes the socket" test ! -e "$SPACEBOX_SOCKET"

sb_done
