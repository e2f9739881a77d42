#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# phcd relaying 802.1AS time between two ptp4l gPTP clocks (linuxptp's gPTP.cfg, unchanged but
# for neighborPropDelayThresh; the upstream one takes --priority1 100 on its command line to be
# the grandmaster): two veth pairs, phcd with both ports in one instance (profile gPTP, virtual
# clock, software stamps), a boundary clock. Shown:
#   - phcd's upstream port SLAVE, its downstream port MASTER, both asCapable;
#   - the downstream ptp4l follows the upstream grandmaster through phcd: pmc shows stepsRemoved
#     2 and the grandmaster's identity, its offsets are near zero;
#   - on the downstream wire (dumpcap) phcd's Announce carries stepsRemoved 1 and the path trace
#     [grandmaster, phcd], and its Follow_Up information TLV the accumulated
#     cumulativeScaledRateOffset: the grandmaster's rate over phcd's clock as phcd's SLAVE port
#     measured it (upstream TLV times the neighborRateRatio), not the grandmaster's constant 0;
#     the downstream ptp4l's TIME_STATUS_NP shows a value phcd sent.
# Against Debian's ptp4l 3.1.1 and linuxptp 4.2.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin ptp port phcd

PCAP=$SRC/tests/integration/ptp-pcap.py

pmc_down() { # COMMAND: pmc on the downstream ptp4l's UDS (-t 1: gPTP.cfg's transportSpecific)
	ip netns exec "$D" "$(ptp4l_bin pmc)" -u -b 0 -t 1 -s "$tmp/uds-$id_-$$" -i "$tmp/pmc-$v" \
		"$1" 2>/dev/null
}

run() { # VERSION
	local U P pu pd du dd from stats gm phcd mac steps path csro pids=() deadline seen
	v=${1//./}
	U=pgru$$$v P=pgrp$$$v D=pgrd$$$v pu=gr${v}p1 pd=gr${v}p2 du=gr${v}u dd=gr${v}d
	id_=$dd log=$tmp/$v
	gptp_cfg "$PTP4L_DIR" >"$log.cfg"
	for ns in $U $P $D; do netns_add "$ns"; done
	veth_add "$U" "$du" "$P" "$pu"
	veth_add "$P" "$pd" "$D" "$dd"
	{
		echo '[global]'
		echo 'logging_level = 7'
		echo '[instance relay]'
		echo "interfaces = $pu, $pd"
		echo 'profile = gPTP'
		echo 'time_stamping = software'
		echo 'clock_backend = virtual'
		echo 'neighborPropDelayThresh = 100000'
		echo 'priority1 = 250'
		echo 'pi_proportional_const = 0.7'
		echo 'pi_integral_const = 0.3'
	} >"$log.phcd.conf"

	ptp4l_start "$U" "$du" "$log-up" -f "$log.cfg" --priority1 100
	pids+=("$LAST_PID")
	ptp4l_start "$D" "$dd" "$log-down" -f "$log.cfg" --summary_interval -3
	pids+=("$LAST_PID")
	STATUS=$log.status
	phcd_start "$P" "$log.phcd.conf" "$log-phcd" --status-file "$STATUS" --uds "" --uds-ro ""
	pids+=("$PHCD_PID")

	wait_status port "$pu" state SLAVE 40
	wait_status port "$pd" state MASTER 20
	wait_status port "$pu" ascapable 1 5
	wait_status port "$pd" ascapable 1 5
	phcd=$(status_field "$log.status" instance relay clock)
	gm=$(status_field "$log.status" instance relay gm)
	[ "$gm" != "$phcd" ] || fail "phcd is its own grandmaster, expected the upstream ptp4l"
	echo "ok: ptp4l $1 -> phcd: upstream port SLAVE, downstream MASTER, both asCapable, gm $gm"

	wait_for "$log-down" "selected best master clock $gm" 40
	# Free-running, ptp4l stays UNCALIBRATED and prints an offset every 2 s.
	stats=$(ptp4l_slave_stats "$log-down" 6 40)
	check_stats "downstream ptp4l $1 through phcd (relay) from ptp4l $1" "$stats" 10000 20000
	steps=$(pmc_down 'GET CURRENT_DATA_SET' | awk '$1 == "stepsRemoved" { print $2 }')
	[ "$steps" = 2 ] || fail "downstream ptp4l $1: pmc CURRENT_DATA_SET stepsRemoved '$steps', expected 2"
	pmc_down 'GET PARENT_DATA_SET' | grep -Eq "grandmasterIdentity +$gm" ||
		fail "downstream ptp4l $1: PARENT_DATA_SET does not name grandmaster $gm"
	echo "ok: downstream ptp4l $1: stepsRemoved 2 (pmc), grandmaster $gm"

	capture_for "$D" "$dd" 4 "$log.pcap"
	"$PCAP" "$log.pcap" >"$log.frames"
	mac=$(ip -n "$P" -j link show "$pd" | jq -r '.[0].address')
	read -r steps path < <(awk -v m="$mac" '$1 == m && $2 == "ANNOUNCE" { print $10, $12; exit }' \
		"$log.frames")
	[ "$steps" = 1 ] || fail "phcd's Announce downstream: stepsRemoved '$steps', expected 1"
	[ "$path" = "${gm//./},${phcd//./}" ] ||
		fail "phcd's Announce downstream: path trace '$path', expected [$gm, $phcd]"
	echo "ok: phcd's Announce downstream: stepsRemoved 1, path trace [$gm, $phcd]"
	csro=$(awk -v m="$mac" '$1 == m && $2 == "FOLLOW_UP" { print $10 }' "$log.frames" | sort -u)
	[ -n "$csro" ] || fail "phcd's Follow_Up downstream: no Follow_Up information TLV"
	# The grandmaster sends 0; phcd's value is its measured rate ratio: not all 0, and within
	# 100 ppm (2^41 * 1e-4) of 1.
	grep -qv '^0$' <<<"$csro" ||
		fail "phcd's Follow_Up downstream: cumulativeScaledRateOffset always 0, expected phcd's measured rate ratio"
	for c in $csro; do
		[ "${c#-}" -lt 219902326 ] ||
			fail "phcd's Follow_Up downstream: cumulativeScaledRateOffset $c, beyond 100 ppm"
	done
	echo "ok: phcd's Follow_Up downstream: cumulativeScaledRateOffset accumulated:" \
		"$(echo $csro | tr ' ' '\n' | head -n 5 | tr '\n' ' ')(2^-41 units)"
	deadline=$((SECONDS + 10)) seen=
	until [ -n "$seen" ]; do
		seen=$(pmc_down 'GET TIME_STATUS_NP' |
			awk '$1 == "cumulativeScaledRateOffset" && $2 != "+0.000000000" && $2 != "0" { print $2 }')
		[ "$SECONDS" -lt "$deadline" ] ||
			fail "downstream ptp4l $1: TIME_STATUS_NP cumulativeScaledRateOffset stays 0"
		sleep 0.3
	done
	echo "ok: downstream ptp4l $1: TIME_STATUS_NP cumulativeScaledRateOffset $seen (from phcd)"

	kill "${pids[@]}" 2>/dev/null || true
	wait "${pids[@]}" 2>/dev/null || true
}

reference_linuxptp
for i in "${!REF_VERSIONS[@]}"; do
	PTP4L_DIR=${REF_DIRS[$i]}
	run "${REF_VERSIONS[$i]}"
done
