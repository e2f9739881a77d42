#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Fault injection on phcd with four one-port instances, each SLAVE of its own ptp4l grandmaster,
# on a private system bus, with hostile PTP traffic (tool-frame-storm) on every link throughout:
# kill -9 of a worker, SIGSTOP/SIGCONT of a worker, a burst of link flaps, an interface deleted
# and recreated, the bus restarted. After each fault every port must be SLAVE again with one live
# worker each; at the end phcd holds as many fds as before the faults, SIGTERM leaves no worker
# behind, and the namespaces are gone.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin dbus ptp phcd

PORT=$BUILD/worker/phcd-port
STORM=$BUILD/tests/integration/tool-frame-storm
N=4
S=phft-s$$ G=phft-g$$
PHCD_PID=
test_on_exit 'test_stop "$PHCD_PID"'
dbus_start "$tmp/bus"
netns_add "$S"
netns_add "$G"
phcd_fast_global >"$tmp/phcd.conf"
printf 'restart_backoff_initial_ms = 100\n' >>"$tmp/phcd.conf"
for i in $(seq 1 $N); do
	veth_add "$S" "s$i" "$G" "g$i"
	# A flapping link can make ptp4l miss a TX timestamp and go FAULTY: reset at once, not
	# after its default 16 s, so that the grandmaster is back before the deadlines below.
	ptp4l_gm "$G" "g$i" "$tmp/gm$i.uds" "$tmp/gm$i.log" --fault_reset_interval ASAP
	printf '\n[instance i%d]\ninterfaces = s%d\nclock_backend = virtual\n' "$i" "$i" >>"$tmp/phcd.conf"
done

STATUS=$tmp/status
phcd_start "$S" "$tmp/phcd.conf" "$tmp/phcd.log" --status-file "$STATUS"
field() { status_field "$STATUS" "$@"; }
alive() { kill -0 "$PHCD_PID" 2>/dev/null || fail "phcd exited: $(tail -n 20 "$tmp/phcd.log")"; }
# workers: the live phcd-port processes whose parent is phcd.
workers() {
	local p
	for p in $(cat "/proc/$PHCD_PID/task/$PHCD_PID/children" 2>/dev/null); do
		[ "$(readlink "/proc/$p/exe" 2>/dev/null)" = "$(readlink -f "$PORT")" ] && echo "$p"
	done | sort -n
}
# all_back WHAT SECONDS: every port SLAVE, its status PID a live child, N workers in all.
all_back() {
	local deadline=$((SECONDS + $2)) i ok pid
	while :; do
		ok=1
		for i in $(seq 1 $N); do
			pid=$(field port "s$i" pid)
			[ "$(field port "s$i" state)" = SLAVE ] && [ -n "$pid" ] && [ "$pid" != 0 ] &&
				kill -0 "$pid" 2>/dev/null || ok=0
		done
		[ "$ok" = 1 ] && [ "$(workers | wc -l)" = $N ] && break
		if [ "$SECONDS" -ge "$deadline" ]; then
			echo "--- status:" >&2
			cat "$STATUS" >&2 || true
			echo "--- workers: $(workers | tr '\n' ' ')" >&2
			tail -n 20 "$tmp/phcd.log" >&2
			for i in $(seq 1 $N); do echo "--- gm$i: $(tail -n 3 "$tmp/gm$i.log")" >&2; done
			fail "$1: expected all $N ports SLAVE with $N live workers within $2 s"
		fi
		sleep 0.05
	done
	alive
}
all_back "start" 30
wait_bus_name org.phcd1 10
fds0=$(ls "/proc/$PHCD_PID/fd" | wc -l)
echo "ok: $N ports SLAVE, $N workers, phcd holds $fds0 fds"

# Hostile traffic on every link for the rest of the test (2,000 frames/s in all): random bytes,
# truncated frames, bad TLVs, other domains. Not garbage bodies: sent from the grandmaster's own
# interface, ptp4l would see a garbage Pdelay_Resp and go FAULTY.
for i in $(seq 1 $N); do
	ip netns exec "$G" "$STORM" send "g$i" 100000000 500 "$i" --kinds 0x4d >/dev/null 2>&1 &
	BG_PIDS+=($!)
done

# 1. kill -9 of a worker.
old=$(field port s1 pid)
kill -9 "$old"
all_back "kill -9 of worker $old (s1)" 10
echo "ok: kill -9 of s1's worker $old: back as $(field port s1 pid)"

# 2. SIGSTOP of a worker for longer than the announce timeout, then SIGCONT.
old=$(field port s2 pid)
kill -STOP "$old"
test_duration 2 "stopped for longer than the announce timeout"
alive
kill -CONT "$old" 2>/dev/null || true
all_back "SIGSTOP/SIGCONT of worker $old (s2)" 15
echo "ok: SIGSTOP 2 s + SIGCONT of s2's worker $old: SLAVE again (worker $(field port s2 pid), restarts $(field port s2 restarts))"

# 3. A burst of link flaps, ending up.
for k in $(seq 1 10); do
	ip -n "$S" link set s3 down
	ip -n "$S" link set s3 up
done
all_back "10 link flaps of s3" 15
echo "ok: 10 link flaps of s3: SLAVE again, worker $(field port s3 pid)"

# 4. The interface deleted under load, then recreated.
old=$(field port s4 pid)
ip -n "$S" link del s4
deadline=$((SECONDS + 5))
while grep -q '^port s4 ' "$STATUS" || kill -0 "$old" 2>/dev/null; do
	[ "$SECONDS" -lt "$deadline" ] || fail "s4 deleted: expected its port and worker $old gone within 5 s"
	sleep 0.05
done
veth_add "$S" s4 "$G" g4
all_back "s4 deleted and recreated" 15
echo "ok: s4 deleted (port and worker $old gone) and recreated: SLAVE again"

# 5. The bus restarted: phcd is back on it under its name.
dbus_cleanup
deadline=$((SECONDS + 5))
while busctl --system status org.phcd1 >/dev/null 2>&1; do
	[ "$SECONDS" -lt "$deadline" ] || fail "the bus did not go away"
	sleep 0.05
done
dbus_start "$tmp/bus"
wait_bus_name org.phcd1 15
all_back "bus restart" 5
ports=$(busctl --system --json=short call org.phcd1 /org/phcd1 \
	org.freedesktop.DBus.ObjectManager GetManagedObjects |
	jq '[.data[0] | keys[] | select(startswith("/org/phcd1/port/"))] | length')
[ "$ports" = $N ] || fail "bus restarted: expected $N port objects in GetManagedObjects, got '$ports'"
echo "ok: bus restarted: org.phcd1 back with its $N port objects, every port SLAVE"

# Nothing leaked: as many fds as before, then a clean stop with no worker left.
fds=$(ls "/proc/$PHCD_PID/fd" | wc -l)
[ "$fds" = "$fds0" ] || fail "phcd holds $fds fds after the faults, $fds0 before: $(ls -l "/proc/$PHCD_PID/fd")"
left=$(workers)
kill -TERM "$PHCD_PID"
wait_pid "$PHCD_PID" 10 || fail "phcd exited non-zero on SIGTERM: $(tail -n 5 "$tmp/phcd.log")"
PHCD_PID=
for p in $left; do
	! kill -0 "$p" 2>/dev/null || fail "worker $p still running after phcd stopped"
done
echo "ok: $fds fds after the faults (as before); SIGTERM: phcd and its workers ($(echo $left)) gone"
net_cleanup
dbus_cleanup
! ip netns list | grep -qw -e "$S" -e "$G" || fail "namespaces left: $(ip netns list)"
echo "ok: namespaces $S $G removed"
echo PASS
