#!/usr/bin/env bash
# The allowlist proxy while things change: a refused site shows up in the
# API's recentDenied and on the event stream, "spacebox allow" lets the very
# next request through, a PUT applies at once and closes tunnels to hosts it
# no longer allows (and only those), the counters match the requests made,
# DELETE closes everything, and only a hosts-mode app gets a proxy.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/netlib.sh"
sb_setup
net_setup

sb_app notes '{"id":"notes","name":"Notes","runtime":{"kind":"server","start":"python3 app.py"}}'
sb_app open '{"id":"open","name":"Open"}'
net_engine
net_events_start

connect() {	# connect HOST:PORT [send options]: CONNECT, prints the status
	local t=$1
	shift
	net_send --timeout 5 --data="CONNECT $t HTTP/1.1\\r\\nHost: $t\\r\\n\\r\\n" "$@"
}
stats() {	# the proxy block of GET sandbox, as [allowed,denied,recentDenied]
	sb_api GET /api/space/apps/notes/sandbox
	echo "$BODY" | jget '.proxy.stats | [.allowed,.denied,.recentDenied]'
}
wants_events() {	# wants_events HOST: how many wants events name HOST
	jq -R -c --arg h "$1" 'fromjson? | select(.event == "wants" and .host == $h)' \
	    "$T/events" | wc -l | tr -d ' '
}
allowed=0
denied=0

sb_api PUT /api/space/apps/notes/sandbox \
    '{"enabled":true,"network":"hosts","hosts":["example.com"]}'
expect_eq "without a proxy, PUT does not apply live" "$(echo "$BODY" | jget .hostsAppliedLive)" false
net_proxy notes || { not_ok "POST proxy starts the proxy"; sb_done; exit 1; }
ok "the proxy runs on port $PROXY_PORT"
expect_eq "a fresh proxy has zero counters" "$(stats)" '[0,0,[]]'

# ---------------------------------------------------------------- (a)
before=$(net_log_lines)
got=$(connect api.example.org:443 --out="$T/r1")
denied=$((denied + 1))
expect_eq "a site off the list is refused" "$got" 403
expect_match "the refusal names the site and the command that allows it" \
    "$(sed '1,/^\r$/d' "$T/r1")" 'api\.example\.org.*spacebox allow notes api\.example\.org'
expect_eq "the origin saw nothing" "$(net_log_lines)" "$before"
expect_eq "recentDenied has the site" "$(stats)" "[0,$denied,[\"api.example.org\"]]"
check "the event stream announces what the app wants" \
    net_wait_for "$T/events" '"host" *: *"api\.example\.org"' 30
expect_eq "the wants event has the documented shape" \
    "$(jq -R -c 'fromjson? | select(.event == "wants")' "$T/events" | head -1 | jget '[.event,.appId,.host]')" \
    '["wants","notes","api.example.org"]'

got=$(connect api.example.org:443)
denied=$((denied + 1))
expect_eq "refused again" "$got" 403
got=$(net_send --timeout 5 --data='GET http://evil.test/x HTTP/1.1\r\nHost: evil.test\r\n\r\n')
denied=$((denied + 1))
expect_eq "a plain GET off the list is refused" "$got" 403
check "the second wanted site is announced" \
    net_wait_for "$T/events" '"host" *: *"evil\.test"' 30
sleep 0.3
expect_eq "a site refused twice is announced once" "$(wants_events api.example.org)" 1
expect_eq "recentDenied is distinct, most recent last" "$(stats)" \
    "[0,$denied,[\"api.example.org\",\"evil.test\"]]"

out=$("$SPACEBOX" --workspace "$WS" --no-start allow notes api.example.org 2>&1) && rc=0 || rc=$?
expect_eq "spacebox allow exits 0" "$rc" 0
before=$(net_log_lines)
got=$(connect api.example.org:443 --after='live\n' --echo='live\n')
allowed=$((allowed + 1))
expect_eq "the very next request goes through, nothing restarted" "$got" "200 echo=ok"
expect_eq "and reaches the origin" "$(tail -n +"$((before + 1))" "$NET_LOG")" \
    "443 $NET_HOST b'live\\n'"
sb_api POST /api/space/apps/notes/sandbox/hosts '{"host":"evil.test"}'
expect_eq "POST sandbox/hosts adds a site" "$(echo "$BODY" | jget .config.hosts)" \
    '["example.com","api.example.org","evil.test"]'
got=$(net_send --timeout 5 --out="$T/r2" --data='GET http://evil.test/y HTTP/1.1\r\nHost: evil.test\r\n\r\n')
allowed=$((allowed + 1))
expect_eq "a site added over the API is allowed at once" "$got" 200
expect_match "the origin answered" "$(grep '^origin' "$T/r2")" '^origin port 80 host evil\.test '
expect_eq "(c) counters after (a)" "$(stats | jget '.[0:2]')" "[$allowed,$denied]"

# ---------------------------------------------------------------- (b)
sb_api POST /api/space/apps/notes/sandbox/hosts '{"host":"*.example.org"}'
expect_eq "a wildcard site is added" "$CODE" 200
net_tunnel tw a.b.example.org:443
allowed=$((allowed + 1))
expect_eq "tunnel to a.b.example.org (by the wildcard) opens" "$TUN_STATUS" 200
check "the wildcard tunnel relays" net_tsend tw hello-wild
net_tunnel t1 example.com:443
allowed=$((allowed + 1))
expect_eq "tunnel 1 to example.com opens" "$TUN_STATUS" 200
net_tunnel t2 api.example.org:443
allowed=$((allowed + 1))
expect_eq "tunnel 2 to api.example.org opens" "$TUN_STATUS" 200
check "tunnel 1 relays" net_tsend t1 hello-one
check "tunnel 2 relays" net_tsend t2 hello-two

sb_api PUT /api/space/apps/notes/sandbox \
    '{"enabled":true,"network":"hosts","hosts":["api.example.org","evil.test"]}'
expect_eq "PUT with a proxy running applies the site list live" \
    "$(echo "$BODY" | jget '[.ok,.hostsAppliedLive]')" '[true,true]'
check "the tunnel to the removed site is closed by the proxy" net_teof t1 30
check "so is the tunnel the removed wildcard allowed" net_teof tw 30
check "the tunnel to a site still listed stays open (it was also under the wildcard)" net_talive t2
check "and still relays" net_tsend t2 still-here
got=$(connect example.com:443)
denied=$((denied + 1))
expect_eq "a new tunnel to the removed site is refused" "$got" 403
got=$(net_send --timeout 5 --data='GET http://example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n')
denied=$((denied + 1))
expect_eq "so is a plain GET to it" "$got" 403
sb_api GET /api/space/apps/notes/sandbox
expect_eq "recentDenied: the removed site comes last" \
    "$(echo "$BODY" | jget '.proxy.stats.recentDenied[-1]')" example.com

# ---------------------------------------------------------------- (c)
expect_eq "(c) allowed and denied count the requests made" \
    "$(stats | jget '.[0:2]')" "[$allowed,$denied]"

# ---------------------------------------------------------------- (d)
net_tunnel t3 evil.test:443
allowed=$((allowed + 1))
expect_eq "tunnel 3 opens" "$TUN_STATUS" 200
check "tunnel 3 relays" net_tsend t3 hello-three
expect_eq "(c) counters before DELETE" "$(stats | jget '.[0:2]')" "[$allowed,$denied]"
sb_api DELETE /api/space/apps/notes/proxy
expect_eq "DELETE proxy answers 200" "$CODE" 200
check "DELETE closes tunnel 2" net_teof t2 30
check "DELETE closes tunnel 3" net_teof t3 30
if net_port_open "$PROXY_PORT"; then
	not_ok "the port no longer accepts"
else
	ok "the port no longer accepts"
fi
sb_api GET /api/space/apps/notes/sandbox
expect_eq "GET sandbox shows no proxy" "$(echo "$BODY" | jget .proxy)" null
sb_api PUT /api/space/apps/notes/sandbox \
    '{"enabled":true,"network":"hosts","hosts":["api.example.org"]}'
expect_eq "with the proxy stopped, PUT is not live" "$(echo "$BODY" | jget .hostsAppliedLive)" false
net_proxy notes && ok "the proxy starts again" || not_ok "the proxy starts again"
got=$(connect api.example.org:443 --after='again\n' --echo='again\n')
expect_eq "and serves" "$got" "200 echo=ok"
got=$(connect evil.test:443)
expect_eq "with the site list saved while it was stopped" "$got" 403

# ---------------------------------------------------------------- (e)
sb_api PUT /api/space/apps/open/sandbox '{"enabled":true,"network":"all"}'
sb_api POST /api/space/apps/open/proxy
expect_eq "POST proxy on a network-all app is 409" "$CODE" 409
expect_match "with a reason" "$(echo "$BODY" | jget .error)" .
sb_api PUT /api/space/apps/open/sandbox '{"enabled":true,"network":"off"}'
sb_api POST /api/space/apps/open/proxy
expect_eq "POST proxy on a network-off app is 409" "$CODE" 409
sb_api GET /api/space/apps/open/sandbox
expect_eq "and it has no proxy" "$(echo "$BODY" | jget .proxy)" null
sb_api POST /api/space/apps/nosuch/proxy
expect_eq "POST proxy for an unknown app is 404" "$CODE" 404

check "the event stream stayed open" kill -0 "$NET_EVENTS_PID"

sb_done
