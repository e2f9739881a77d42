#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ServoState is signalled only when it changes: phcd locked to a ptp4l grandmaster, `phcctl
# monitor` over 30 s. Every ServoState in an instance's PropertiesChanged differs from the one
# before it, and a servo that stays locked through the window sends none.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin dbus ptp phcd

PHCCTL=$BUILD/phcctl/phcctl
WINDOW=${WINDOW:-30}
S=phsv-s$$ G=phsv-g$$
dbus_start "$tmp/bus"
netns_pair "$S" "$G" s1 g1

ptp4l_gm "$G" g1 "$tmp/gm.uds" "$tmp/gm.log"
phcd_virtual_conf lab s1 >"$tmp/phcd.conf"
# The monitor runs before phcd: it sees every ServoState from the first.
"$PHCCTL" monitor --json >"$tmp/mon" 2>"$tmp/mon.err" &
BG_PIDS+=($!)
wait_for "$tmp/mon.err" '^Monitoring' 5
phcd_start "$S" "$tmp/phcd.conf" "$tmp/phcd.log"
wait_bus_name org.phcd1 10

# Synchronized, not wait-sync: wait-sync counts an instance that has no port yet as ready.
deadline=$((SECONDS + 30))
until "$PHCCTL" status --json 2>/dev/null | jq -e '.Instances[0].Synchronized' >/dev/null; do
	[ "$SECONDS" -lt "$deadline" ] ||
		fail "instance lab not synchronized to ptp4l within 30 s; phcd: $(tail -n 20 "$tmp/phcd.log")"
	sleep 0.2
done
# The signal that says locked may still be on its way (coalesced, at most a second).
wait_for "$tmp/mon" '"ServoState":"locked"' 5
from=$(wc -l <"$tmp/mon")
test_duration "$WINDOW" "the window in which the servo must stay locked"
"$PHCCTL" status --json | jq -e '.Instances[0].Synchronized' >/dev/null ||
	fail "instance lab no longer synchronized after ${WINDOW} s"

# servo_states FROM: the ServoState values of instance lab's PropertiesChanged after line FROM.
servo_states() {
	tail -n +$(($1 + 1)) "$tmp/mon" |
		jq -r 'select(.signal == "PropertiesChanged" and .path == "/org/phcd1/instance/lab")
			| .args[1].ServoState // empty'
}
all=$(servo_states 0 | paste -sd' ')
in_window=$(servo_states "$from" | wc -l)
samples=$(tail -n +$((from + 1)) "$tmp/mon" | grep -c '"path":"/org/phcd1/instance/lab".*OffsetFromMaster' || true)
prev=""
for s in $all; do
	[ "$s" != "$prev" ] || fail "ServoState \"$s\" signalled twice in a row (sequence: $all), expected a signal only on a change"
	prev=$s
done
[ "$in_window" = 0 ] ||
	fail "ServoState signalled $in_window times in ${WINDOW} s of a servo that stayed locked (sequence: $all), expected 0"
[ "$samples" -ge $((WINDOW / 2)) ] ||
	fail "only $samples OffsetFromMaster signals in ${WINDOW} s: is the monitor seeing the instance at all?"
echo "ok: ServoState sequence from start: $all; in ${WINDOW} s locked: 0 ServoState signals, $samples offset signals"
echo PASS
