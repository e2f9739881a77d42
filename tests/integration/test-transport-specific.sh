#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# transportSpecific (majorSdoId): phcd-port with transportSpecific 1 follows a ptp4l run with
# --transportSpecific 1 (as linuxptp's gPTP.cfg has it), and ptp4l hears phcd's messages (phcd's
# path delay comes from ptp4l's answers to its Delay_Req, which ptp4l drops at another
# transportSpecific); against a ptp4l left at 0 it hears nothing, and counts every frame as
# other_domain. Against Debian's ptp4l 3.1.1 and linuxptp 4.2.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin port

printf '[global]\nlogAnnounceInterval = 0\nannounceReceiptTimeout = 3\ntransportSpecific = 1\n' \
	>"$tmp/phcd-port.conf"

run() { # PTP4L_VERSION PTP4L_TRANSPORT_SPECIFIC
	local v=${1//./}$2 A B ia ib log pid stats
	A=ptsa$$$v B=ptsb$$$v ia=ts${v}a ib=ts${v}b log=$tmp/$v
	netns_pair "$A" "$B" "$ia" "$ib"
	ptp4l_start "$A" "$ia" "$log-ptp4l" --priority1 100 --transportSpecific "$2"
	phcd_port_start "$B" "$ib" "$log-phcd" --clock virtual
	pid=$LAST_PID
	if [ "$2" = 1 ]; then
		stats=$(port_slave_stats "$log-phcd" 5 30)
		check_stats "phcd-port (transportSpecific 1) as slave of ptp4l $1 (transportSpecific 1)" \
			"$stats" 5000 20000
	else
		# ptp4l announces for 8 s: phcd-port must hear none of it and become MASTER alone.
		test_duration 8 "ptp4l announces: phcd-port must hear none of it"
		grep -q 'to SLAVE\|to UNCALIBRATED' "$log-phcd" &&
			fail "phcd-port (transportSpecific 1) followed a ptp4l $1 at transportSpecific 0"
		kill -TERM "$pid"
		wait_for "$log-phcd" '^phcd-port: counters:' 10
		grep -Eq '^phcd-port: counters:.* other_domain=[1-9]' "$log-phcd" ||
			fail "expected ptp4l's frames counted as other_domain: $(grep counters: "$log-phcd")"
		echo "ok: ptp4l $1 at transportSpecific 0 unheard: $(grep -o 'other_domain=[0-9]*' "$log-phcd")"
	fi
}

reference_linuxptp
for i in "${!REF_VERSIONS[@]}"; do
	PTP4L_DIR=${REF_DIRS[$i]}
	run "${REF_VERSIONS[$i]}" 1
	run "${REF_VERSIONS[$i]}" 0
done
