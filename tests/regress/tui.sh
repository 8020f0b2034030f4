#!/usr/bin/env bash
# The TUI end to end: the real spacebox in tmux (100x30, its own tmux
# server) against a private engine with the demo apps.  Open notes' Sandbox
# dialog, switch the sandbox on, choose strict, add a folder through the
# picker by typing a path with Tab completion, choose "Only these sites",
# add a site, Save & restart, and check the saved policy and the running
# app through the API.  Then the refusals: the picker refuses a credential
# store with the reason, and the engine's own refusals (a folder granted
# twice, a folder gone from disk, a bad site) appear under the field they
# name.  A forced app cannot be switched off.  Nothing reaches stderr while
# curses owns the terminal.  Every wait polls the screen; no fixed sleeps.
. "$(dirname "$0")/lib.sh"
sb_setup
command -v tmux >/dev/null 2>&1 || { echo "skip - no tmux"; echo "0 passed, 0 failed"; exit 0; }

. "$(dirname "$0")/tuilib.sh"
trap 'tui_cleanup; sb_cleanup' EXIT
# --------------------------------------------------------------- the setup
cp -R "$SB_SRC/assets/demo-workspace/space-apps/." "$WS/space-apps/"
mkdir -p "$HOME/projects/shared" "$HOME/projects/sharp" "$HOME/.ssh"
SHARED=$(realpath "$HOME/projects/shared")
H=$(re "$HOME")
# System folders only on the apps' PATH (never a pyenv shim under $HOME).
PATH=/usr/local/bin:/usr/bin:/bin sb_engine --api-port 0

app_state() {
	sb_api GET "/api/space/apps/$1/runtime"
	echo "$BODY" | jget .state 2>/dev/null || echo "?"
}
wait_state() {	# wait_state ID STATE [SECONDS]
	local i s
	for i in $(seq 1 $(( ${3:-20} * 10 ))); do
		s=$(app_state "$1")
		[ "$s" = "$2" ] && return 0
		sleep 0.1
	done
	echo "    $1 is $s, wanted $2: $BODY"
	return 1
}

tui_start
check "the list shows the demo apps, notes off" \
    wait_screen '^ notes +Notes +stopped +off +all'
check "the forced app is marked" wait_screen '^ locked +.*strict forced +none'
# weather (background, hosts mode) phones home at start: its proxy refuses
# telemetry.example.net before any lookup, and the list counts the want.
check "weather runs and its want is counted in the list" \
    wait_screen '^ weather +Weather +running +strict +1 site +\+1' 20

# ------------------------------------------- weather's wants in its dialog
keys j j Enter
check "Enter opens weather's dialog" wait_screen '^ Sandbox . weather'
check "its refused telemetry host is offered without a key press" \
    wait_screen 'This app wants: +\+ telemetry\.example\.net'
keys Escape
check "Esc goes back to the list" wait_screen '^ spacebox . Space Apps'

# ------------------------------------------------------- the locked app
keys k k Enter
check "the locked app's dialog says it is locked" \
    wait_screen '^> \[x\] Run this app inside the sandbox +\(locked'
keys Space
check "Space on the locked toggle refuses with the manifest's reason" \
    wait_screen 'This app requires the sandbox \(its manifest declares sandbox\.force\)'
check "and the toggle stays on" wait_screen '^> \[x\] Run this app'
keys q
check "q cancels the dialog" wait_screen '^ spacebox . Space Apps'

# ----------------------------------------------------- notes, step by step
keys j Enter
check "the dialog for notes opens with the sandbox toggle focused" \
    wait_screen '^> \[ \] Run this app inside the sandbox'
expect_match "the platform note shows before the sandbox is on" "$SCREEN" \
    'bubblewrap'
keys Space
check "Space switches the sandbox on" wait_screen '^> \[x\] Run this app inside the sandbox'
check "the title says not saved" wait_screen '^ Sandbox . notes +\(not saved\)'
check "Tab reaches Strict" focus_to 'Strict:'
keys Space
check "Space chooses strict" wait_screen '^> +\(•\) Strict'
expect_match "and Open is no longer chosen" "$SCREEN" '^ +\( \) Open'
check "Tab reaches Add folder" focus_to 'Add folder'
keys Space
check "Space opens the folder picker at \$HOME" wait_screen "^ Add folder . $H\$"
check "the picker lists projects" wait_screen '^ +projects/'
keys /
check "/ asks for a path, starting in the shown folder" \
    wait_screen "^folder: $H/\$"
text pro
keys Tab
check "Tab completes the only match with its /" \
    wait_screen "^folder: $H/projects/\$"
text sh
keys Tab
check "Tab completes the common prefix of shared and sharp" \
    wait_screen "^folder: $H/projects/shar\$"
text e
keys Tab
check "Tab completes shared" wait_screen "^folder: $H/projects/shared/\$"
keys Enter
check "Enter grants it and goes back to the dialog" \
    wait_screen "^ +rw  $H/projects/shared/?\$"
expect_match "the message says it is added read-write and needs Save" \
    "$SCREEN" 'added read-write; Save to apply'
check "Tab reaches Only these sites" focus_to 'Only these sites'
keys Space
check "Space chooses only these sites" wait_screen '^> +\(•\) Only these sites'
check "Tab reaches Add site" focus_to 'Add site'
keys Space
check "Space asks for a site" wait_screen '^add site: ?$'
text example.org
keys Enter
check "the site is on the list" wait_screen '^ {8,}example\.org$'
keys R
check "R saves and restarts" wait_screen 'saved; restarting notes with the new sandbox'
check "the title no longer says not saved" wait_screen '^ Sandbox . notes$'
check "the dialog shows the folder as stored (canonical)" \
    wait_screen "^ +rw  $(re "$SHARED")\$"

sb_api GET /api/space/apps/notes/sandbox
expect_eq "the saved policy: on, strict, the folder, only example.org" \
    "$(echo "$BODY" | jget '.config | [.enabled, .readMode, .folders, .network, .hosts]')" \
    "[true,\"strict\",[{\"path\":\"$SHARED\",\"readOnly\":false}],\"hosts\",[\"example.org\"]]"
expect_eq "the rest kept its defaults" \
    "$(echo "$BODY" | jget '.config | [.daemonApi, .loopback, .forced]')" '[true,[],false]'
check "notes is running again" wait_state notes running 25
sb_api GET /api/space/apps/notes/runtime
expect_eq "under bubblewrap" "$(echo "$BODY" | jget .process.isolation)" bubblewrap
check "the policy file is on disk" \
    test -s "$SENCLAW_HOME/sandbox/app-policies/notes.json"
keys Escape
check "the list shows notes running, strict, one site" \
    wait_screen '^ notes +Notes +running +strict +1 site '

# ------------------------------------------------------------- refusals
keys Enter
check "the dialog opens again" wait_screen '^> \[x\] Run this app inside the sandbox'
check "Tab reaches Add folder" focus_to 'Add folder'
keys Space
check "the picker opens" wait_screen "^ Add folder . $H\$"
keys .
check "with hidden folders shown, ~/.ssh is marked refused with the reason" \
    wait_screen '^ +. \.ssh/  \(hidden\)  refused: inside the credential store'
keys /
check "/ asks for a path" wait_screen "^folder: $H/\$"
text .ssh
keys Enter
check "typing ~/.ssh is refused with the reason" \
    wait_screen "^ $H/\\.ssh: inside the credential store $H/\\.ssh"
check "and the picker stays open" wait_screen "^ Add folder . $H\$"

# A folder the picker allows but the engine refuses: the same one twice.
keys /
check "/ asks for a path again" wait_screen "^folder: $H/\$"
text projects/shared
keys Enter
check "the picker takes the folder a second time" \
    wait_screen "added read-write; Save to apply"
check "both grants are in the working list" \
    wait_screen "^ +rw  $H/projects/shared\$"
keys S
check "S sends it and the engine refuses" \
    wait_screen 'not saved: folders\[1\]\.path .*already granted'
expect_match "the engine's reason is under Folders, after Add folder" \
    "$(section 'Add folder' '^  Network')" '✗ folders\[1\]\.path "[^"]*": already granted as folders\[0\]'
expect_eq "nothing changed in the engine" \
    "$(sb_api GET /api/space/apps/notes/sandbox; echo "$BODY" | jget '.config.folders | length')" 1
check "Tab reaches the second grant" focus_to "rw  $H/projects/shared\$"
keys d
check "d removes it" wait_gone "^ +rw  $H/projects/shared\$"
keys S
check "S saves" wait_screen '^ saved'
check "and the error is gone" wait_gone 'already granted'

# A folder that vanishes from disk after it was saved: the next Save is
# refused by the engine, and the reason shows under Folders.
mkdir -p "$HOME/projects/gone"
GONE=$(realpath "$HOME/projects/gone")
sb_api PUT /api/space/apps/notes/sandbox "$(jq -c -n --arg a "$SHARED" --arg b "$GONE" \
    '{enabled: true, readMode: "strict", network: "hosts", hosts: ["example.org"],
      folders: [{path: $a, readOnly: false}, {path: $b, readOnly: true}]}')"
expect_eq "the API takes a policy with a second folder" "$CODE" 200
check "the open dialog follows a policy saved elsewhere" \
    wait_screen "^ +ro  $(re "$GONE")\$"
rmdir "$GONE"
keys S
check "Save is refused by the engine: the folder does not exist" \
    wait_screen 'not saved: folders\[1\]\.path .*does not exist'
expect_match "the reason is under Folders" \
    "$(section 'Add folder' '^  Network')" "folders\\[1\\]\\.path \"$(re "$GONE")\": does not exist"
expect_match "marked as an error" "$(section 'Add folder' '^  Network')" '✗ folders\[1\]'
check "Tab reaches the vanished folder" focus_to "ro  $(re "$GONE")\$"
keys d S
check "removing it lets Save through" wait_screen '^ saved'

# A site the engine refuses: its reason under Network.
check "Tab reaches Add site" focus_to 'Add site'
keys Space
check "Space asks for a site" wait_screen '^add site: ?$'
text '*.com'
keys Enter
check "the wildcard is on the working list" wait_screen '^ {8,}\*\.com$'
keys S
check "the engine refuses the bare wildcard" wait_screen 'not saved: hosts\[1\] "\*\.com"'
expect_match "the reason is under Network, before This machine" \
    "$(section '^  Network' '^  This machine')" 'hosts\[1\] "\*\.com"'
expect_eq "the engine kept the old site list" \
    "$(sb_api GET /api/space/apps/notes/sandbox; echo "$BODY" | jget .config.hosts)" '["example.org"]'
keys Escape
check "Esc cancels the unsaved dialog" wait_screen '^ spacebox . Space Apps'
keys q
check "q quits" wait_screen '^EXITED 0$'
expect_eq "nothing was written to stderr during the session" "$(cat "$T/tui.err")" ""

sb_done
