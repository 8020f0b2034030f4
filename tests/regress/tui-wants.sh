#!/usr/bin/env bash
# The live "wants" line of the TUI's Sandbox dialog, against an engine
# whose "internet" is a network namespace made by the test (netlib.sh).
# A hosts-mode app (a small python3 server) fetches http://HOST/ through
# the allowlist proxy on request.  A refused site appears in the open
# dialog as "This app wants: + HOST" without a key press; one key (a)
# allows it and the very next request succeeds; a mouse click (an SGR
# sequence, as a terminal sends it) on a wanted host allows that host and
# only that one, even when the press and the release arrive apart; a
# wanted host covered by a wildcard on the list is no longer offered; and
# the app list counts only what is still wanted.  Polls the screen; no
# fixed sleeps.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/netlib.sh"
sb_setup
net_setup
command -v tmux >/dev/null 2>&1 || { echo "skip - no tmux"; echo "0 passed, 0 failed"; exit 0; }

. "$(dirname "$0")/tuilib.sh"
trap 'tui_cleanup; net_cleanup; sb_cleanup' EXIT
# --------------------------------------------------------------- the setup
# More names for the origin (this test's own hosts file).
printf '%s\tone.test two.test\n' "$NET_ORIGIN_IP" >> "$T/hosts"

mkdir -p "$WS/space-apps/fetcher"
cat > "$WS/space-apps/fetcher/fetch.py" <<'PY'
# GET /fetch?host=H: GET http://H/ through the proxy from the environment
# (urllib honours http_proxy) and answer with the status it got.
import http.server, os, urllib.error, urllib.parse, urllib.request

class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        u = urllib.parse.urlsplit(self.path)
        if u.path == "/health":
            body = "ok"
        elif u.path == "/fetch":
            host = urllib.parse.parse_qs(u.query).get("host", [""])[0]
            try:
                with urllib.request.urlopen("http://%s/" % host,
                                            timeout=10) as r:
                    body = str(r.status)
            except urllib.error.HTTPError as e:
                body = str(e.code)
            except Exception as e:
                body = "error %s" % e
        else:
            self.send_error(404)
            return
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass

http.server.ThreadingHTTPServer(("127.0.0.1", int(os.environ["PORT"])),
                                Handler).serve_forever()
PY
sb_app fetcher '{"id":"fetcher","name":"Fetcher","runtime":{"kind":"server","start":"python3 fetch.py","port":0,"healthPath":"/health","idleTimeoutSecs":300}}'
PATH=/usr/local/bin:/usr/bin:/bin net_engine --api-port 0

sb_api PUT /api/space/apps/fetcher/sandbox \
    '{"enabled":true,"network":"hosts","hosts":["example.com"]}'
expect_eq "the app's policy: hosts mode, example.com" "$CODE" 200
sb_api POST /api/space/apps/fetcher/start
[ "$CODE" = 200 ] || echo "    POST start: $CODE $BODY"
state=
for i in $(seq 1 200); do
	sb_api GET /api/space/apps/fetcher/runtime
	state=$(echo "$BODY" | jget .state)
	[ "$state" = running ] && break
	sleep 0.1
done
expect_eq "the app runs" "$state" running
[ "$state" = running ] || { echo "$BODY"; cat "$T/engine.log"; curl -s --unix-socket "$SPACEBOX_SOCKET" http://sb/api/space/apps/fetcher/logs | tail -20; }
PORT=$("$SPACEBOX" --no-start status fetcher --json | jget .process.port)
fetch() { curl -s --max-time 20 "http://127.0.0.1:$PORT/fetch?host=$1"; }
hosts() { sb_api GET /api/space/apps/fetcher/sandbox; echo "$BODY" | jget .config.hosts; }
# want_xy HOST: the 1-based column and row of "+ HOST" on the screen.
want_xy() {
	printf '%s\n' "$SCREEN" | awk -v s="+ $1" \
	    '{ i = index($0, s); if (i) { print i + 2, NR; exit } }'
}
click() { text "$(printf '\033[<0;%d;%dM\033[<0;%d;%dm' "$1" "$2" "$1" "$2")"; }

expect_eq "a listed site is reached through the proxy" "$(fetch example.com)" 200

tui_start
check "the list shows the app" wait_screen '^ fetcher +Fetcher +running +open +1 site'
keys Enter
check "Enter opens its dialog" wait_screen '^> \[x\] Run this app inside the sandbox'
expect_match "nothing is wanted yet" "$(printf '%s\n' "$SCREEN" | grep -c 'This app wants' || true)" '^0$'

# ------------------------------------------------------- one key allows
expect_eq "a site off the list is refused" "$(fetch example.org)" 403
check "the open dialog shows what the app wants, without a key press" \
    wait_screen '^>? +This app wants: +\+ example\.org'
expect_match "with the hint" "$SCREEN" 'a or a click allows a wanted site at once'
keys a
check "a allows it at once" wait_screen 'allowed example\.org; it applies to the running app now'
check "it is on the site list" wait_screen '^ {8,}example\.org$'
expect_match "and no longer wanted" "$(printf '%s\n' "$SCREEN" | grep -c 'This app wants' || true)" '^0$'
expect_eq "the very next request goes through" "$(fetch example.org)" 200
expect_eq "the engine's site list has it" "$(hosts)" '["example.com","example.org"]'
check "the dialog is not marked unsaved" wait_screen '^ Sandbox . fetcher$'

# ------------------------------------------------------------- a click
expect_eq "api.example.org is refused" "$(fetch api.example.org)" 403
expect_eq "evil.test is refused" "$(fetch evil.test)" 403
check "both are wanted, most recent last" \
    wait_screen '^>? +This app wants: +\+ api\.example\.org +\+ evil\.test'
xy=$(want_xy api.example.org)
click $xy
check "a click on + api.example.org allows it" \
    wait_screen 'allowed api\.example\.org; it applies'
check "and only it: evil.test is still wanted" \
    wait_screen '^>? +This app wants: +\+ evil\.test *$'
expect_eq "the engine's list has api.example.org, not evil.test" "$(hosts)" \
    '["example.com","example.org","api.example.org"]'
expect_eq "the next request to it goes through" "$(fetch api.example.org)" 200

# A slow click: the release comes after the press was handled (a laggy
# link, a held button).  It must allow the host under the press, and not
# also the one that moved under the pointer.
expect_eq "one.test is refused" "$(fetch one.test)" 403
check "evil.test and one.test are wanted" \
    wait_screen '^>? +This app wants: +\+ evil\.test +\+ one\.test'
xy=$(want_xy evil.test)
text "$(printf '\033[<0;%d;%dM' $xy)"
wait_screen 'allowed evil\.test' 1 >/dev/null || true	# the press, if acted on
text "$(printf '\033[<0;%d;%dm' $xy)"
keys C-l	# handled after the release
check "the slow click allowed evil.test" wait_screen '^> {8,}evil\.test$|^ {8,}evil\.test$'
expect_eq "and only evil.test: one.test was never clicked" "$(hosts)" \
    '["example.com","example.org","api.example.org","evil.test"]'
if check "one.test is still offered" wait_screen '^>? +This app wants: +\+ one\.test *$' 2; then
	check "the focus goes back to the top" focus_to 'Run this app' BTab
	keys a
	check "a allows one.test" wait_screen 'allowed one\.test'
fi

# ------------------------------------------------- covered by a wildcard
expect_eq "a.b.example.org is refused" "$(fetch a.b.example.org)" 403
check "it is wanted" wait_screen '^>? +This app wants: +\+ a\.b\.example\.org'
check "Tab reaches Add site" focus_to 'Add site'
keys Space
check "Space asks for a site" wait_screen '^add site: ?$'
text '*.example.org'
keys Enter
check "the wildcard is on the working list" wait_screen '^> {8,}\*\.example\.org$|^ {8,}\*\.example\.org$'
keys S
check "S saves" wait_screen '^ saved'
expect_eq "the engine has the wildcard" "$(hosts | jget '.[-1]')" '*.example.org'
expect_eq "the next request to a.b.example.org goes through" "$(fetch a.b.example.org)" 200
check "a host the wildcard covers is no longer offered as wanted" \
    wait_gone '\+ a\.b\.example\.org' 3

# ------------------------------------------- a slow click on a checkbox
# The same slow click on a checkbox whose line does not move: one click,
# one toggle (the press and the release are not two clicks).
check "Tab brings the engine API checkbox into view" focus_to 'Call the engine API'
cb=$(printf '%s\n' "$SCREEN" | awk '{ i = index($0, "[x] Call the engine API"); if (i) { print i + 1, NR; exit } }')
click $cb
check "a click toggles it off" wait_screen '\[ \] Call the engine API'
text "$(printf '\033[<0;%d;%dM' $cb)"
wait_screen '\[x\] Call the engine API' 1 >/dev/null || true	# the press, if acted on
text "$(printf '\033[<0;%d;%dm' $cb)"
keys C-l	# handled after the release
check "a slow click toggles it once: on again" \
    wait_screen '\[x\] Call the engine API' 3
keys Escape
check "Esc leaves the dialog without saving" wait_screen '^ fetcher +Fetcher '
sb_api GET /api/space/apps/fetcher/sandbox
expect_eq "the engine API setting was not saved" "$(echo "$BODY" | jget .config.daemonApi)" true
keys Enter
check "the dialog opens again" wait_screen '^> \[x\] Run this app inside the sandbox'

# ------------------------------------------------------- the list's count
# Allow whatever is still offered, then the list must count nothing.
for i in 1 2 3 4 5; do
	SCREEN=$(capture)
	printf '%s\n' "$SCREEN" | grep -q 'This app wants' || break
	focus_to 'Run this app' BTab >/dev/null || true
	keys a
	wait_screen 'allowed ' 3 >/dev/null || true
	wait_gone 'This app wants' 2 >/dev/null || true
done
keys Escape
check "back in the list" wait_screen '^ fetcher +Fetcher '
check "the list counts no wants once every wanted site is allowed" \
    wait_screen '^ fetcher +Fetcher +running +open +[0-9]+ sites +-( |$)' 3
keys q
check "q quits" wait_screen '^EXITED 0$'
expect_eq "nothing was written to stderr during the session" "$(cat "$T/tui.err")" ""

sb_done
