#!/bin/bash
# Lint the manual pages with mandoc and check that they document the
# commands and routes this release has.  SB_SRC is the source tree (set by
# CTest); it defaults to the tree this script lives in.
set -eu

SB_SRC=${SB_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
MAN=$SB_SRC/man

pass=0
fail=0

ok() {
	echo "ok   $1"
	pass=$((pass + 1))
}

bad() {
	echo "FAIL $1: $2"
	fail=$((fail + 1))
}

if ! command -v mandoc >/dev/null 2>&1; then
	echo "FAIL mandoc not found: apt-get install mandoc"
	echo "0 passed, 1 failed"
	exit 1
fi

# What each page must mention.
# spacebox.1: every CLI command as a list entry (.It Cm WORD ...).
cli_words="apps sandbox allow"
sandbox_words="get put set"
# spaceboxd.8: every management route of this release.
routes="GET /api/space/apps
GET /api/space/apps/sandbox-overview
GET /api/space/apps/:id/sandbox
PUT /api/space/apps/:id/sandbox
POST /api/space/apps/:id/sandbox/hosts"

# Content checks for one page; prints the first problem and returns 1.
check_content() {
	local page=$1 name w r

	name=$(basename "$page")
	case $name in
	spacebox.1)
		for w in $cli_words; do
			if ! grep -Eq "^\.It Cm $w( |\$)" "$page"; then
				echo "command \"$w\" is not documented"
				return 1
			fi
		done
		for w in $sandbox_words; do
			if ! grep -Eq "^\.(It )?Cm sandbox $w( |\$)" \
			    "$page"; then
				echo "command \"sandbox $w\" is not documented"
				return 1
			fi
		done
		for w in --json --no-start --workspace --socket; do
			if ! grep -Eq "Fl ${w#-}( |\$)" "$page"; then
				echo "option \"$w\" is not documented"
				return 1
			fi
		done
		;;
	spaceboxd.8)
		while IFS= read -r r; do
			if ! grep -Eq "(^|[^A-Za-z])${r}([^/A-Za-z-]|\$)" \
			    "$page"; then
				echo "route \"$r\" is not documented"
				return 1
			fi
		done <<EOF
$routes
EOF
		;;
	esac
	return 0
}

# The pages that must exist, then any other page in man/.
pages="$MAN/spacebox.1 $MAN/spacebox-policy.5 $MAN/spaceboxd.8"
for p in "$MAN"/*.[1-8]; do
	[ -e "$p" ] || continue
	case " $pages " in
	*" $p "*) ;;
	*) pages="$pages $p" ;;
	esac
done

for p in $pages; do
	rel=man/$(basename "$p")
	if [ ! -f "$p" ]; then
		bad "$rel" "missing"
		continue
	fi
	set +e
	out=$(mandoc -T lint -W warning "$p" 2>&1)
	rc=$?
	set -e
	if [ $rc -ne 0 ] || [ -n "$out" ]; then
		bad "$rel" "mandoc -T lint -W warning (exit $rc)"
		[ -z "$out" ] || printf '%s\n' "$out" | sed 's/^/    /'
		continue
	fi
	if ! why=$(check_content "$p"); then
		bad "$rel" "$why"
		continue
	fi
	ok "$rel"
done

# Every key of the interface is documented: spacebox keys prints the same
# table the help screen is generated from.
if [ -x "${SB_BIN:-}/spacebox" ]; then
	missing=$("$SB_BIN/spacebox" keys | while IFS="$(printf '\t')" read -r ctx name help; do
		grep -qF -- "$help" "$SB_SRC/man/spacebox.1" || echo "$help"
	done)
	if [ -z "$missing" ]; then
		ok "spacebox(1) documents every key of the interface"
	else
		bad "spacebox(1) keys" "undocumented: $(echo "$missing" | tr '\n' ';')"
	fi
fi

# Every command in the table is in spacebox(1).
if [ -x "${SB_BIN:-}/spacebox" ]; then
	for c in $("$SB_BIN/spacebox" --help | awk 'NR > 2 { print $2 }'); do
		if grep -q "^\.It Cm $c" "$SB_SRC/man/spacebox.1"; then
			ok "spacebox(1) documents $c"
		else
			bad "spacebox(1)" "command $c is not documented"
		fi
	done
fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
