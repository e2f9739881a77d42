#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Peer delay over UDP/IPv4 (IEEE 1588-2019 Annex C, 11.4): linuxptp's default.cfg unchanged in
# phcd (ptp4l_config, phcd.conf saying delay_mechanism = P2P) and in ptp4l (-P): phcd slave of
# ptp4l 3.1.1 and master of ptp4l 4.2, at once; the slave's offsets judged as the L2 tests judge
# them, phcd's interface a member of 224.0.1.129 and 224.0.0.107. Management over UDPv4 (pmc -4
# from the peer): phcd's port answers PORT_DATA_SET with delayMechanism 2 (P2P) and
# peerMeanPathDelay measured. Renumbered (phcd's address changed under the running port): its
# worker ends and is restarted with new sockets, which send from the new address.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin ptp port phcd gptp udp

# renumbered: the last run's phcd interface changes its address (192.0.2.2 to .3, as a DHCP
# renumbering would): the worker's sockets, whose source address was fixed when they were
# connected, cannot send; it says so and ends, the supervisor starts it again with new sockets,
# and its Sync comes from the new address.
renumbered() {
	local n got
	n=$(grep -c 'worker [0-9]* started' "$log-phcd")
	ip -n "$UDP_LAST_NS" addr del 192.0.2.2/24 dev "$UDP_LAST_IF" || fail "address del"
	ip -n "$UDP_LAST_NS" addr add 192.0.2.3/24 dev "$UDP_LAST_IF" || fail "address add"
	wait_for "$log-phcd" "address changed since its sockets were opened" 10
	wait_for "$log-phcd" 'worker [0-9]+ started' 15 "$(line_no "$log-phcd" 'address changed since')"
	got=$(ip netns exec "$UDP_LAST_PEER_NS" timeout 10 tshark -i "$UDP_LAST_PEER_IF" -a duration:5 \
		-f 'src host 192.0.2.3 and udp dst port 319' -c 1 -T fields -e ip.src 2>/dev/null || true)
	[ "$got" = 192.0.2.3 ] || fail "renumbered: expected phcd's event messages from 192.0.2.3 within 5 s of its restart; phcd: $(grep -v "master offset" "$log-phcd" | tail -n 12)"
	echo "ok: renumbered 192.0.2.2 -> .3: the worker ended ($(grep -c 'worker [0-9]* started' "$log-phcd") starts, $n before) and sends from 192.0.2.3"
}

one() { # INDEX: 0 phcd slave of 3.1.1, 1 phcd master of 4.2 (and pmc -4)
	local cfg ver out id delay
	trap 'net_cleanup' EXIT
	udp_version "$1"
	ver=$VER cfg=$CFG
	UDP_PTP4L_OPTS=-P
	if [ "$1" = 0 ]; then
		udp_run slave 4 "$cfg" "P2P, linuxptp $ver's default.cfg, ptp4l -P" "delay_mechanism = P2P"
	else
		udp_run master 4 "$cfg" "P2P, linuxptp $ver's default.cfg, ptp4l -P" "delay_mechanism = P2P"
		id=$(status_field "$log.status" instance default clock)
		out=$(udp_pmc 'GET PORT_DATA_SET')
		grep -Eq "^[[:space:]]+portIdentity +$id-1$" <<<"$out" &&
			grep -Eq "^[[:space:]]+delayMechanism +2$" <<<"$out" ||
			fail "pmc -4: expected PORT_DATA_SET of $id-1 with delayMechanism 2, got: $out"
		delay=$(awk '$1 == "peerMeanPathDelay" { print $2 }' <<<"$out")
		[ -n "$delay" ] && [ "$delay" -gt 0 ] ||
			fail "pmc -4: expected a peerMeanPathDelay measured over UDP (> 0), got '$delay': $out"
		echo "ok: pmc -4 (linuxptp $ver): PORT_DATA_SET of phcd $id-1, delayMechanism 2, peerMeanPathDelay $delay"
		renumbered
	fi
	udp_stop
}

reference_linuxptp
udp_parallel one "${!REF_VERSIONS[@]}"
