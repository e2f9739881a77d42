#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 28, a G.8275.1 boundary clock in holdover: linuxptp 4.2's ptp4l grandmaster G (its
# configs/G.8275.1.cfg unchanged, clockClass 6, both traceable flags set with SET
# GRANDMASTER_SETTINGS_NP, masterOnly) -> phcd (profile G.8275.1, virtual clock, short holdover
# keys) -> a ptp4l slave D (G.8275.1.cfg, slaveOnly). D's PARENT_DATA_SET and
# TIME_PROPERTIES_DATA_SET, polled all along: G's class 6 through phcd while locked; once G is
# killed, phcd's own clock with class 135 and timeTraceable within a few Announce intervals, then
# 165 without it when holdover_time ends; G back: its class 6 again through phcd. Never 6 or 7
# announced with phcd's own identity. Each transition is one journal line of phcd; D-Bus
# ClockMode, ClockModeReason and EstimatedTimeError and phcctl status follow.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin port dbus

reference_linuxptp
L42=${REF_DIRS[1]}
CFG=$L42/configs/G.8275.1.cfg
[ -f "$CFG" ] || fail "linuxptp 4.2 ships no configs/G.8275.1.cfg at $CFG"

HOLDOVER_TIME=6
INST=/org/phcd1/instance/tbc
dbus_start "$tmp/bus"
GM_ID=020000.fffe.00000a
G=phog$$ S=phos$$ D=phod$$
for ns in "$G" "$S" "$D"; do netns_add "$ns"; done
ip link add g1 netns "$G" address 02:00:00:00:00:0a type veth peer name s1 netns "$S" \
	address 02:00:00:00:00:51 || fail "veth g1/s1"
ip link add s2 netns "$S" address 02:00:00:00:00:52 type veth peer name d1 netns "$D" \
	address 02:00:00:00:00:d1 || fail "veth s2/d1"
for l in "$G g1" "$S s1" "$S s2" "$D d1"; do
	set -- $l
	ip -n "$1" link set "$2" up
done

pmc42() { # UDS COMMAND...: linuxptp 4.2's pmc on a local socket, domain 24
	local uds=$1
	shift
	"$L42/pmc" -u -b 0 -d 24 -s "$uds" -i "$uds.pmc$BASHPID" "$@" 2>/dev/null
}

GM_PID=
start_gm() { # the grandmaster, which touches no clock; class 6 and both flags
	ip netns exec "$G" capsh --drop=cap_sys_time -- -c "exec $L42/ptp4l -f $CFG -S -m \
		--free_running 1 -i g1 --clockClass 6 --masterOnly 1 \
		--uds_address $tmp/g.uds" >>"$tmp/g.log" 2>&1 &
	GM_PID=$!
	BG_PIDS+=($!)
	local deadline=$((SECONDS + 10))
	until pmc42 "$tmp/g.uds" 'SET GRANDMASTER_SETTINGS_NP clockClass 6 clockAccuracy 0x21
		offsetScaledLogVariance 0x4e5d currentUtcOffset 37 leap61 0 leap59 0
		currentUtcOffsetValid 1 ptpTimescale 1 timeTraceable 1 frequencyTraceable 1
		timeSource 0x20' | grep -q 'timeTraceable *1'; do
		[ "$SECONDS" -lt "$deadline" ] ||
			fail "ptp4l grandmaster: SET GRANDMASTER_SETTINGS_NP not taken within 10 s"
		sleep 0.2
	done
}
start_gm

cat >"$tmp/phcd.conf" <<CONF
[global]
time_stamping = software

[instance tbc]
interfaces = s1, s2
profile = G.8275.1
clock_backend = virtual
holdover_time = $HOLDOVER_TIME
holdover_time_error = 1000000000
holdover_out_of_spec_time = 600
holdover_lock_time = 2
CONF
ip netns exec "$S" capsh --drop=cap_sys_time -- -c "exec $BUILD/daemon/phcd \
	-f $tmp/phcd.conf --uds $tmp/phcd.uds --uds-ro ''" >"$tmp/phcd.log" 2>&1 &
BG_PIDS+=($!)
PHCD_LOG=$tmp/phcd.log
wait_bus_name org.phcd1 10
{ cat "$CFG"; printf 'slaveOnly 1\n'; } >"$tmp/d.cfg"
ip netns exec "$D" capsh --drop=cap_sys_time -- -c "exec $L42/ptp4l -f $tmp/d.cfg -S -m \
	--free_running 1 -i d1 --uds_address $tmp/d.uds" >"$tmp/d.log" 2>&1 &
BG_PIDS+=($!)

# phcd's clockIdentity, from its own management socket.
deadline=$((SECONDS + 20))
until PHCD_ID=$(pmc42 "$tmp/phcd.uds" 'GET DEFAULT_DATA_SET' |
	awk '$1 == "clockIdentity" { print $2; exit }') && [ -n "$PHCD_ID" ]; do
	[ "$SECONDS" -lt "$deadline" ] || fail "phcd's DEFAULT_DATA_SET not read within 20 s"
	sleep 0.2
done

# The downstream's view, every 0.1 s: "SECONDS.NS grandmasterIdentity gm.ClockClass timeTraceable"
poll() {
	while :; do
		pmc42 "$tmp/d.uds" 'GET PARENT_DATA_SET' 'GET TIME_PROPERTIES_DATA_SET' |
			awk -v t="$(date +%s.%N)" '$1 == "grandmasterIdentity" { gm = $2 }
				$1 == "gm.ClockClass" { c = $2 } $1 == "timeTraceable" { tt = $2 }
				END { if (gm != "") print t, gm, c, tt }' >>"$tmp/seen"
		sleep 0.1
	done
}
: >"$tmp/seen"
poll &
BG_PIDS+=($!)

# expect LABEL GM CLASS TT SECS: the downstream sees it within SECS; prints the seconds it took.
expect() {
	local from start=$(date +%s.%N) deadline=$((SECONDS + $5))
	from=$(wc -l <"$tmp/seen")
	until tail -n +$((from + 1)) "$tmp/seen" | grep -q " $2 $3 $4\$"; do
		if [ "$SECONDS" -ge "$deadline" ]; then
			tail -n 5 "$tmp/seen" >&2
			fail "$1: expected the downstream to see grandmaster $2 class $3" \
				"timeTraceable $4 within $5 s; last seen: $(tail -n 1 "$tmp/seen")"
		fi
		sleep 0.05
	done
	awk -v s="$start" -v n="$(date +%s.%N)" 'BEGIN { printf "%.1f", n - s }'
}

t=$(expect "locked" "$GM_ID" 6 1 60)
echo "ok: the downstream sees grandmaster $GM_ID class 6 through phcd (${t} s)"
wait_for "$tmp/phcd.log" 'instance tbc: clock mode free-run -> locked: ' 30
echo "ok: phcd logged its clock mode free-run -> locked"
wait_prop "$INST" Instance ClockMode locked 5
[ "$(prop "$INST" Instance EstimatedTimeError)" = 0 ] ||
	fail "locked: expected EstimatedTimeError 0, got $(prop "$INST" Instance EstimatedTimeError)"
echo "ok: D-Bus ClockMode locked, EstimatedTimeError 0"

kill "$GM_PID"
killed=$(date +%s.%N)
t=$(expect "grandmaster gone" "$PHCD_ID" 135 1 5)
echo "ok: grandmaster killed: the downstream sees phcd ($PHCD_ID) with class 135 and" \
	"timeTraceable after ${t} s (Announce interval 0.125 s)"
"$BUILD/phcctl/phcctl" status >"$tmp/status" ||
	fail "phcctl status failed: $(cat "$tmp/status")"
grep -Eq '^  Clock mode +: holdover \(reference lost, holdover within specification\)' \
	"$tmp/status" || fail "phcctl status: expected a 'Clock mode: holdover (...)' line, got:
$(cat "$tmp/status")"
te=$(prop "$INST" Instance EstimatedTimeError)
[ "$te" -ge 0 ] && [ "$te" -lt 1000000000 ] ||
	fail "holdover: expected EstimatedTimeError 0..1e9 ns (holdover_time_error), got '$te'"
echo "ok: D-Bus and phcctl status say holdover, the estimated time error $te ns"
t=$(expect "holdover over" "$PHCD_ID" 165 0 $((HOLDOVER_TIME + 5)))
gone=$(awk -v k="$killed" -v n="$(date +%s.%N)" 'BEGIN { printf "%.1f", n - k }')
awk -v g="$gone" -v h="$HOLDOVER_TIME" 'BEGIN { exit !(g >= h - 0.5) }' ||
	fail "class 165 came ${gone} s after the grandmaster went, expected no sooner than" \
		"holdover_time ($HOLDOVER_TIME s)"
echo "ok: class 165 without timeTraceable ${gone} s after the grandmaster went" \
	"(holdover_time $HOLDOVER_TIME s)"

wait_prop "$INST" Instance ClockMode holdover-out-of-spec 2
[ "$(prop "$INST" Instance ClockModeReason)" = "reference lost, holdover time exceeded" ] ||
	fail "expected ClockModeReason 'reference lost, holdover time exceeded', got" \
		"'$(prop "$INST" Instance ClockModeReason)'"
echo "ok: D-Bus ClockMode holdover-out-of-spec, reason: holdover time exceeded"

start_gm
t=$(expect "grandmaster back" "$GM_ID" 6 1 30)
echo "ok: the grandmaster back: the downstream sees its class 6 through phcd again (${t} s)"
wait_prop "$INST" Instance ClockMode locked 15
echo "ok: D-Bus ClockMode locked again (after holdover_lock_time)"

for re in 'clock mode locked -> holdover: reference lost, holdover within specification' \
	'clock mode holdover -> holdover-out-of-spec: reference lost, holdover time exceeded'; do
	n=$(grep -c "instance tbc: $re" "$tmp/phcd.log" || true)
	[ "$n" = 1 ] || fail "expected one journal line 'instance tbc: $re', found $n"
done
echo "ok: each transition is one journal line of phcd"

bad=$(awk -v id="$PHCD_ID" '$2 == id && ($3 == 6 || $3 == 7)' "$tmp/seen")
[ -z "$bad" ] || fail "phcd announced class 6 or 7 with its own identity: $bad"
echo "ok: $(wc -l <"$tmp/seen") polls of the downstream, never class 6 or 7 from phcd itself"
echo PASS
