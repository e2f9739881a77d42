#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# hybrid_e2e (ptp4l's key, ITU-T G.8275.2's hybrid mode) over UDPv4 and UDPv6 against Debian's
# ptp4l 3.1.1 with hybrid_e2e 1, both roles, linuxptp's default.cfg on both sides: phcd as slave
# sends its Delay_Req unicast (unicastFlag set) to the master's address, through the sockets the
# supervisor opened for it (the unicast broker, docs/architecture.md); as master it answers
# ptp4l's unicast Delay_Req unicast to their sender. Offsets judged as the other UDP tests judge
# them (udp-helpers.sh); the wire captured at ptp4l's end: no Delay_Req (phcd slave) or
# Delay_Resp (phcd master) of phcd's to the group, and those to ptp4l's address flagged unicast.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin ptp port phcd gptp udp

# hybrid_check ROLE FAMILY: what 5 s of the last run's wire at ptp4l's end say.
hybrid_check() {
	local role=$1 fam=$2 cap mine type dst peer group field
	if [ "$fam" = 4 ]; then
		field=ip.dst peer=192.0.2.1 group=224.0.1.129
	else
		field=ipv6.dst group=ff0e::181
		peer=$(ip -n "$UDP_LAST_PEER_NS" -6 addr show dev "$UDP_LAST_PEER_IF" scope link |
			awk '/inet6/ { sub("/.*", "", $2); print $2; exit }')
	fi
	# phcd's message: Delay_Req (0x1) as slave, Delay_Resp (0x9) as master.
	if [ "$role" = slave ]; then mine=0x1; else mine=0x9; fi
	cap=$(ip netns exec "$UDP_LAST_PEER_NS" timeout 15 tshark -i "$UDP_LAST_PEER_IF" -a duration:5 \
		-f 'udp port 319 or udp port 320' -T fields -E separator=' ' \
		-e ptp.v2.messagetype -e "$field" -e ptp.v2.flags.unicast 2>/dev/null || true)
	# messagetype as tshark prints it (0x01): its value.
	cap=$(while read -r t d u; do [ -n "$t" ] && echo "$((t)) $d $u"; done <<<"$cap")
	type=$((mine))
	dst=$(awk -v t="$type" -v g="$group" '$1 == t && $2 != g' <<<"$cap")
	[ -n "$dst" ] ||
		fail "hybrid_e2e UDPv$fam, phcd $role: expected its type $mine messages unicast to ptp4l, captured: $(head -n 20 <<<"$cap")"
	awk -v p="$peer" '$2 != p || ($3 != "1" && $3 != "True")' <<<"$dst" | grep -q . &&
		fail "hybrid_e2e UDPv$fam, phcd $role: unicast type $mine not to $peer with the unicast flag: $(head -n 5 <<<"$dst")"
	awk -v t="$type" -v g="$group" '$1 == t && $2 == g' <<<"$cap" | grep -q . &&
		fail "hybrid_e2e UDPv$fam, phcd $role: type $mine messages to the group $group too: $(grep " $group " <<<"$cap" | head -n 3)"
	echo "ok: UDPv$fam, phcd $role: $(wc -l <<<"$dst") messages of type $mine unicast to $peer, flag set, none to $group"
	# The supervisor handed the sockets over (debug log, logging_level 7).
	grep -Eq "unicast sockets to $peer(%[0-9]+)? handed over" "$log-phcd" ||
		fail "hybrid_e2e UDPv$fam: expected phcd's log to say the unicast sockets to $peer were handed over"
}

# hybrid_run ROLE FAMILY (a subshell of its own): phcd ROLE of ptp4l 3.1.1, both hybrid_e2e.
hybrid_run() {
	local role=$1 fam=$2
	trap 'net_cleanup' EXIT
	udp_version 0
	UDP_TAG=$3
	UDP_PTP4L_OPTS="--hybrid_e2e 1"
	udp_run "$role" "$fam" "$CFG" "both hybrid_e2e 1 with default.cfg" "hybrid_e2e = 1" \
		"network_transport = UDPv$fam"
	hybrid_check "$role" "$fam"
	udp_stop
}

job() { # ROLE:FAMILY:TAG
	IFS=: read -r role fam tag <<<"$1"
	hybrid_run "$role" "$fam" "$tag"
}

reference_linuxptp
udp_parallel job slave:4:1 master:4:2 slave:6:3 master:6:4
