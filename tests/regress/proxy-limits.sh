#!/usr/bin/env bash
# The allowlist proxy's limits: request line > 8 KiB is 414, a header block
# > 16 KiB or > 100 headers is 431, a header not complete within 15 s is
# 408 (also when it trickles in), the per-app tunnel cap answers 429 and
# frees a slot when a tunnel closes, an idle tunnel is closed after the idle
# timeout while a busy one is not, and an upstream connect that never
# completes is 504 after 10 s.  A refused request never reaches the origin.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/netlib.sh"
sb_setup
net_setup

sb_app notes '{"id":"notes","name":"Notes","runtime":{"kind":"server","start":"python3 app.py"}}'
POLICY='{"enabled":true,"network":"hosts","hosts":["example.com","*.example.org"]}'

# repeat N TEXT: TEXT N times.
repeat() {
	local i out=
	for i in $(seq 1 "$1"); do out=$out$2; done
	printf '%s' "$out"
}
# between LOW HIGH X: LOW <= X <= HIGH (decimals).
between() {
	awk -v l="$1" -v h="$2" -v x="$3" 'BEGIN { exit !(x != "" && x >= l && x <= h) }'
}

# ------------------------------------------------ engine 1: a cap of 3
net_engine --proxy-max-tunnels 3
sb_api PUT /api/space/apps/notes/sandbox "$POLICY"
net_proxy notes || { not_ok "POST proxy starts the proxy"; sb_done; exit 1; }
ok "the proxy runs on port $PROXY_PORT (cap 3)"

# The 15 s header deadline runs in the background meanwhile.
net_send --timeout 25 --time \
    --data='GET http://example.com/ HTTP/1.1\r\nHost: exa' > "$T/p408a" &
p408a=$!
net_send --timeout 25 --time --trickle 1 \
    --data='GET http://example.com/ HTTP/1.1\r\nHost: example.com\r\nX-Slow: ' > "$T/p408b" &
p408b=$!

start=$(net_log_lines)
# 414: request line.
got=$(net_send --data="GET http://example.com/$(repeat 9000 a) HTTP/1.1\\r\\nHost: example.com\\r\\n\\r\\n")
expect_eq "a 9 KB request line is 414" "$got" 414
got=$(net_send --data="GET http://example.com/$(repeat 8000 b) HTTP/1.1\\r\\nHost: example.com\\r\\n\\r\\n")
expect_eq "an 8000-byte request line is served" "$got" 200

# 431: header block size and count.
pad=$(repeat 1000 p)
hdrs=
for i in $(seq 1 17); do hdrs="${hdrs}X-Pad-$i: $pad\\r\\n"; done
before=$(net_log_lines)
got=$(net_send --data="GET http://example.com/ HTTP/1.1\\r\\nHost: example.com\\r\\n$hdrs\\r\\n")
expect_eq "a 17 KB header block is 431" "$got" 431
got=$(net_send --data="CONNECT example.com:443 HTTP/1.1\\r\\nHost: example.com:443\\r\\n$hdrs\\r\\n")
expect_eq "also on CONNECT" "$got" 431
hdrs=
for i in $(seq 1 15); do hdrs="${hdrs}X-Pad-$i: $pad\\r\\n"; done
got=$(net_send --data="GET http://example.com/ HTTP/1.1\\r\\nHost: example.com\\r\\n$hdrs\\r\\n")
expect_eq "a 15 KB header block is served" "$got" 200
hdrs=
for i in $(seq 1 100); do hdrs="${hdrs}X-H$i: v\\r\\n"; done
got=$(net_send --data="GET http://example.com/ HTTP/1.1\\r\\nHost: example.com\\r\\n$hdrs\\r\\n")
expect_eq "101 headers is 431" "$got" 431
hdrs=
for i in $(seq 1 99); do hdrs="${hdrs}X-H$i: v\\r\\n"; done
got=$(net_send --data="GET http://example.com/ HTTP/1.1\\r\\nHost: example.com\\r\\n$hdrs\\r\\n")
expect_eq "100 headers is served" "$got" 200
expect_eq "only the three served requests reached the origin" \
    "$(net_log_lines)" "$((start + 3))"

# 408: both probes end within 13.5-18 s of their start.
wait "$p408a" "$p408b" || true
read -r code secs < "$T/p408a" || true
expect_eq "half a header: 408" "$code" 408
check "  after the 15 s deadline (took ${secs:-?} s)" between 13.5 18 "${secs:-}"
read -r code secs < "$T/p408b" || true
expect_eq "a header trickling in a byte a second: 408 all the same" "$code" 408
check "  after the 15 s deadline (took ${secs:-?} s)" between 13.5 18 "${secs:-}"
expect_eq "neither reached the origin" "$(net_log_lines)" "$((start + 3))"

# 429: the per-app tunnel cap.
for t in t1 t2 t3; do
	net_tunnel $t example.com:443
	expect_eq "tunnel $t opens" "$TUN_STATUS" 200
done
check "tunnel t3 relays" net_tsend t3 three
before=$(net_log_lines)
net_tunnel t4 example.com:443
expect_eq "a fourth tunnel is 429" "$TUN_STATUS" 429
expect_eq "and never reached the origin" "$(net_log_lines)" "$before"
net_tclose t1
status=
for i in $(seq 1 20); do
	net_tunnel t5 api.example.org:443
	status=$TUN_STATUS
	[ "$status" = 200 ] && break
	sleep 0.1
done
expect_eq "closing one lets a new one in" "$status" 200
check "and it relays" net_tsend t5 five
net_tunnel t6 example.com:443
expect_eq "then the cap holds again" "$TUN_STATUS" 429
check "tunnel t2 is untouched" net_tsend t2 two
for t in t2 t3 t5; do net_tclose $t; done

# ------------------------------------------------ engine 2: idle timeout 2 s
net_engine_stop
net_engine --proxy-idle-timeout 2
net_proxy notes || { not_ok "POST proxy starts the proxy again"; sb_done; exit 1; }
ok "the proxy runs on port $PROXY_PORT (idle timeout 2 s)"

# 504 runs in the background: the black hole is a namespace address whose
# replies are routed nowhere, so a connect to it never completes.
if "$NET_PY" -c 'import socket,sys
s = socket.socket()
s.settimeout(1.5)
try:
    s.connect((sys.argv[1], 443))
except socket.timeout:
    sys.exit(0)
except OSError:
    pass
sys.exit(1)' "$NET_HOLE_IP"; then
	ok "fixture: a connect to the black hole $NET_HOLE_IP:443 hangs"
	net_send --timeout 20 --time \
	    --data='CONNECT blackhole.example.org:443 HTTP/1.1\r\nHost: blackhole.example.org:443\r\n\r\n' \
	    > "$T/p504" &
	p504=$!
else
	not_ok "fixture: a connect to the black hole $NET_HOLE_IP:443 hangs"
	p504=
fi

net_tunnel idle example.com:443
expect_eq "an idle tunnel opens" "$TUN_STATUS" 200
net_tunnel busy a.b.example.org:443 --keepalive 0.5
expect_eq "a busy tunnel opens (a byte every 0.5 s)" "$TUN_STATUS" 200
check "the idle tunnel relays once" net_tsend idle once
check "the idle tunnel is closed by the proxy" net_teof idle 70
check "  2-5 s after its last byte (${TUN_EOF:-?} s after it opened)" between 1.8 5.5 "${TUN_EOF:-}"
sleep 2.2
check "the busy tunnel is still open after 4 s" net_talive busy
check "and relays" net_tsend busy busy-still
net_tclose busy

if [ -n "$p504" ]; then
	wait "$p504" || true
	read -r code secs < "$T/p504" || true
	expect_eq "an upstream connect that never completes is 504" "$code" 504
	check "  after the 10 s connect timeout (took ${secs:-?} s)" between 9.5 13 "${secs:-}"
fi

sb_done
