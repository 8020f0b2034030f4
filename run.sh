#!/bin/sh
# The main job: install what is missing, build, and open spacebox on the
# demo workspace in assets/ (a private state root under build/demo, so
# your own ~/.senclaw is never touched).
set -eu
cd "$(dirname "$0")"
top=$(pwd)

./scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc)" >/dev/null

demo=$top/build/demo
if [ ! -d "$demo/workspace" ]; then
	mkdir -p "$demo"
	cp -R assets/demo-workspace "$demo/workspace"
fi
export SENCLAW_HOME="$demo/state"
export SPACEBOX_SOCKET="$demo/run/spaceboxd.sock"
echo "spacebox demo: workspace $demo/workspace, engine socket $SPACEBOX_SOCKET"
echo "(stop the engine with: kill \$(pgrep -f 'spaceboxd --socket $SPACEBOX_SOCKET'))"
exec build/spacebox --workspace "$demo/workspace" "$@"
