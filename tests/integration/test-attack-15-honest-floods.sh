#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Attack (issue 31, finding 2): floods that made the supervisor kill its honest worker as a liar.
# phcd's port s1 is the SLAVE of a ptp4l grandmaster (priority1 100), management_network =
# read-write. On c73b1b8 each of these made the worker send more than 50 STATUS a second (one per
# state change, one per priority push), the supervisor killed it ("flooded the supervisor with
# STATUS messages") and after restart_limit_burst kills the port stayed FAULTY for good:
#   1. Announces forged as the parent, priority1 alternating 100 and 255, 60 a second for 10 s;
#   2. management SET PRIORITY1 from six hosts, 10 a second each (inside the per-source limit),
#      alternating 10 and 200, for 10 s; each SET was also a log line;
#   3. D-Bus SetPriority1 as root, 100 a second for 10 s, alternating 10 and 200.
# Expected now: the one worker survives all three (never restarted, nothing "flooded"), the last
# value wins (Priority1 200 after 2 and 3), the port is SLAVE again after each, and phcd writes
# a few lines for the 600 SETs (c73b1b8: one each). Then 4: the worker killed (SIGKILL) past restart_limit_burst:
# the port FAULTY ("giving up"), and back on its own once restart_limit_interval_sec passed
# (c73b1b8: FAULTY for good).
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin dbus ptp phcd

FORGE=$BUILD/tests/integration/tool-forge
S=pha15-s$$ M=pha15-m$$
dbus_start "$tmp/bus"
netns_pair "$S" "$M" s1 m1
STATUS=$tmp/status
{
	phcd_fast_global
	echo 'restart_limit_interval_sec = 15'
	printf '\n[instance lab]\ninterfaces = s1\nclock_backend = virtual\n'
	echo 'management_network = read-write'
} >"$tmp/phcd.conf"

ptp4l_gm "$M" m1 "$tmp/gm-uds" "$tmp/gm.log"
phcd_start "$S" "$tmp/phcd.conf" "$tmp/phcd.log" --status-file "$STATUS" --uds "" --uds-ro ""
wait_bus_name org.phcd1 10
wait_status port s1 state SLAVE 30
gm=$(gm_port_identity "$M" "$tmp/gm-uds")
prop() { busctl --system get-property org.phcd1 "$1" "org.phcd1.$2" "$3" | cut -d' ' -f2-; }
worker=$(prop /org/phcd1/port/s1 Port WorkerPID)
echo "ok: s1 SLAVE of ptp4l $gm, worker $worker"

# survive WHAT PID...: while the PIDs run, s1 keeps its worker; then it is SLAVE again and no
# worker was ever called a liar.
survive() {
	local what=$1 p now
	shift
	for p in "$@"; do
		while kill -0 "$p" 2>/dev/null; do
			now=$(prop /org/phcd1/port/s1 Port WorkerPID)
			[ "$now" = "$worker" ] ||
				fail "$what: expected worker $worker throughout, now '$now': $(grep -m3 -E 'flooded|worker [0-9]+ ' "$tmp/phcd.log")"
			sleep 0.2
		done
		wait "$p" || fail "$what: a flooder failed: $(tail -n 3 "$tmp"/forge* "$tmp"/dbus3 2>&1)"
	done
	if grep -E 'flooded|giving up' "$tmp/phcd.log"; then
		fail "$what: phcd called its honest worker a liar"
	fi
	wait_status port s1 state SLAVE 15 "" "$what: after the flood"
	echo "ok: $what: worker $worker throughout, s1 SLAVE again"
}

# mgmt_lines: phcd's lines about management SETs so far.
mgmt_lines() { grep -cE 'by management|management SET|management SETs' "$tmp/phcd.log" || true; }

# 1. The parent's Announces, forged, better and worse in turn.
ip netns exec "$M" "$FORGE" announce m1 --base "${gm%:*}" --ids 1 --priority1 100 \
	--alternate 255 --rate 60 --duration 10 >"$tmp/forge1" 2>&1 &
p1=$!
BG_PIDS+=("$p1")
survive "Announces as the parent, priority1 100/255, 60/s" "$p1"

# 2. Management SETs from six hosts at 10/s each (the per-source limit), 10 and 200 in turn.
before=$(mgmt_lines)
pids=()
for k in 1 2 3 4 5 6; do
	ip netns exec "$M" "$FORGE" mgmt m1 --count 100 --rate 10 --set-priority1 10 \
		--alternate 200 --src-mac "02:00:00:00:15:0$k" --listen 0.2 >"$tmp/forge2.$k" 2>&1 &
	pids+=("$!")
	BG_PIDS+=("$!")
done
survive "SET PRIORITY1 10/200 from 6 hosts, 60/s" "${pids[@]}"
p=$(prop /org/phcd1/instance/lab Instance Priority1)
[ "$p" = 200 ] || fail "expected the last SET's priority1 200 to win, D-Bus Priority1 is $p"
lines=$(($(mgmt_lines) - before))
sent=$(cat "$tmp"/forge2.* | grep -o 'sent=[0-9]*' | awk -F= '{ n += $2 } END { print n }')
# A burst: its first SET as before (two lines), then one line summing up the rest; a burst
# longer than 10 s is summed up at 10 s and goes on as a new one.
[ "$lines" -le 6 ] ||
	fail "expected at most 6 log lines for the burst of $sent SETs, phcd wrote $lines"
echo "ok: the last value won (Priority1 200); $sent SETs, $lines log lines:"
grep -E 'by management|management SET' "$tmp/phcd.log" | tail -n "$lines"

# 3. SetPriority1 over D-Bus as root, 100 a second.
busctl --system call org.phcd1 /org/phcd1/instance/lab org.phcd1.Instance SetPriority1 y 128
# Debian's python3, which has dbus-python (as dbus-flood.py's first line says).
cat >"$tmp/setprio.py" <<'PY'
import time

import dbus

inst = dbus.Interface(dbus.SystemBus().get_object("org.phcd1", "/org/phcd1/instance/lab"),
                      "org.phcd1.Instance")
start = time.monotonic()
for k in range(1000):
    delay = start + k / 100 - time.monotonic()
    if delay > 0:
        time.sleep(delay)
    inst.SetPriority1(dbus.Byte(200 if k % 2 else 10))
print("calls=1000 seconds=%.1f" % (time.monotonic() - start))
PY
/usr/bin/python3 "$tmp/setprio.py" >"$tmp/dbus3" 2>&1 &
p3=$!
BG_PIDS+=("$p3")
survive "D-Bus SetPriority1 10/200, 100/s" "$p3"
p=$(prop /org/phcd1/instance/lab Instance Priority1)
[ "$p" = 200 ] || fail "expected the last SetPriority1 (200) to win, D-Bus Priority1 is $p"
echo "ok: $(cat "$tmp/dbus3"), Priority1 $p"

# 4. A port given up comes back once its restart window has passed. (The status file says so:
# phcd's log of s1 is rate-limited after the floods' state changes.)
t0=$SECONDS
until grep -q '^port s1 .*giving up' "$STATUS"; do
	pid=$(prop /org/phcd1/port/s1 Port WorkerPID)
	[ "$pid" = 0 ] || kill -9 "$pid" 2>/dev/null || true
	[ $((SECONDS - t0)) -lt 30 ] ||
		fail "expected phcd to give up on s1 within 30 s of kills: $(grep '^port s1' "$STATUS")"
	sleep 0.1
done
wait_status port s1 state FAULTY 5
echo "ok: killed past restart_limit_burst: $(grep -o 'worker restarted[^"]*' "$STATUS")"
wait_status port s1 state SLAVE 40 "" "a port given up, restart_limit_interval_sec 15"
echo "ok: s1 SLAVE again $((SECONDS - t0)) s after the first kill, on its own"
