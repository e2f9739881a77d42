#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Attack, issue 17 finding 8: a host on the segment sends, as phcd's parent, each Sync before the
# real one with a Follow_Up whose values are extreme but valid: preciseOriginTimestamp
# 9223372035.999999999 s (the last second ns_t holds), then a correctionField of
# 0x7FFFFFFFFFFFFFFF ("too big"). Before: signed overflow (UBSan stopped there) and D-Bus
# OffsetFromMaster -7.4e18. Expected now: every such measurement dropped and counted
# (ignored_overflow on D-Bus), the instance's offset never beyond a second while it lasts, the
# same worker throughout, and SLAVE again with a sane offset after it. ptp4l 3.1.1 is the master.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin ptp dbus phcd

FORGE=$BUILD/tests/integration/tool-forge
L=pa8l$$ M=pa8m$$ X=pa8x$$ V=pa8v$$
dbus_start "$tmp/bus"
# One LAN: ptp4l in M, the attacker in X (it hears ptp4l's Syncs; ptp4l ignores frames with its
# own portIdentity), phcd in V.
lan_bridge "$L"
lan_station "$L" "$M" m0
lan_station "$L" "$X" x0
lan_station "$L" "$V" v1
phcd_virtual_conf attack v1 >"$tmp/phcd.conf"
STATUS=$tmp/status
phcd_start "$V" "$tmp/phcd.conf" "$tmp/phcd.log" --status-file "$STATUS"
wait_bus_name org.phcd1 10
ptp4l_gm "$M" m0 "$tmp/gm.uds" "$tmp/gm.log"

field() { status_field "$STATUS" "$@"; }
wait_status port v1 state SLAVE 30
parent=$(gm_port_identity "$M" "$tmp/gm.uds")
worker=$(field port v1 pid)
restarts=$(field port v1 restarts)
echo "ok: phcd's v1 (worker $worker) SLAVE of ptp4l $parent"

counter() { port_counter v1 "$1"; }
bus_offset() {
	busctl --system get-property org.phcd1 /org/phcd1/instance/attack org.phcd1.Instance \
		OffsetFromMaster | awk '{ print $2 }'
}
# watch_offsets PID OUT: the instance's offset (status file and D-Bus) every 0.2 s while PID
# runs, then 2 s more.
watch_offsets() {
	local end
	while kill -0 "$1" 2>/dev/null; do
		echo "$(field instance attack offset) $(bus_offset)" >>"$2"
		sleep 0.2
	done
	end=$((SECONDS + 2))
	while [ "$SECONDS" -lt "$end" ]; do
		echo "$(field instance attack offset) $(bus_offset)" >>"$2"
		sleep 0.2
	done
}
# attack NAME ARGS...: 40 forged pairs (5 s at 8 Sync/s), offsets watched meanwhile.
attack() {
	local name=$1 before after
	shift
	before=$(counter ignored_overflow)
	ip netns exec "$X" "$FORGE" sync x0 --parent "$parent" --count 40 --timeout 30 "$@" \
		>"$tmp/forge-$name.log" 2>&1 &
	local pid=$!
	BG_PIDS+=($pid)
	: >"$tmp/offsets-$name"
	watch_offsets "$pid" "$tmp/offsets-$name"
	wait "$pid" || fail "$name: the forger did not send 40 pairs: $(tail -n 3 "$tmp/forge-$name.log")"
	kill -0 "$PHCD_PID" 2>/dev/null || fail "phcd died: $(tail -n 20 "$tmp/phcd.log")"
	[ "$(field port v1 pid)" = "$worker" ] ||
		fail "$name: expected worker $worker to survive, got '$(field port v1 pid)': $(grep -i 'signal\|exit' "$tmp/phcd.log" | tail -n 3)"
	[ "$(field port v1 restarts)" = "$restarts" ] || fail "$name: v1 restarted"
	awk -v n="$name" '{ for (i = 1; i <= 2; i++) { a = $i < 0 ? -$i : $i
			if ($i != "" && a > 1e9) { print n ": absurd offset " $i " ns (status, D-Bus): " $0; bad = 1 } } }
		END { exit bad }' "$tmp/offsets-$name" ||
		fail "$name: expected the offset within 1 s throughout the attack (status file, D-Bus OffsetFromMaster)"
	local deadline=$((SECONDS + 5))
	until after=$(counter ignored_overflow) && [ $((after - before)) -ge 30 ]; do
		[ "$SECONDS" -lt "$deadline" ] ||
			fail "$name: expected ignored_overflow to grow by >= 30 for 40 forged pairs, got $((after - before))"
		sleep 0.2
	done
	echo "ok: $name: 40 forged pairs, ignored_overflow +$((after - before)), offset within 1 s ($(wc -l <"$tmp/offsets-$name") readings, largest |x| $(awk '{ for (i = 1; i <= 2; i++) { a = $i < 0 ? -$i : $i; if (a > m) m = a } } END { printf "%d", m }' "$tmp/offsets-$name") ns), same worker"
}

attack t1-max --t1 9223372035.999999999
attack correction-max --t1 1764000000 --fup-correction 0x7FFFFFFFFFFFFFFF

# After the attack: SLAVE, and the offset measured from the real Syncs again (virtual clock, no
# step of 7.4e18 taken).
deadline=$((SECONDS + 20))
until [ "$(field port v1 state)" = SLAVE ] && o=$(field instance attack offset) &&
	[ -n "$o" ] && [ "${o#-}" -lt 1000000 ]; do
	[ "$SECONDS" -lt "$deadline" ] ||
		fail "expected v1 SLAVE with |offset| < 1 ms within 20 s after the attack, got $(field port v1 state) $(field instance attack offset)"
	sleep 0.2
done
echo "ok: after the attack v1 is SLAVE, offset $(field instance attack offset) ns"
