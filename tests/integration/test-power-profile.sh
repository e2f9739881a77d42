#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# profile power-2017: phcd-port (grandmaster, power_profile.grandmasterID 7, totalTimeInaccuracy
# 1000 ns) and a ptp4l slave run with power_profile.version 2017 (4.2; 3.1.1 has no such key and
# runs without) and the profile's peer delay, both in domain 0 (ptp4l takes 0..127, not
# C37.238-2017's 254). ptp4l (3.1.1 and 4.2) accepts phcd's Announces (it selects phcd as its master: its
# parent data set names phcd's clock), and a capture shows every Announce from phcd carrying the
# IEEE C37.238-2017 TLV with phcd's values. socket_priority: both sockets transport_l2_open_fd()
# opens (event and general) have SO_PRIORITY 4 (read back by tool-transport). This kernel has no 8021q (no VLAN
# device, so no egress-qos-map) and no classful qdisc: the 802.1Q priority on the wire is not
# observed here.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin port

cat >"$tmp/phcd-port.conf" <<CONF
[global]
profile = power-2017
domainNumber = 0
priority1 = 100
power_profile.grandmasterID = 7
power_profile.2017.totalTimeInaccuracy = 1000
CONF

run() { # VERSION_INDEX
	local v=$1 A B log=$tmp/v$1 mac clock gm
	A=pppa$$$v B=pppb$$$v
	netns_pair "$A" "$B" "pp${v}a" "pp${v}b"
	ip netns exec "$B" dumpcap -q -i "pp${v}b" -w "$log.pcapng" >"$log.dumpcap" 2>&1 &
	CAP_PID=$!
	BG_PIDS+=($CAP_PID)
	local deadline=$((SECONDS + 30))
	until [ -s "$log.pcapng" ]; do
		[ "$SECONDS" -lt "$deadline" ] || fail "dumpcap did not start: $(cat "$log.dumpcap")"
		sleep 0.05
	done
	# linuxptp 3.1.1 has no power_profile keys: it must take the Announce with the TLV as such.
	local pwr=--power_profile.version=2017
	[ "$v" = 0 ] && pwr=
	ip netns exec "$A" capsh --drop=cap_sys_time -- -c "exec $(ptp4l_bin ptp4l) -i pp${v}a \
		-2 -P -s -S -m --free_running 1 $pwr \
		--uds_address $tmp/v$v.uds" >"$log-ptp4l" 2>&1 &
	BG_PIDS+=($!)
	ip netns exec "$B" capsh --drop=cap_sys_time -- -c \
		"exec $BUILD/worker/phcd-port -i pp${v}b -m -f $tmp/phcd-port.conf --clock free_running" \
		>"$log-phcd" 2>&1 &
	BG_PIDS+=($!)
	clock=$(phcd_port_id "$log-phcd")
	wait_for "$log-ptp4l" 'to UNCALIBRATED on RS_SLAVE' 30
	deadline=$((SECONDS + 20))
	while :; do
		gm=$("$(ptp4l_bin pmc)" -u -b 0 -d 0 -s "$tmp/v$v.uds" -i "$tmp/v$v.pmc" \
			'GET PARENT_DATA_SET' 2>/dev/null | awk '$1 == "grandmasterIdentity" { print $2 }')
		[ "$gm" = "$clock" ] && break
		[ "$SECONDS" -lt "$deadline" ] ||
			fail "ptp4l ${REF_VERSIONS[$v]}: expected its grandmaster to be phcd's $clock, pmc says '$gm'"
		sleep 0.3
	done
	echo "ok: ptp4l ${REF_VERSIONS[$v]} (${pwr:-no power_profile keys}) follows phcd ($clock)"
	test_duration 3 "3 s more of phcd's frames in the capture"
	kill "$CAP_PID"
	wait "$CAP_PID" 2>/dev/null || true
	mac=$(ip -n "$B" link show "pp${v}b" | awk '/link\/ether/ { print $2 }')
	tshark -r "$log.pcapng" -Y "eth.src == $mac && ptp" -T fields -E separator=' ' \
		-e ptp.v2.messagetype -e ptp.v2.an.oe.grandmasterID \
		-e ptp.v2.an.oe.totalTimeInaccuracy 2>/dev/null >"$log.frames"
	local total announces bad
	total=$(wc -l <"$log.frames")
	announces=$(awk '$1 == "0x0b"' "$log.frames" | wc -l)
	[ "$total" -gt 10 ] && [ "$announces" -ge 3 ] ||
		fail "ptp4l ${REF_VERSIONS[$v]}: only $total frames ($announces Announces) from phcd captured"
	bad=$(awk '$1 == "0x0b" && ($2 != 7 || $3 != 1000) { print }' "$log.frames" | sort | uniq -c)
	[ -z "$bad" ] ||
		fail "Announces from phcd without the C37.238 TLV (grandmasterID 7, totalTimeInaccuracy 1000): $bad"
	echo "ok: $announces Announces from phcd (of $total frames), each with the C37.238-2017 TLV (grandmasterID 7, totalTimeInaccuracy 1000 ns)"
}

netns_pair pppsa$$ pppsb$$ ppsa ppsb
out=$(ip netns exec pppsb$$ "$BUILD/tests/integration/tool-transport" --adopt --socket-priority 4 \
	send ppsb 1)
for kind in event general; do
	grep -q "$kind so_priority=4" <<<"$out" ||
		fail "socket_priority 4: expected SO_PRIORITY 4 on the $kind socket, got: $out"
done
echo "ok: socket_priority 4: the event and the general socket have SO_PRIORITY 4"

reference_linuxptp
for i in "${!REF_VERSIONS[@]}"; do
	PTP4L_DIR=${REF_DIRS[$i]}
	run "$i"
done
echo PASS
