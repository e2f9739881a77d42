#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# phcd-port follows ptp4l (a better priority1) over veth, E2E and P2P: it selects ptp4l, reaches
# SLAVE on a virtual clock, and its offsets and path delay are plausible for veth.
set -euo pipefail
: "${BUILD:?BUILD must name the build directory}" "${SRC:?SRC must name the source directory}"
. "$SRC/tests/lib/net-helpers.sh"
. "$SRC/tests/lib/port-helpers.sh"

tmp=$(mktemp -d)
trap 'net_cleanup; rm -rf "$tmp"' EXIT

run() {
	local mech=$1 flag=$2 A=ppsa$$$2 B=ppsb$$$2 gm from stats
	netns_pair "$A" "$B" "ps${flag}a" "ps${flag}b"
	ptp4l_start "$A" "ps${flag}a" "$tmp/ptp4l-$mech" "-$flag" --priority1 100
	phcd_port_start "$B" "ps${flag}b" "$tmp/phcd-$mech" "-$flag" --clock virtual

	wait_for "$tmp/ptp4l-$mech" 'assuming the grand master role' 15
	gm=$(sed -nE 's/.*selected local clock ([0-9a-f.]+) as best master.*/\1/p' \
		"$tmp/ptp4l-$mech" | head -n1)
	wait_for "$tmp/phcd-$mech" "selected best master clock $gm" 15
	wait_for "$tmp/phcd-$mech" 'UNCALIBRATED to SLAVE on MASTER_CLOCK_SELECTED' 60
	from=$(line_no "$tmp/phcd-$mech" 'UNCALIBRATED to SLAVE')
	wait_lines "$tmp/phcd-$mech" 'master offset .* s2 ' 15 30 "$from"
	grep -q 'clock virtual' "$tmp/phcd-$mech" || fail "$mech: expected the virtual clock"
	stats=$(offset_stats "$tmp/phcd-$mech" "$from" 15)
	check_stats "phcd-port ($mech) as slave of ptp4l" "$stats" 5000 20000
	if tail -n +"$from" "$tmp/phcd-$mech" | grep -q 'SLAVE to UNCALIBRATED'; then
		fail "$mech: phcd-port lost lock: $(grep 'to UNCALIBRATED' "$tmp/phcd-$mech")"
	fi
}

run E2E E
run P2P P
