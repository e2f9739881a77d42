#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Attack (issue 31, finding 3): a compromised worker that earned SLAVE poisons its siblings. phcd
# is a boundary clock (virtual back end, software timestamps) on s1 and s2; the worker of s1 is
# tool-lying-worker --earn-slave 3: a foreign master no clock beats, so the supervisor recommends
# it SLAVE; then 3 s of honest reports (servo LOCKED, a clock state without a correction), then a
# clock state a year ahead. s2's real worker serves the instance's time to a free-running ptp4l.
# On c73b1b8 the year went to s2 and downstream: ptp4l measured offsets of -3.15e16 ns.
# Expected: the supervisor judges the clock state by the instance's step policy (a step beyond
# max_offset_jump, 1 s, after the lock), ends the worker as a liar and restarts it; ptp4l behind
# s2 never measures an offset beyond 1000 s (37 s, TAI over the host's UTC, while the liar's
# grandmaster is the instance's).
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin ptp port phcd

LIAR=${LIAR:-$BUILD/tests/integration/tool-lying-worker}
PORT=${PORT:-$BUILD/worker/phcd-port}
S=pha16-s$$ M=pha16-m$$ D=pha16-d$$
for ns in $S $M $D; do netns_add "$ns"; done
veth_add "$S" s1 "$M" m1
veth_add "$S" s2 "$D" d2

# phcd passes a worker its arguments only (a fixed environment): the wrapper picks the liar for s1.
cat >"$tmp/worker" <<EOF
#!/bin/bash
for a; do [ "\$a" != s1 ] || exec "$LIAR" "\$@" --earn-slave 3; done
exec "$PORT" "\$@"
EOF
chmod 755 "$tmp/worker"

ip netns exec "$D" capsh --drop=cap_sys_time -- -c "exec ptp4l -i d2 -2 -S -m \
	--free_running 1 -s $PTP4L_FAST --summary_interval -3 --uds_address $tmp/uds-down" \
	>"$tmp/down.log" 2>&1 &
BG_PIDS+=($!)
{
	phcd_fast_global
	printf '\n[instance bc]\ninterfaces = s1, s2\nclock_backend = virtual\n'
} >"$tmp/phcd.conf"
STATUS=$tmp/status
phcd_start "$S" "$tmp/phcd.conf" "$tmp/phcd.log" --port-binary "$tmp/worker" \
	--status-file "$STATUS"

wait_status port s1 state SLAVE 20
wait_status port s2 state MASTER 10
wait_lines "$tmp/down.log" 'master offset +-?[0-9]+ s[0-9]' 3 30 0
echo "ok: s1 (the liar) recommended SLAVE, s2 MASTER, ptp4l behind s2 measuring"

# 15 s of the attack: the liar lies 3 s after each S1 (c73b1b8 served its year from then on).
test_duration 15 "the attack goes on"
from=$(wc -l <"$tmp/down.log")
# ptp4l --free_running prints an offset every 2 s or so: three more see what s2 served since.
wait_lines "$tmp/down.log" 'master offset +-?[0-9]+ s[0-9]' 3 20 "$from"
worst=$(grep -oE 'master offset +-?[0-9]+' "$tmp/down.log" | awk '{ v = $3 < 0 ? -$3 : $3;
	if (v > w) w = v } END { printf "%.0f", w }')
n=$(grep -cE 'master offset +-?[0-9]+' "$tmp/down.log")
# Within 1000 s: while the liar's grandmaster is the instance's, s2 announces the PTP timescale
# (TAI, 37 s ahead of the host's UTC) on the host's clock; a year is 3.15e16 ns.
[ "$worst" -lt 1000000000000 ] ||
	fail "expected ptp4l behind s2 never beyond 1000 s from what phcd serves, it measured $worst ns: $(grep -E 'master offset' "$tmp/down.log" | tail -n 2)"
echo "ok: ptp4l behind s2: $n offsets, the largest |offset| $worst ns (a year is 3.15e16)"

lies=$(grep -c 's1: worker sent a clock state that steps beyond max_offset_jump' "$tmp/phcd.log" || true)
starts=$(grep -c 's1: worker [0-9]* started' "$tmp/phcd.log" || true)
[ "$lies" -ge 2 ] && [ "$starts" -ge "$lies" ] ||
	fail "expected the liar ended and restarted at least twice in 15 s, $lies lies and $starts starts logged: $(grep 's1: worker' "$tmp/phcd.log" | tail -n 4)"
echo "ok: the liar ended as such $lies times and restarted ($starts starts): $(grep -m1 -o 's1: worker sent a clock state.*' "$tmp/phcd.log")"
