#!/usr/bin/env bash
# Benchmark: `spacebox exec -- /bin/true` (client, engine, plan, bwrap,
# shim, the command, the answer) against a bare bwrap with the flags the
# engine uses, in one run, interleaved.  Prints medians and the ratio
# (target <= 1.3x).  Run on demand, as root: sudo tests/bench/exec-bench.sh
set -eu

SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${SB_BENCH_BUILD:-$SRC/build-bench}
N=${N:-100}

if [ ! -x "$BUILD/spaceboxd" ] || [ ! -x "$BUILD/spacebox" ] ||
    [ ! -x "$BUILD/spacebox-shim" ]; then
	cmake -S "$SRC" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build "$BUILD" -j "$(nproc)" >/dev/null
fi

T=$(mktemp -d /var/tmp/sbexecbench.XXXXXX)
mkdir -p "$T/home" "$T/proj" "$T/ws/space-apps"
mkdir -m 700 "$T/run"
export HOME=$T/home SENCLAW_HOME=$T/home/.senclaw
export SPACEBOX_SOCKET=$T/run/sb.sock
cleanup() {
	kill "$EPID" 2>/dev/null || true
	wait "$EPID" 2>/dev/null || true
	rm -rf "$T"
}
trap cleanup EXIT

"$BUILD/spaceboxd" -f --socket "$SPACEBOX_SOCKET" --workspace "$T/ws" \
    --api-port 0 2>"$T/engine.log" &
EPID=$!
for i in $(seq 1 100); do
	"$BUILD/spacebox" --no-start apps >/dev/null 2>&1 && break
	sleep 0.05
done
cd "$T/proj"

# The bare baseline: bwrap with the engine's own flags for a command
# (taken from the log line's plan is not exposed for exec, so the same
# operations are written out here), running /bin/true directly.
bare=(bwrap --die-with-parent --new-session --unshare-pid --unshare-ipc
    --unshare-uts --unshare-cgroup-try --unshare-net --cap-drop ALL
    --hostname spacebox --ro-bind /usr /usr --symlink usr/bin /bin
    --symlink usr/sbin /sbin --symlink usr/lib /lib --symlink usr/lib64
    /lib64 --ro-bind /etc /etc --dev /dev --proc /proc --tmpfs /tmp
    --dir "$HOME" --bind "$T/proj" "$T/proj" --remount-ro / --chdir
    "$T/proj" -- /bin/true)
"${bare[@]}" || { echo "bare bwrap does not run here"; exit 1; }
"$BUILD/spacebox" exec -- /bin/true || { echo "spacebox exec failed"; exit 1; }

ms() { date +%s%N; }
exec_t=() bare_t=()
for i in $(seq 1 "$N"); do
	a=$(ms); "$BUILD/spacebox" exec -- /bin/true; b=$(ms)
	exec_t+=($(( (b - a) / 1000 )))
	a=$(ms); "${bare[@]}"; b=$(ms)
	bare_t+=($(( (b - a) / 1000 )))
done

median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END {
	print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
me=$(median "${exec_t[@]}")
mb=$(median "${bare_t[@]}")
ratio=$(awk -v a="$me" -v b="$mb" 'BEGIN { printf "%.2f", a / b }')
echo "spacebox exec -- /bin/true versus bare bwrap, N=$N each, interleaved"
printf '  %-32s %10s\n' "path" "median ms"
printf '  %-32s %10.2f\n' "spacebox exec (whole round trip)" "$(awk -v v="$me" 'BEGIN { print v / 1000 }')"
printf '  %-32s %10.2f\n' "bwrap, same flags, /bin/true" "$(awk -v v="$mb" 'BEGIN { print v / 1000 }')"
echo "  ratio ${ratio}x (target <= 1.3x: $(awk -v r="$ratio" 'BEGIN { print (r <= 1.3) ? "PASS" : "MISS" }'))"
