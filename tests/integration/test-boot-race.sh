#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The boot race of issue 30: a ptp4l grandmaster (priority1 100) and phcd (default priority 128)
# started together on one link, `phcctl wait-sync` started with them (as phcd-wait-sync.service
# is at boot). ROUNDS starts (10 by default), and in each the link taken down and up again (both
# ends lose carrier, so ptp4l too starts over): wait-sync must never exit 0 while phcd's own clock
# is the grandmaster, only once phcd follows ptp4l. On c73b1b8 it returned 0 with "grandmaster of
# domain 0" in 3 of 3 boots: both ports were MASTER after their announce receipt timeout, and
# phcd's went SLAVE once it had qualified ptp4l's Announces. Fast rates (announce 0.25 s, receipt
# timeout 3): about 6 s a round on an idle machine.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin dbus ptp phcd

PHCCTL=${PHCCTL:-$BUILD/phcctl/phcctl}
ROUNDS=${ROUNDS:-10}
dbus_start "$tmp/bus"
phcd_virtual_conf lab s1 >"$tmp/phcd.conf"

# check WHAT: wait-sync's verdict in $tmp/ws.json (exit status $rc) must be "synchronized to
# ptp4l's clock", never "its own clock is the grandmaster".
check() {
	local what=$1 own gm
	[ "$rc" = 0 ] || fail "$what: wait-sync exited $rc: $(cat "$tmp/ws.err") $(cat "$tmp/ws.json"); phcd: $(tail -n 20 "$PHCD_LOG")"
	own=$(busctl --system get-property org.phcd1 /org/phcd1/instance/lab org.phcd1.Instance ClockIdentity)
	gm=$(busctl --system get-property org.phcd1 /org/phcd1/instance/lab org.phcd1.Instance GrandmasterIdentity)
	jq -e '.Ready and (.Instances[0] | .Synchronized and (.IsGrandmaster | not) and
		(.Reason | startswith("synchronized")))' "$tmp/ws.json" >/dev/null ||
		fail "$what: wait-sync exited 0 without following ptp4l (own clock $own, grandmaster now $gm): $(jq -c '.Instances[0] | {Synchronized, IsGrandmaster, Reason}' "$tmp/ws.json")"
	[ "$own" != "$gm" ] || fail "$what: phcd's own clock $own is the grandmaster after wait-sync"
}

# port_state STATE SECONDS: poll port s1's State on the bus until it is STATE.
port_state() {
	local deadline=$((SECONDS + $2)) got=
	while :; do
		got=$(busctl --system get-property org.phcd1 /org/phcd1/port/s1 org.phcd1.Port State 2>/dev/null || true)
		[ "$got" != "s \"$1\"" ] || return 0
		[ "$SECONDS" -lt "$deadline" ] || fail "port s1: expected $1 within $2 s, got $got"
		sleep 0.05
	done
}

t0=$SECONDS
for round in $(seq 1 "$ROUNDS"); do
	S=phbr-s$$-$round G=phbr-g$$-$round
	netns_pair "$S" "$G" s1 g1
	# Together, as at boot: ptp4l, phcd and wait-sync (which waits for phcd on the bus).
	# fault_reset_interval ASAP: a ptp4l whose port went FAULTY in the flap (a Sync it could not
	# send) waits 16 s by default before it listens again, announcing nothing; phcd is then
	# rightly the grandmaster of the link. Here the better clock stays on the link.
	ptp4l_gm "$G" g1 "$tmp/gm.uds" "$tmp/gm-$round.log" --fault_reset_interval ASAP
	phcd_start "$S" "$tmp/phcd.conf" "$tmp/phcd-$round.log"
	rc=0
	"$PHCCTL" wait-sync --timeout 30 --json >"$tmp/ws.json" 2>"$tmp/ws.err" || rc=$?
	check "round $round, start"

	# The interface goes away and comes back: both ends lose carrier, both start over.
	ip -n "$S" link set s1 down
	port_state FAULTY 10
	ip -n "$S" link set s1 up
	rc=0
	"$PHCCTL" wait-sync --timeout 30 --json >"$tmp/ws.json" 2>"$tmp/ws.err" || rc=$?
	check "round $round, after link down/up"

	kill "$PHCD_PID" "$GM_PID"
	wait_pid "$PHCD_PID" 10 || true
	wait_pid "$GM_PID" 10 || true
	BG_PIDS=()
	ip netns del "$S"
	ip netns del "$G"
	deadline=$((SECONDS + 10))
	while busctl --system status org.phcd1 >/dev/null 2>&1; do
		[ "$SECONDS" -lt "$deadline" ] || fail "org.phcd1 still owned 10 s after phcd ended"
		sleep 0.02
	done
done
echo "ok: $ROUNDS starts and $ROUNDS link down/up: wait-sync returned only once phcd followed ptp4l ($((SECONDS - t0)) s)"
