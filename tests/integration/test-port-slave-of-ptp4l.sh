#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# phcd-port follows ptp4l (a better priority1) over veth, E2E and P2P: it selects ptp4l, reaches
# SLAVE on a virtual clock, and once settled its offsets and path delay are plausible for veth.
# Against Debian's ptp4l 3.1.1 and linuxptp 4.2.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin port

run() { # E2E|P2P E|P PTP4L_VERSION
	local flag=$2 v=${3//./} gm from stats log
	local mech="$1 against ptp4l $3" A=ppsa$$$2$v B=ppsb$$$2$v ia=ps$2${v}a ib=ps$2${v}b
	log=$tmp/$2$v
	netns_pair "$A" "$B" "$ia" "$ib"
	ptp4l_start "$A" "$ia" "$log-ptp4l" "-$flag" --priority1 100
	phcd_port_start "$B" "$ib" "$log-phcd" "-$flag" --clock virtual

	wait_for "$log-ptp4l" 'assuming the grand master role' 15
	gm=$(sed -nE 's/.*selected local clock ([0-9a-f.]+) as best master.*/\1/p' \
		"$log-ptp4l" | head -n1)
	wait_for "$log-phcd" "selected best master clock $gm" 15
	wait_for "$log-phcd" 'UNCALIBRATED to SLAVE on MASTER_CLOCK_SELECTED' 60
	from=$(line_no "$log-phcd" 'UNCALIBRATED to SLAVE')
	# Judged after the settling (port_slave_stats in tests/lib/port-helpers.sh says why).
	from=$(nth_line "$log-phcd" 'master offset .* s2 ' "$PORT_SETTLE" 30 "$from")
	wait_lines "$log-phcd" 'master offset .* s2 ' 15 30 "$from"
	grep -q 'clock virtual' "$log-phcd" || fail "$mech: expected the virtual clock"
	stats=$(offset_stats "$log-phcd" "$from" 15)
	check_stats "phcd-port ($mech) as slave of ptp4l" "$stats" 5000 20000
	if tail -n +"$from" "$log-phcd" | grep -q 'SLAVE to UNCALIBRATED'; then
		fail "$mech: phcd-port lost lock: $(grep 'to UNCALIBRATED' "$log-phcd")"
	fi
}

reference_linuxptp
for i in "${!REF_VERSIONS[@]}"; do
	PTP4L_DIR=${REF_DIRS[$i]}
	run E2E E "${REF_VERSIONS[$i]}"
	run P2P P "${REF_VERSIONS[$i]}"
done
