#!/usr/bin/env bash
# spacebox exec under real bubblewrap, run as root: what one command may
# and may not do at each level.  workspace-write writes the project (and
# its private TMPDIR) but not $HOME, the system or ~/.ssh, and reads the
# system but nothing of $HOME; read-only writes nothing; full-access says
# so and can write $HOME.  No network without a broker; with one, the
# allowlist decides and the result lists the hosts reached and refused.
# --local-sandbox-read toolchain shows ~/.cargo and ~/.npm read-only with
# their credentials hidden, and a credential path is refused at start.
# The time limit kills everything the command started, the output is cut
# at 64 KiB with the rest counted, background jobs are listed and
# stoppable, the project rules refuse $HOME, /, what holds $HOME and what
# holds a credential store (a .ssh of its own, or the real folder behind
# a symlinked ~/.aws), a relative --cwd is taken from the current folder,
# the environment is minimal, and a command's TMPDIR holds nothing an
# earlier command left (job numbers start again when the engine does).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/netlib.sh"
sb_setup
net_setup
case $T in /tmp/*) echo "Bail out! the test tree $T is under /tmp"; exit 1;; esac

P=$WS/proj
ssh_mark=ssh-key-marker-$$
home_mark=home-marker-$$
other_mark=other-key-marker-$$
aws_mark=aws-key-marker-$$
mkdir -p "$P" "$HOME/.ssh" "$T/other/.ssh" "$T/cloud/aws"
chmod 700 "$HOME/.ssh"
printf -- '-----BEGIN OPENSSH PRIVATE KEY-----\n%s\n' "$ssh_mark" > "$HOME/.ssh/id_rsa"
chmod 600 "$HOME/.ssh/id_rsa"
echo "$home_mark" > "$HOME/notes.txt"
# A folder that holds a .ssh of its own (another user's home, say) ...
echo "$other_mark" > "$T/other/.ssh/id_rsa"
# ... and one that holds the real folder behind a symlinked ~/.aws.
echo "$aws_mark" > "$T/cloud/aws/credentials"
ln -s "$T/cloud/aws" "$HOME/.aws"

# x [exec options] -- CMD...: spacebox exec in the project; sets RC, OUT,
# ERR (and the files $T/out, $T/err).
x() {
	RC=0
	(cd "$P" && "$SPACEBOX" --no-start exec "$@") >"$T/out" 2>"$T/err" ||
	    RC=$?
	OUT=$(cat "$T/out")
	ERR=$(cat "$T/err")
}
sbc() { "$SPACEBOX" --no-start "$@"; }
# gone PATTERN: no process matches (polls up to 3 s).
gone() {
	local i
	for i in $(seq 1 30); do
		pgrep -f -- "$1" >/dev/null 2>&1 || return 0
		sleep 0.1
	done
	pgrep -af -- "$1" | sed 's/^/    left: /'
	return 1
}
# job_state ID: the job's state.
job_state() { sbc jobs show "$1" --json 2>/dev/null | jget .state; }
# wait_state ID STATE: poll (up to 5 s).
wait_state() {
	local i
	for i in $(seq 1 50); do
		[ "$(job_state "$1")" = "$2" ] && return 0
		sleep 0.1
	done
	return 1
}
no_file() { [ ! -e "$1" ] && [ ! -L "$1" ]; }
one_line() { [ "$(wc -l < "$T/err")" -eq 1 ]; }
lacks() { ! grep -q -- "$1" "$2"; }	# lacks PATTERN FILE
running() { pgrep -f -- "$1" >/dev/null; }

# ============================================ workspace-write (the default)
SECRET_API_KEY=xyz-$$ SENCLAW_EXTRA=leak-$$ sb_engine --api-port 0 --exec-timeout 2

# The very first command leaves a file in its TMPDIR (see the network part).
x -- sh -c 'echo "tmp-leak-'$$'" > "$TMPDIR/leak" && cat "$TMPDIR/leak"'
expect_eq "[ww] the private TMPDIR is writable" "$RC:$OUT" "0:tmp-leak-$$"

x -- sh -c 'echo made > written.txt && cat written.txt'
expect_eq "[ww] a write in the project succeeds" "$RC:$OUT" "0:made"
expect_eq "[ww] and the file appears on the host" "$(cat "$P/written.txt" 2>/dev/null)" made
expect_eq "[ww] a sandboxed result has no note on stderr" "$ERR" ""

x --json -- true
expect_eq "[ww] the result says bubblewrap, workspace-write" \
    "$(echo "$OUT" | jget '[.state,.kind,.sandbox,.level,.exitCode]')" \
    '["done","foreground","bubblewrap","workspace-write",0]'

x -- sh -c 'echo planted > "$HOME/planted"'
check "[ww] a write in \$HOME fails" test "$RC" -ne 0
check "[ww] and nothing appears in \$HOME" no_file "$HOME/planted"
x -- sh -c 'mkdir -p "$HOME/.ssh" && echo k >> "$HOME/.ssh/authorized_keys"'
check "[ww] ~/.ssh/authorized_keys cannot be written" test "$RC" -ne 0
check "[ww] and did not appear" no_file "$HOME/.ssh/authorized_keys"
x -- sh -c 'echo planted > /etc/sb-exec-planted-'$$
check "[ww] a write in /etc fails" test "$RC" -ne 0
check "[ww] and nothing appears in /etc" no_file "/etc/sb-exec-planted-$$"

x -- cat "$HOME/.ssh/id_rsa"
check "[ww] reading ~/.ssh/id_rsa fails" test "$RC" -ne 0
check "[ww] and shows nothing of the key" lacks "$ssh_mark" "$T/out"
x -- cat "$HOME/notes.txt"
check "[ww] reading another file of \$HOME fails" test "$RC" -ne 0
check "[ww] and shows nothing of it" lacks "$home_mark" "$T/out"
x -- ls -A "$HOME"
check "[ww] \$HOME looks empty (no notes.txt, no .ssh)" lacks 'notes\|\.ssh' "$T/out"
x -- cat "$HOME/.aws/credentials"
check "[ww] a symlinked ~/.aws is not readable" lacks "$aws_mark" "$T/out"
ln -s "$HOME/.ssh" "$P/sshlink"
x -- cat sshlink/id_rsa
check "[ww] a symlink in the project to ~/.ssh reaches nothing" \
    sh -c '[ "$1" -ne 0 ] && ! grep -q "$2" "$3"' _ "$RC" "$ssh_mark" "$T/out"
rm -f "$P/sshlink"

x -- sh -c 'head -1 /etc/passwd && test -x /bin/sh && echo sh-ok'
expect_eq "[ww] system files are readable" "$RC:$(head -1 "$T/out" | cut -d: -f1):$(tail -1 "$T/out")" "0:root:sh-ok"

# The minimal environment.
x -- env
expect_eq "[ww] env runs" "$RC" 0
check "[ww] the engine's SECRET_API_KEY is not passed" lacks "SECRET_API_KEY\|xyz-$$" "$T/out"
check "[ww] no SENCLAW_* variable is passed" lacks '^SENCLAW_' "$T/out"
expect_match "[ww] HOME and PATH are set" "$OUT" "^HOME=$HOME\$"

# The time limit: everything the command started goes.
M=30.0$$1
start=$(date +%s%N)
x -- sh -c "sleep $M & sleep $M"
el=$(( ($(date +%s%N) - start) / 1000000 ))
expect_eq "[ww] a command over the limit exits 137" "$RC" 137
check "[ww] after about 2 s (${el} ms)" test "$el" -ge 1800 -a "$el" -lt 6000
expect_match "[ww] with a note that it ran out of time" "$ERR" 'ran out of time'
check "[ww] and no sleep is left running" gone "sleep $M"
x --json --timeout 1 -- sleep 5
expect_eq "[ww] --timeout lowers the limit; timedOut in the result" \
    "$(echo "$OUT" | jget '[.exitCode,.timedOut]')" '[137,true]'
x --json --timeout 30 -- sleep 5
expect_eq "[ww] --timeout cannot raise the engine's limit" \
    "$(echo "$OUT" | jget '[.exitCode,.timedOut]')" '[137,true]'

# The output cap.
x -- sh -c 'head -c 100000 /dev/zero | tr "\0" a'
expect_eq "[ww] 64 KiB of output are kept" "$(wc -c < "$T/out" | tr -d ' ')" 65536
expect_match "[ww] and the rest is counted as dropped" "$ERR" '34464 more bytes were dropped'
expect_eq "[ww] the command's status is kept" "$RC" 0
x --json -- sh -c 'head -c 100000 /dev/zero | tr "\0" a'
expect_eq "[ww] outputBytes and droppedBytes" \
    "$(echo "$OUT" | jget '[.outputBytes,.droppedBytes,(.output|length)]')" '[100000,34464,65536]'

# A background job.
M2=31.0$$2
x --background -- sh -c "echo started; sleep $M2"
expect_match "[bg] a background job starts at once" "$RC:$OUT" '^0:job [0-9]+ runs in the background$'
BG=$(echo "$OUT" | sed -n 's/^job \([0-9]*\) .*/\1/p')
out=$(sbc jobs)
expect_match "[bg] spacebox jobs lists it, running" "$out" "^$BG +running +background .*sleep $M2"
check "[bg] it runs" running "sleep $M2"
out=$(sbc jobs stop "$BG") && rc=0 || rc=$?
expect_eq "[bg] jobs stop" "$rc:$out" "0:job $BG stopped"
check "[bg] the job is then done" wait_state "$BG" done
check "[bg] and its process is gone" gone "sleep $M2"
expect_match "[bg] spacebox jobs shows it done" "$(sbc jobs)" "^$BG +done +background "
expect_match "[bg] jobs show keeps its output" "$(sbc jobs show "$BG")" '^started$'

# The project rules.
projrule() {	# projrule DESC DIR PATTERN
	x --cwd "$2" -- sh -c 'cat .ssh/id_rsa aws/credentials 2>/dev/null; echo ran'
	expect_eq "[project] $1 is refused (exit 1)" "$RC" 1
	expect_match "[project] $1: with a message" "$ERR" "$3"
	check "[project] $1: in one line" one_line
	check "[project] $1: the command did not run" lacks ran "$T/out"
}
projrule "--cwd \$HOME" "$HOME" 'home folder'
projrule "--cwd /" / 'project "/"'
projrule "--cwd a parent of \$HOME" "$T" 'contains your home folder'
projrule "--cwd inside ~/.ssh" "$HOME/.ssh" 'credential store'
projrule "--cwd inside the state root" "$SENCLAW_HOME" 'state root'
projrule "--cwd a folder containing .ssh" "$T/other" '\.ssh|credential'
check "[project] --cwd a folder containing .ssh: its key is not shown" lacks "$other_mark" "$T/out"
projrule "--cwd a folder containing the real ~/.aws" "$T/cloud" 'credential store'
check "[project] --cwd a folder containing the real ~/.aws: its key is not shown" lacks "$aws_mark" "$T/out"
ln -s "$HOME" "$T/homelink"
projrule "--cwd a symlink to \$HOME" "$T/homelink" 'home folder'
x --cwd "$T/nosuch" -- true
expect_eq "[project] a missing folder is refused" "$RC" 1
mkdir -p "$P/sub"
x --cwd sub -- pwd
expect_eq "[project] a relative --cwd is taken from the current folder" "$RC:$OUT" "0:$P/sub"
x --cwd "$P/sub" -- sh -c 'echo s > ../above.txt'
check "[project] the project is the folder given, not its parent" \
    sh -c '[ "$1" -ne 0 ] && [ ! -e "$2" ]' _ "$RC" "$P/above.txt"

# =================================================== read-only
net_engine_stop
SPACEBOX_LOCAL_SANDBOX=read-only sb_engine --api-port 0 --exec-timeout 2
x -- cat written.txt
expect_eq "[ro] the project is readable" "$RC:$OUT" "0:made"
x -- sh -c 'echo x > ro.txt'
check "[ro] a write in the project fails" test "$RC" -ne 0
check "[ro] and nothing appears" no_file "$P/ro.txt"
x -- sh -c 'echo x >> written.txt'
expect_eq "[ro] an existing project file is unchanged" "$(cat "$P/written.txt")" made
x -- sh -c 'echo x > "$HOME/ro"'
check "[ro] a write in \$HOME fails" sh -c '[ "$1" -ne 0 ] && [ ! -e "$2" ]' _ "$RC" "$HOME/ro"
x --json -- true
expect_eq "[ro] the result says read-only" "$(echo "$OUT" | jget '[.sandbox,.level]')" \
    '["bubblewrap","read-only"]'

# =================================================== full-access
net_engine_stop
SECRET_API_KEY=xyz-$$ sb_engine --api-port 0 --exec-timeout 2 --local-sandbox full-access
x -- sh -c 'echo fa > "$HOME/fa.txt"; cat "$HOME/notes.txt"'
expect_eq "[full] the command runs and reads \$HOME" "$RC:$OUT" "0:$home_mark"
expect_match "[full] stderr says full-access" "$ERR" 'full-access'
expect_eq "[full] it can write \$HOME" "$(cat "$HOME/fa.txt" 2>/dev/null)" fa
x --json -- true
expect_eq "[full] the result says full-access" "$(echo "$OUT" | jget .sandbox)" full-access
x -- env
check "[full] the environment is still minimal" lacks 'SECRET_API_KEY\|^SENCLAW_' "$T/out"
M3=32.0$$3
x -- sh -c "sleep $M3 & sleep $M3"
expect_eq "[full] the time limit applies (137)" "$RC" 137
check "[full] and kills what the command started" gone "sleep $M3"
rm -f "$HOME/fa.txt"

# =================================================== toolchain
net_engine_stop
mkdir -p "$HOME/.cargo/bin" "$HOME/.npm"
printf '#!/bin/sh\necho tool-ran-%s\n' $$ > "$HOME/.cargo/bin/tool"
chmod 755 "$HOME/.cargo/bin/tool"
echo "npm-x-$$" > "$HOME/.npm/x"
echo "cargo-token-$$" > "$HOME/.cargo/credentials.toml"
sb_engine --api-port 0 --exec-timeout 2 --local-sandbox-read toolchain
x -- "$HOME/.cargo/bin/tool"
expect_eq "[toolchain] ~/.cargo/bin/tool runs" "$RC:$OUT" "0:tool-ran-$$"
x -- cat "$HOME/.npm/x"
expect_eq "[toolchain] ~/.npm/x is readable" "$RC:$OUT" "0:npm-x-$$"
x -- sh -c 'echo w > "$HOME/.npm/x"'
check "[toolchain] ~/.npm/x is not writable" test "$RC" -ne 0
expect_eq "[toolchain] and unchanged" "$(cat "$HOME/.npm/x")" "npm-x-$$"
x -- sh -c 'touch "$HOME/.cargo/new" "$HOME/.npm/new"'
check "[toolchain] nothing can be added to ~/.cargo or ~/.npm" \
    sh -c '[ "$1" -ne 0 ] && [ ! -e "$2/.cargo/new" ] && [ ! -e "$2/.npm/new" ]' _ "$RC" "$HOME"
x -- cat "$HOME/.cargo/credentials.toml"
check "[toolchain] ~/.cargo/credentials.toml is hidden" lacks cargo-token "$T/out"
x -- cat "$HOME/notes.txt" "$HOME/.ssh/id_rsa"
check "[toolchain] the rest of \$HOME and ~/.ssh stay unreadable" \
    sh -c '! grep -q "$1\|$2" "$3"' _ "$home_mark" "$ssh_mark" "$T/out"

# A listed path that holds a credential store shows the rest of it.
net_engine_stop
mkdir -p "$HOME/.config/gh" "$HOME/.config/tool"
echo "gh-token-$$" > "$HOME/.config/gh/hosts.yml"
echo "tool-conf-$$" > "$HOME/.config/tool/conf"
sb_engine --api-port 0 --exec-timeout 2 --local-sandbox-read "$HOME/.config"
x -- cat "$HOME/.config/tool/conf"
expect_eq "[read] a listed path is readable" "$RC:$OUT" "0:tool-conf-$$"
x -- cat "$HOME/.config/gh/hosts.yml"
check "[read] the credential store inside it is hidden" lacks gh-token "$T/out"
x -- sh -c 'echo w > "$HOME/.config/tool/conf"'
expect_eq "[read] and it is not writable" "$(cat "$HOME/.config/tool/conf")" "tool-conf-$$"
net_engine_stop

# Refused at start, with one line.
refused_at_start() {	# refused_at_start DESC PATH PATTERN
	local rc=0
	timeout 10 "$SPACEBOXD" -f --socket "$T/run/refused.sock" --workspace "$WS" \
	    --api-port 0 --local-sandbox-read "$2" >"$T/start.out" 2>"$T/start.err" || rc=$?
	expect_eq "[start] --local-sandbox-read $1: the engine exits 1" "$rc" 1
	expect_match "[start] $1: the message says why" "$(cat "$T/start.err")" "$3"
	check "[start] $1: in one line" test "$(wc -l < "$T/start.err")" -eq 1
}
refused_at_start "~/.ssh" "$HOME/.ssh" 'credential store'
refused_at_start "a file in ~/.ssh" "$HOME/.ssh/id_rsa" 'credential store'
refused_at_start "\$HOME" "$HOME" 'home folder'
refused_at_start "a parent of \$HOME" "$T" 'home folder'
refused_at_start "the state root" "$SENCLAW_HOME" 'state root'
refused_at_start "toolchain and ~/.aws" "toolchain,$HOME/.aws" 'credential store'

# =================================================== network
net_engine --api-port 0 --exec-timeout 5
x -- sh -c 'ls -A "$TMPDIR"'
expect_eq "[tmp] a new command's TMPDIR is empty (nothing of an earlier command's)" "$RC:$OUT" "0:"
before=$(net_log_lines)
connect_py="import socket,sys
try:
    socket.create_connection((sys.argv[1], 80), timeout=3)
except OSError as e:
    print('refused', e); sys.exit(3)
print('connected')"
check "control: the origin is reachable from the host" \
    sh -c '"$1" -c "$2" "$3" | grep -qx connected' _ "$NET_PY" "$connect_py" "$NET_ORIGIN_IP"
before=$(net_log_lines)
x -- "$NET_PY" -c "$connect_py" "$NET_ORIGIN_IP"
expect_match "[net] without a broker a connect to the origin fails" "$RC:$OUT" '^3:refused'
x -- "$NET_PY" -c "$connect_py" 127.0.0.1
expect_match "[net] so does one to the host's loopback" "$RC:$OUT" '^3:refused'
sleep 0.2
expect_eq "[net] the origin saw nothing" "$(net_log_lines)" "$before"
net_engine_stop

net_engine --api-port 0 --exec-timeout 10 --exec-network broker --exec-hosts example.com
fetch_py='import sys, urllib.request
for u in sys.argv[1:]:
    try:
        r = urllib.request.urlopen(u, timeout=5)
        print(u, r.status, r.read().decode().split("\n")[0])
    except Exception as e:
        print(u, "ERR", e)'
x -- "$NET_PY" -c "$fetch_py" http://example.com/ http://example.org/
expect_eq "[broker] the fetch script runs" "$RC" 0
expect_match "[broker] http://example.com/ is fetched through the proxy" "$OUT" \
    '^http://example\.com/ 200 origin port 80 host example\.com'
expect_match "[broker] http://example.org/ is refused" "$OUT" '^http://example\.org/ ERR .*403'
expect_match "[broker] stderr lists the host reached" "$ERR" 'hosts reached: example\.com$'
expect_match "[broker] and the host refused" "$ERR" 'hosts refused: example\.org$'
x --json -- "$NET_PY" -c "$fetch_py" http://example.com/ http://example.org/
expect_eq "[broker] hostsReached and hostsRefused in the result" \
    "$(echo "$OUT" | jget '[.hostsReached,.hostsRefused]')" '[["example.com"],["example.org"]]'
before=$(net_log_lines)
x -- "$NET_PY" -c "$connect_py" "$NET_ORIGIN_IP"
expect_match "[broker] a direct connect still fails" "$RC:$OUT" '^3:refused'
sleep 0.2
expect_eq "[broker] the origin saw nothing of it" "$(net_log_lines)" "$before"

# The system-call filter: no new user namespace (the usual first step of a
# kernel exploit), no keyrings, no ptrace; ordinary work still runs.
x -- "$NET_PY" -c 'import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
def tried(r):
    return "refused" if r == -1 and ctypes.get_errno() == 1 else "allowed"
print("unshare", tried(libc.unshare(0x10000000)))
print("keyctl", tried(libc.syscall(250, 0, 0, 0, 0, 0)))
print("ptrace", tried(libc.ptrace(16, os.getppid(), 0, 0)))
print("fork", "ok" if os.fork() == 0 or os.wait() else "no")'
expect_match "[seccomp] a new user namespace is refused (EPERM)" "$OUT" '^unshare refused$'
expect_match "[seccomp] the keyring is refused" "$OUT" '^keyctl refused$'
expect_match "[seccomp] ptrace is refused" "$OUT" '^ptrace refused$'
expect_match "[seccomp] processes and threads still start" "$OUT" '^fork ok$'

sb_done
