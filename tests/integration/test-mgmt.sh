#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# IEEE 1588 management against the real phcd: Debian's pmc over the Unix sockets and over L2 from
# a peer namespace gets every supported GET, equal to phcd's D-Bus view; SET PRIORITY1 on the
# read-write socket changes the BMCA outcome (a ptp4l peer takes phcd as grandmaster) and is
# signalled on D-Bus; the read-only socket and the network refuse SET; malformed and oversized
# requests (datagrams and raw L2 frames) get MANAGEMENT_ERROR_STATUS or are dropped and counted.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin dbus phcd

RAW=$SRC/tests/integration/mgmt-raw.py
S=phmg-s$$ P=phmg-p$$ Q=phmg-q$$
dbus_start "$tmp/bus"
netns_add "$S"
netns_add "$P"
netns_add "$Q"
# s1 faces a ptp4l peer; s2 faces a namespace with nothing but pmc (its L2 requests).
veth_add "$S" s1 "$P" p1
veth_add "$S" s2 "$Q" q2

FAST="--logAnnounceInterval -2 --announceReceiptTimeout 3 --logSyncInterval -3"
ip netns exec "$P" capsh --drop=cap_sys_time -- -c "exec ptp4l -i p1 -2 -S -m --free_running 1 \
	--priority1 150 $FAST --uds_address $tmp/peer.uds" >"$tmp/peer.log" 2>&1 &
BG_PIDS+=($!)
cat >"$tmp/phcd.conf" <<CONF
[global]
time_stamping = software
logAnnounceInterval = -2
announceReceiptTimeout = 3
logSyncInterval = -3

[instance lab]
interfaces = s1, s2
priority1 = 200
clock_backend = free_running
userDescription = phcd;mgmt-test
CONF
RW=$tmp/ptp RO=$tmp/ptp-ro
phcd_start "$S" "$tmp/phcd.conf" "$tmp/phcd.log" --uds "$RW" --uds-ro "$RO"
wait_bus_name org.phcd1 10

I=/org/phcd1/instance/lab
accuracy_hex() { # ClockAccuracy as D-Bus names it -> pmc's 0xNN (IEEE 1588-2019 Table 5)
	local names=(1PS 2_5PS 10PS 25PS 100PS 250PS 1NS 2_5NS 10NS 25NS 100NS 250NS 1US 2_5US 10US
		25US 100US 250US 1MS 2_5MS 10MS 25MS 100MS 250MS 1S 10S) k
	case $1 in
	0x??) echo "$1" ;;
	UNKNOWN) echo 0xfe ;;
	BEYOND_10S) echo 0x31 ;;
	*) for k in "${!names[@]}"; do
		[ "$1" != "WITHIN_${names[$k]}" ] || { printf '0x%02x\n' $((0x17 + k)); return; }
	done
	   echo "unexpected ClockAccuracy '$1'" ;;
	esac
}
wait_prop /org/phcd1/port/s1 Port State SLAVE 20
wait_prop /org/phcd1/port/s2 Port State MASTER 10
echo "ok: phcd up: s1 SLAVE of the ptp4l peer, s2 MASTER"

n=0
pmc_uds() { # SOCKET COMMAND...: pmc's answers over a Unix socket
	local sock=$1
	shift
	n=$((n + 1))
	ip netns exec "$S" pmc -u -b 0 -s "$sock" -i "$tmp/pmc.$n" "$@"
}
pmc_l2() { # COMMAND...: pmc's answers over L2 from the peer namespace
	ip netns exec "$Q" pmc -2 -i q2 -b 0 "$@"
}
# get OUTPUT KEY [SOURCE]: the value of KEY in the answer (from SOURCE, a port identity).
get() {
	awk -v k="$2" -v src="${3-}" '
		$2 == "seq" { from = $1 }
		$1 == k && (src == "" || from == src) { $1 = ""; sub(/^ +/, ""); print; exit }' <<<"$1"
}
expect() { # WHAT GOT WANT
	[ "$2" = "$3" ] || fail "$1: expected '$3', got '$2'"
}
answers() { grep -c ' RESPONSE MANAGEMENT ' <<<"$1" || true; }

clock=$(prop $I Instance ClockIdentity)
gm=$(prop $I Instance GrandmasterIdentity)
pid1=$(prop /org/phcd1/port/s1 Port PortIdentity)
pid2=$(prop /org/phcd1/port/s2 Port PortIdentity)
[ "$gm" != "$clock" ] || fail "instance lab: expected the ptp4l peer as grandmaster, got itself"

# Every supported GET on the read-write socket, against D-Bus. Clock-level answers come from
# port 0 (as ptp4l's over its socket), port-level ones from each port.
check_clock() { # HOW SOURCE NUMBER_PORTS PMC...: compare the clock-level answers with D-Bus
	local how=$1 src=$2 nports=$3 out
	shift
	out=$("${@:3}" 'GET DEFAULT_DATA_SET')
	expect "$how DEFAULT_DATA_SET clockIdentity" "$(get "$out" clockIdentity "$src")" "$clock"
	expect "$how DEFAULT_DATA_SET priority1" "$(get "$out" priority1 "$src")" "$(prop $I Instance Priority1)"
	expect "$how DEFAULT_DATA_SET priority2" "$(get "$out" priority2 "$src")" "$(prop $I Instance Priority2)"
	expect "$how DEFAULT_DATA_SET clockClass" "$(get "$out" clockClass "$src")" "$(prop $I Instance ClockClass)"
	expect "$how DEFAULT_DATA_SET clockAccuracy" "$(get "$out" clockAccuracy "$src")" \
		"$(accuracy_hex "$(prop $I Instance ClockAccuracy)")"
	expect "$how DEFAULT_DATA_SET offsetScaledLogVariance" \
		"$(get "$out" offsetScaledLogVariance "$src")" \
		"$(printf '0x%04x' "$(prop $I Instance OffsetScaledLogVariance)")"
	expect "$how DEFAULT_DATA_SET domainNumber" "$(get "$out" domainNumber "$src")" "$(prop $I Instance Domain)"
	expect "$how DEFAULT_DATA_SET numberPorts" "$(get "$out" numberPorts "$src")" "$nports"
	expect "$how DEFAULT_DATA_SET slaveOnly" "$(get "$out" slaveOnly "$src")" 0
	out=$("${@:3}" 'GET PRIORITY1' 'GET PRIORITY2' 'GET DOMAIN' 'GET SLAVE_ONLY' 'GET CLOCK_ACCURACY')
	expect "$how PRIORITY1" "$(get "$out" priority1 "$src")" "$(prop $I Instance Priority1)"
	expect "$how PRIORITY2" "$(get "$out" priority2 "$src")" "$(prop $I Instance Priority2)"
	expect "$how DOMAIN" "$(get "$out" domainNumber "$src")" "$(prop $I Instance Domain)"
	expect "$how SLAVE_ONLY" "$(get "$out" slaveOnly "$src")" 0
	expect "$how CLOCK_ACCURACY" "$(get "$out" clockAccuracy "$src")" \
		"$(accuracy_hex "$(prop $I Instance ClockAccuracy)")"
	out=$("${@:3}" 'GET CURRENT_DATA_SET' 'GET PARENT_DATA_SET' 'GET TIME_PROPERTIES_DATA_SET' \
		'GET TIME_STATUS_NP' 'GET USER_DESCRIPTION')
	expect "$how CURRENT_DATA_SET stepsRemoved" "$(get "$out" stepsRemoved "$src")" "$(prop $I Instance StepsRemoved)"
	[ -n "$(get "$out" offsetFromMaster "$src")" ] || fail "$how CURRENT_DATA_SET: no offsetFromMaster"
	expect "$how PARENT_DATA_SET grandmasterIdentity" "$(get "$out" grandmasterIdentity "$src")" "$gm"
	expect "$how PARENT_DATA_SET parentPortIdentity" "$(get "$out" parentPortIdentity "$src")" \
		"$(prop $I Instance ParentPortIdentity)"
	expect "$how PARENT_DATA_SET grandmasterPriority1" "$(get "$out" grandmasterPriority1 "$src")" 150
	expect "$how TIME_PROPERTIES_DATA_SET currentUtcOffset" "$(get "$out" currentUtcOffset "$src")" \
		"$(prop $I Instance CurrentUtcOffset)"
	expect "$how TIME_PROPERTIES_DATA_SET ptpTimescale" "$(get "$out" ptpTimescale "$src")" \
		"$([ "$(prop $I Instance PtpTimescale)" = true ] && echo 1 || echo 0)"
	expect "$how TIME_PROPERTIES_DATA_SET timeSource" "$(get "$out" timeSource "$src")" \
		"$([ "$(prop $I Instance TimeSource)" = INTERNAL_OSCILLATOR ] && echo 0xa0)"
	expect "$how TIME_STATUS_NP gmIdentity" "$(get "$out" gmIdentity "$src")" "$gm"
	expect "$how TIME_STATUS_NP gmPresent" "$(get "$out" gmPresent "$src")" true
	expect "$how USER_DESCRIPTION" "$(get "$out" userDescription "$src")" "phcd;mgmt-test"
}
check_port() { # HOW IFNAME: compare the port-level answers of one port with D-Bus
	local how=$1 ifn=$2 out src
	local p=/org/phcd1/port/$ifn
	src=$(prop "$p" Port PortIdentity)
	out=$("${@:3}" 'GET PORT_DATA_SET' 'GET PORT_PROPERTIES_NP')
	expect "$how $ifn PORT_DATA_SET portIdentity" "$(get "$out" portIdentity "$src")" "$src"
	expect "$how $ifn PORT_DATA_SET portState" "$(get "$out" portState "$src")" "$(prop "$p" Port State)"
	expect "$how $ifn PORT_DATA_SET delayMechanism" "$(get "$out" delayMechanism "$src")" \
		"$([ "$(prop "$p" Port DelayMechanism)" = E2E ] && echo 1 || echo 2)"
	expect "$how $ifn PORT_DATA_SET logAnnounceInterval" "$(get "$out" logAnnounceInterval "$src")" -2
	expect "$how $ifn PORT_DATA_SET logSyncInterval" "$(get "$out" logSyncInterval "$src")" -3
	expect "$how $ifn PORT_DATA_SET versionNumber" "$(get "$out" versionNumber "$src")" 2
	expect "$how $ifn PORT_PROPERTIES_NP interface" "$(get "$out" interface "$src")" "$(prop "$p" Port Interface)"
	expect "$how $ifn PORT_PROPERTIES_NP timestamping" "$(get "$out" timestamping "$src")" \
		"$(prop "$p" Port TimestampingMode | tr a-z A-Z)"
	out=$("${@:3}" 'GET LOG_ANNOUNCE_INTERVAL' 'GET ANNOUNCE_RECEIPT_TIMEOUT' 'GET LOG_SYNC_INTERVAL' \
		'GET VERSION_NUMBER' 'GET DELAY_MECHANISM')
	expect "$how $ifn LOG_ANNOUNCE_INTERVAL" "$(get "$out" logAnnounceInterval "$src")" -2
	expect "$how $ifn ANNOUNCE_RECEIPT_TIMEOUT" "$(get "$out" announceReceiptTimeout "$src")" 3
	expect "$how $ifn LOG_SYNC_INTERVAL" "$(get "$out" logSyncInterval "$src")" -3
	expect "$how $ifn VERSION_NUMBER" "$(get "$out" versionNumber "$src")" 2
	expect "$how $ifn DELAY_MECHANISM" "$(get "$out" delayMechanism "$src")" 1
}
# same_over_l2 WHEN: the clock's parent and time properties data sets answer the same, field by
# field, over the socket (the supervisor) and over L2 (the worker of s2, from the data sets the
# supervisor's decision gave it).
same_over_l2() {
	local id u l
	for id in PARENT_DATA_SET TIME_PROPERTIES_DATA_SET; do
		u=$(pmc_uds "$RW" "GET $id" | grep -v ' seq ' | grep -E '^[[:space:]]+[a-zA-Z]')
		l=$(pmc_l2 "GET $id" | grep -v ' seq ' | grep -E '^[[:space:]]+[a-zA-Z]')
		[ -n "$u" ] && [ "$u" = "$l" ] || fail "$1: GET $id over the socket:
$u
over L2:
$l"
	done
}
same_over_l2 "phcd slave of the peer"
echo "ok: PARENT_DATA_SET and TIME_PROPERTIES_DATA_SET identical over the socket and L2 (phcd a slave)"
check_clock "pmc -u" "$clock-0" 2 pmc_uds "$RW"
check_port "pmc -u" s1 pmc_uds "$RW"
check_port "pmc -u" s2 pmc_uds "$RW"
out=$(pmc_uds "$RW" 'GET PORT_DATA_SET')
expect "pmc -u: PORT_DATA_SET answers (one per port)" "$(answers "$out")" 2
out=$(pmc_uds "$RO" 'GET DEFAULT_DATA_SET')
expect "pmc -u read-only socket: DEFAULT_DATA_SET clockIdentity" "$(get "$out" clockIdentity)" "$clock"
echo "ok: pmc -u: 18 GETs on the read-write socket equal D-Bus (instance lab, ports s1 s2); read-only socket answers GET"

# Over L2 from the peer namespace: the worker of s2 answers, clock-level from its own port.
# numberPorts is the worker's view: it knows only its own port (a known gap, see docs).
check_clock "pmc -2" "$pid2" 1 pmc_l2
check_port "pmc -2" s2 pmc_l2
out=$(pmc_l2 'GET PORT_DATA_SET')
expect "pmc -2: PORT_DATA_SET answers (the port on this wire)" "$(answers "$out")" 1
echo "ok: pmc -2 -i q2: the same 18 GETs over L2 equal D-Bus (answered by port $pid2)"

# SET is refused on the read-only socket and over the network; priority1 stays.
for how in ro l2; do
	if [ $how = ro ]; then out=$(pmc_uds "$RO" 'SET PRIORITY1 1'); else out=$(pmc_l2 'SET PRIORITY1 1'); fi
	grep -q 'RESPONSE MANAGEMENT_ERROR_STATUS' <<<"$out" ||
		fail "SET PRIORITY1 ($how): expected MANAGEMENT_ERROR_STATUS, got: $out"
	expect "Priority1 after SET ($how)" "$(prop $I Instance Priority1)" 200
done
echo "ok: SET PRIORITY1 refused (MANAGEMENT_ERROR_STATUS) on the read-only socket and over L2; Priority1 stays 200"

# SET PRIORITY1 100 on the read-write socket: D-Bus signals it, and the BMCA turns round: the
# ptp4l peer (priority1 150) now follows phcd.
busctl --system monitor --json=short org.phcd1 >"$tmp/monitor" 2>&1 &
BG_PIDS+=($!)
wait_for "$tmp/monitor" 'Monitoring' 5
workers=$(prop /org/phcd1/port/s1 Port WorkerPID),$(prop /org/phcd1/port/s2 Port WorkerPID)
out=$(pmc_uds "$RW" 'SET PRIORITY1 100')
expect "SET PRIORITY1 answer" "$(get "$out" priority1)" 100
wait_prop $I Instance Priority1 100 5
wait_for "$tmp/monitor" '"Priority1":\{"type":"y","data":100\}' 5
wait_prop /org/phcd1/port/s1 Port State MASTER 20
deadline=$((SECONDS + 20))
until [ "$(get "$(ip netns exec "$P" pmc -u -b 0 -s "$tmp/peer.uds" -i "$tmp/pmc.peer" \
	'GET PARENT_DATA_SET')" grandmasterIdentity)" = "$clock" ]; do
	[ "$SECONDS" -lt "$deadline" ] || fail "ptp4l peer: expected grandmaster $clock after SET PRIORITY1 100"
	sleep 0.2
done
wait_prop $I Instance GrandmasterIdentity "$clock" 10
# In place (IPC_SET_PRIORITY): the same workers before and after.
expect "WorkerPID of s1,s2 after SET PRIORITY1 100" \
	"$(prop /org/phcd1/port/s1 Port WorkerPID),$(prop /org/phcd1/port/s2 Port WorkerPID)" "$workers"
echo "ok: SET PRIORITY1 100 (read-write socket): Priority1 signalled on D-Bus, s1 MASTER, the ptp4l peer follows $clock, workers $workers kept"
same_over_l2 "phcd grandmaster"
echo "ok: PARENT_DATA_SET and TIME_PROPERTIES_DATA_SET identical over the socket and L2 (phcd grandmaster)"

# Malformed and oversized requests on the socket: dropped and counted, or WRONG_LENGTH.
ip netns exec "$S" python3 "$RAW" uds "$RW" "$tmp/raw.sock" >"$tmp/raw-uds"
cat "$tmp/raw-uds"
for c in tlv-length-0 two-tlvs not-management-tlv no-tlv garbage too-large; do
	grep -qx "$c answers 0" "$tmp/raw-uds" || fail "socket, $c: expected no answer, got: $(grep "^$c " "$tmp/raw-uds")"
done
grep -qx "oversized-get answers 1 0x0003" "$tmp/raw-uds" || fail "socket, oversized GET: expected WRONG_LENGTH (0x0003)"
grep -qx "oversized-set answers 1 0x0003" "$tmp/raw-uds" || fail "socket, oversized SET: expected WRONG_LENGTH (0x0003)"
grep -qx "good-get answers 1 data" "$tmp/raw-uds" || fail "socket, a good GET: expected one answer with data"
wait_for "$tmp/phcd.log" "management socket $RW: malformed request dropped \(4 so far\)" 2
echo "ok: socket: 6 malformed requests dropped without answer (phcd log: $(grep -c 'malformed request dropped' "$tmp/phcd.log") lines, at 1, 2, 4), oversized GET and SET got WRONG_LENGTH"

# The same as raw L2 frames from the peer namespace, counted in the s2 port's D-Bus Counters.
before=$(busctl --system get-property org.phcd1 /org/phcd1/port/s2 org.phcd1.Port Counters --json=short |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["data"].get("dropped_management", 0))')
ip netns exec "$Q" python3 "$RAW" l2 q2 >"$tmp/raw-l2"
cat "$tmp/raw-l2"
for c in tlv-length-0 two-tlvs not-management-tlv no-tlv; do
	grep -qx "$c answers 0" "$tmp/raw-l2" || fail "L2, $c: expected no answer, got: $(grep "^$c " "$tmp/raw-l2")"
done
grep -qx "oversized-get answers 1 0x0003" "$tmp/raw-l2" || fail "L2, oversized GET: expected WRONG_LENGTH (0x0003)"
# SET over the network is refused before its data is looked at: NOT_SUPPORTED.
grep -qx "oversized-set answers 1 0x0006" "$tmp/raw-l2" || fail "L2, oversized SET: expected NOT_SUPPORTED (0x0006)"
grep -qx "good-get answers 1 data" "$tmp/raw-l2" || fail "L2, a good GET: expected one answer with data"
deadline=$((SECONDS + 5))
while :; do
	got=$(busctl --system get-property org.phcd1 /org/phcd1/port/s2 org.phcd1.Port Counters --json=short |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["data"].get("dropped_management", 0))')
	[ "$got" = $((before + 4)) ] && break
	[ "$SECONDS" -lt "$deadline" ] || fail "s2 Counters dropped_management: expected $((before + 4)), got $got"
	sleep 0.1
done
echo "ok: L2: 4 malformed frames dropped (s2 Counters dropped_management $before -> $got), oversized GET got WRONG_LENGTH, SET NOT_SUPPORTED"

# management_network_set = 1 (reload): now SET over L2 is accepted and applied to the instance.
sed -i 's/^userDescription = .*/&\nmanagement_network_set = 1/' "$tmp/phcd.conf"
kill -HUP "$PHCD_PID"
deadline=$((SECONDS + 10))
while :; do
	out=$(pmc_l2 'SET PRIORITY1 90')
	[ "$(get "$out" priority1)" = 90 ] && break
	[ "$SECONDS" -lt "$deadline" ] || fail "SET PRIORITY1 90 over L2 with management_network_set: got: $out"
	sleep 0.2
done
wait_prop $I Instance Priority1 90 5
echo "ok: with management_network_set = 1, SET PRIORITY1 90 over L2 is applied (D-Bus Priority1 90)"
