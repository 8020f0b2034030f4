#!/usr/bin/env bash
# Real apps launched under bubblewrap, the positive side: a runtime
# installed under $HOME (on the engine's PATH) starts in strict mode;
# SQLite creates and reopens a database in the app's data dir (under the
# masked state root) and in a granted folder whose parent is not granted;
# the app answers on its port from the host in all three network modes;
# a hosts-mode app fetches an allowed site through the proxy and a refused
# one shows in recentDenied; a hosts edit applies live, any other edit
# asks for a restart; the launch is logged; plan shows --unshare-net only
# where it belongs.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/netlib.sh"
. "$(dirname "$0")/apps/probelib.sh"
sb_setup
net_setup
trap 'pb_cleanup; net_cleanup; sb_cleanup' EXIT
case $T in /tmp/*) echo "Bail out! the test tree $T is under /tmp"; exit 1;; esac

# A runtime installed under $HOME, nvm-style: the launcher in bin/ runs the
# interpreter from ../lib/, so granting only bin/ would not be enough.
RTROOT=$HOME/.fakeruntime/v1
mkdir -p "$RTROOT/bin" "$RTROOT/lib/fakepy" "$HOME/projects/db"
cp /usr/bin/python3.11 "$RTROOT/lib/fakepy/python" 2>/dev/null ||
    cp "$(readlink -f /usr/bin/python3)" "$RTROOT/lib/fakepy/python"
cat > "$RTROOT/bin/fakepy" <<'SH'
#!/bin/sh
exec "$(dirname "$0")/../lib/fakepy/python" "$@"
SH
chmod 755 "$RTROOT/bin/fakepy"
echo "home-marker-$$" > "$HOME/marker.txt"
echo "projects-marker-$$" > "$HOME/projects/notes.txt"

pb_app rt "fakepy probe.py --tag sblaunch$$"
pb_app web "python3 probe.py --tag sblaunch$$"
PATH=$RTROOT/bin:$PB_PATH net_engine --api-port 0
sbc() { "$SPACEBOX" --no-start "$@"; }

# ------------------------------------------------ a runtime under $HOME, strict
out=$(sbc sandbox set rt --enabled on --read-mode strict --network off 2>&1) &&
    rc=0 || rc=$?
expect_eq "spacebox sandbox set exits 0" "$rc" 0
out=$(sbc plan rt --json)
expect_eq "plan: the runtime's install dir (bin's parent) is granted read-only" \
    "$(echo "$out" | jq -c --arg p "$RTROOT" '[.grants[] | select(.path == $p) | .access + " " + .why]')" \
    '["read-only runtime on PATH"]'
out=$(sbc start rt 2>&1) && rc=0 || rc=$?
expect_eq "spacebox start: a runtime under \$HOME starts in strict mode" "$rc" 0
[ "$rc" = 0 ] || { echo "$out"; pb_log rt; }
pb_runtime rt
PORT=$(echo "$RT" | jget .process.port)
PID=$(echo "$RT" | jget .process.pid)
expect_eq "it runs in strict mode under bubblewrap" \
    "$(echo "$RT" | jget '[.state, .process.isolation, (.process.logLine | test("strict reads"))]')" \
    '["running","bubblewrap",true]'
probe env
expect_match "the app's PATH starts with the runtime" "$(echo "$P" | jget .env.PATH)" "^$RTROOT/bin:"
allowed "the interpreter in ../lib is readable" read path="$RTROOT/lib/fakepy/python"
refused "control: \$HOME itself is not (strict)" read path="$HOME/marker.txt"
refused "control: nor a folder beside the runtime" read path="$HOME/projects/notes.txt"

# ------------------------------------------------ SQLite
DATA=$SENCLAW_HOME/space-apps-data/rt
allowed "[strict] sqlite creates a database in the data dir (under the masked state root)" \
    sqlite path="$DATA/app.db"
allowed "[strict] and opens it again" sqlite path="$DATA/app.db"
expect_eq "[strict] with the row of each run" "$(echo "$P" | jget .count)" 2
allowed "[strict] a WAL database too" sqlite path="$DATA/wal.db" wal=1
allowed "[strict] sqlite in TMPDIR" sqlite path="$SENCLAW_HOME/sandbox/app-tmp/rt/t.db"
expect_eq "the database is the real file on the host" \
    "$(sqlite3 "$DATA/app.db" 'select count(*) from t' 2>&1)" 2

if pb_use rt '{"enabled":true,"readMode":"strict","network":"off","folders":[{"path":"'"$HOME"'/projects/db"}]}'; then
	allowed "[strict] sqlite in a granted folder whose parent is not granted" \
	    sqlite path="$HOME/projects/db/p.db"
	allowed "[strict] and reopens it" sqlite path="$HOME/projects/db/p.db"
	check "[strict] it landed in the real folder" test -s "$HOME/projects/db/p.db"
	refused "[strict] the parent's other files stay hidden" read path="$HOME/projects/notes.txt"
else
	not_ok "[strict] the app runs with a folder granted"
fi
if pb_use rt '{"enabled":true,"readMode":"open","network":"off","folders":[{"path":"'"$HOME"'/projects/db"}]}'; then
	allowed "[open] sqlite reopens the data-dir database (state root masked)" \
	    sqlite path="$DATA/app.db"
	expect_eq "[open] with both earlier rows" "$(echo "$P" | jget .count)" 3
	allowed "[open] sqlite creates a new one there" sqlite path="$DATA/open.db"
	allowed "[open] and in the granted folder" sqlite path="$HOME/projects/db/p.db"
	refused "[open] the state root's other files stay dark" \
	    list path="$SENCLAW_HOME/sandbox/app-policies"
else
	not_ok "[open] the app runs"
fi

# ------------------------------------------------ the three network modes
for net in all off hosts; do
	pol='{"enabled":true,"network":"'$net'","hosts":["example.com"]}'
	pb_policy web "$pol" || true
	out=$(sbc --json plan web 2>&1)
	case $net in all) want=false ;; *) want=true ;; esac
	expect_eq "[$net] plan: --unshare-net only in off/hosts" \
	    "$(echo "$out" | jget '[any(.argv[]; . == "--unshare-net"), .networkNamespace]')" \
	    "[$want,$want]"
	if ! pb_use web "$pol"; then
		not_ok "[$net] the app runs"
		continue
	fi
	code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "http://127.0.0.1:$PORT/health")
	expect_eq "[$net] the app answers on 127.0.0.1:$PORT from the host" "$code" 200
	expect_eq "[$net] runtime: networkNamespace" \
	    "$(echo "$RT" | jget .process.networkNamespace)" "$want"
	case $net in
	all) pat='network shared with the host \(loopback not closed\)' ;;
	off) pat='network off' ;;
	hosts) pat='network via allowlist proxy on 127\.0\.0\.1:[0-9]+' ;;
	esac
	expect_match "[$net] the launch line says so" \
	    "$(echo "$RT" | jget .process.logLine)" "^sandbox: bubblewrap — open reads, $pat, 0 folder\\(s\\) granted$"
done
pb_policy web '{"enabled":false}'
out=$(sbc --json plan web 2>&1)
expect_eq "[disabled] plan: no bubblewrap, no namespace" \
    "$(echo "$out" | jget '[.isolation, .networkNamespace, any(.argv[]; . == "--unshare-net")]')" \
    '["none",false,false]'

# ------------------------------------------------ hosts mode and the proxy
if pb_use web '{"enabled":true,"network":"hosts","hosts":["example.com"]}'; then
	PPORT=$(echo "$RT" | jget .proxy.port)
	probe env
	expect_eq "[hosts] the proxy variables point at the app's proxy" \
	    "$(echo "$P" | jget '[.env.HTTP_PROXY, .env.https_proxy, .env.ALL_PROXY, .env.NO_PROXY, .env.NODE_USE_ENV_PROXY]')" \
	    "[\"http://127.0.0.1:$PPORT\",\"http://127.0.0.1:$PPORT\",\"http://127.0.0.1:$PPORT\",\"127.0.0.1,localhost,::1\",\"1\"]"
	allowed "[hosts] an allowed site, through the proxy" fetch url=http://example.com/page
	expect_match "[hosts] the origin answered" "$(echo "$P" | jget .body)" '^origin port 80 host example\.com'
	refused "[hosts] a site off the list is refused" fetch url=http://evil.test/
	expect_eq "[hosts] with 403 from the proxy" "$(echo "$P" | jget .status)" 403
	pb_runtime web
	expect_eq "[hosts] runtime: recentDenied has it" \
	    "$(echo "$RT" | jget '.proxy.stats.recentDenied')" '["evil.test"]'
	sb_api GET /api/space/apps/web/sandbox
	expect_eq "[hosts] sandbox GET: the same counters" \
	    "$(echo "$BODY" | jget '[.proxy.stats.allowed, .proxy.stats.denied, .proxy.stats.recentDenied]')" \
	    '[1,1,["evil.test"]]'

	pid0=$PID
	sb_api PUT /api/space/apps/web/sandbox '{"enabled":true,"network":"hosts","hosts":["example.com","evil.test"]}'
	expect_eq "[hosts] a hosts edit applies live, no restart needed" \
	    "$(echo "$BODY" | jget '[.ok, .hostsAppliedLive, .restartRequired]')" '[true,true,false]'
	allowed "[hosts] the next fetch of the added site succeeds" fetch url=http://evil.test/
	pb_runtime web
	expect_eq "[hosts] same process, no restart asked" \
	    "$(echo "$RT" | jget '[.process.pid, .restartRequired, .restarts]')" "[$pid0,false,0]"

	sb_api PUT /api/space/apps/web/sandbox '{"enabled":true,"readMode":"strict","network":"hosts","hosts":["example.com","evil.test"]}'
	expect_eq "[hosts] another edit asks for a restart" \
	    "$(echo "$BODY" | jget '[.ok, .restartRequired]')" '[true,true]'
	pb_runtime web
	expect_eq "[hosts] runtime says so until then" \
	    "$(echo "$RT" | jget '[.process.pid, .restartRequired]')" "[$pid0,true]"
	lines0=$(grep -c 'sandbox: ' "$SENCLAW_HOME/sandbox/logs/web.log")
	PID=$pid0
	if pb_restart web; then
		expect_eq "[hosts] after the restart: no restart required" \
		    "$(echo "$RT" | jget .restartRequired)" false
		expect_match "[hosts] and the new launch is strict" \
		    "$(echo "$RT" | jget .process.logLine)" 'strict reads'
		allowed "[hosts] the allowed sites still work" fetch url=http://evil.test/
		expect_eq "[hosts] one launch, one sandbox line in the log" \
		    "$(grep -c 'sandbox: ' "$SENCLAW_HOME/sandbox/logs/web.log")" $((lines0 + 1))
	else
		not_ok "[hosts] restart"
	fi
else
	not_ok "[hosts] the app runs"
fi

# ------------------------------------------------ the log
out=$(sbc logs web 2>&1)
expect_match "spacebox logs shows the launch line" "$out" \
    'sandbox: bubblewrap — strict reads, network via allowlist proxy on 127\.0\.0\.1:[0-9]+, 0 folder\(s\) granted'
expect_match "and the app's own output" "$out" 'probe web listening on 127\.0\.0\.1:'
check "the log is the engine's file under the state root" \
    grep -q 'sandbox: bubblewrap — ' "$SENCLAW_HOME/sandbox/logs/web.log"
out=$(sbc status web --json 2>&1) && rc=0 || rc=$?
expect_eq "spacebox status --json" "$rc $(echo "$out" | jget .state)" "0 running"

pb_engine_stop
sb_done
