#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Attack (issue 17, finding 3): a compromised worker. phcd runs tool-lying-worker instead of
# phcd-port (--port-binary); it says SLAVE, servo LOCKED and stable, an offset of +31,536,000 s
# (a year), and sends a virtual clock state a year ahead, never having been recommended SLAVE.
# phcd runs with system_clock_instance = auto, under capsh --drop=cap_sys_time and the clock shim
# (tests/doubles/clock-shim.c), which logs every clock write and performs none.
# Expected: the worker is ended as a liar, the exit logged once per worker with the lie, and
# restarted (rate-limited: FAULTY after restart_limit_burst); D-Bus never says Synchronized
# (instance or system clock); the shim log shows no step and no frequency write.
# On 493a4b8 phcd stepped CLOCK_REALTIME by -31,536,000 s (the shim logged
# step_ns=-31536000000000000) and the instance said Synchronized.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin dbus ptp phcd

PHCD=${PHCD:-$BUILD/daemon/phcd}
LIAR=${LIAR:-$BUILD/tests/integration/tool-lying-worker}
SHIM=${SHIM:-$BUILD/tests/doubles/libphcd-clock-shim.so}
S=pha3-s$$ M=pha3-m$$
dbus_start "$tmp/bus"
netns_pair "$S" "$M" s1 m1

cat >"$tmp/phcd.conf" <<EOF2
[global]
time_stamping = software
system_clock_instance = auto
restart_backoff_initial_ms = 200
restart_limit_burst = 4
restart_limit_interval_sec = 60

[instance lab]
interfaces = s1
clock_backend = system
EOF2
phcd_start_shimmed "$S" "$tmp/phcd.conf" "$tmp/phcd.log" "$tmp/shim.log" \
	--port-binary "$LIAR" --status-file "$tmp/status"
wait_bus_name org.phcd1 10

# Watch D-Bus for 10 s while the liar is restarted again and again: never Synchronized.
deadline=$((SECONDS + 10))
polls=0
while [ "$SECONDS" -lt "$deadline" ]; do
	inst=$(busctl --system get-property org.phcd1 /org/phcd1/instance/lab org.phcd1.Instance \
		Synchronized 2>/dev/null || true)
	sys=$(busctl --system get-property org.phcd1 /org/phcd1 org.phcd1.Manager \
		SystemClockSynchronized 2>/dev/null || true)
	[ "$inst" != "b true" ] || fail "D-Bus: instance lab Synchronized while its worker lies"
	[ "$sys" != "b true" ] || fail "D-Bus: SystemClockSynchronized while the worker lies"
	polls=$((polls + 1))
	sleep 0.2
done
echo "ok: D-Bus never said Synchronized ($polls polls of the instance and the system clock)"

starts=$(grep -cE 's1: worker [0-9]+ started' "$tmp/phcd.log" || true)
[ "$starts" -ge 2 ] || fail "expected the lying worker restarted, it started $starts times; \
phcd: $(tail -n 20 "$tmp/phcd.log")"
lies=$(grep -c "worker claimed SLAVE, which the supervisor's BMCA did not recommend" \
	"$tmp/phcd.log" || true)
[ "$lies" -ge 1 ] || fail "expected phcd to log the lie; got: $(tail -n 20 "$tmp/phcd.log")"
# Logged once per worker: at most one line per start, rate-limited with the restarts.
[ "$lies" -le "$starts" ] || fail "the lie logged $lies times for $starts workers"
echo "ok: the lying worker was ended and restarted ($starts starts, $lies log lines):"
grep -m1 "worker claimed SLAVE" "$tmp/phcd.log"
wait_for "$tmp/phcd.log" 'giving up|restarted [0-9]+ times' 20
echo "ok: restarts rate-limited: $(grep -m1 -E 'giving up|restarted [0-9]+ times' "$tmp/phcd.log")"

if grep -E 'step_ns|freq_ppb|clock_settime|settimeofday' "$tmp/shim.log" >"$tmp/writes"; then
	fail "expected no clock step or frequency write, the shim logged $(wc -l <"$tmp/writes"): \
$(head -n 5 "$tmp/writes")"
fi
echo "ok: no step and no frequency write reached the clock ($(wc -l <"$tmp/shim.log") shim lines)"
if grep -q 'system clock LOCKED' "$tmp/phcd.log"; then
	fail "phcd says the system clock LOCKED on a lying worker's offsets"
fi
echo "ok: the system clock never locked on the lie"
