#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Attack: forged CANCEL_UNICAST_TRANSMISSION (IEEE 1588-2019 16.1.3), both ways, against Debian's
# ptp4l 3.1.1 running linuxptp's UNICAST-MASTER.cfg and UNICAST-SLAVE.cfg (only addresses adapted).
#  a) phcd grantee of ptp4l (192.0.2.1). A stranger (unicast-forge.py in ptp4l's namespace, a raw
#     socket) sends phcd CANCELs of its Announce, Sync and Delay_Resp grants, 3 rounds each: from
#     192.0.2.66 under ptp4l's portIdentity, from 192.0.2.1 (spoofed) under a clockIdentity of its
#     own, and from 192.0.2.1 under ptp4l's clockIdentity with port 2. Expected: none acted on:
#     for 4 s Port.UnicastTable shows all three granted, phcd sends no ACKNOWLEDGE_CANCEL, stays
#     SLAVE with its offsets within the UDP tests' bounds, and Counters count them
#     (unicast_forged +18, unicast_cancels_unknown +9, unicast_cancels_received +0). Then ptp4l's
#     own CANCEL of Sync (its address and portIdentity, as it would send it): acknowledged on
#     the wire, unicast_cancels_received +1, the Sync grant ended.
#  b) ptp4l grantee of phcd (192.0.2.2). The stranger sends phcd CANCELs of ptp4l's grants from
#     192.0.2.1 (spoofed) under its own clockIdentity and from 192.0.2.66 under ptp4l's
#     portIdentity, and Delay_Req from 192.0.2.1 under its own clockIdentity. Expected: ptp4l's
#     grants stay (UnicastTable, 4 s), ptp4l's offsets stay within bounds, unicast_forged +9,
#     unicast_cancels_unknown +9, unicast_not_granted +5 (the Delay_Req), no ACKNOWLEDGE_CANCEL
#     from phcd. Then ptp4l's own CANCEL of Sync: acknowledged, unicast_cancels_received +1, the
#     Sync grant ended.
# On BASE (0e9333f) phcd takes a CANCEL from the grant's address whatever its portIdentity: in
# a) its grants leave "granted" ("denied"), in b) ptp4l's leave its table.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin dbus ptp port phcd gptp udp unicast

FORGE=$SRC/tests/integration/unicast-forge.py
# grants ROLE: the states of 192.0.2.1's announce, sync and delay_resp rows in UnicastTable.
grants() {
	busctl --system --json=short get-property org.phcd1 "/org/phcd1/port/$ib" org.phcd1.Port \
		UnicastTable | jq -r --arg r "$1" '[.data[] | select(.[0] == "192.0.2.1" and
		.[1] == $r and (.[2] == "announce" or .[2] == "sync" or .[2] == "delay_resp")) |
		.[2] + "=" + .[3]] | sort | join(" ")'
}
# grants_hold ROLE WHAT SECONDS: all three granted at every look for SECONDS.
grants_hold() {
	local until=$((SECONDS + $3)) g
	while [ "$SECONDS" -lt "$until" ]; do
		g=$(grants "$1")
		[ "$g" = "announce=granted delay_resp=granted sync=granted" ] ||
			fail "$2: expected ptp4l's three grants to stay granted, UnicastTable says: $g"
		sleep 0.2
	done
}
# no_ack WHAT: phcd sent no ACKNOWLEDGE_CANCEL (Signaling, tlvType 7) in the capture $log.cap.
no_ack() {
	local cap
	cap=$(uc_pcap_read "$log.cap")
	uc_unseen "$cap" '^12 192\.0\.2\.2 [0-9.]+ (1|True) ([0-9a-fx]*,)*(0x0*)?7(,|$)' \
		"$1: phcd acknowledged a forged CANCEL"
}
# within SECONDS CMD: CMD (evaluated) succeeds within SECONDS, polled every 0.2 s; else 1.
within() {
	local until=$((SECONDS + $1))
	until eval "$2"; do
		[ "$SECONDS" -lt "$until" ] || return 1
		sleep 0.2
	done
}
# held ROLE WHAT LOG REGEX N BOUND: after the forgeries, ptp4l's three grants held for 4 s, no
# ACKNOWLEDGE_CANCEL of phcd on the wire, and N offsets (lines of LOG matching REGEX from line
# $from) with their median within BOUND ns.
held() {
	grants_hold "$1" "$2" 4
	no_ack "$2"
	wait_lines "$3" "$4" "$5" 20 "$from"
	check_stats "$2" "$(offset_stats "$3" "$from" "$5")" "$6" 20000
}
# own_cancel ROLE WHAT CLOCK: ptp4l's own CANCEL of Sync (its address and portIdentity CLOCK-1),
# as it would send it: acknowledged on the wire, counted, and the Sync grant ends.
own_cancel() {
	uc_pcap_start "$A" "$ia" "$log.cap2"
	forge 192.0.2.1 "$3" 1 1 cancel-sync >/dev/null
	within 5 '[ "$(uc_counter unicast_cancels_received)" = 1 ]' ||
		fail "$2: ptp4l's own CANCEL: expected Counters unicast_cancels_received 1, got $(uc_counter unicast_cancels_received)"
	# The table reaches D-Bus once a second at most; a grantee asks again after 4 s
	# (logQueryInterval 2).
	within 3 '[[ "$(grants "$1")" != *sync=granted* ]]' ||
		fail "$2: ptp4l's own CANCEL of Sync: expected the Sync grant ended, UnicastTable says: $(grants "$1")"
	uc_seen "$(uc_pcap_read "$log.cap2")" '^12 192\.0\.2\.2 192\.0\.2\.1 (1|True) (0x0*)?7$' \
		"$2: expected phcd's ACKNOWLEDGE_CANCEL of ptp4l's own CANCEL"
	echo "ok: $2: ptp4l's own CANCEL acknowledged, Sync grant ended"
}
run() { "run_$1"; }
# cancels SRC CLOCK PORT: 3 rounds of CANCELs of the three granted types; how many went.
cancels() { forge "$1" "$2" "$3" 3 cancel-announce cancel-sync cancel-delay_resp; }
forge() { # SRC CLOCK PORT ROUNDS KIND...: from ptp4l's namespace to phcd
	local n
	n=$(ip netns exec "$A" python3 "$FORGE" "$1" 192.0.2.2 "$2" "$3" "$4" 20 "${@:5}") ||
		fail "unicast-forge.py $*: failed"
	echo "$n"
}

reference_linuxptp

# Each run in a subshell of its own (udp_parallel), on a bus of its own: a) and b) at once.
run_a() {
	local master before_f before_u from n
	trap 'net_cleanup; dbus_cleanup' EXIT
	dbus_start "$tmp/bus-a"
	uc_grantee_start a "a: before the forged CANCELs: phcd grantee of ptp4l"
	master=$(eui64 "$ia" "$A")
	grants_hold grantee "a: before the forged CANCELs" 1
	before_f=$(uc_counter_or_0 unicast_forged)
	before_u=$(uc_counter_or_0 unicast_cancels_unknown)
	[ "$(uc_counter unicast_cancels_received)" = 0 ] ||
		fail "a: Counters unicast_cancels_received $(uc_counter unicast_cancels_received) before any CANCEL"
	uc_pcap_start "$A" "$ia" "$log.cap"
	from=$(wc -l <"$log-phcd")
	n=$(($(cancels 192.0.2.66 "$master" 1) + $(cancels 192.0.2.1 0af100fffe000042 1) +
		$(cancels 192.0.2.1 "$master" 2)))
	[ "$n" = 27 ] || fail "a: the stranger sent $n CANCELs, expected 27"
	held grantee "a: 27 forged CANCELs, phcd grantee of ptp4l" "$log-phcd" 'master offset .* s2 ' 16 5000
	! tail -n +$((from + 1)) "$log-phcd" | grep -Eq "$ib: [A-Z_]+ -> " ||
		fail "a: phcd's port changed state after the forged CANCELs: $(tail -n +$((from + 1)) "$log-phcd" | grep -E "$ib: [A-Z_]+ -> " | head -n 3)"
	uc_counter_grew unicast_forged "$before_f" 18 "a: the CANCELs from 192.0.2.1 under another portIdentity"
	uc_counter_grew unicast_cancels_unknown "$before_u" 9 "a: the CANCELs from 192.0.2.66"
	[ "$(uc_counter unicast_cancels_received)" = 0 ] ||
		fail "a: Counters unicast_cancels_received $(uc_counter unicast_cancels_received), expected 0: a forged CANCEL was taken"
	echo "ok: a: 27 forged CANCELs: ptp4l's grants held, no ACK, 18 forged, 9 unknown"
	own_cancel grantee a "$master"
}

run_b() {
	local slave before_f before_u before_n from n
	trap 'net_cleanup; dbus_cleanup' EXIT
	dbus_start "$tmp/bus-b"
	uc_pair b
	cp "$CONFIGS/UNICAST-MASTER.cfg" "$tmp/master-b.cfg"
	uc_slave_cfg "$tmp/slave-b.cfg" 192.0.2.2 "$ia"
	udp_phcd_conf "$tmp/master-b.cfg" "$ib" master "network_transport = UDPv4" >"$log.phcd.conf"
	# phcd first: ptp4l's first REQUEST is answered, not asked again after its backoff.
	gptp_phcd_start "$B" "$log.phcd.conf"
	wait_for "$log.status" "^instance default .* clock [0-9a-f.]+ " 10
	udp_ptp4l_start "$A" "$ia" "$log-ptp4l" "$tmp/slave-b.cfg" -4 --priority1 250
	# ptp4l (free_running) logs an offset every 2 s here: 3 before, 5 after, not 10 and 10.
	wait_for "$log-ptp4l" "selected best master clock $(status_field "$log.status" instance default clock)" 30
	check_stats "b: before the forged CANCELs: ptp4l grantee of phcd" \
		"$(ptp4l_slave_stats "$log-ptp4l" 3 30)" 10000 20000
	slave=$(eui64 "$ia" "$A")
	within 5 '[ "$(grants grantor)" = "announce=granted delay_resp=granted sync=granted" ]' ||
		fail "b: expected ptp4l's three grants in UnicastTable, got: $(grants grantor)"
	before_f=$(uc_counter_or_0 unicast_forged)
	before_u=$(uc_counter_or_0 unicast_cancels_unknown)
	before_n=$(uc_counter_or_0 unicast_not_granted)
	uc_pcap_start "$A" "$ia" "$log.cap"
	from=$(wc -l <"$log-ptp4l")
	n=$(($(cancels 192.0.2.1 0af100fffe000042 1) + $(cancels 192.0.2.66 "$slave" 1) +
		$(forge 192.0.2.1 0af100fffe000042 1 5 delay_req)))
	[ "$n" = 23 ] || fail "b: the stranger sent $n messages, expected 23"
	held grantor "b: 18 forged CANCELs, ptp4l grantee of phcd" "$log-ptp4l" 'master offset' 5 10000
	uc_counter_grew unicast_forged "$before_f" 9 "b: the CANCELs from 192.0.2.1 under another portIdentity"
	uc_counter_grew unicast_cancels_unknown "$before_u" 9 "b: the CANCELs from 192.0.2.66"
	uc_counter_grew unicast_not_granted "$before_n" 5 "b: the stranger's Delay_Req"
	[ "$(uc_counter unicast_cancels_received)" = 0 ] ||
		fail "b: Counters unicast_cancels_received $(uc_counter unicast_cancels_received), expected 0"
	echo "ok: b: 18 forged CANCELs and 5 Delay_Req: ptp4l's grants held, 9 forged, 9 unknown, 5 not granted"
	own_cancel grantor b "$slave"
}

udp_parallel run a b
