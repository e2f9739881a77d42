#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Authorization through polkit: Debian's polkitd on the private bus (in a mount namespace of its
# own, where units/org.phcd1.policy is among its actions and a test rule grants org.phcd1.manage
# to "nobody"): nobody's writes go through, another unprivileged user is refused
# (auth_admin needs an agent it has not), and root never needs polkit.
set -euo pipefail
: "${BUILD:?BUILD must name the build directory}" "${SRC:?SRC must name the source directory}"
. "$SRC/tests/lib/net-helpers.sh"
. "$SRC/tests/lib/dbus-helpers.sh"

POLKITD=/usr/lib/polkit-1/polkitd
[ -x "$POLKITD" ] || fail "no $POLKITD (apt-get install polkitd)"
FAKE=$BUILD/tests/integration/tool-bus-fake
PHCCTL=$BUILD/phcctl/phcctl
tmp=$(mktemp -d)
chmod 755 "$tmp"
trap 'exec 5>&- 2>/dev/null || true; net_cleanup; dbus_cleanup; rm -rf "$tmp"' EXIT
dbus_start "$tmp/bus"
# polkitd's own bus policy (it owns org.freedesktop.PolicyKit1 as user polkitd).
cp /usr/share/dbus-1/system.d/org.freedesktop.PolicyKit1.conf "$tmp/bus/system.d/"
busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus ReloadConfig

mkdir -p "$tmp/actions" "$tmp/rules"
cp /usr/share/polkit-1/actions/* "$tmp/actions/" 2>/dev/null || true
cp "$SRC/units/org.phcd1.policy" "$tmp/actions/"
cat >"$tmp/rules/50-phcd-test.rules" <<'EOF2'
polkit.addRule(function(action, subject) {
	if (action.id == "org.phcd1.manage" && subject.user == "nobody") {
		return polkit.Result.YES;
	}
});
EOF2
chmod -R a+rX "$tmp/actions" "$tmp/rules"
# The bind mounts exist only in polkitd's private mount namespace, gone when it exits.
unshare -m --propagation private sh -c "mount --bind $tmp/actions /usr/share/polkit-1/actions &&
	mount --bind $tmp/rules /etc/polkit-1/rules.d && exec $POLKITD --no-debug" \
	>"$tmp/polkit.log" 2>&1 &
BG_PIDS+=($!)
wait_bus_name org.freedesktop.PolicyKit1 10

mkfifo "$tmp/in"
"$FAKE" <"$tmp/in" >"$tmp/out" 2>&1 &
BG_PIDS+=($!)
exec 5>"$tmp/in"
wait_for "$tmp/out" '^ready$' 5
echo "instance default" >&5
echo "port veth0 default" >&5
wait_for "$tmp/out" '^ok port$' 5

as() { # USER CMD...
	local u=$1
	shift
	setpriv --reuid="$u" --regid="$(id -g "$u")" --clear-groups "$@"
}
as nobody "$PHCCTL" set-priority1 default 7 || fail "nobody, granted by the polkit rule: set-priority1 failed"
as nobody "$PHCCTL" disable veth0 || fail "nobody, granted by the polkit rule: disable failed"
wait_for "$tmp/out" '^call set-priority1 default 7$' 2
wait_for "$tmp/out" '^call disable veth0$' 2
echo "ok: polkit grants org.phcd1.manage to nobody (rule): set-priority1 and disable reach the manager"

rc=0
as daemon "$PHCCTL" set-priority1 default 9 2>"$tmp/err" || rc=$?
[ "$rc" = 4 ] || fail "user daemon: expected exit 4 (not authorized), got $rc: $(cat "$tmp/err")"
grep -q "Interactive authentication is needed for org.phcd1.manage" "$tmp/err" ||
	fail "user daemon: expected the auth_admin challenge to be reported, got: $(cat "$tmp/err")"
got=$(as daemon gdbus call --system --dest org.phcd1 --object-path /org/phcd1 \
	--method org.phcd1.Manager.Reload 2>&1 || true)
grep -q "org.freedesktop.DBus.Error.InteractiveAuthorizationRequired" <<<"$got" ||
	fail "user daemon Reload: $got"
grep -q '^call set-priority1 default 9$' "$tmp/out" && fail "user daemon's call reached the manager"
echo "ok: user daemon (no rule, auth_admin, no agent): refused, exit 4: $(cat "$tmp/err")"

"$PHCCTL" set-priority2 default 3 || fail "root: set-priority2"
wait_for "$tmp/out" '^call set-priority2 default 3$' 2
echo "ok: root: set-priority2 reaches the manager"
echo PASS
