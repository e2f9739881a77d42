#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Attack, issue 17 finding 6: a host on the segment announces 16 forged grandmasters, all worse
# than the real one (priority1 250 against ptp4l's 100, and worse than phcd's own 128), each 100
# times a second (tool-forge announce), and phcd's worker is restarted meanwhile (D-Bus
# Port.Restart: the empty table fills with the crowd first). Before: the 16-record foreign master
# table was full of them, the real grandmaster was refused, and the port stayed MASTER while the
# flood lasted. Expected now: the real grandmaster takes the worst record's place and the port is
# SLAVE of ptp4l again within seconds, the crowd counted as ignored_announce_rejected; and once
# the flood stops, its records expire. ptp4l 3.1.1 is the real master.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin ptp dbus phcd

FORGE=$BUILD/tests/integration/tool-forge
L=pa6l$$ M=pa6m$$ X=pa6x$$ V=pa6v$$
dbus_start "$tmp/bus"
# One LAN: ptp4l in M, the attacker in X (the two do not hear each other), phcd in V.
lan_bridge "$L"
lan_station "$L" "$M" m0 isolated
lan_station "$L" "$X" x0 isolated
lan_station "$L" "$V" v1
phcd_virtual_conf attack v1 >"$tmp/phcd.conf"
STATUS=$tmp/status
phcd_start "$V" "$tmp/phcd.conf" "$tmp/phcd.log" --status-file "$STATUS"
wait_bus_name org.phcd1 10
ptp4l_gm "$M" m0 "$tmp/gm.uds" "$tmp/gm.log"

field() { status_field "$STATUS" "$@"; }
counter() { port_counter v1 "$1"; }
wait_status port v1 state SLAVE 30 "" "before the attack"
worker=$(field port v1 pid)
echo "ok: phcd's v1 (worker $worker) SLAVE of ptp4l"

# 16 forged grandmasters, 100 Announces a second each, until stopped.
ip netns exec "$X" "$FORGE" announce x0 --ids 16 --priority1 250 --rate 100 --duration 0 \
	>"$tmp/flood.log" 2>&1 &
FLOOD=$!
BG_PIDS+=($FLOOD)
test_duration 2 "the flood goes on: v1 must stay SLAVE through it"
st=$(field port v1 state)
[ "$st" = SLAVE ] || fail "v1 left SLAVE under the flood (the parent's record must stay): $st"
echo "ok: under the flood v1 stays SLAVE"

before=$(counter ignored_announce_rejected)
busctl --system call org.phcd1 /org/phcd1/port/v1 org.phcd1.Port Restart >/dev/null ||
	fail "D-Bus Port.Restart of v1 failed"
wait_status port v1 pid '[1-9][0-9]*' 10 "$worker" "a new worker after Restart"
w=$(field port v1 pid)
t0=$SECONDS
echo "worker restarted ($worker -> $w) with the flood going on"
# The crowd fills the empty table first; the real grandmaster must still get in and win.
wait_status port v1 state SLAVE 15 "" "after a worker restart during the flood of 16 worse grandmasters"
echo "ok: v1 SLAVE of ptp4l again $((SECONDS - t0)) s after the restart, the flood still going"
kill -0 "$FLOOD" 2>/dev/null || fail "the flood stopped early: $(cat "$tmp/flood.log")"
deadline=$((SECONDS + 5))
until after=$(counter ignored_announce_rejected) && [ "$after" -gt 0 ]; do
	[ "$SECONDS" -lt "$deadline" ] ||
		fail "expected the new worker to count refused Announces (ignored_announce_rejected > 0), got $after"
	sleep 0.2
done
echo "ok: the crowd's newcomers refused: ignored_announce_rejected = $after (new worker)"
test_duration 3 "the flood goes on: v1 must stay SLAVE through it"
st=$(field port v1 state)
[ "$st" = SLAVE ] || fail "v1 left SLAVE while the flood went on: $st"

kill "$FLOOD"
wait "$FLOOD" 2>/dev/null || true
echo "flood: $(cat "$tmp/flood.log")"
# The forged records expire (4 announce intervals, 1 s here): the counter stops moving and the
# port stays SLAVE.
test_duration 3 "the forged records' lifetime (4 announce intervals, 1 s) and the counters' second"
a=$(counter ignored_announce_rejected)
test_duration 2 "a quiet period: nothing more may be refused"
b=$(counter ignored_announce_rejected)
[ "$a" = "$b" ] || fail "ignored_announce_rejected still moving after the flood stopped: $a -> $b"
[ "$(field port v1 state)" = SLAVE ] || fail "v1 not SLAVE after the flood: $(field port v1 state)"
echo "ok: after the flood v1 is SLAVE, nothing more refused"
