#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ptp4l (slave-only, free-running) follows phcd-port over veth, E2E and P2P: it takes phcd-port
# as a new foreign master, selects it as best master, goes UNCALIBRATED (free-running ptp4l
# never claims SLAVE) and prints offsets near zero, both ends stamping the same CLOCK_REALTIME.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin port

run() {
	local mech=$1 flag=$2 A=ppma$$$2 B=ppmb$$$2 id from stats
	netns_pair "$A" "$B" "pm${flag}a" "pm${flag}b"
	phcd_port_start "$A" "pm${flag}a" "$tmp/phcd-$mech" "-$flag" --clock virtual
	ptp4l_start "$B" "pm${flag}b" "$tmp/ptp4l-$mech" "-$flag" -s
	id=$(phcd_port_id "$tmp/phcd-$mech")

	wait_for "$tmp/phcd-$mech" 'LISTENING to MASTER' 15
	wait_for "$tmp/ptp4l-$mech" "new foreign master $id-1" 15
	wait_for "$tmp/ptp4l-$mech" "selected best master clock $id" 15
	# ptp4l --free_running prints one line per 2 s here (its frequency estimate interval).
	stats=$(ptp4l_slave_stats "$tmp/ptp4l-$mech" 8 30)
	check_stats "ptp4l ($mech) as slave of phcd-port" "$stats" 5000 20000
	# And phcd-port saw no trouble from its slave.
	from=$(line_no "$tmp/phcd-$mech" 'LISTENING to MASTER')
	if tail -n +$((from + 1)) "$tmp/phcd-$mech" | grep -Eq ' to [A-Z_]+ on '; then
		fail "$mech: phcd-port left MASTER: $(grep ' to ' "$tmp/phcd-$mech")"
	fi
}

run E2E E
run P2P P
