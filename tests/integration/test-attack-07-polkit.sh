#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Attack finding 7 (issue 17): an unprivileged D-Bus caller floods a mutating method; each call
# would start a polkit check, and phcd's connection would reach dbus-daemon's limit of pending
# replies (128), so that an authorized caller's check could not even be sent. Now at most
# polkit_max_pending_per_caller (4) checks per user are in flight: of 200 calls, 196 are answered
# at once with org.freedesktop.DBus.Error.LimitsExceeded, and an authorized caller's SetPriority1
# goes through while the flood's checks are still pending. Real polkitd on a private bus (as
# test-dbus-polkit.sh): a rule grants org.phcd1.manage to nobody, and keeps polkit deciding
# about user sys (the flooder) until the test opens a gate.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin dbus

PHCCTL=$BUILD/phcctl/phcctl
FLOOD=$SRC/tests/integration/dbus-flood.py
test_on_exit 'touch "$tmp/gate/open" 2>/dev/null'
dbus_start "$tmp/bus"
# User sys is refused, but only once the test opens a gate: polkit is slow to decide.
polkit_start "$tmp/bus" "$tmp" NO

bus_fake_start "$tmp"
fake instance default
fake port veth0 default

# 1. The flood: 200 Disable calls from user sys on one connection, answered within 2 s or not.
as sys /usr/bin/python3 "$FLOOD" /org/phcd1/port/veth0 org.phcd1.Port Disable 200 2 >"$tmp/flood1" &
flood=$!
BG_PIDS+=($flood)
wait "$flood" || fail "the flood client failed: $(cat "$tmp/flood1")"
count() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }
limited=$(count org.freedesktop.DBus.Error.LimitsExceeded "$tmp/flood1")
pending=$(count pending "$tmp/flood1")
[ "${limited:-0}" = 196 ] && [ "${pending:-0}" = 4 ] ||
	fail "flood of 200 calls from one user: expected 196 LimitsExceeded at once and 4 pending, got: $(tr '\n' ';' <"$tmp/flood1")"
echo "ok: 200 calls from user sys: $(tr '\n' ';' <"$tmp/flood1") (LimitsExceeded at once, 4 checks in flight)"

# 2. More connections of the same user share its 4: all refused at once while its checks wait.
as sys /usr/bin/python3 "$FLOOD" /org/phcd1/port/veth0 org.phcd1.Port Disable 20 1 >"$tmp/flood2"
[ "$(count org.freedesktop.DBus.Error.LimitsExceeded "$tmp/flood2")" = 20 ] ||
	fail "a second connection of user sys: expected its 20 calls refused at once, got: $(tr '\n' ';' <"$tmp/flood2")"
echo "ok: a second connection of user sys: 20 of 20 refused at once (one user, one share)"

# 3. An authorized caller while the flood's checks are pending: its check is sent and granted
#    (polkitd answers it once it is done with the flood's, when the gate opens).
as nobody "$PHCCTL" set-priority1 default 7 >"$tmp/nobody.out" 2>&1 &
nb=$!
BG_PIDS+=($nb)
# Its check queued behind the flood's in polkitd before the gate opens: not observable from here
# (polkitd holds it), so a margin.
test_duration 0.5 "nobody's call reaches polkitd while the flood's checks are pending"
touch "$tmp/gate/open"
rc=0
wait "$nb" || rc=$?
[ "$rc" = 0 ] || fail "nobody's set-priority1 during the flood: expected success, exit $rc: $(cat "$tmp/nobody.out")"
wait_for "$tmp/out" '^call set-priority1 default 7$' 10
grep -q '^call disable veth0$' "$tmp/out" && fail "a call of the flooder (polkit said no) reached the manager"
echo "ok: nobody's SetPriority1 during the flood: authorized and applied; none of the flood's calls applied"
