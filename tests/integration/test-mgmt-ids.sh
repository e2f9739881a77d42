#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every management id that ptp4l 4.2 answers, asked of phcd with pmc 4.2 and pmc 3.1.1 on its
# read-write socket: the ids phcd serves come back with data (PORT_STATS_NP counts the Announces
# phcd sent, equal for both pmcs within a few; POWER_PROFILE_SETTINGS_NP says version 2017), the
# others with MANAGEMENT_ERROR_STATUS (neither pmc prints the error id: test-mgmt checks they are
# NOT_SUPPORTED, not NO_SUCH_ID); docs/management.md gives the reason of each one not served.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin port

reference_linuxptp
L42=${REF_DIRS[1]}
S=pmis$$ P=pmip$$
netns_pair "$S" "$P" mis mip
cat >"$tmp/phcd.conf" <<CONF
[global]
time_stamping = software
logAnnounceInterval = -2
announceReceiptTimeout = 3
priority1 = 100

[instance m]
interfaces = mis
clock_backend = free_running
masterOnly = 1
power_profile.version = 2017
CONF
ip netns exec "$S" capsh --drop=cap_sys_time -- -c "exec $BUILD/daemon/phcd -f $tmp/phcd.conf \
	--uds $tmp/phcd.uds --uds-ro ''" >"$tmp/phcd.log" 2>&1 &
BG_PIDS+=($!)
ptp4l_start "$P" mip "$tmp/ptp4l.log" -s
wait_for "$tmp/ptp4l.log" 'to UNCALIBRATED on RS_SLAVE' 30

SERVED="USER_DESCRIPTION DEFAULT_DATA_SET CURRENT_DATA_SET PARENT_DATA_SET TIME_PROPERTIES_DATA_SET
PRIORITY1 PRIORITY2 DOMAIN SLAVE_ONLY CLOCK_ACCURACY TRACEABILITY_PROPERTIES TIMESCALE_PROPERTIES
TIME_STATUS_NP GRANDMASTER_SETTINGS_NP PORT_DATA_SET LOG_ANNOUNCE_INTERVAL ANNOUNCE_RECEIPT_TIMEOUT
LOG_SYNC_INTERVAL VERSION_NUMBER DELAY_MECHANISM LOG_MIN_PDELAY_REQ_INTERVAL PORT_PROPERTIES_NP
PORT_STATS_NP MASTER_ONLY POWER_PROFILE_SETTINGS_NP"
REFUSED="CLOCK_DESCRIPTION UTC_PROPERTIES SUBSCRIBE_EVENTS_NP SYNCHRONIZATION_UNCERTAIN_NP
PORT_DATA_SET_NP PORT_SERVICE_STATS_NP UNICAST_MASTER_TABLE_NP PORT_HWCLOCK_NP
ALTERNATE_TIME_OFFSET_ENABLE ALTERNATE_TIME_OFFSET_NAME ALTERNATE_TIME_OFFSET_PROPERTIES
ALTERNATE_TIME_OFFSET_MAX_KEY PATH_TRACE_LIST PATH_TRACE_ENABLE"

ask() { # PMC ID: pmc's answer to GET ID on phcd's socket
	"$1" -u -b 0 -s "$tmp/phcd.uds" -i "$tmp/pmc.$$.$RANDOM" "GET $2" 2>&1
}

for pmc in "$L42/pmc" pmc; do
	v=$("$pmc" -v 2>&1 | head -n1)
	known=0 served=0
	for id in $SERVED; do
		out=$(ask "$pmc" "$id")
		if grep -q 'bad command\|not supported yet' <<<"$out"; then
			continue # this pmc does not know the name: nothing reaches phcd
		fi
		served=$((served + 1))
		grep -q 'RESPONSE MANAGEMENT' <<<"$out" && ! grep -q ERROR_STATUS <<<"$out" ||
			fail "pmc $v: GET $id: expected data, got: $out"
	done
	for id in $REFUSED; do
		out=$(ask "$pmc" "$id")
		if grep -q 'bad command\|not supported yet' <<<"$out"; then
			continue # this pmc does not know the name: nothing reaches phcd
		fi
		known=$((known + 1))
		grep -q 'MANAGEMENT_ERROR_STATUS' <<<"$out" ||
			fail "pmc $v: GET $id: expected MANAGEMENT_ERROR_STATUS, got: $out"
	done
	stats=$(ask "$pmc" PORT_STATS_NP)
	n=$(awk '$1 == "tx_Announce" { print $2 }' <<<"$stats")
	[ "${n:-0}" -gt 5 ] || fail "pmc $v: PORT_STATS_NP: expected tx_Announce > 5, got: $stats"
	pw=$(ask "$pmc" POWER_PROFILE_SETTINGS_NP | grep -o 'version *[^ ]*' | head -n1 || true)
	echo "ok: pmc $v: $served ids answered with data, $known with MANAGEMENT_ERROR_STATUS, the rest of the $(wc -w <<<"$SERVED $REFUSED") unknown to this pmc; PORT_STATS_NP tx_Announce $n; POWER_PROFILE_SETTINGS_NP ${pw:-unknown to this pmc}"
done
echo PASS
