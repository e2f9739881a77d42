#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Authorization through polkit: Debian's polkitd on the private bus (in a mount namespace of its
# own, where units/org.phcd1.policy is among its actions and a test rule grants org.phcd1.manage
# to "nobody"): nobody's writes go through, another unprivileged user is refused
# (auth_admin needs an agent it has not), root never needs polkit, and a call whose port goes away
# while polkit still decides is answered at once and forgotten (no query kept until shutdown: the
# stand-in counts them, and exits without a leak when built with ASan).
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin dbus

PHCCTL=$BUILD/phcctl/phcctl
dbus_start "$tmp/bus"
# User sys is granted too, but only once the test opens a gate: polkit is slow to decide.
polkit_start "$tmp/bus" "$tmp" YES

bus_fake_start "$tmp"
fake instance default
fake port veth0 default
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
# CheckConfig applies nothing, but reads files the text names as root: authorized like Reload.
got=$(as daemon gdbus call --system --dest org.phcd1 --object-path /org/phcd1 \
	--method org.phcd1.Manager.CheckConfig "ptp4l_config = /etc/shadow" 2>&1 || true)
grep -q "org.freedesktop.DBus.Error.InteractiveAuthorizationRequired" <<<"$got" ||
	fail "user daemon CheckConfig: expected refused like Reload, got: $got"
echo "ok: user daemon (no rule, auth_admin, no agent): refused, exit 4: $(cat "$tmp/err")"

"$PHCCTL" set-priority2 default 3 || fail "root: set-priority2"
wait_for "$tmp/out" '^call set-priority2 default 3$' 2
echo "ok: root: set-priority2 reaches the manager"

# fake_ask CMD REPLY_RE: one command to the stand-in, wait for its reply line.
fake_ask() {
	local from
	from=$(wc -l <"$tmp/out")
	echo "$1" >&5
	wait_for "$tmp/out" "$2" 5 "$from"
}
# The port goes away while polkit is still deciding about a call on it: the caller is answered
# at once, the query is freed then (not at shutdown), and polkit's late answer changes nothing.
fake_ask "port veth1 default" '^ok port$'
as sys gdbus call --system --dest org.phcd1 --object-path /org/phcd1/port/veth1 \
	--method org.phcd1.Port.Disable >"$tmp/gone" 2>&1 &
gone=$!
BG_PIDS+=($gone)
wait_for "$tmp/gate/log" '^deciding$' 5
fake_ask polkit-pending '^polkit-pending 1$'
fake_ask "rm-port veth1" '^ok rm-port$'
deadline=$((SECONDS + 2))
while kill -0 "$gone" 2>/dev/null; do
	[ "$SECONDS" -lt "$deadline" ] ||
		fail "Disable of a port removed during the polkit check: expected UnknownObject at once, no answer within 2 s"
	sleep 0.02
done
rc=0
wait "$gone" || rc=$?
[ "$rc" != 0 ] && grep -q "org.freedesktop.DBus.Error.UnknownObject: /org/phcd1/port/veth1 went away while its authorization was pending" "$tmp/gone" ||
	fail "Disable of a port removed during the polkit check: expected UnknownObject at once, got exit $rc: $(cat "$tmp/gone")"
fake_ask polkit-pending '^polkit-pending 0$'
touch "$tmp/gate/open"
# polkit's next answer comes after the late one: nothing of the dropped call may show up.
as nobody "$PHCCTL" set-priority1 default 11 || fail "nobody: set-priority1 after the gate opened"
wait_for "$tmp/out" '^call set-priority1 default 11$' 5
grep -q '^call disable veth1$' "$tmp/out" && fail "the call on the removed port reached the manager"
fake_ask polkit-pending '^polkit-pending 0$'
echo "ok: port removed during the polkit check: caller got UnknownObject at once, 1 -> 0 queries pending, the late answer is dropped"

# Every answered query was taken by its handler: none left, and a clean exit (LeakSanitizer
# fails it when the stand-in is built with ASan).
exec 5>&-
wait_pid "$FAKE_PID" 5 || fail "the stand-in exited with $?: $(tail -n 20 "$tmp/out")"
echo "ok: the stand-in exits cleanly"
echo PASS
