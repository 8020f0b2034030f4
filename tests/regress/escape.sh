#!/usr/bin/env bash
# What a sandboxed app must not reach, asked from inside by a real app
# (apps/probe.py) under bubblewrap, each refusal next to a positive
# control that shows the probe could have seen it: credential stores, the
# engine's state and other apps' data, writes outside its own folders,
# $HOME in strict mode, the network in off and hosts modes (direct
# connections, host loopback services not listed), the app-facing API
# when daemonApi is off, any policy route, the management socket, and the
# engine's own environment.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/netlib.sh"
. "$(dirname "$0")/apps/probelib.sh"
sb_setup
net_setup
trap 'pb_cleanup; net_cleanup; sb_cleanup' EXIT

case $T in /tmp/*) echo "Bail out! the test tree $T is under /tmp"; exit 1;; esac

ssh_mark=ssh-key-marker-$$
home_mark=home-marker-$$
other_mark=other-secret-$$
mkdir -p "$HOME/.ssh" "$HOME/projects" "$T/outside"
chmod 700 "$HOME/.ssh"
printf -- '-----BEGIN OPENSSH PRIVATE KEY-----\n%s\n' "$ssh_mark" > "$HOME/.ssh/id_rsa"
chmod 600 "$HOME/.ssh/id_rsa"
echo "$home_mark" > "$HOME/marker.txt"
chmod 777 "$T/outside"
mkdir -p "$SENCLAW_HOME/space-apps-data/other"
echo "$other_mark" > "$SENCLAW_HOME/space-apps-data/other/secret"

pb_app probe "python3 probe.py --tag sbesc$$"
pb_app other "python3 probe.py --tag sbesc$$"
pb_listen LPORT		# a loopback service on the host, never listed
pb_listen LPORT2	# one that gets listed

# The engine runs with a secret of its own in its environment.
PATH=$PB_PATH SECRET_API_KEY=xyz-$$ net_engine --api-port 0
sb_api GET /api/space/apps/probe/sandbox
APIPORT=$(echo "$BODY" | jget .effective.daemonPort)
check "the app-facing API has a port ($APIPORT)" test "$APIPORT" -gt 0

# Policies (whole replacements).
OPEN_OFF='{"enabled":true,"readMode":"open","network":"off"}'
STRICT_OFF='{"enabled":true,"readMode":"strict","network":"off"}'
OPEN_HOSTS='{"enabled":true,"readMode":"open","network":"hosts","hosts":["example.com"],"daemonApi":false}'
STRICT_HOSTS='{"enabled":true,"readMode":"strict","network":"hosts","hosts":["example.com"]}'
OPEN_LO='{"enabled":true,"readMode":"open","network":"off","daemonApi":false,"loopback":['"$LPORT2"']}'
OPEN_ALL='{"enabled":true,"readMode":"open","network":"all"}'

pb_policy other "$OPEN_OFF"
pb_start other || true
pb_policy probe "$OPEN_OFF"

# Files: the same refusals in both read modes.
for mode in open strict; do
	if [ $mode = open ]; then pol=$OPEN_OFF; else pol=$STRICT_OFF; fi
	if ! pb_use probe "$pol"; then
		not_ok "[$mode] the probe runs"
		continue
	fi
	ok "[$mode] the probe runs (pid $PID, port $PORT)"
	allowed "[$mode] control: reads its own install dir" read path="$WS/space-apps/probe/probe.py"
	allowed "[$mode] control: writes its own data dir" \
	    write path="$SENCLAW_HOME/space-apps-data/probe/w-$mode"
	check "[$mode] the write landed in the real data dir" \
	    test -s "$SENCLAW_HOME/space-apps-data/probe/w-$mode"
	allowed "[$mode] control: writes its TMPDIR" write path="$SENCLAW_HOME/sandbox/app-tmp/probe/t"
	refused "[$mode] ~/.ssh/id_rsa is not readable" read path="$HOME/.ssh/id_rsa"
	probe list path="$HOME/.ssh"
	expect_eq "[$mode] ~/.ssh shows nothing" \
	    "$(echo "$P" | jget 'if .ok then .entries else [] end')" '[]'
	refused "[$mode] the engine's policy file is not readable" \
	    read path="$SENCLAW_HOME/sandbox/app-policies/probe.json"
	refused "[$mode] the engine's policy folder is not listable" \
	    list path="$SENCLAW_HOME/sandbox/app-policies"
	refused "[$mode] its own engine log is not readable" \
	    read path="$SENCLAW_HOME/sandbox/logs/probe.log"
	refused "[$mode] another app's data is not readable" \
	    read path="$SENCLAW_HOME/space-apps-data/other/secret"
	probe list path="$SENCLAW_HOME/space-apps-data"
	expect_eq "[$mode] the data folder shows only its own" \
	    "$(echo "$P" | jget '.entries')" '["probe"]'
	refused "[$mode] another app's engine socket folder is hidden" \
	    unix path="$SENCLAW_HOME/sandbox/app-net/other/api.sock"
	refused "[$mode] cannot write into \$HOME" write path="$HOME/planted"
	refused "[$mode] cannot write ~/.ssh/authorized_keys" \
	    write path="$HOME/.ssh/authorized_keys"
	refused "[$mode] cannot write outside its grants ($T/outside)" \
	    write path="$T/outside/planted"
	refused "[$mode] cannot write the app-policies folder" \
	    write path="$SENCLAW_HOME/sandbox/app-policies/probe.json"
	check "[$mode] none of those writes reached the host's files" test ! -e "$HOME/planted" -a \
	    ! -e "$T/outside/planted" -a ! -e "$HOME/.ssh/authorized_keys"
	if [ $mode = open ]; then
		allowed "[open] control: \$HOME is readable in open mode" read path="$HOME/marker.txt"
		expect_eq "[open] and has the marker" "$(echo "$P" | jget .data)" "$home_mark"
	else
		refused "[strict] \$HOME (a marker file) is not readable" read path="$HOME/marker.txt"
		refused "[strict] a folder outside the grants is not visible" list path="$T/outside"
		probe list path="$T"
		expect_eq "[strict] the test tree shows only the way to its grants" \
		    "$(echo "$P" | jget .entries)" '["home","ws"]'
	fi
	refused "[$mode] the management socket is not reachable" unix path="$SPACEBOX_SOCKET"
	probe list path=/tmp
	expect_eq "[$mode] /tmp is private and empty" "$(echo "$P" | jget .entries)" '[]'
done

# Network off (strict still running).
refused "[off] direct connection to the origin $NET_ORIGIN_IP:80 fails" \
    connect host="$NET_ORIGIN_IP" port=80
refused "[off] a host loopback service not listed is unreachable" \
    connect host=127.0.0.1 port="$LPORT"
refused "[off] a fetch fails" fetch url="http://$NET_ORIGIN_IP/"

# The app-facing API (daemonApi on by default).
allowed "[off] daemonApi on: health with its token" api path=/api/space/apps/probe/health
probe api path=/api/space/apps/probe/health token=none
expect_eq "[off] no token: 401" "$(echo "$P" | jget .status)" 401
probe api path=/api/space/apps/probe/health token=0000deadbeef
expect_eq "[off] a wrong token: 401" "$(echo "$P" | jget .status)" 401
probe api path=/api/space/apps/other/health
expect_eq "[off] another app's id: 403" "$(echo "$P" | jget .status)" 403
probe api path=/api/space/apps/other/config
expect_eq "[off] another app's config: 403" "$(echo "$P" | jget .status)" 403

policy_routes() {	# policy_routes TAG: every way to change a policy
	local tag=$1 id m path st
	for id in probe other; do
		for m in "PUT /api/space/apps/$id/sandbox" \
		    "POST /api/space/apps/$id/sandbox/hosts" \
		    "GET /api/space/apps/$id/sandbox" \
		    "POST /api/space/apps/$id/start" \
		    "POST /api/space/apps/$id/restart" \
		    "POST /api/space/apps/$id/proxy" \
		    "GET /api/space/apps/$id/runtime" \
		    "GET /api/space/apps/sandbox-overview" \
		    "GET /api/space/apps"; do
			path=${m#* }
			probe api method="${m%% *}" path="$path" \
			    body='{"enabled":false,"host":"evil.test"}' "${@:2}"
			st=$(echo "$P" | jget .status)
			case $st in
			401|403|404|405) ok "[$tag] ${m% *} $path: $st" ;;
			*) not_ok "[$tag] ${m% *} $path is refused"; echo "    $P" ;;
			esac
		done
	done
}
policy_routes api-token
policy_routes api-no-token token=none

# hosts mode, daemonApi off.
if pb_use probe "$OPEN_HOSTS"; then
	allowed "[hosts] control: an allowed site through the proxy" fetch url=http://example.com/
	refused "[hosts] direct connection to the origin fails" \
	    connect host="$NET_ORIGIN_IP" port=80
	refused "[hosts] direct connection to 8080 fails" \
	    connect host="$NET_ORIGIN_IP" port=8080
	refused "[hosts] a host loopback service not listed is unreachable" \
	    connect host=127.0.0.1 port="$LPORT"
	refused "[hosts] daemonApi off: the API port is unreachable" \
	    api path=/api/space/apps/probe/health
	refused "[hosts] a site off the list is refused by the proxy" fetch url=http://evil.test/
	refused "[hosts] the management socket is not reachable" unix path="$SPACEBOX_SOCKET"
else
	not_ok "[hosts] the probe runs"
fi
if pb_use probe "$STRICT_HOSTS"; then
	allowed "[hosts strict] control: an allowed site through the proxy" fetch url=http://example.com/
	refused "[hosts strict] direct connection to the origin fails" \
	    connect host="$NET_ORIGIN_IP" port=80
	allowed "[hosts strict] daemonApi on: the API answers with the token" \
	    api path=/api/space/apps/probe/health
	policy_routes hosts-api
else
	not_ok "[hosts strict] the probe runs"
fi

# Listed loopback ports.
if pb_use probe "$OPEN_LO"; then
	allowed "[off+loopback] a listed loopback port is reachable" \
	    connect host=127.0.0.1 port="$LPORT2"
	refused "[off+loopback] an unlisted one still is not" \
	    connect host=127.0.0.1 port="$LPORT"
	refused "[off+loopback] daemonApi off: the API is unreachable" \
	    api path=/api/space/apps/probe/health
	refused "[off+loopback] the origin is unreachable" \
	    connect host="$NET_ORIGIN_IP" port=80
else
	not_ok "[off+loopback] the probe runs"
fi

# all mode: the same connection succeeds, which shows the difference.
if pb_use probe "$OPEN_ALL"; then
	allowed "[all] control: direct connection to the origin succeeds" \
	    connect host="$NET_ORIGIN_IP" port=80
	allowed "[all] control: the host loopback service is reachable" \
	    connect host=127.0.0.1 port="$LPORT"
	refused "[all] still no ~/.ssh" read path="$HOME/.ssh/id_rsa"
	refused "[all] the management socket is not reachable" unix path="$SPACEBOX_SOCKET"
	# If it is, show what that means: the app may rewrite its own policy.
	refused "[all] the app cannot PUT its own policy over the management socket" \
	    unix path="$SPACEBOX_SOCKET" method=PUT \
	    url=/api/space/apps/probe/sandbox body="$OPEN_ALL"
	policy_routes all-api
else
	not_ok "[all] the probe runs"
fi
# daemonApi off is a matter of the token in all mode (loopback is open).
if pb_use probe '{"enabled":true,"network":"all","daemonApi":false}'; then
	probe api path=/api/space/apps/probe/health
	case $(echo "$P" | jget .status) in
	200) not_ok "[all] daemonApi off: the app-facing API refuses the app"
	     echo "    $P" ;;
	*) ok "[all] daemonApi off: the app-facing API refuses the app" ;;
	esac
else
	not_ok "[all, daemonApi off] the probe runs"
fi
pb_policy probe "$OPEN_ALL"

# The engine's environment.
probe env
env_json=$(echo "$P" | jget .env)
expect_eq "the app does not see the engine's SECRET_API_KEY" \
    "$(echo "$env_json" | jget '.SECRET_API_KEY // "absent"')" absent
check "no value of the app's environment is the engine's secret" \
    sh -c '! printf "%s" "$1" | grep -q "xyz-$2"' sh "$env_json" $$
extra=$(echo "$env_json" | jget 'keys - ["PATH","HOME","USER","LANG","TERM","PORT",
    "SENCLAW_HOME","SENCLAW_BASE_URL","SENCLAW_SPACE_APP_ID",
    "SENCLAW_SPACE_LOG_FILE","SENCLAW_TOKEN_ACCESS_APP","TMPDIR","TMP","TEMP",
    "PWD","SHLVL","_","LC_CTYPE"] | join(",")')
expect_eq "the environment has only the documented variables" "$extra" ""
expect_eq "SPACEBOX_SOCKET is not passed on" \
    "$(echo "$env_json" | jget '.SPACEBOX_SOCKET // "absent"')" absent

sb_api GET /api/space/apps/probe/sandbox
expect_eq "after all that the policy is still what the test saved" \
    "$(echo "$BODY" | jget '.config | [.enabled,.network,.readMode]')" '[true,"all","open"]'

pb_engine_stop
sb_done
