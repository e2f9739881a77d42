#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Attack, issue 17 finding 1: a host on the segment answers phcd's Delay_Req as the parent (it
# needs only the parent's portIdentity and the Delay_Req's sequenceId, both on the wire) with
# logMessageInterval -30, -25 and 23. Before: -30 divided by zero in port_random_interval()
# (SIGFPE, the worker restarted until phcd gave up: FAULTY for good), -25 made 25,000 Delay_Req/s,
# 23 stopped them for months. Expected now: the same worker keeps running, no restart, every
# forged answer counted as ignored_out_of_range on D-Bus, and the Delay_Req rate stays the
# configured one (2^-2 s mean: 4/s). ptp4l 3.1.1 is the real master; a relay drops its
# Delay_Resp, so only the forged answers reach phcd (deterministic, no race).
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin ptp dbus phcd

FORGE=$BUILD/tests/integration/tool-forge
M=pa1m$$ R=pa1r$$ V=pa1v$$
dbus_start "$tmp/bus"
# M (ptp4l) -- R (relay dropping Delay_Resp; the attacker sits here on r-v1) -- V (phcd)
netns_pair "$M" "$R" m0 r-m0
netns_add "$V"
veth_add "$V" v1 "$R" r-v1
echo drop-delay-resp >"$tmp/relay-mode"
ip netns exec "$R" python3 "$SRC/tests/lib/ptp-relay.py" r-m0 r-v1 "$tmp/relay-mode" \
	>"$tmp/relay.log" 2>&1 &
BG_PIDS+=($!)

phcd_virtual_conf attack v1 'logMinDelayReqInterval = -2' >"$tmp/phcd.conf"
STATUS=$tmp/status
phcd_start "$V" "$tmp/phcd.conf" "$tmp/phcd.log" --status-file "$STATUS"
wait_bus_name org.phcd1 10
ptp4l_gm "$M" m0 "$tmp/gm.uds" "$tmp/gm.log"

field() { status_field "$STATUS" "$@"; }
# Without a Delay_Resp there is no path delay: the port follows ptp4l, UNCALIBRATED, and sends
# Delay_Req (9.5.11.2).
wait_status port v1 state UNCALIBRATED 20
parent=$(gm_port_identity "$M" "$tmp/gm.uds")
worker=$(field port v1 pid)
restarts=$(field port v1 restarts)
echo "ok: phcd's v1 (worker $worker) follows ptp4l $parent, UNCALIBRATED"

counter() { port_counter v1 "$1"; }

# The Delay_Req rate before the attack, for comparison.
a=$(counter tx_delay_req)
test_duration 4 "the Delay_Req rate before the attack, over 4 s"
before=$(($(counter tx_delay_req) - a))
echo "tx_delay_req over 4 s before the attack: $before"

ip netns exec "$R" "$FORGE" delay-resp r-v1 --parent "$parent" --interval -30,-25,23 \
	--count 9 --timeout 30 >"$tmp/forge.log" 2>&1 || true
cat "$tmp/forge.log"
grep -q '^forged=9$' "$tmp/forge.log" ||
	fail "the forger answered fewer than 9 Delay_Req within 30 s: $(tail -n 3 "$tmp/forge.log")"
# Until the last forged answer was read (the worker counted all 9) or crashed the worker.
deadline=$((SECONDS + 10))
until ! kill -0 "$PHCD_PID" 2>/dev/null || [ "$(field port v1 pid)" != "$worker" ] ||
	[ "$(counter ignored_out_of_range)" -ge 9 ]; do
	[ "$SECONDS" -lt "$deadline" ] ||
		fail "expected v1's worker $worker to read the 9 forged Delay_Resp within 10 s, ignored_out_of_range $(counter ignored_out_of_range)"
	sleep 0.2
done
kill -0 "$PHCD_PID" 2>/dev/null || fail "phcd died: $(tail -n 20 "$tmp/phcd.log")"
now_pid=$(field port v1 pid)
[ "$now_pid" = "$worker" ] ||
	fail "expected worker $worker of v1 to survive the forged Delay_Resp, got worker '$now_pid' ($(field port v1 restarts) restarts; $(grep -i 'signal\|exit\|restart' "$tmp/phcd.log" | tail -n 3))"
[ "$(field port v1 restarts)" = "$restarts" ] || fail "v1 restarted: $(cat "$STATUS")"
st=$(field port v1 state)
[ "$st" = UNCALIBRATED ] || fail "expected v1 still UNCALIBRATED, got $st"
echo "ok: 9 forged Delay_Resp (intervals -30, -25, 23): same worker, no restart, still $st"

deadline=$((SECONDS + 5))
until [ "$(counter ignored_out_of_range)" -ge 9 ]; do
	[ "$SECONDS" -lt "$deadline" ] ||
		fail "expected ignored_out_of_range >= 9 on D-Bus, got $(counter ignored_out_of_range)"
	sleep 0.2
done
echo "ok: D-Bus Counters ignored_out_of_range = $(counter ignored_out_of_range)"

# The Delay_Req rate is still the configured 4/s on average (random intervals, 9.5.11.2, and the
# counters read once a second): over 4 s between 2 and 2 x before + 20 (-25 once made it
# 25,000/s; 23 would leave none).
a=$(counter tx_delay_req)
test_duration 4 "the Delay_Req rate after the attack, over 4 s"
b=$(counter tx_delay_req)
echo "tx_delay_req over 4 s after the attack: $((b - a))"
[ $((b - a)) -ge 2 ] && [ $((b - a)) -le $((2 * before + 20)) ] ||
	fail "expected 2..$((2 * before + 20)) Delay_Req in 4 s at logMinDelayReqInterval -2 ($before before the attack), got $((b - a))"
echo "ok: Delay_Req rate unchanged ($before before, $((b - a)) after, in 4 s)"
