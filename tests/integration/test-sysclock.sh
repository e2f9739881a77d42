#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# phcd with system_clock_instance on a software-timestamped SLAVE port, run without
# CAP_SYS_TIME: it follows the master, reports EPERM for the system clock and keeps running,
# and the host clock's adjtimex state is the same after as before.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin phcd

S=phsc-s$$ M=phsc-m$$
PHCD_PID=
test_on_exit 'test_stop "$PHCD_PID"'

before=$(host_clock_state)

netns_pair "$S" "$M" s1 m1
ip netns exec "$M" capsh --drop=cap_sys_time -- -c "exec ptp4l -i m1 -2 -S -m --free_running 1 \
	--masterOnly 1 --logAnnounceInterval -2 --announceReceiptTimeout 3 --logSyncInterval -3 \
	--uds_address $tmp/uds" >"$tmp/ptp4l.log" 2>&1 &
BG_PIDS+=($!)

cat >"$tmp/phcd.conf" <<EOF
[global]
time_stamping = software
logAnnounceInterval = -2
announceReceiptTimeout = 3
logSyncInterval = -3
system_clock_instance = lab

[instance lab]
interfaces = s1
clock_backend = system
slaveOnly = 1
EOF
phcd_start "$S" "$tmp/phcd.conf" "$tmp/phcd.log" --status-file "$tmp/status"

wait_for "$tmp/phcd.log" 's1: .*-> SLAVE' 60
echo "ok: s1 SLAVE of the ptp4l master"
wait_for "$tmp/phcd.log" 's1: cannot steer the system clock from instance lab: Operation not permitted' 20
echo "ok: phcd reports: $(grep -m1 'cannot steer the system clock' "$tmp/phcd.log")"
# Still alive, and said it once, not per sample.
kill -0 "$PHCD_PID" 2>/dev/null || fail "phcd exited after EPERM: $(tail -n 5 "$tmp/phcd.log")"
n=$(grep -c 'cannot steer the system clock' "$tmp/phcd.log")
[ "$n" = 1 ] || fail "expected the EPERM reported once, got $n lines"
echo "ok: phcd still running, EPERM logged once"

after=$(host_clock_state)
[ "$before" = "$after" ] || fail "host adjtimex state: expected unchanged '$before', got '$after'"
echo "ok: host adjtimex frequency and status unchanged: $after"
