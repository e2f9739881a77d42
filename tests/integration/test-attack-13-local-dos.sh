#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Attack finding 13 (issue 17), local denial of service against the supervisor:
# 1. the read-only management socket: an unprivileged user sending GETs as fast as it can gets
#    a burst and then 50 answers a second (the rest dropped and logged once), and root on the
#    same socket is still answered;
# 2. Describe() in a loop from an unprivileged user: answered from a snapshot rebuilt at most 4
#    times a second; phcd's CPU time for the run, and per call, is measured and bounded.
# (Worker log floods: per-interface rate limit in common/log.c, tests/unit/test-log.c.)
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin dbus phcd

PORT=$BUILD/worker/phcd-port
FLOOD=$SRC/tests/integration/local-flood.py
mkdir -m 0777 "$tmp/cl"
S=pha13-s$$ P=pha13-p$$
dbus_start "$tmp/bus"
netns_pair "$S" "$P" s1 p1
cat >"$tmp/phcd.conf" <<CONF
[global]
time_stamping = software
# Debug: Describe() logs each rebuild of its document.
logging_level = 7

[instance lab]
interfaces = s1
clock_backend = free_running
CONF
RW=$tmp/ptp RO=$tmp/ptp-ro
phcd_start "$S" "$tmp/phcd.conf" "$tmp/phcd.log" --port-binary "$PORT" --uds "$RW" --uds-ro "$RO"
wait_bus_name org.phcd1 10
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
cpu_ticks() { awk '{ print $14 + $15 }' /proc/"$PHCD_PID"/stat; }

# 1. The read-only socket, flooded by nobody for 3 s.
as_nobody /usr/bin/python3 "$FLOOD" uds "$RO" "$tmp/cl/flood" 3 >"$tmp/uds.out" ||
	fail "the socket flood failed: $(cat "$tmp/uds.out")"
read -r _ sent _ answered <"$tmp/uds.out"
# A burst of 100, then 50 a second: 250 in 3 s; a little slack for the edges.
[ "$sent" -gt 1000 ] || fail "the flood sent only $sent requests in 3 s: not a flood"
[ "$answered" -le 280 ] && [ "$answered" -ge 100 ] ||
	fail "read-only socket flood: expected 100 to 280 answers to $sent requests in 3 s, got $answered"
wait_for "$tmp/phcd.log" "ptp-ro: more than 50 requests a second from uid 65534: [0-9]+ dropped" 5
lines=$(grep -c 'requests a second from uid' "$tmp/phcd.log")
[ "$lines" -le 2 ] || fail "expected the drops logged at most once per 10 s, got $lines lines"
out=$(ip netns exec "$S" pmc -u -b 0 -s "$RO" -i "$tmp/cl/root" 'GET PRIORITY1')
grep -q 'priority1 *128' <<<"$out" || fail "root on the read-only socket during the flood's aftermath: expected an answer, got: $out"
echo "ok: read-only socket: $sent requests from nobody in 3 s, $answered answered, drops logged $lines time(s); root still answered"

# 2. Describe() in a loop for 3 s.
before=$(cpu_ticks)
as_nobody /usr/bin/python3 "$FLOOD" describe 3 >"$tmp/describe.out" ||
	fail "the Describe() loop failed: $(cat "$tmp/describe.out")"
after=$(cpu_ticks)
read -r _ calls <"$tmp/describe.out"
ticks=$((after - before))
hz=$(getconf CLK_TCK)
pct=$((ticks * 100 / hz / 3))
echo "Describe(): $calls calls in 3 s, phcd used $ticks ticks of CPU ($pct% of a core)"
[ "$calls" -ge 300 ] || fail "Describe() loop: expected at least 300 calls in 3 s, got $calls"
[ "$pct" -le 35 ] || fail "Describe() loop: expected phcd under 35% of a core, got $pct% ($calls calls)"
# The document is built at most 4 times a second (every 250 ms), however many calls came.
rebuilds=$(grep -c 'Describe(): document rebuilt' "$tmp/phcd.log" || true)
per_call=$((ticks * 1000000 / hz / calls))
[ "$rebuilds" -ge 1 ] && [ "$rebuilds" -le 14 ] ||
	fail "Describe() loop: expected 1 to 14 rebuilds of the document for $calls calls in 3 s, got $rebuilds"
echo "ok: Describe() from nobody in a loop: $calls calls in 3 s, phcd at $pct% of a core ($per_call us a call), document built $rebuilds times"
