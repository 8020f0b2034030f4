#!/usr/bin/env bash
# The TUI's manners, in tmux against a private engine with the demo apps:
# below 80x24 it says so and q quits; at 80x24 it works and its help is
# whole; it survives resizes (to 60x20 and back) in the dialog, the picker
# and a libedit prompt; ? shows help generated from the key table and q/Esc
# go back; it honours NO_COLOR and --no-color, falls back to ASCII with
# LANG=C or --ascii, and leaves the mouse alone with --no-mouse; the
# terminal is restored after q, after SIGTERM (exit 143) and after SIGTERM
# during a prompt, and Ctrl-C in a prompt cancels the prompt; nothing is
# written to stderr while curses owns the terminal.  Every wait polls the
# screen; no fixed sleeps.
. "$(dirname "$0")/lib.sh"
sb_setup
command -v tmux >/dev/null 2>&1 || { echo "skip - no tmux"; echo "0 passed, 0 failed"; exit 0; }

. "$(dirname "$0")/tuilib.sh"
trap 'tui_cleanup; sb_cleanup' EXIT
# colours CAPTURE: the SGR colour codes (30-38, 40-48, 90-97, 100-107)
# in a capture-pane -e, one per line; 39/49 (the defaults) do not count.
colours() {
	printf '%s\n' "$1" | grep -ao $'\e\\[[0-9;]*m' | tr -d '\033[m' |
	    tr ';' '\n' | grep -xE '3[0-8]|4[0-8]|9[0-7]|10[0-7]' || true
}
# nonascii TEXT: how many lines have a byte outside ASCII.
nonascii() { printf '%s\n' "$1" | LC_ALL=C grep -c $'[\x80-\xff]' || true; }
restored='alt=0 cursor=1 mouse=0/0'

# --------------------------------------------------------------- the setup
cp -R "$SB_SRC/assets/demo-workspace/space-apps/." "$WS/space-apps/"
mkdir -p "$HOME/projects/shared" "$HOME/.ssh"
H=$(re "$HOME")
PATH=/usr/local/bin:/usr/bin:/bin sb_engine --api-port 0

# ------------------------------------------------------------ too small
TUI_W=70 TUI_H=20 tui_start
check "below 80x24 it asks for a larger terminal" \
    wait_screen 'needs a terminal of at least 80x24'
expect_match "and says q quits" "$(printf '%s\n' "$SCREEN" | tr '\n' ' ')" '\(q +quits\)'
keys q
check "q quits" wait_screen '^EXITED 0$'
expect_eq "the terminal is restored" "$(term_state)" "$restored"

# ------------------------------------------------------------------ 80x24
TUI_W=80 TUI_H=24 tui_start
check "at 80x24 the list shows" wait_screen '^ notes +Notes +stopped +off +all'
expect_match "the whole key bar fits" "$SCREEN" '\? help  q quit *$'
keys j Enter
check "the dialog opens" wait_screen '^> \[ \] Run this app inside the sandbox'
expect_match "it says there is more below" "$SCREEN" '▼ more'
expect_match "its key bar fits, help included" "$SCREEN" '\? help *$'
check "Tab scrolls down to the engine API checkbox" focus_to 'Call the engine API'
expect_match "and it says there is more above" "$SCREEN" '▲ more'
keys ?
check "? shows help from the key table" wait_screen 'save and restart the app'
expect_match "with the dialog's keys" "$SCREEN" 'allow the wanted site, or add to the focused list'
expect_match "and the common ones" "$SCREEN" '^ +Esc +back'
expect_match "at 80x24 the help shows every key, down to the last (End)" \
    "$SCREEN" '^ +End +last'
keys q
check "q goes back from help to the dialog" wait_screen '^>.*Call the engine API'
keys Escape
check "Esc goes back to the list" wait_screen '^ spacebox . Space Apps'
keys ?
check "the list's help" wait_screen 'open the Sandbox dialog'
keys Escape
check "Esc goes back from help" wait_screen '^ spacebox . Space Apps'
keys /
check "/ asks for a filter" wait_screen '^filter: ?$'
text wea
keys Enter
check "the filter shows in the title" wait_screen '^ spacebox . Space Apps +\(filter: wea\)'
expect_eq "and only weather is listed" "$(printf '%s\n' "$SCREEN" | grep -cE '^ (notes|locked|weather) ')" 1
keys Escape
check "Esc clears the filter" wait_screen '^ notes +Notes'
keys q
check "q quits" wait_screen '^EXITED 0$'
expect_eq "the terminal is restored" "$(term_state)" "$restored"

# --------------------------------------------------------------- resizes
tui_start
check "the list shows" wait_screen '^ notes +Notes'
expect_eq "the mouse is on by default" "$(term_state)" 'alt=1 cursor=0 mouse=1/1'
keys j Enter
check "the dialog opens" wait_screen '^> \[ \] Run this app inside the sandbox'
tm resize-window -t t -x 60 -y 20
check "resized to 60x20 in the dialog, it asks for room" \
    wait_screen 'needs a terminal of at least 80x24'
tm resize-window -t t -x 100 -y 30
check "back at 100x30 the dialog is whole again" \
    wait_screen '^\s+\[ Cancel \]    \[ Save \]    \[ Save & restart \]'
expect_match "with the focus where it was" "$SCREEN" '^> \[ \] Run this app'
check "Tab reaches Add folder" focus_to 'Add folder'
keys Space
check "the picker opens" wait_screen "^ Add folder . $H\$"
tm resize-window -t t -x 60 -y 20
check "resized to 60x20 in the picker, it asks for room" \
    wait_screen 'needs a terminal of at least 80x24'
tm resize-window -t t -x 100 -y 30
check "back at 100x30 the picker is whole again" wait_screen '^ +projects/'
expect_match "its title too" "$SCREEN" "^ Add folder . $H\$"
keys /
check "/ asks for a path" wait_screen "^folder: $H/\$"
# A resize while libedit has the line: the prompt must stay.  (With the
# prompt gone the picker's key bar comes back at once; 2 s bounds the wait
# when it stays.)
tm resize-window -t t -x 90 -y 30
if wait_screen '^ Enter open  BS up' 2 >/dev/null; then
	not_ok "a resize during the folder prompt keeps the prompt"
	echo "    after tmux resize-window -x 90 -y 30 at the \"folder: \" prompt,"
	echo "    the prompt is gone and the picker is back:"
	dump
	keys /
	wait_screen "^folder: $H/\$" >/dev/null || true
else
	ok "a resize during the folder prompt keeps the prompt"
fi
text projects/sha
keys Tab
check "the prompt completes" wait_screen "^folder: $H/projects/shared/\$"
keys Enter
check "and grants: the dialog is back" \
    wait_screen "^ +rw  $H/projects/shared/?\$"
tm resize-window -t t -x 100 -y 30
check "back at 100x30 the dialog is whole" wait_screen '^  This machine$'
expect_match "the folder is there" "$SCREEN" "^ +rw  $H/projects/shared/?\$"
# An error shown in the UI, for the stderr check below.
check "Tab reaches Add folder" focus_to 'Add folder'
keys Space
check "the picker opens" wait_screen "^ Add folder . $H\$"
keys /
check "/ asks for a path" wait_screen "^folder: $H/\$"
text .ssh
keys Enter
check "a credential store is refused in the UI" \
    wait_screen "^ $H/\\.ssh: inside the credential store"
keys Escape
check "Esc goes back from the picker to the dialog" \
    wait_screen '^ Sandbox . notes +\(not saved\)'
keys Escape
check "Esc cancels the dialog" wait_screen '^ spacebox . Space Apps'
keys q
check "q quits" wait_screen '^EXITED 0$'
check "the wrapper reports the terminal modes" wait_screen '^TTY '
expect_eq "the terminal is restored: main screen, cursor, no mouse" \
    "$(term_state)" "$restored"
expect_match "the terminal modes are restored" "$SCREEN" \
    '^TTY( (icrnl|ixon|opost|isig|icanon|echo)){6} *$'
expect_eq "no curses screen is left behind" \
    "$(printf '%s\n' "$SCREEN" | grep -cE 'Space Apps|Sandbox' || true)" 0
expect_eq "nothing was written to stderr while curses was active" \
    "$(cat "$T/tui.err")" ""

# --------------------------------------------------- prompts and signals
tui_start
check "the list shows" wait_screen '^ notes +Notes'
keys j Enter
check "the dialog opens" wait_screen '^> \[ \] Run this app inside the sandbox'
check "Tab reaches Add site" focus_to 'Add site'
keys Space
check "Space asks for a site" wait_screen '^add site: ?$'
keys C-d
check "Ctrl-D on the empty line cancels the prompt" wait_screen '^ Tab move '
expect_match "the dialog is unchanged" "$SCREEN" '^ Sandbox . notes$'
keys Space
check "Space asks for a site again" wait_screen '^add site: ?$'
keys C-c
wait_screen '^ Tab move |^EXITED [0-9]+$' 5 >/dev/null || true
expect_eq "Ctrl-C in the prompt cancels it and keeps the TUI" \
    "$(printf '%s\n' "$SCREEN" | grep -E '^EXITED|^ Sandbox . notes' || true)" ' Sandbox — notes'

tui_start
check "the list shows" wait_screen '^ notes +Notes'
keys j Enter
check "the dialog opens" wait_screen '^> \[ \] Run this app inside the sandbox'
kill -TERM "$(tui_pid)"
check "SIGTERM ends it with 143" wait_screen '^EXITED 143$'
check "the wrapper reports the terminal modes" wait_screen '^TTY '
expect_eq "the terminal is restored" "$(term_state)" "$restored"
expect_match "the terminal modes are restored" "$SCREEN" \
    '^TTY( (icrnl|ixon|opost|isig|icanon|echo)){6} *$'
expect_eq "no curses screen is left behind" \
    "$(printf '%s\n' "$SCREEN" | grep -cE 'Sandbox|Run this app' || true)" 0
expect_eq "the signal reached spacebox only" \
    "$(printf '%s\n' "$SCREEN" | grep -c WRAPPER || true)" 0

tui_start
check "the list shows" wait_screen '^ notes +Notes'
keys j Enter
check "the dialog opens" wait_screen '^> \[ \] Run this app inside the sandbox'
check "Tab reaches Add site" focus_to 'Add site'
keys Space
check "Space asks for a site" wait_screen '^add site: ?$'
kill -TERM "$(tui_pid)"
check "SIGTERM during a prompt ends it with 143" wait_screen '^EXITED 143$'
check "the wrapper reports the terminal modes" wait_screen '^TTY '
expect_eq "the terminal is restored" "$(term_state)" "$restored"
expect_match "the terminal modes are restored" "$SCREEN" \
    '^TTY( (icrnl|ixon|opost|isig|icanon|echo)){6} *$'
expect_eq "the signal reached spacebox only, not its process group" \
    "$(printf '%s\n' "$SCREEN" | grep -c WRAPPER || true)" 0

# ----------------------------------------------------------------- colour
tui_start
check "the list shows" wait_screen '^ notes +Notes'
keys j Enter
check "the dialog opens in colour" wait_screen '^> \[ \] Run this app'
expect_match "control: colours are used" "$(colours "$(capture -e)" | wc -l)" '^[1-9]'
tui_start NO_COLOR=1
check "the list shows" wait_screen '^ notes +Notes'
keys j Enter
check "the dialog opens with NO_COLOR=1" wait_screen '^> \[ \] Run this app'
expect_eq "NO_COLOR: no colour at all" "$(colours "$(capture -e)")" ""
expect_match "the focus still shows: reverse video" \
    "$(capture -e | grep -a 'Run this app')" $'\e\\[([0-9]+;)*7m\\[ \\] Run this app'
tui_start NO_COLOR=
check "the list shows" wait_screen '^ notes +Notes'
keys j Enter
check "the dialog opens with NO_COLOR empty" wait_screen '^> \[ \] Run this app'
expect_match "an empty NO_COLOR does not count" "$(colours "$(capture -e)" | wc -l)" '^[1-9]'
tui_start -- --no-color --no-mouse
check "the list shows" wait_screen '^ notes +Notes'
keys j Enter
check "the dialog opens with --no-color" wait_screen '^> \[ \] Run this app'
expect_eq "--no-color: no colour at all" "$(colours "$(capture -e)")" ""
expect_eq "--no-mouse: the mouse is left alone" "$(term_state)" 'alt=1 cursor=0 mouse=0/0'

# ------------------------------------------------------------------ ASCII
tui_start LANG=C
check "LANG=C: the list title is ASCII" wait_screen '^ spacebox - Space Apps'
keys j Enter
check "the dialog opens" wait_screen '^> \[ \] Run this app'
expect_match "radio marks are (*)" "$SCREEN" '^ +\(\*\) Open: '
expect_match "the title dash is ASCII" "$SCREEN" '^ Sandbox - notes'
expect_match "ellipses are three dots" "$SCREEN" 'Add folder\.\.\.$'
expect_eq "no byte outside ASCII on the screen" "$(nonascii "$SCREEN")" 0
expect_eq "no bullet nor dash" "$(printf '%s\n' "$SCREEN" | grep -cE '•|—|…' || true)" 0
keys Escape
check "back in the list" wait_screen '^ spacebox - Space Apps'
for i in $(seq 1 100); do
	sb_api GET /api/space/apps/weather/runtime
	[ "$(echo "$BODY" | jget .state)" = running ] && break
	sleep 0.1
done
keys j j i
check "the status view of weather shows its launch line" wait_screen '^ launch '
expect_eq "in ASCII mode the status view is ASCII too" "$(nonascii "$SCREEN")" 0
expect_match "the launch line's dash is ASCII, not raw UTF-8 bytes" \
    "$(printf '%s\n' "$SCREEN" | grep -a '^ launch ')" '^ launch +sandbox: bubblewrap [-?] strict reads'
expect_eq "and the lines below it are not shifted" \
    "$(printf '%s\n' "$SCREEN" | grep -E '^.?grant ' | grep -cv '^ grant ' || true)" 0
keys q
check "q goes back from the status view" wait_screen '^ spacebox - Space Apps'
keys q
check "q quits" wait_screen '^EXITED 0$'

tui_start -- --ascii
check "the list shows" wait_screen '^ notes +Notes'
keys j Enter
check "--ascii: the dialog opens" wait_screen '^> \[ \] Run this app'
expect_match "radio marks are (*)" "$SCREEN" '^ +\(\*\) Everything'
expect_eq "no byte outside ASCII on the screen" "$(nonascii "$SCREEN")" 0
keys Escape q
check "q quits" wait_screen '^EXITED 0$'
expect_eq "nothing on stderr" "$(cat "$T/tui.err")" ""

sb_done
