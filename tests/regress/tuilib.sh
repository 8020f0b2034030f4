# Shared by the TUI regress tests (sourced after lib.sh): the real spacebox
# in tmux on its own server, keys, screen captures and polling helpers.

# ------------------------------------------------------------ tmux helpers
# Every tui_start gets a tmux server of its own (-L sbtest<pid>-N), all
# killed at exit; the pane is TUI_W x TUI_H (100x30).
# The servers' sockets live in the test tree, removed with it.
export TMUX_TMPDIR=$T
TM_BASE=sbtest$$
TM_N=0
TM_SOCK=$TM_BASE-0
tm() { timeout 5 tmux -f /dev/null -L "$TM_SOCK" "$@"; }
tui_cleanup() {
	local i
	for i in $(seq 0 "$TM_N"); do
		timeout 5 tmux -f /dev/null -L "$TM_BASE-$i" kill-server \
		    >/dev/null 2>&1 || true
	done
}

# What the pane runs: spacebox with stderr to a file, then what it left
# behind: its exit status, a signal that reached this wrapper (it is in
# spacebox's process group), the terminal modes.
cat > "$T/run-tui.sh" <<'SH'
#!/bin/sh
trap 'echo WRAPPER-GOT-TERM' TERM
trap 'echo WRAPPER-GOT-INT' INT
"$@" 2>"$TUI_ERR"
echo "EXITED $?"
echo "TTY $(stty -a | tr ' ;' '\n\n' | grep -xE -- '-?(echo|icanon|isig|icrnl|opost|ixon)' | tr '\n' ' ')"
exec sleep 120
SH

# tui_start [VAR=VALUE...] [-- ARGS...]: spacebox in a new tmux server,
# with a clean environment (plus those variables) and those arguments.
tui_start() {
	local envs=() args=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	args=("$@")
	tm kill-server >/dev/null 2>&1 || true
	TM_N=$((TM_N + 1))
	TM_SOCK=$TM_BASE-$TM_N
	: > "$T/tui.err"
	tm new-session -d -s t -x "${TUI_W:-100}" -y "${TUI_H:-30}" \
	    "$(printf '%q ' env -i PATH=/usr/bin:/bin HOME="$HOME" \
	    SENCLAW_HOME="$SENCLAW_HOME" SPACEBOX_SOCKET="$SPACEBOX_SOCKET" \
	    TERM=xterm-256color LANG=C.UTF-8 TUI_ERR="$T/tui.err" \
	    "${envs[@]}" sh "$T/run-tui.sh" "$SPACEBOX" "${args[@]}")"
}

keys() { tm send-keys -t t "$@"; }
text() { tm send-keys -t t -l "$1"; }
capture() { tm capture-pane -p -t t "$@" 2>/dev/null || true; }
tui_pid() { pgrep -P "$(tm display -p -t t '#{pane_pid}')" -x spacebox; }
# What the terminal is left in: alternate screen, cursor shown, mouse modes.
term_state() {
	tm display -p -t t 'alt=#{alternate_on} cursor=#{cursor_flag} mouse=#{mouse_any_flag}/#{mouse_sgr_flag}'
}

dump() {
	echo "    screen:"
	printf '%s\n' "$SCREEN" | sed 's/^/    |/'
}

# wait_screen PATTERN [SECONDS]: poll the pane every 0.1 s until grep -E
# finds PATTERN (default 10 s); SCREEN is the last capture.
wait_screen() {
	local i n=$(( ${2:-10} * 10 ))
	for ((i = 0; i < n; i++)); do
		SCREEN=$(capture)
		printf '%s\n' "$SCREEN" | grep -Eq -- "$1" && return 0
		sleep 0.1
	done
	echo "    waited ${2:-10} s for: $1"
	dump
	return 1
}

# wait_gone PATTERN [SECONDS]: until PATTERN is no longer on the screen.
wait_gone() {
	local i n=$(( ${2:-10} * 10 ))
	for ((i = 0; i < n; i++)); do
		SCREEN=$(capture)
		printf '%s\n' "$SCREEN" | grep -Eq -- "$1" || return 0
		sleep 0.1
	done
	echo "    still on the screen after ${2:-10} s: $1"
	dump
	return 1
}

# focus_to PATTERN [KEY]: Tab (or KEY) until the focused line (">" in
# column 0) matches; at most 40 moves and 15 s.
focus_to() {
	local i cur before mv end=$((SECONDS + 15))
	SCREEN=$(capture)
	for i in $(seq 1 40); do
		cur=$(printf '%s\n' "$SCREEN" | grep -m1 '^>' || true)
		printf '%s\n' "$cur" | grep -Eq -- "$1" && return 0
		[ "$SECONDS" -lt "$end" ] || break
		before=$cur
		keys "${2:-Tab}"
		mv=$((SECONDS + 3))
		while [ "$SECONDS" -lt "$mv" ] && [ "$SECONDS" -lt "$end" ]; do
			SCREEN=$(capture)
			cur=$(printf '%s\n' "$SCREEN" | grep -m1 '^>' || true)
			[ "$cur" != "$before" ] && break
			sleep 0.1
		done
	done
	echo "    the focus never reached: $1"
	dump
	return 1
}

# section FIRST NEXT: the screen lines from the one matching FIRST up to
# (not including) the one matching NEXT, joined into one line (long
# messages wrap).
section() {
	printf '%s\n' "$SCREEN" | awk -v a="$1" -v b="$2" \
	    '$0 ~ a { on = 1 } on && $0 ~ b { exit } on { print }' |
	    tr '\n' ' ' | tr -s ' '
}

# re TEXT: TEXT quoted for grep -E.
re() { printf '%s' "$1" | sed 's/[][\.*^$+?(){}|/]/\\&/g'; }

