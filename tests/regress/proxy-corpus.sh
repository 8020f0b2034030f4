#!/usr/bin/env bash
# The allowlist proxy against the hostile-input corpus
# (tests/data/proxy-hostile.tsv), driven from the file: every connect, get,
# raw and dns row is sent as the exact bytes its header describes and must
# get exactly the expected status; a refused row never reaches the origin,
# a 403 carries X-Proxy-Error, an allowed tunnel relays bytes to the right
# address.  The site rows go through the management API.  Then real curl
# through the proxy, and hop-by-hop / Proxy-* headers never reach the origin.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/netlib.sh"
sb_setup
net_setup

CORPUS=$SB_SRC/tests/data/proxy-hostile.tsv
expect_eq "every corpus row has a kind this test knows" \
    "$(awk -F'\t' '!/^#/ && NF && $2 !~ /^(site|connect|get|raw|dns)$/ { print $1 }' "$CORPUS" | xargs)" ""
sb_app notes '{"id":"notes","name":"Notes","runtime":{"kind":"server","start":"python3 app.py"}}'
sb_app scratch '{"id":"scratch","name":"Scratch"}'
net_engine

sb_api PUT /api/space/apps/notes/sandbox \
    '{"enabled":true,"network":"hosts","hosts":["example.com","*.example.org"]}'
expect_eq "the fixture policy is stored" "$(echo "$BODY" | jget .config.hosts)" \
    '["example.com","*.example.org"]'
net_proxy notes || { not_ok "POST proxy starts the proxy"; sb_done; exit 1; }
ok "POST proxy answers a port ($PROXY_PORT)"
port1=$PROXY_PORT
sb_api POST /api/space/apps/notes/proxy
expect_eq "a second POST answers the same port" "$(echo "$BODY" | jget '[.appId,.port]')" \
    "[\"notes\",$port1]"
check "the proxy listens on 127.0.0.1:$PROXY_PORT" net_port_open "$PROXY_PORT"

# ------------------------------------------------------------ site rows
# Through PUT on a scratch app: ok:<stored> is stored as that, reject is 400.
nsite=0
while IFS=$'\t' read -r -u 3 id kind input expect note; do
	case $id in '#'*|'') continue ;; esac
	[ "$kind" = site ] || continue
	nsite=$((nsite + 1))
	sb_api PUT /api/space/apps/scratch/sandbox \
	    "$(jq -nc --arg h "$input" '{enabled:true,network:"hosts",hosts:[$h]}')"
	case $expect in
	ok:*)
		got="$CODE $(echo "$BODY" | jget '.config.hosts[0] // .error')"
		expect_eq "$id site '$input' is stored as ${expect#ok:} ($note)" \
		    "$got" "200 ${expect#ok:}" ;;
	reject)
		expect_eq "$id site '$input' is refused ($note)" "$CODE" 400 ;;
	*)
		not_ok "$id: unknown expectation '$expect'" ;;
	esac
done 3< "$CORPUS"
expect_eq "every site row was checked" "$nsite" \
    "$(awk -F'\t' '!/^#/ && $2 == "site"' "$CORPUS" | wc -l | tr -d ' ')"

# ------------------------------------------------------------ dns fixture
# The hosts file gives the engine exactly the answers the dns rows describe
# (198.18.0.2 in the file stands for this run's origin address); names the
# rows describe in words are checked by hand.
while IFS=$'\t' read -r -u 3 id kind input expect note; do
	[ "$kind" = dns ] || continue
	name=${input%% -> *}
	answers=${input#* -> }
	case $answers in
	'('*)	want=$NET_HOST ;;		# "an address of this machine"
	*)	want=$(echo "$answers" | tr -d ' ' | tr ',' '\n' |
		    sed "s/^198\.18\.0\.2\$/$NET_ORIGIN_IP/" | sort | xargs) ;;
	esac
	got=$(net_resolve "$name" | tr ' ' '\n' | sort | xargs)
	expect_eq "$id fixture: $name resolves to $want" "$got" "$want"
done 3< "$CORPUS"
expect_eq "mixed.example.org: getaddrinfo puts the loopback address first" \
    "$(net_resolve mixed.example.org)" "127.0.0.1 $NET_ORIGIN_IP"

# ------------------------------------------------------------ proxy rows
nrow=0
while IFS=$'\t' read -r -u 3 id kind input expect note; do
	case $id in '#'*|'') continue ;; esac
	case $kind in
	connect)
		data="CONNECT $input HTTP/1.1\\r\\nHost: $input\\r\\n\\r\\n"
		host=${input%:*} ;;
	get)
		auth=${input#*://}
		auth=${auth%%/*}
		auth=${auth##*@}
		data="GET $input HTTP/1.1\\r\\nHost: $auth\\r\\n\\r\\n"
		host=${auth%:*}
		case $auth in '['*) host=${auth%%]*}]; esac ;;
	raw)
		data=$input
		host=$(printf '%s' "$input" | sed -n 's/^[A-Z]* \(http:\/\/\)\{0,1\}\([^:/ ]*\).*/\2/p') ;;
	dns)
		host=${input%% -> *}
		data="CONNECT $host:443 HTTP/1.1\\r\\nHost: $host:443\\r\\n\\r\\n" ;;
	*)
		continue ;;
	esac
	nrow=$((nrow + 1))
	desc="$id $kind $(printf '%s' "$input" | cut -c1-60) -> $expect ($note)"
	before=$(net_log_lines)
	out=$T/resp.$id
	rm -f "$out"
	if [ "$expect" = 200 ] && [ "$kind" != get ]; then
		# A tunnel: bytes go through and come back from the echo origin.
		if [ "$id" = R05 ]; then
			got=$(net_send --timeout 5 --data="$data" --echo="SSH-2.0-early")
		else
			got=$(net_send --timeout 5 --data="$data" \
			    --after="ping $id\\n" --echo="ping $id\\n")
		fi
		expect_eq "$desc" "$got" "200 echo=ok"
		sleep 0.05
		new=$(tail -n +"$((before + 1))" "$NET_LOG")
		if [ "$id" = R05 ]; then
			want="443 $NET_HOST b'SSH-2.0-early'"
		else
			want="443 $NET_HOST b'ping $id\\n'"
		fi
		expect_eq "$id: the origin got one connection, and these bytes first" \
		    "$new" "$want"
		continue
	fi
	got=$(net_send --timeout 5 --data="$data" --out="$out")
	expect_eq "$desc" "$got" "$expect"
	case $expect in
	200)
		new=$(tail -n +"$((before + 1))" "$NET_LOG")
		port=80
		case $input in http://*:8080/*) port=8080 ;; esac
		expect_match "$id: the origin got one connection on $port" "$new" \
		    "^$port $NET_HOST b'GET "
		expect_eq "$id: one connection only" "$(printf '%s\n' "$new" | wc -l | tr -d ' ')" 1
		expect_match "$id: the client got the origin's answer" \
		    "$(sed -n '/^origin /p' "$out" 2>/dev/null)" \
		    "^origin port $port host example.com(:$port)? path "
		;;
	4*|close)
		expect_eq "$id: refused, the origin saw no connection" \
		    "$(net_log_lines)" "$before"
		;;
	esac
	if [ "$expect" = 403 ] && [ -f "$out" ]; then
		head=$(sed '/^\r$/q' "$out" | tr -d '\r')
		body=$(sed '1,/^\r$/d' "$out")
		expect_match "$id: 403 says blocked-by-spacebox" "$head" \
		    '^X-Proxy-Error: blocked-by-spacebox$'
		expect_eq "$id: 403 body is one line" \
		    "$(printf '%s' "$body" | grep -c '')" 1
		case $kind in
		dns)
			expect_match "$id: the body names the host" "$body" "$host" ;;
		esac
		case $id in
		C06|C07|R06)
			# Refused by the site list: the body says how to allow it.
			expect_match "$id: the body says 'spacebox allow notes $host'" \
			    "$body" "spacebox allow notes $host" ;;
		esac
	fi
done 3< "$CORPUS"
expect_eq "every connect/get/raw/dns row was sent" "$nrow" \
    "$(awk -F'\t' '!/^#/ && ($2 == "connect" || $2 == "get" || $2 == "raw" || $2 == "dns")' "$CORPUS" | wc -l | tr -d ' ')"

# Late connections: after a pause, the origin has seen exactly one
# connection per allowed row, and never a second request on one of them.
sleep 1.2
nok=$(awk -F'\t' '!/^#/ && ($2 == "connect" || $2 == "get" || $2 == "raw" || $2 == "dns") && $4 == "200"' "$CORPUS" | wc -l | tr -d ' ')
expect_eq "the origin saw one connection per allowed row, no more" "$(net_log_lines)" "$nok"

# ------------------------------------------------------------ real curl
P=http://127.0.0.1:$PROXY_PORT
out=$(curl -s --max-time 5 -x "$P" "http://example.com/curl?q=1") || true
expect_match "curl GET through the proxy reaches the origin" "$out" \
    '^origin port 80 host example.com path (http://example.com)?/curl\?q=1$'
out=$(curl -s --max-time 5 -x "$P" http://API.Example.ORG:8080/x | tr A-Z a-z) || true
expect_match "curl GET to port 8080 under the wildcard, any case" "$out" \
    '^origin port 8080 host api.example.org:8080 path '
out=$(curl -s --max-time 5 -p -x "$P" -w '\n%{http_connect}' http://example.com:8080/tunnelled) || true
expect_match "curl CONNECT tunnel (--proxytunnel) to port 8080: the origin answers" \
    "$out" '^origin port 8080 host example.com:8080 path /tunnelled$'
expect_eq "curl saw 200 for the CONNECT" "${out##*$'\n'}" 200
out=$(curl -s --max-time 5 -p -x "$P" -o /dev/null -w '%{http_connect}' http://evil.test/) || true
expect_eq "curl CONNECT to a host off the list gets 403" "$out" 403
before=$(net_log_lines)
out=$(curl -s --max-time 5 -i -x "$P" http://evil.test/x) || true
expect_match "curl GET off the list: 403" "$(printf '%s' "$out" | head -1)" '^HTTP/1\.[01] 403'
expect_match "the refusal carries X-Proxy-Error: blocked-by-spacebox" \
    "$(printf '%s' "$out" | tr -d '\r')" '^X-Proxy-Error: blocked-by-spacebox$'
expect_match "the refusal's body names the host and 'spacebox allow notes evil.test'" \
    "$(printf '%s' "$out" | tr -d '\r' | sed '1,/^$/d')" 'evil\.test.*spacebox allow notes evil\.test'
expect_eq "and the origin saw nothing" "$(net_log_lines)" "$before"

# ------------------------------------------------------------ hop-by-hop
before=$(net_log_lines)
out=$(curl -s --max-time 5 -x "$P" \
    -H 'Proxy-Authorization: Basic Zm9vOmJhcg==' \
    -H 'Proxy-Connection: keep-alive' \
    -H 'Proxy-Foo: bar' \
    -H 'Keep-Alive: timeout=5' \
    -H 'Connection: X-Secret-Hop, keep-alive' \
    -H 'X-Secret-Hop: 1' \
    -H 'TE: trailers' \
    -H 'Upgrade: websocket' \
    -H 'X-Keep-Me: yes' \
    http://example.com/hop) || true
hdrs=$(printf '%s\n' "$out" | sed '1,/^--- headers$/d')
expect_match "a plain end-to-end header reaches the origin" "$hdrs" '^X-Keep-Me: yes$'
expect_match "the origin gets Connection: close" "$hdrs" '^[Cc]onnection: close$'
expect_eq "exactly one Connection header reaches the origin" \
    "$(printf '%s\n' "$hdrs" | grep -ic '^connection:')" 1
for h in Proxy-Authorization Proxy-Connection Proxy-Foo Keep-Alive X-Secret-Hop TE Upgrade; do
	check "$h does not reach the origin" \
	    sh -c '! printf "%s\n" "$1" | grep -iq "^$2:"' sh "$hdrs" "$h"
done
expect_eq "the Host header reaches the origin once" \
    "$(printf '%s\n' "$hdrs" | grep -ic '^host:')" 1

# One request per connection: a second, pipelined request (to a host off
# the list) never reaches the origin unchecked.
before=$(net_log_lines)
got=$(net_send --timeout 5 --out="$T/pipe" \
    --data='GET http://example.com/one HTTP/1.1\r\nHost: example.com\r\n\r\nGET http://evil.test/two HTTP/1.1\r\nHost: evil.test\r\n\r\n')
expect_eq "the first of two pipelined requests is answered" "$got" 200
sleep 0.8
new=$(tail -n +"$((before + 1))" "$NET_LOG")
expect_eq "the origin saw one connection" "$(printf '%s\n' "$new" | grep -c '')" 1
check "the pipelined second request never reached the origin" \
    sh -c '! grep -q "/two" "$1"' sh "$NET_LOG"
if grep -q 'HTTP/1.1 200.*HTTP/1' "$T/pipe" 2>/dev/null; then
	expect_match "if a second answer comes it is a refusal" \
	    "$(tr -d '\r' < "$T/pipe" | grep '^HTTP/' | sed -n 2p)" ' 403'
fi
check "the origin never got bytes after a request (no smuggling)" \
    sh -c '! grep -q " EXTRA " "$1"' sh "$NET_LOG"

sb_api GET /api/space/apps/notes/sandbox
expect_eq "GET sandbox shows the proxy's port" "$(echo "$BODY" | jget .proxy.port)" "$PROXY_PORT"
check "the engine survived the corpus" net_port_open "$PROXY_PORT"

sb_done
