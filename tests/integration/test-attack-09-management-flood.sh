#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Attack, issue 17 finding 9: a host on the segment floods phcd's port with IEEE 1588 Management
# GETs (tool-forge mgmt: 20,000 as fast as the socket takes them, from one MAC, then from a new
# MAC each time). Before: every one was answered, by multicast to the whole segment (20,000 of
# 20,000 at 8,188/s). Expected now: at most the rate limit's answers (10/s per source MAC with
# bursts of 20, 100/s in all with bursts of 200), the rest counted as
# ignored_management_rate_limited on D-Bus, and an ordinary pmc -2 from another MAC still
# answered during a one-MAC flood. With the default management_network = read-only a SET over
# the network is refused; with management_network = off (reload) nothing is answered at all
# (ignored_unsupported).
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin dbus phcd

FORGE=$BUILD/tests/integration/tool-forge
S=pa9s$$ Q=pa9q$$
dbus_start "$tmp/bus"
netns_pair "$S" "$Q" s1 q1
cat >"$tmp/phcd.conf" <<CONF
[global]
time_stamping = software
logAnnounceInterval = -2

[instance lab]
interfaces = s1
clock_backend = free_running
userDescription = phcd;attack-09
CONF
phcd_start "$S" "$tmp/phcd.conf" "$tmp/phcd.log" --uds "$tmp/ptp" --uds-ro "$tmp/ptp-ro"
wait_bus_name org.phcd1 10

prop() { busctl --system get-property org.phcd1 "$1" "org.phcd1.$2" "$3" | cut -d' ' -f2-; }
counter() { port_counter s1 "$1"; }
# wait_counter NAME MIN SECONDS: until the port's counter NAME reaches MIN (STATUS once a second).
wait_counter() {
	local deadline=$((SECONDS + $3)) v
	until v=$(counter "$1") && [ "$v" -ge "$2" ]; do
		[ "$SECONDS" -lt "$deadline" ] || fail "expected D-Bus Counters $1 >= $2 within $3 s, got $v"
		sleep 0.2
	done
	echo "$v"
}
pmc_l2() { ip netns exec "$Q" timeout 10 pmc -2 -i q1 -b 0 "$@" 2>&1 || true; }
deadline=$((SECONDS + 20))
until [ "$(prop /org/phcd1/port/s1 Port State)" = '"MASTER"' ]; do
	[ "$SECONDS" -lt "$deadline" ] || fail "s1 not MASTER within 20 s: $(tail -n 5 "$tmp/phcd.log")"
	sleep 0.1
done
worker=$(prop /org/phcd1/port/s1 Port WorkerPID)
out=$(pmc_l2 'GET USER_DESCRIPTION')
grep -q 'phcd;attack-09' <<<"$out" || fail "pmc -2 GET USER_DESCRIPTION got no answer: $out"
echo "ok: phcd's s1 MASTER (worker $worker), pmc -2 answered"

# 1. One MAC, 20,000 GETs as fast as they go.
before=$(counter ignored_management_rate_limited)
rx_before=$(counter rx_management)
ip netns exec "$Q" "$FORGE" mgmt q1 --count 20000 --rate 0 --src-mac 02:00:5e:00:09:01 \
	--listen 1 >"$tmp/flood1.log" 2>&1 || fail "forger: $(cat "$tmp/flood1.log")"
read -r sent answers secs < <(sed -n 's/^sent=\([0-9]*\) answers=\([0-9]*\) seconds=\([0-9.]*\)$/\1 \2 \3/p' "$tmp/flood1.log")
rate=$(awk -v n="$sent" -v s="$secs" 'BEGIN { printf "%d", n / s }')
# Per source: a burst of 20, then 10/s over the flood and the second of listening.
limit=$(awk -v s="$secs" 'BEGIN { printf "%d", 20 + 10 * (s + 1) + 5 }')
echo "one MAC: sent $sent GETs in $secs s ($rate/s), $answers answered (limit $limit)"
[ "$sent" = 20000 ] || fail "the forger sent $sent of 20000"
[ "$answers" -le "$limit" ] ||
	fail "expected at most $limit answers to 20000 GETs from one MAC in $secs s, got $answers"
[ "$answers" -ge 1 ] || fail "expected some answers (the burst), got none"
# The worker's socket drops what it cannot take in time (the kernel counts those): of what the
# worker took (rx_management), all but the answered ones are counted as rate-limited. The
# counters come once a second: wait until rx_management stands still.
prev=-1
deadline=$((SECONDS + 10))
while rx=$(counter rx_management) && [ "$rx" != "$prev" ]; do
	[ "$SECONDS" -lt "$deadline" ] || fail "rx_management still moving after 10 s"
	prev=$rx
	sleep 1.5
done
got=$(counter ignored_management_rate_limited)
taken=$((rx - rx_before)) limited=$((got - before))
echo "worker took $taken of them (the rest dropped by its socket), rate-limited $limited"
[ "$limited" -ge 1000 ] && [ $((taken - limited)) -le "$limit" ] ||
	fail "expected >= 1000 counted as ignored_management_rate_limited and at most $limit of the $taken taken let through, got $limited rate-limited"
echo "ok: one MAC: $answers of $sent answered, ignored_management_rate_limited +$limited"

# 2. During a one-MAC flood, pmc -2 from the interface's own MAC is answered.
ip netns exec "$Q" "$FORGE" mgmt q1 --count 40000 --rate 8000 --src-mac 02:00:5e:00:09:02 \
	--listen 0 >"$tmp/flood2.log" 2>&1 &
fpid=$!
BG_PIDS+=($fpid)
# Until the flood reaches the worker (rate-limited there).
wait_counter ignored_management_rate_limited $((got + 1)) 10 >/dev/null
ok=0
for i in 1 2 3; do
	out=$(pmc_l2 'GET USER_DESCRIPTION')
	if grep -q 'phcd;attack-09' <<<"$out"; then ok=$((ok + 1)); fi
	sleep 0.5
done
wait "$fpid" || fail "forger: $(cat "$tmp/flood2.log")"
echo "during a flood from another MAC ($(cat "$tmp/flood2.log")): $ok of 3 pmc GETs answered"
[ "$ok" -ge 2 ] || fail "expected pmc -2 answered during a flood from another MAC, $ok of 3 were"
echo "ok: a flood from one MAC leaves room for other sources"

# 3. A new MAC for every frame: the total limit holds (100/s, bursts of 200).
test_duration 3 "the total bucket (bursts of 200 at 100/s) refills"
total_sent=0 total_answers=0 t0=$(date +%s%N)
for i in $(seq 1 40); do
	mac=$(printf '02:00:5e:01:%02x:%02x' $((i / 256)) $((i % 256)))
	ip netns exec "$Q" "$FORGE" mgmt q1 --count 500 --rate 0 --src-mac "$mac" --listen 0 \
		>"$tmp/flood3-$i.log" 2>&1 || fail "forger: $(cat "$tmp/flood3-$i.log")"
	read -r s a _ < <(sed -n 's/^sent=\([0-9]*\) answers=\([0-9]*\) seconds=\([0-9.]*\)$/\1 \2 \3/p' "$tmp/flood3-$i.log")
	total_sent=$((total_sent + s)) total_answers=$((total_answers + a))
done
secs=$(awk -v a="$t0" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')
limit=$(awk -v s="$secs" 'BEGIN { printf "%d", 200 + 100 * (s + 1) }')
echo "40 MACs: $total_sent GETs in $secs s, $total_answers answered (limit $limit)"
[ "$total_answers" -le "$limit" ] ||
	fail "expected at most $limit answers from 40 MACs in $secs s, got $total_answers"
echo "ok: changing MACs: $total_answers of $total_sent answered"

# 4. read-only (the default): SET over the network is refused, Priority1 stays.
test_duration 3 "the total bucket refills: the SET is refused as read-only, not as rate-limited"
out=$(pmc_l2 'SET PRIORITY1 90')
test_duration 1 "a quiet period: a SET wrongly applied would show by now"
p1=$(prop /org/phcd1/instance/lab Instance Priority1)
[ "$p1" = 128 ] || fail "SET PRIORITY1 90 over L2 with the default read-only: expected Priority1 128, got $p1 ($out)"
echo "ok: read-only by default: SET PRIORITY1 over L2 refused, Priority1 $p1"

# 5. management_network = off (reload): nothing answered, counted as unsupported.
sed -i 's/^userDescription = .*/&\nmanagement_network = off/' "$tmp/phcd.conf"
kill -HUP "$PHCD_PID"
deadline=$((SECONDS + 10))
until [ "$(prop /org/phcd1/port/s1 Port WorkerPID)" != "$worker" ] &&
	[ "$(prop /org/phcd1/port/s1 Port State)" = '"MASTER"' ]; do
	[ "$SECONDS" -lt "$deadline" ] ||
		fail "no new worker after the reload to management_network = off: $(tail -n 5 "$tmp/phcd.log")"
	sleep 0.1
done
before=$(counter ignored_unsupported)
ip netns exec "$Q" "$FORGE" mgmt q1 --count 50 --rate 100 --listen 1 >"$tmp/off.log" 2>&1 ||
	fail "forger: $(cat "$tmp/off.log")"
out=$(pmc_l2 'GET USER_DESCRIPTION')
! grep -q 'phcd;attack-09' <<<"$out" || fail "management_network = off: pmc -2 still answered: $out"
grep -q '^sent=50 answers=0 ' "$tmp/off.log" ||
	fail "management_network = off: expected 50 GETs and no answer, got $(cat "$tmp/off.log")"
got=$(wait_counter ignored_unsupported $((before + 51)) 5)
echo "ok: management_network = off: nothing answered, ignored_unsupported +$((got - before))"
kill -0 "$PHCD_PID" 2>/dev/null || fail "phcd died: $(tail -n 20 "$tmp/phcd.log")"
