#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A grandmaster's clockClass and traceability set at run time: phcd (profile G.8275.1) is the
# grandmaster of a ptp4l 4.2 slave run with linuxptp's G.8275.1.cfg. At first the slave sees what
# phcd.conf says (clockClass 248, not traceable); management SET GRANDMASTER_SETTINGS_NP on phcd's
# read-write socket (pmc 4.2) makes it class 6, time and frequency traceable: the slave's
# PARENT_DATA_SET and TIME_PROPERTIES_DATA_SET show it, phcd's GET and D-Bus ClockClass agree;
# D-Bus SetGrandmasterSettings (as root) then makes it class 7 and not time traceable; the
# read-only socket refuses the SET, and the values stay.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin dbus port

S=pgms$$ P=pgmp$$
reference_linuxptp
L42=${REF_DIRS[1]}
dbus_start "$tmp/bus"
netns_pair "$S" "$P" gms gmp

cat >"$tmp/phcd.conf" <<CONF
[global]
time_stamping = software

[instance tgm]
interfaces = gms
profile = G.8275.1
clock_backend = free_running
CONF
ip netns exec "$S" capsh --drop=cap_sys_time -- -c "exec $BUILD/daemon/phcd -f $tmp/phcd.conf \
	--uds $tmp/phcd.uds --uds-ro $tmp/phcd-ro.uds" >"$tmp/phcd.log" 2>&1 &
BG_PIDS+=($!)
ip netns exec "$P" capsh --drop=cap_sys_time -- -c "exec $L42/ptp4l -f $L42/configs/G.8275.1.cfg \
	-i gmp -s -S -m --free_running 1 --uds_address $tmp/slave.uds" >"$tmp/slave.log" 2>&1 &
BG_PIDS+=($!)
wait_bus_name org.phcd1 10

pmc42() { # UDS COMMAND
	"$L42/pmc" -u -b 0 -d 24 -s "$1" -i "$1.pmc$$" "$2" 2>/dev/null
}
field() { awk -v k="$1" '$1 == k { print $2; exit }'; }

# expect_slave CLASS TIME_TRACEABLE FREQ_TRACEABLE: within 20 s the slave's parent and time
# properties say so.
expect_slave() {
	local deadline=$((SECONDS + 20)) class tt ft
	while :; do
		class=$(pmc42 "$tmp/slave.uds" 'GET PARENT_DATA_SET' | field gm.ClockClass)
		tt=$(pmc42 "$tmp/slave.uds" 'GET TIME_PROPERTIES_DATA_SET' | field timeTraceable)
		ft=$(pmc42 "$tmp/slave.uds" 'GET TIME_PROPERTIES_DATA_SET' | field frequencyTraceable)
		[ "$class $tt $ft" = "$1 $2 $3" ] && break
		[ "$SECONDS" -lt "$deadline" ] ||
			fail "expected ptp4l's grandmaster clockClass $1 timeTraceable $2 frequencyTraceable $3, got '$class' '$tt' '$ft'"
		sleep 0.3
	done
	echo "ok: the ptp4l slave sees grandmaster clockClass $1, timeTraceable $2, frequencyTraceable $3"
}

wait_for "$tmp/slave.log" 'to UNCALIBRATED on RS_SLAVE' 30
expect_slave 248 0 0

SETGM='SET GRANDMASTER_SETTINGS_NP clockClass 6 clockAccuracy 0x21 offsetScaledLogVariance 0x4e5d currentUtcOffset 37 leap61 0 leap59 0 currentUtcOffsetValid 1 ptpTimescale 1 timeTraceable 1 frequencyTraceable 1 timeSource 0x20'
out=$(pmc42 "$tmp/phcd.uds" "$SETGM")
grep -q 'clockClass *6' <<<"$out" || fail "SET GRANDMASTER_SETTINGS_NP on phcd: expected a RESPONSE with clockClass 6, got: $out"
expect_slave 6 1 1
got=$(pmc42 "$tmp/phcd.uds" 'GET GRANDMASTER_SETTINGS_NP')
[ "$(field clockAccuracy <<<"$got")" = 0x21 ] && [ "$(field timeSource <<<"$got")" = 0x20 ] &&
	[ "$(field currentUtcOffsetValid <<<"$got")" = 1 ] ||
	fail "GET GRANDMASTER_SETTINGS_NP from phcd after the SET: $got"
I=/org/phcd1/instance/tgm
got=$(busctl --system get-property org.phcd1 $I org.phcd1.Instance ClockClass)
[ "$got" = "y 6" ] || fail "D-Bus ClockClass after the SET: expected 'y 6', got '$got'"
got=$(busctl --system get-property org.phcd1 $I org.phcd1.Instance TimeTraceable)
[ "$got" = "b true" ] || fail "D-Bus TimeTraceable after the SET: expected 'b true', got '$got'"
echo "ok: SET GRANDMASTER_SETTINGS_NP: phcd's GET and D-Bus agree"

busctl --system call org.phcd1 $I org.phcd1.Instance SetGrandmasterSettings yyqnbbbbby \
	7 0x21 0x4e5d 37 false false true false true 0x20 ||
	fail "D-Bus SetGrandmasterSettings as root failed"
expect_slave 7 0 1

out=$(pmc42 "$tmp/phcd-ro.uds" "$SETGM")
grep -q 'MANAGEMENT_ERROR_STATUS' <<<"$out" ||
	fail "SET on the read-only socket: expected MANAGEMENT_ERROR_STATUS, got: $out"
test_duration 1 "a quiet period: a SET wrongly applied would show by now"
expect_slave 7 0 1
echo "ok: the read-only socket refuses the SET"
echo PASS
