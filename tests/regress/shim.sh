#!/usr/bin/env bash
# spacebox-shim under real bubblewrap: the inbound bridge (a listener bound
# on the host's loopback, handed down as fd 3, reaches a server inside an
# isolated network namespace), the outbound bridge (127.0.0.1:PORT inside
# reaches a unix socket on the host, nothing else is reachable), signal
# forwarding, exit status passthrough, reaping as PID 1, setup errors, and
# the inbound bridge again as an unprivileged user.  Loopback only.
. "$(dirname "$0")/lib.sh"
sb_setup
set +e		# a failing step is a "not ok", never a silent stop

SHIM=$SB_BIN/spacebox-shim
if ! command -v bwrap >/dev/null || ! command -v python3 >/dev/null; then
	echo "# skip: needs bwrap and python3"
	sb_done
	exit
fi
if [ ! -x "$SHIM" ]; then
	not_ok "$SHIM is built"
	sb_done
fi
BW=(bwrap --ro-bind / / --dev /dev --proc /proc --bind "$T" "$T"
    --unshare-pid --unshare-net --as-pid-1 --die-with-parent --new-session)

# Everything started in the background is listed here and stopped at exit.
bg_pids=
shim_cleanup() {
	local p
	exec 2>/dev/null	# no job notices for what is killed here
	for p in $bg_pids; do kill "$p" 2>/dev/null || true; done
	sb_cleanup
}
trap shim_cleanup EXIT

# launch.py PORTFILE CMD...: listen on the host's 127.0.0.1:0, write the
# port, pass the listener as fd 3 to CMD.
cat > "$T/launch.py" <<'EOF'
import os, socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(64)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write("%d\n" % s.getsockname()[1])
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
if s.fileno() != 3:
    os.dup2(s.fileno(), 3)
os.set_inheritable(3, True)
os.execvp(sys.argv[2], sys.argv[2:])
EOF

# sumserver.py PORT: inside; per connection, read to EOF, answer with the
# length and sha256 of what came, then close (exercises both half-closes).
cat > "$T/sumserver.py" <<'EOF'
import hashlib, socket, sys, threading
def serve(c):
    h, n = hashlib.sha256(), 0
    while True:
        b = c.recv(1 << 16)
        if not b:
            break
        h.update(b); n += len(b)
    c.sendall(b"%d %s\n" % (n, h.hexdigest().encode()))
    c.close()
s = socket.socket()
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(64)
while True:
    c, _ = s.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
EOF

# sumclient.py PORT BYTES: send BYTES random bytes, half-close, expect the
# right length and digest back.
cat > "$T/sumclient.py" <<'EOF'
import hashlib, os, socket, sys
data = os.urandom(int(sys.argv[2]))
c = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=20)
c.sendall(data)
c.shutdown(socket.SHUT_WR)
got = b""
while True:
    b = c.recv(4096)
    if not b:
        break
    got += b
want = b"%d %s\n" % (len(data), hashlib.sha256(data).hexdigest().encode())
print("match" if got == want else "mismatch: %r" % got)
EOF

# echo_unix.py PATH: the engine's side of an outbound bridge.
cat > "$T/echo_unix.py" <<'EOF'
import os, socket, sys, threading
def serve(c):
    while True:
        b = c.recv(65536)
        if not b:
            break
        c.sendall(b)
    c.close()
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1] + ".tmp")
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
s.listen(16)
while True:
    c, _ = s.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
EOF

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# wait_file FILE [TENTHS]: until FILE exists and is not empty.
wait_file() {
	local i
	for i in $(seq 1 "${2:-100}"); do
		[ -s "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

# wait_gone PID [TENTHS]: until PID has exited; sets RC to its status.
wait_gone() {
	local i
	for i in $(seq 1 "${2:-100}"); do
		if ! kill -0 "$1" 2>/dev/null; then
			RC=0
			wait "$1" || RC=$?
			return 0
		fi
		sleep 0.1
	done
	RC=timeout
	return 1
}

# child_pid INFOFILE: the shim's pid on the host, from bwrap's --info-fd.
child_pid() {
	wait_file "$1" && jq -r '."child-pid"' < "$1"
}

# --- exit status and setup errors --------------------------------------

rc=0; timeout 20 "${BW[@]}" -- "$SHIM" -- sh -c 'exit 7' || rc=$?
expect_eq "the app's exit status passes through" "$rc" 7

rc=0; timeout 20 "${BW[@]}" -- "$SHIM" -- sh -c 'kill -9 $$' || rc=$?
expect_eq "an app killed by SIGKILL gives 137" "$rc" 137

rc=0; err=$(timeout 20 "${BW[@]}" -- "$SHIM" --inbound 3 -- true 2>&1) ||
    rc=$?
expect_eq "bad arguments exit 127" "$rc" 127
expect_match "bad arguments say why on one line" "$err" \
    '^spacebox-shim: --inbound wants FD:PORT, got "3"$'

rc=0; err=$("$SHIM" --frobnicate -- true 2>&1) || rc=$?
expect_eq "an unknown option exits 127" "$rc" 127
expect_match "an unknown option is named" "$err" \
    '^spacebox-shim: bad option or missing argument: --frobnicate; usage:'

rc=0; err=$("$SHIM" --lo-up 2>&1) || rc=$?
expect_eq "no command exits 127" "$rc" 127
expect_match "no command is reported" "$err" '^spacebox-shim: no command given'

rc=0; err=$("$SHIM" --inbound 0:80 -- true 2>&1 </dev/null) || rc=$?
expect_eq "an inbound fd that is not a socket exits 127" "$rc" 127
expect_match "the inbound fd is named" "$err" \
    '^spacebox-shim: --inbound 0:80: fd 0: Socket operation on non-socket$'

rc=0; err=$(timeout 20 "${BW[@]}" -- "$SHIM" -- "$T/no/such-cmd" 2>&1) ||
    rc=$?
expect_eq "a missing command exits 127" "$rc" 127
expect_eq "a missing command is named with errno" "$err" \
    "spacebox-shim: cannot exec $T/no/such-cmd: No such file or directory"

rc=0; err=$(timeout 20 "${BW[@]}" -- "$SHIM" --outbound 5555:/x \
    --outbound 5555:/y -- true 2>&1) || rc=$?
expect_eq "a port given twice exits 127" "$rc" 127
expect_match "the doubled port is named" "$err" 'port 5555 given twice'

# The app must not inherit the host's listener (nor other stray fds).
rc=0; out=$(timeout 20 python3 "$T/launch.py" "$T/fdport" "${BW[@]}" -- \
    "$SHIM" --inbound 3:8000 -- sh -c 'ls /proc/self/fd' 9</dev/null) ||
    rc=$?
expect_eq "the app only gets stdin, stdout and stderr" \
    "$(echo $out)" "0 1 2 3"	# 3: ls's own directory fd

# --- loopback ----------------------------------------------------------

out=$(timeout 20 "${BW[@]}" -- "$SHIM" --lo-up -- ip -br link show lo 2>&1)
expect_match "--lo-up: bwrap already brought lo up" "$out" '<LOOPBACK,UP'
if command -v unshare >/dev/null && unshare -rn true 2>/dev/null; then
	out=$(timeout 20 unshare -rn "$SHIM" --lo-up -- ip -br link show lo \
	    2>&1)
	expect_match "--lo-up brings a down lo up when it may" "$out" \
	    '<LOOPBACK,UP'
	rc=0; err=$(timeout 20 unshare -rn setpriv --bounding-set -all \
	    --inh-caps -all -- "$SHIM" --lo-up -- true 2>&1) || rc=$?
	expect_eq "--lo-up without the capability fails with 127" "$rc" 127
	expect_match "--lo-up says why" "$err" \
	    '^spacebox-shim: --lo-up: loopback is down and cannot be brought up: Operation not permitted$'
fi

# --- inbound -----------------------------------------------------------

mkdir -p "$T/www"
echo "token-$$-$RANDOM" > "$T/www/index.html"
head -c 20000000 /dev/urandom > "$T/www/big"
port2=$(free_port)
timeout 120 python3 "$T/launch.py" "$T/port" "${BW[@]}" --info-fd 5 -- \
    "$SHIM" --inbound "3:$port2" -- python3 -m http.server "$port2" \
    --bind 127.0.0.1 --directory "$T/www" \
    >"$T/http.out" 2>"$T/http.err" 5>"$T/http.info" &
http_pid=$!
bg_pids="$bg_pids $http_pid"
wait_file "$T/port"
port=$(cat "$T/port")
# Sent at once: the server is not listening yet, the shim retries.
got=$(curl -s --max-time 10 "http://127.0.0.1:$port/index.html" || true)
expect_eq "inbound: curl on the host reaches the server in the namespace" \
    "$got" "$(cat "$T/www/index.html")"
rc=0; curl -s --max-time 5 -o /dev/null "http://127.0.0.1:$port2/" || rc=$?
expect_eq "inbound: the app's own port is not reachable from the host" \
    "$rc" 7
got=$(curl -s --max-time 20 "http://127.0.0.1:$port/big" | sha256sum)
expect_eq "inbound: 20 MB arrive intact" "$got" \
    "$(sha256sum < "$T/www/big")"
n=0 curls=
for i in $(seq 1 20); do
	curl -s --max-time 10 -o "$T/par.$i" "http://127.0.0.1:$port/index.html" &
	curls="$curls $!"
done
wait $curls 2>/dev/null || true
for i in $(seq 1 20); do
	cmp -s "$T/par.$i" "$T/www/index.html" && n=$((n + 1))
done
expect_eq "inbound: 20 parallel requests all answered" "$n" 20
shim=$(child_pid "$T/http.info" || true)
kill -TERM "$shim"
wait_gone "$http_pid" 50 || true
expect_eq "inbound: SIGTERM reaches the server; status 128+15" "$RC" 143
expect_eq "inbound: the shim had nothing to say" \
    "$(grep '^spacebox-shim' "$T/http.err" || true)" ""

# An app that listens on ::1 only (Node's "localhost" may) is reached too.
port2=$(free_port)
timeout 60 python3 "$T/launch.py" "$T/6port" "${BW[@]}" --info-fd 5 -- \
    "$SHIM" --inbound "3:$port2" -- python3 -m http.server "$port2" \
    --bind ::1 --directory "$T/www" >/dev/null 2>&1 5>"$T/6.info" &
six_pid=$!
bg_pids="$bg_pids $six_pid"
wait_file "$T/6port"
got=$(curl -s --max-time 10 "http://127.0.0.1:$(cat "$T/6port")/index.html" ||
    true)
expect_eq "inbound: an app on [::1] only is reached" "$got" \
    "$(cat "$T/www/index.html")"
kill -TERM "$(child_pid "$T/6.info")"
wait_gone "$six_pid" 50 || true

# Half-close both ways, bulk both ways.
port2=$(free_port)
timeout 60 python3 "$T/launch.py" "$T/sport" "${BW[@]}" --info-fd 5 -- \
    "$SHIM" --inbound "3:$port2" -- python3 "$T/sumserver.py" "$port2" \
    2>"$T/sum.err" 5>"$T/sum.info" &
sum_pid=$!
bg_pids="$bg_pids $sum_pid"
wait_file "$T/sport"
got=$(timeout 30 python3 "$T/sumclient.py" "$(cat "$T/sport")" 8000000 2>&1)
expect_eq "inbound: 8 MB up, EOF passed on, answer back after it" "$got" \
    match
got=$(timeout 30 python3 "$T/sumclient.py" "$(cat "$T/sport")" 0 2>&1)
expect_eq "inbound: an immediate half-close still gets its answer" "$got" \
    match
kill -TERM "$(child_pid "$T/sum.info")"
wait_gone "$sum_pid" 50 || true

# The app writes, exits at once: what it wrote still arrives in full.
port2=$(free_port)
timeout 60 python3 "$T/launch.py" "$T/wport" "${BW[@]}" -- \
    "$SHIM" --inbound "3:$port2" -- python3 -c '
import os, socket, sys
s = socket.socket()
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(1)
c, _ = s.accept()
c.sendall(open(sys.argv[2], "rb").read())
os._exit(9)' "$port2" "$T/www/big" 2>"$T/w.err" &
w_pid=$!
bg_pids="$bg_pids $w_pid"
wait_file "$T/wport"
got=$(timeout 30 python3 -c '
import hashlib, socket, sys
c = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=20)
h = hashlib.sha256()
while True:
    b = c.recv(1 << 16)
    if not b:
        break
    h.update(b)
print(h.hexdigest())' "$(cat "$T/wport")" 2>&1)
expect_eq "inbound: an app that writes 20 MB and exits: all of it arrives" \
    "$got  -" "$(sha256sum < "$T/www/big")"
wait_gone "$w_pid" 50 || true
expect_eq "inbound: ... and its status passes through" "$RC" 9
expect_eq "inbound: ... and the shim had nothing to say" "$(cat "$T/w.err")" ""

# Nobody listens inside: the connection is closed after the retries.
timeout 30 python3 "$T/launch.py" "$T/nport" "${BW[@]}" -- \
    "$SHIM" --inbound "3:$(free_port)" -- sleep 20 2>"$T/none.err" &
none_pid=$!
bg_pids="$bg_pids $none_pid"
wait_file "$T/nport"
start=$(date +%s%N)
rc=0; curl -s --max-time 10 "http://127.0.0.1:$(cat "$T/nport")/" || rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
# curl 56: reset (52, an empty reply, would do too)
expect_match "inbound: no server inside: the connection is closed" \
    "$rc" '^(52|56)$'
check "inbound: ... after about 2 s of retries (took $ms ms)" \
    test "$ms" -ge 1500 -a "$ms" -le 5000
expect_match "inbound: the refusal is logged" "$(cat "$T/none.err")" \
    '^spacebox-shim: inbound connection to port [0-9]+ \(127.0.0.1, ::1\): Connection refused$'
kill "$none_pid" 2>/dev/null || true
wait_gone "$none_pid" 50 || true

# --- outbound ----------------------------------------------------------

timeout 60 python3 "$T/echo_unix.py" "$T/ob.sock" &
echo_pid=$!
bg_pids="$bg_pids $echo_pid"
for i in $(seq 1 50); do [ -S "$T/ob.sock" ] && break; sleep 0.1; done
# A listener on the host's loopback: inside, its port must be refused.
python3 -c 'import socket,time; s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(); open("'"$T"'/hport","w").write(str(s.getsockname()[1])); time.sleep(30)' &
hl_pid=$!
bg_pids="$bg_pids $hl_pid"
wait_file "$T/hport"
out=$(timeout 30 "${BW[@]}" -- "$SHIM" --outbound "5555:$T/ob.sock" -- \
    python3 -c '
import socket, sys
c = socket.create_connection(("127.0.0.1", 5555), timeout=10)
data = b"hello through the bridge " * 40000
c.sendall(data)
c.shutdown(socket.SHUT_WR)
got = b""
while True:
    b = c.recv(65536)
    if not b:
        break
    got += b
print("echo ok" if got == data else "echo bad %d" % len(got))
for port in (5556, int(sys.argv[1])):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=5)
        print("%d reachable" % port)
    except ConnectionRefusedError:
        print("%d refused" % port)
    except OSError as e:
        print("%d %s" % (port, e))
' "$(cat "$T/hport")" 2>&1)
expect_match "outbound: 127.0.0.1:5555 inside reaches the host's unix socket" \
    "$out" '^echo ok$'
expect_match "outbound: another port inside is refused" "$out" \
    '^5556 refused$'
expect_match "outbound: a port listening on the host is refused inside" \
    "$out" "^$(cat "$T/hport") refused$"
kill "$hl_pid" 2>/dev/null || true

rc=0; err=$(timeout 20 "${BW[@]}" -- "$SHIM" --outbound "5555:$T/ob.sock" \
    --outbound "5555:$T/other.sock" -- true 2>&1) || rc=$?
expect_eq "outbound: a port twice is a setup error" "$rc" 127

out=$(timeout 30 "${BW[@]}" -- "$SHIM" --outbound "5557:$T/missing.sock" -- \
    python3 -c '
import socket
try:
    c = socket.create_connection(("127.0.0.1", 5557), timeout=10)
    print("eof" if c.recv(10) == b"" else "data")
except ConnectionResetError:
    print("reset")
' 2>&1 || true)
expect_match "outbound: a missing unix socket resets the connection" "$out" \
    '^reset$'
expect_match "outbound: ... and says so" "$out" \
    "^spacebox-shim: outbound 127.0.0.1:5557 to $T/missing.sock: No such file or directory$"

# --- signals -------------------------------------------------------------

sig_case() {	# SIGNAL STATUS
	rm -f "$T/marker" "$T/ready" "$T/sig.info"
	timeout 30 "${BW[@]}" --info-fd 5 -- "$SHIM" -- sh -c '
trap "echo got-$1 > '"$T"'/marker; exit $2" '"$1"'
echo ready > '"$T"'/ready
while :; do sleep 0.1; done' sh "$1" "$2" 5>"$T/sig.info" 2>"$T/sig.err" &
	sig_pid=$!
	bg_pids="$bg_pids $sig_pid"
	wait_file "$T/ready"
	kill -"$1" "$(child_pid "$T/sig.info")"
	wait_gone "$sig_pid" 50 || true
	expect_eq "SIG$1 to the shim reaches the app" \
	    "$(cat "$T/marker" 2>/dev/null)" "got-$1"
	expect_eq "SIG$1: the shim exits with the app's status" "$RC" "$2"
}
sig_case TERM 0
sig_case TERM 3
sig_case HUP 4
sig_case INT 5

# The app exits, its background children are killed, the shim does not wait.
start=$(date +%s%N)
rc=0; timeout 20 "${BW[@]}" -- "$SHIM" -- sh -c 'sleep 15 & sleep 15 & exit 6' ||
    rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
expect_eq "the app's leftovers do not hold the shim (status)" "$rc" 6
check "the app's leftovers do not hold the shim ($ms ms)" test "$ms" -lt 5000

# --- reaping -----------------------------------------------------------

rm -f "$T/reap.info" "$T/spawned"
timeout 30 "${BW[@]}" --info-fd 5 -- "$SHIM" -- sh -c '
for i in 1 2 3 4 5; do (sleep 1 &) ; done
echo x > '"$T"'/spawned
sleep 10' 5>"$T/reap.info" &
reap_pid=$!
bg_pids="$bg_pids $reap_pid"
shim=$(child_pid "$T/reap.info")
wait_file "$T/spawned" 50 || touch "$T/spawned"
for i in $(seq 1 10); do
	kids=$(ps -o pid= --ppid "$shim" | wc -l)
	[ "$kids" -ge 6 ] && break
	sleep 0.1
done
check "reaping: orphans were re-parented to the shim ($kids children)" \
    test "$kids" -ge 6
# The orphans exit after 1 s; unreaped, they would stay zombies.
for i in $(seq 1 30); do
	zombies=$(ps -o stat= --ppid "$shim" | grep -c Z)
	kids=$(ps -o pid= --ppid "$shim" | wc -l)
	[ "$kids" = 1 ] && [ "$zombies" = 0 ] && break
	sleep 0.1
done
expect_eq "reaping: no zombie left" "$zombies" 0
expect_eq "reaping: only the app is left" "$kids" 1
kill -TERM "$shim"
wait_gone "$reap_pid" 50
expect_eq "reaping: then SIGTERM ends the app; status 128+15" "$RC" 143

# --- unprivileged user ---------------------------------------------------

if [ "$(id -u)" = 0 ] && command -v runuser >/dev/null; then
	id sbshim >/dev/null 2>&1 || useradd -m sbshim
	mkdir -p "$T/u"
	chown sbshim "$T/u"
	port2=$(free_port)
	timeout 60 runuser -u sbshim -- python3 "$T/launch.py" "$T/u/port" \
	    bwrap --ro-bind / / --dev /dev --proc /proc --unshare-user \
	    --unshare-pid --unshare-net --as-pid-1 --die-with-parent \
	    --new-session --info-fd 5 -- "$SHIM" --lo-up --inbound "3:$port2" -- \
	    python3 -m http.server "$port2" --bind 127.0.0.1 \
	    --directory "$T/www" >/dev/null 2>"$T/u.err" 5>"$T/u.info" &
	u_pid=$!
	bg_pids="$bg_pids $u_pid"
	wait_file "$T/u/port"
	got=$(curl -s --max-time 10 "http://127.0.0.1:$(cat "$T/u/port")/index.html" ||
	    true)
	expect_eq "unprivileged: the inbound bridge works" "$got" \
	    "$(cat "$T/www/index.html")"
	upid=$(child_pid "$T/u.info" || true)
	expect_eq "unprivileged: the shim runs as sbshim" \
	    "$(ps -o user= -p "$upid")" sbshim
	kill -TERM "$upid"
	wait_gone "$u_pid" 50 || true
	expect_eq "unprivileged: SIGTERM stops the server; status 128+15" \
	    "$RC" 143
else
	echo "# skip: unprivileged case needs root to create the user"
fi

sb_done
