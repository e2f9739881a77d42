#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# `interfaces = auto`: interfaces without a PHC stay out unless include_software_interfaces is
# set (here through a SIGHUP reload), and a hotplugged interface joins the auto instance.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin phcd

S=phau-s$$ P=phau-p$$
PHCD_PID=
test_on_exit 'test_stop "$PHCD_PID"'
netns_pair "$S" "$P" a0 a1

printf '%s\n' '[global]' 'time_stamping = software' 'logAnnounceInterval = -2' \
	'announceReceiptTimeout = 3' '' '[instance any]' 'interfaces = auto' \
	'clock_backend = virtual' >"$tmp/phcd.conf"
phcd_start "$S" "$tmp/phcd.conf" "$tmp/phcd.log" --status-file "$tmp/status"
wait_for "$tmp/phcd.log" 'running: 1 instance\(s\), 0 port\(s\)' 5
! grep -q '^port ' "$tmp/status" ||
	fail "auto without software interfaces: expected no port, got: $(cat "$tmp/status")"
echo "ok: interfaces = auto: the veth (no PHC) is not taken"

printf 'include_software_interfaces = 1\n' >>"$tmp/phcd.conf"
kill -HUP "$PHCD_PID"
wait_for "$tmp/status" '^port a0 instance any .*state (LISTENING|MASTER)' 5
! grep -q '^port lo ' "$tmp/status" || fail "loopback must never become a port: $(cat "$tmp/status")"
echo "ok: reload with include_software_interfaces = 1: $(grep '^port a0' "$tmp/status" | cut -d' ' -f1-8)"

veth_add "$S" a2 "$P" a3
wait_for "$tmp/status" '^port a2 instance any number 2 .*state (LISTENING|MASTER)' 5
echo "ok: hotplugged a2 joined the auto instance as port 2"

kill -TERM "$PHCD_PID"
wait "$PHCD_PID" && rc=0 || rc=$?
PHCD_PID=
[ "$rc" = 0 ] || fail "SIGTERM: expected exit 0, got $rc"
echo "ok: SIGTERM: exit 0"
