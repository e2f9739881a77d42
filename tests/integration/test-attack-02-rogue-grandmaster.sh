#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Attack (issue 17, finding 2): a rogue grandmaster on the LAN. phcd (system_clock_instance =
# auto, clock_backend system, software timestamps) locks CLOCK_REALTIME to a ptp4l grandmaster
# (priority1 100) on a bridge; then a rogue (phcd-port by hand, priority1 10, its clock 86,326 s
# ahead) joins and becomes the better master. phcd runs under capsh --drop=cap_sys_time and the
# clock shim (tests/doubles/clock-shim.c), which logs every clock write and performs none.
# Part 1, no acceptable master table: the rogue becomes grandmaster, but after lock the shim log
# shows no step at all and no frequency beyond 50 ppm (max_offset_jump refuses the day: holdover,
# logged). Part 2, acceptable_masters = the ptp4l grandmaster: the rogue is never the parent and
# its Announces are counted as ignored_not_acceptable_master on D-Bus.
# On 493a4b8 (run here with its phcd and phcd-port) the rogue's offset drove CLOCK_REALTIME's
# frequency to +500,000 ppb, the kernel's limit, for good (the shim's last writes), and nothing
# was refused; the review of issue 17 also saw the servo rebuilt on the parent change step the
# clock by +86,326 s when the port was not SLAVE at the follower's tick.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin dbus ptp phcd

PHCD=${PHCD:-$BUILD/daemon/phcd}
PORT=${PORT:-$BUILD/worker/phcd-port}
SHIM=${SHIM:-$BUILD/tests/doubles/libphcd-clock-shim.so}
ROGUE_OFFSET_S=86326
MAX_FREQ_PPB=50000
B=pha2-b$$ S=pha2-s$$ G=pha2-g$$ R=pha2-r$$
PHCD_PID= ROGUE_PID=
test_on_exit 'test_stop "$PHCD_PID" "$ROGUE_PID"'
dbus_start "$tmp/bus"
lan_bridge "$B"
lan_station "$B" "$S" s1
lan_station "$B" "$G" g1
lan_station "$B" "$R" r1
GM_ID=$(eui64 g1 "$G")
ROGUE_ID=$(eui64 r1 "$R")
dotted() { echo "${1:0:6}.${1:6:4}.${1:10:6}"; }
echo "grandmaster $(dotted "$GM_ID"), rogue $(dotted "$ROGUE_ID")"

# masterOnly: the real grandmaster keeps announcing when the better rogue comes.
ptp4l_gm "$G" g1 "$tmp/gm.uds" "$tmp/gm.log" --masterOnly 1
# The offset through the key: phcd-port's --virtual-offset stops at 1000 s.
{
	phcd_fast_global
	echo "virtual_clock_offset_ns = ${ROGUE_OFFSET_S}000000000"
} >"$tmp/rogue.conf"

# start_phcd TAG [EXTRA CONFIG LINE]: phcd under capsh and the shim, logs in $tmp/TAG.*
start_phcd() {
	{
		phcd_fast_global
		cat <<EOF2
system_clock_instance = auto

[instance lab]
interfaces = s1
clock_backend = system
slaveOnly = 1
${2-}
EOF2
	} >"$tmp/$1.conf"
	phcd_start_shimmed "$S" "$tmp/$1.conf" "$tmp/$1.log" "$tmp/$1.shim" \
		--port-binary "$PORT" --status-file "$tmp/$1.status"
}

start_rogue() {
	ip netns exec "$R" capsh --drop=cap_sys_time -- -c "exec $PORT -i r1 -m -f $tmp/rogue.conf \
		--clock virtual --priority1 10" \
		>"$tmp/rogue.log" 2>&1 &
	ROGUE_PID=$!
	BG_PIDS+=($ROGUE_PID)
}

gm_of() { status_field "$tmp/$1.status" instance lab gm; }

# --- Part 1: no acceptable master table ---
start_phcd p1
wait_for "$tmp/p1.log" 'system clock LOCKED \(instance lab' 60
locked_at=$(wc -l <"$tmp/p1.shim")
echo "ok: system clock locked to ptp4l ($locked_at clock writes so far, $(grep -c step_ns \
	"$tmp/p1.shim" || true) of them steps)"
start_rogue
deadline=$((SECONDS + 30))
until [ "$(gm_of p1)" = "$(dotted "$ROGUE_ID")" ]; do
	[ "$SECONDS" -lt "$deadline" ] || fail "expected the rogue (priority1 10) to become \
grandmaster within 30 s; gm $(gm_of p1); $(tail -n 5 "$tmp/p1.log")"
	sleep 0.1
done
echo "ok: the rogue became grandmaster (no acceptable master table)"
# our clock minus the master's: -86,326 s (to within the path)
wait_for "$tmp/p1.log" "system clock: refused an offset of [-+]?(86325\.9|86326\.0)[0-9]* s" 20
echo "ok: $(grep -m1 'system clock: refused an offset' "$tmp/p1.log" | sed 's/^phcd: //')"
test_duration 5 "the rogue keeps serving; the follower keeps refusing"
shim_steady "$tmp/p1.shim" "$locked_at" "$MAX_FREQ_PPB" "after lock"
test_stop "$PHCD_PID" "$ROGUE_PID"

# --- Part 2: acceptable_masters names the ptp4l grandmaster ---
start_phcd p2 "acceptable_masters = $(dotted "$GM_ID")"
wait_bus_name org.phcd1 10
wait_for "$tmp/p2.log" 'system clock LOCKED \(instance lab' 60
locked_at=$(wc -l <"$tmp/p2.shim")
start_rogue
wait_for "$tmp/rogue.log" 'MASTER' 20
deadline=$((SECONDS + 10))
while [ "$SECONDS" -lt "$deadline" ]; do
	gm=$(gm_of p2)
	[ "$gm" != "$(dotted "$ROGUE_ID")" ] || fail "the rogue became parent despite acceptable_masters"
	sleep 0.2
done
[ "$(gm_of p2)" = "$(dotted "$GM_ID")" ] ||
	fail "expected the ptp4l grandmaster as parent, got $(gm_of p2)"
n=$(busctl --system --json=short get-property org.phcd1 /org/phcd1/port/s1 org.phcd1.Port \
	Counters | jq '.data.ignored_not_acceptable_master')
[ "$n" -gt 0 ] 2>/dev/null || fail "expected ignored_not_acceptable_master > 0 on D-Bus, got '$n'"
echo "ok: with acceptable_masters the rogue was never parent; ignored_not_acceptable_master $n"
shim_no_step "$tmp/p2.shim" "$locked_at" "after lock"
echo "ok: no step after lock"
