#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Soak (issue 31, slow suite): phcd with SOAK_PORTS one-port instances (32), each SLAVE of one
# multi-port ptp4l grandmaster, for SOAK_SECONDS (600) under everything at once: link flaps on
# the odd ports, kill -9 of a worker on the even ports, SET PRIORITY1 on the management socket,
# D-Bus reads (GetManagedObjects and Counters). At the end every port must be SLAVE again with a
# live worker, every restart phcd counted must be one of our kills (nothing else restarted a
# worker), phcd must hold as many fds as at the start and its RSS may have grown by at most
# SOAK_RSS_GROWTH_KB (1024). The figures go to stdout (docs/reliability.md quotes them).
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin dbus ptp phcd

N=${SOAK_PORTS:-32}
DURATION=${SOAK_SECONDS:-600}
RSS_GROWTH_KB=${SOAK_RSS_GROWTH_KB:-1024}
S=phsk-s$$ G=phsk-g$$
PHCD_PID=
test_on_exit 'test_stop "$PHCD_PID"'
dbus_start "$tmp/bus"
netns_add "$S"
netns_add "$G"

# Default-like rates (Sync 2/s, Announce 1/s): 32 workers and the grandmaster on two cores for
# ten minutes. A restart after a kill waits 100 ms; the rate limit (5 in 60 s per port) is far
# above what the kills below reach (one per even port every N/2 * 3 s).
cat >"$tmp/phcd.conf" <<CONF
[global]
time_stamping = software
logAnnounceInterval = 0
announceReceiptTimeout = 3
logSyncInterval = -1
restart_backoff_initial_ms = 100
CONF
gm_ifs=()
for i in $(seq 1 "$N"); do
	veth_add "$S" "s$i" "$G" "g$i"
	gm_ifs+=(-i "g$i")
	printf '\n[instance i%d]\ninterfaces = s%d\nclock_backend = virtual\n' "$i" "$i" >>"$tmp/phcd.conf"
done
# One ptp4l, a boundary clock of N ports (all MASTER), that touches no clock.
ip netns exec "$G" capsh --drop=cap_sys_time -- -c "exec ptp4l ${gm_ifs[*]} -2 -S -m \
	--free_running 1 --priority1 100 --logAnnounceInterval 0 --logSyncInterval -1 \
	--fault_reset_interval ASAP --uds_address $tmp/gm.uds" >"$tmp/gm.log" 2>&1 &
BG_PIDS+=($!)

phcd_start "$S" "$tmp/phcd.conf" "$tmp/phcd.log" --uds "$tmp/phcd.uds" --uds-ro "$tmp/phcd-ro.uds"
alive() { kill -0 "$PHCD_PID" 2>/dev/null || fail "phcd exited: $(tail -n 20 "$tmp/phcd.log")"; }
wait_bus_name org.phcd1 20

# ports: one line per port, "IFNAME STATE WORKERPID RESTARTS", sorted by name, from one
# GetManagedObjects call.
ports() {
	busctl --system --json=short call org.phcd1 /org/phcd1 \
		org.freedesktop.DBus.ObjectManager GetManagedObjects |
		jq -r '.data[0] | to_entries[] | .value["org.phcd1.Port"] // empty |
			"\(.Interface.data) \(.State.data) \(.WorkerPID.data) \(.Restarts.data)"' | sort
}
# all_back WHAT SECONDS: every port SLAVE with a live worker.
all_back() {
	local deadline=$((SECONDS + $2)) out bad
	while :; do
		out=$(ports 2>/dev/null || true)
		bad=$(awk -v n="$N" '$2 != "SLAVE" || $3 == 0 { print } END { if (NR != n) print "ports:", NR }' <<<"$out")
		if [ -z "$bad" ]; then
			local pid ok=1
			for pid in $(awk '{ print $3 }' <<<"$out"); do
				kill -0 "$pid" 2>/dev/null || ok=0
			done
			[ "$ok" = 1 ] && break
		fi
		if [ "$SECONDS" -ge "$deadline" ]; then
			echo "--- ports:" >&2
			echo "$out" >&2
			tail -n 30 "$tmp/phcd.log" >&2
			tail -n 5 "$tmp/gm.log" >&2
			fail "$1: expected all $N ports SLAVE with a live worker within $2 s; not so: $bad"
		fi
		sleep 0.2
	done
	alive
}
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$PHCD_PID/status"; }
fd_count() { ls "/proc/$PHCD_PID/fd" | wc -l; }

all_back "start" 60
# Let start-up allocations settle (first samples, bus clients) before the first reading.
for _ in 1 2 3; do ports >/dev/null; done
rss0=$(rss_kb) fds0=$(fd_count)
echo "start: $N ports SLAVE; phcd RSS $rss0 kB, $fds0 fds"

# D-Bus readers: GetManagedObjects and one port's Counters, about 10 calls a second in all.
(
	while :; do
		busctl --system call org.phcd1 /org/phcd1 org.freedesktop.DBus.ObjectManager \
			GetManagedObjects >/dev/null 2>&1 || true
		busctl --system get-property org.phcd1 /org/phcd1/port/s1 org.phcd1.Port Counters \
			>/dev/null 2>&1 || true
		sleep 0.2
	done
) &
LOAD_PIDS=($!)
BG_PIDS+=($!)
# Management SETs on the read-write socket: priority1 200/201 alternately, 5 a second (phcd's
# ports stay SLAVE of the grandmaster's 100), through one pmc session.
python3 -u -c 'import time
i = 0
try:
	while True:
		print("SET PRIORITY1 %d" % (200 + i % 2))
		i += 1
		time.sleep(0.2)
except BrokenPipeError:
	pass' 2>/dev/null | pmc -u -b 0 -s "$tmp/phcd.uds" -i "$tmp/pmc.uds" >"$tmp/pmc.log" 2>&1 &
LOAD_PIDS+=($!)
BG_PIDS+=($!)

# The faults, for DURATION seconds: every 1.5 s an odd port's link goes down and up; every 3 s
# an even port's worker is killed (round robin, one port each, so a kill and a flap never meet
# on one port: every restart phcd counts is then one of these kills).
kills=0 flaps=0 k_odd=1 k_even=2 round=0
end=$((SECONDS + DURATION))
while [ "$SECONDS" -lt "$end" ]; do
	ip -n "$S" link set "s$k_odd" down
	ip -n "$S" link set "s$k_odd" up
	flaps=$((flaps + 1))
	k_odd=$((k_odd + 2 > N ? 1 : k_odd + 2))
	if [ $((round % 2)) = 0 ]; then
		pid=$(ports | awk -v n="s$k_even" '$1 == n { print $3 }')
		if [ -n "$pid" ] && [ "$pid" != 0 ] && kill -9 "$pid" 2>/dev/null; then
			kills=$((kills + 1))
		fi
		k_even=$((k_even + 2 > N ? 2 : k_even + 2))
	fi
	round=$((round + 1))
	alive
	test_duration 1.5 "the fault rate"
done
echo "faults: $flaps link flaps, $kills worker kills in ${DURATION} s, with SETs and D-Bus reads"

# Stop the load, then every port must come back.
kill "${LOAD_PIDS[@]}" 2>/dev/null || true
all_back "after the soak" 60
for _ in 1 2 3; do ports >/dev/null; done
rss1=$(rss_kb) fds1=$(fd_count)
restarts=$(ports | awk '{ s += $4 } END { print s + 0 }')
sets=$(grep -c 'RESPONSE MANAGEMENT PRIORITY1' "$tmp/pmc.log" || true)
echo "end: $N ports SLAVE; phcd RSS $rss1 kB ($((rss1 - rss0)) kB), $fds1 fds; restarts counted $restarts, kills $kills; $sets SET PRIORITY1 answers (one per port)"

[ "$fds1" = "$fds0" ] || fail "phcd holds $fds1 fds after the soak, $fds0 before: $(ls -l "/proc/$PHCD_PID/fd")"
[ $((rss1 - rss0)) -le "$RSS_GROWTH_KB" ] ||
	fail "phcd's RSS grew by $((rss1 - rss0)) kB ($rss0 -> $rss1), more than the bound $RSS_GROWTH_KB kB"
[ "$restarts" = "$kills" ] || {
	grep -E 'worker|giving up' "$tmp/phcd.log" | tail -n 20 >&2
	fail "expected phcd to count exactly our $kills kills as restarts, it counts $restarts"
}
[ "$sets" -gt 0 ] || fail "expected SET PRIORITY1 answers from phcd's management socket: $(tail -n 5 "$tmp/pmc.log")"
kill -TERM "$PHCD_PID"
wait_pid "$PHCD_PID" 20 || fail "phcd exited non-zero on SIGTERM: $(tail -n 5 "$tmp/phcd.log")"
PHCD_PID=
echo PASS
