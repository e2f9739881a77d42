#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 31, finding 4: an instance of more than 64 ports. `interfaces = auto` (software
# interfaces included) over N veths, for each N of MANY_PORTS (65 and 200, the issue's sizes):
# the first N - 1 face nobody, the last (created last, the highest ifindex, so the last port)
# faces a ptp4l grandmaster (priority1 100). On c73b1b8 the clock-level BMCA ran over the first
# 64 ports only: an 81st port facing the grandmaster was never recommended a state, stayed
# MASTER, and nothing was logged. Expected now: phcd runs N ports, the last is recommended SLAVE
# and follows the grandmaster (the instance's grandmaster is ptp4l's), and every other port is
# MASTER.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin dbus ptp phcd

dbus_start "$tmp/bus"
STATUS=$tmp/status
PHCD_PID=
test_on_exit 'test_stop "$PHCD_PID"'

# many_ports N: one round, phcd and the grandmaster stopped at its end.
many_ports() {
	local n=$1 s=phmp-s$1-$$ p=phmp-p$1-$$ m=phmp-m$1-$$ i number gm gm_clock deadline
	for ns in $s $p $m; do netns_add "$ns"; done
	for i in $(seq 1 $((n - 1))); do
		veth_add "$s" "e$i" "$p" "p$i"
	done
	veth_add "$s" gmside "$m" m1
	rm -f "$STATUS"

	# Default Sync and Announce intervals on the silent ports: N workers on two shared cores.
	printf '%s\n' '[global]' 'time_stamping = software' 'announceReceiptTimeout = 3' '' \
		'[instance all]' 'interfaces = auto' 'include_software_interfaces = 1' \
		'clock_backend = virtual' >"$tmp/phcd.conf"
	ptp4l_gm "$m" m1 "$tmp/gm-uds-$n" "$tmp/gm-$n.log"
	phcd_start "$s" "$tmp/phcd.conf" "$tmp/phcd-$n.log" --status-file "$STATUS" --uds "" \
		--uds-ro ""
	wait_bus_name org.phcd1 30
	wait_for "$STATUS" '^port gmside ' 60
	number=$(status_field "$STATUS" port gmside number)
	[ "$number" -gt 64 ] ||
		fail "$n: setup: expected the grandmaster's port numbered past 64, it is port $number"
	echo "ok: $n ports, the grandmaster's gmside is port $number"

	wait_status port gmside state SLAVE 60 "" "port $number of $n facing the grandmaster"
	gm=$(gm_port_identity "$m" "$tmp/gm-uds-$n")
	gm_clock=$(busctl --system get-property org.phcd1 /org/phcd1/instance/all \
		org.phcd1.Instance GrandmasterIdentity | cut -d' ' -f2 | tr -d '".')
	[ "$gm_clock" = "${gm%:*}" ] ||
		fail "$n: expected the instance's grandmaster to be ptp4l's ${gm%:*}, D-Bus says $gm_clock"
	echo "ok: gmside (port $number) SLAVE, the instance's grandmaster is ptp4l's $gm_clock"

	# Every other port decided MASTER (none left LISTENING or without a state), within 30 s.
	deadline=$((SECONDS + 30))
	until [ "$(grep -cE '^port e[0-9]+ .* state MASTER ' "$STATUS")" -eq $((n - 1)) ]; do
		[ "$SECONDS" -lt "$deadline" ] ||
			fail "$n: expected the $((n - 1)) silent ports MASTER, not so: $(grep -E '^port e' "$STATUS" | grep -v ' state MASTER ' | head -n 5)"
		sleep 0.2
	done
	! grep -q 'cannot run the BMCA' "$PHCD_LOG" || fail "$n: phcd: $(grep 'cannot run the BMCA' "$PHCD_LOG")"
	echo "ok: the other $((n - 1)) ports MASTER, every port decided"
	test_stop "$PHCD_PID" "$GM_PID"
	PHCD_PID=
}

for n in ${MANY_PORTS:-65 200}; do
	many_ports "$n"
done
