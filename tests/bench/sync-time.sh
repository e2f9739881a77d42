#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Time to synchronized from start at default intervals, software timestamps: phcd-port with the
# PI servo and with linreg, started together against one ptp4l grandmaster, beside ptp4l.
#
# The grandmaster is ptp4l --free_running 1 at its defaults (Announce every 2 s, Sync 1/s,
# announceReceiptTimeout 3), started first and left running. Each run starts, at the same moment,
# station A and B: `phcd-port --clock virtual -s -m` with clock_servo = pi and = linreg (swapping
# stations from run to run), phcd's defaults otherwise; and station C: `ptp4l -s --free_running 1`.
# For phcd the time is from the start to "UNCALIBRATED to SLAVE", which phcd-port takes when the
# servo locks: under phcd that is the moment Synchronized turns true (servo_offset_threshold 0).
# ptp4l here may not steer a clock (this machine's), and with --free_running its servo never
# reaches s2: its time is to "to UNCALIBRATED" (master chosen), a lower bound of its time to s2,
# and to its first offset. ptp4l's time to s2 on a clock of its own needs the VM tier.
#
# usage: BUILD=build-dir tests/bench/sync-time.sh [RUNS [LIMIT]]  (root; 6 40: seconds a run
#        waits at most). KEEP=dir keeps the logs. Not a pass/fail test, not in any meson suite.
#        Results: docs/performance.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
SRC=${SRC:-$(cd "$here/../.." && pwd)}
BUILD=${BUILD:-$SRC/build}
RUNS=${1:-6}
LIMIT=${2:-40}
. "$SRC/tests/lib/net-helpers.sh"
. "$SRC/tests/lib/ptp-helpers.sh"

PORT=$BUILD/worker/phcd-port
[ -x "$PORT" ] || fail "no $PORT: build first (ninja -C $BUILD)"
command -v ptp4l >/dev/null || fail "ptp4l missing (linuxptp)"
tmp=$(mktemp -d)
L=phst-l$$ M=phst-m$$ A=phst-a$$ B=phst-b$$ C=phst-c$$
trap 'net_cleanup; [ -n "${KEEP:-}" ] && cp -r "$tmp" "$KEEP"; rm -rf "$tmp"' EXIT
lan_bridge "$L"
lan_station "$L" "$M" m0
lan_station "$L" "$A" a1
lan_station "$L" "$B" b1
lan_station "$L" "$C" c1
for servo in pi linreg; do
	printf '[global]\ntime_stamping = software\nclock_servo = %s\n' "$servo" >"$tmp/$servo.conf"
done
ip netns exec "$M" capsh --drop=cap_sys_time -- -c "exec ptp4l -i m0 -2 -S -m \
	--free_running 1 --priority1 100" >"$tmp/gm.log" 2>&1 &
BG_PIDS+=($!)
sleep 3

# first_at LOG REGEX START: seconds from START (CLOCK_MONOTONIC) to the first line matching.
first_at() {
	awk -v s="$3" -v re="$2" '$0 ~ re {
		t = $1; sub(/^[^[]*\[/, "", t); sub(/\].*/, "", t); printf "%.2f\n", t - s; exit }' "$1"
}

echo "# sync-time: $RUNS runs, default intervals, software timestamps, $(uname -r)," \
	"$(nproc) CPUs, $(ptp4l -v 2>&1 | head -n 1)"
echo "# run station-of-pi pi-to-SLAVE linreg-to-SLAVE ptp4l-to-UNCALIBRATED ptp4l-first-offset (s)"
for run in $(seq 1 "$RUNS"); do
	if [ $((run % 2)) = 1 ]; then
		pi_ns=$A pi_if=a1 lr_ns=$B lr_if=b1
	else
		pi_ns=$B pi_if=b1 lr_ns=$A lr_if=a1
	fi
	n0=${#BG_PIDS[@]}
	log=$tmp/run$run
	start=$(python3 -c 'import time; print("%.3f" % time.monotonic())')
	ip netns exec "$pi_ns" capsh --drop=cap_sys_time -- -c "exec $PORT -i $pi_if \
		-f $tmp/pi.conf -s --clock virtual -m" >"$log-pi.log" 2>&1 &
	BG_PIDS+=($!)
	ip netns exec "$lr_ns" capsh --drop=cap_sys_time -- -c "exec $PORT -i $lr_if \
		-f $tmp/linreg.conf -s --clock virtual -m" >"$log-linreg.log" 2>&1 &
	BG_PIDS+=($!)
	ip netns exec "$C" capsh --drop=cap_sys_time -- -c "exec ptp4l -i c1 -2 -S -m -s \
		--free_running 1" >"$log-ptp4l.log" 2>&1 &
	BG_PIDS+=($!)
	for _ in $(seq 1 $((LIMIT * 10))); do
		if grep -q "to SLAVE" "$log-pi.log" && grep -q "to SLAVE" "$log-linreg.log" &&
			grep -q "master offset" "$log-ptp4l.log"; then
			break
		fi
		sleep 0.1
	done
	kill "${BG_PIDS[@]:n0}" 2>/dev/null || true
	wait "${BG_PIDS[@]:n0}" 2>/dev/null || true
	BG_PIDS=("${BG_PIDS[@]:0:n0}")
	echo "$run $pi_if $(first_at "$log-pi.log" "to SLAVE" "$start") \
$(first_at "$log-linreg.log" "to SLAVE" "$start") \
$(first_at "$log-ptp4l.log" "to UNCALIBRATED" "$start") \
$(first_at "$log-ptp4l.log" "master offset" "$start")" | tee -a "$tmp/runs"
	sleep 2
done
awk '{ for (i = 3; i <= 6; i++) if ($i != "") { s[i] += $i; ss[i] += $i * $i; n[i]++ } }
	END { split("pi linreg ptp4l-UNCALIBRATED ptp4l-first-offset", name)
		for (i = 3; i <= 6; i++) if (n[i]) { m = s[i] / n[i]; v = ss[i] / n[i] - m * m
			printf "# %s: mean %.2f s, sd %.2f s, n %d\n", name[i - 2], m,
				sqrt(v > 0 ? v : 0), n[i] } }' "$tmp/runs"
