#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Time to synchronized from start at default intervals, software timestamps: phcd-port with the
# PI servo and with linreg, and ptp4l as a real slave, started together against one grandmaster.
#
# The grandmaster is ptp4l --free_running 1 with Announce 1/s (logAnnounceInterval 0), Sync 1/s,
# announceReceiptTimeout 3 (the issue's defaults; ptp4l's own default Announce is every 2 s),
# started first and left running. Each run starts, at the same moment, on three stations:
#   - `phcd-port --clock virtual -s -m` with clock_servo = pi, and with linreg (they swap
#     stations from run to run), phcd's defaults otherwise;
#   - `ptp4l -s` (its defaults: PI with the software constants) steering a virtual clock of its
#     own through tests/bench/vclock-shim.so (LD_PRELOAD), never this machine's clock.
# Every slave's clock starts OFFSET ns and FREQ ppb off (phcd-port's --virtual-offset and
# --virtual-freq, the shim's VCLOCK_OFFSET_NS and VCLOCK_FREQ_ERROR_PPB), as a machine at boot.
# Milestones from start (s), from each program's log:
#   phcd-port: master chosen (LISTENING to UNCALIBRATED), first offset (s0), step (s1), SLAVE:
#              phcd-port goes UNCALIBRATED -> SLAVE when its servo locks, the moment phcd's
#              Synchronized turns true (servo_offset_threshold 0, the default)
#   ptp4l:     first Announce heard (new foreign master), master chosen, first offset, s1, s2
#              (its UNCALIBRATED to SLAVE)
# Each line ends with the load average (1, 5, 15 min) after the run.
#
# usage: BUILD=build-dir tests/bench/sync-time.sh [RUNS [LIMIT [OFFSET [FREQ]]]]
#        (root; 6 60 300000 20000; LIMIT: seconds a run waits at most). KEEP=dir keeps the logs.
#        Not a pass/fail test, not in any meson suite. Results: docs/performance.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
SRC=${SRC:-$(cd "$here/../.." && pwd)}
BUILD=${BUILD:-$SRC/build}
RUNS=${1:-6}
LIMIT=${2:-60}
OFFSET=${3:-300000}
FREQ=${4:-20000}
. "$SRC/tests/lib/net-helpers.sh"
. "$SRC/tests/lib/ptp-helpers.sh"

PORT=$BUILD/worker/phcd-port
SHIM=$BUILD/tests/bench/vclock-shim.so
[ -x "$PORT" ] || fail "no $PORT: build first (ninja -C $BUILD)"
[ -f "$SHIM" ] || fail "no $SHIM: build first (ninja -C $BUILD)"
command -v ptp4l >/dev/null || fail "ptp4l missing (linuxptp)"
tmp=$(mktemp -d)
L=phst-l$$ M=phst-m$$ A=phst-a$$ B=phst-b$$ C=phst-c$$
trap 'net_cleanup; bench_keep "$tmp"; rm -rf "$tmp"' EXIT
lan_bridge "$L"
lan_station "$L" "$M" m0
lan_station "$L" "$A" a1
lan_station "$L" "$B" b1
lan_station "$L" "$C" c1
for servo in pi linreg; do
	printf '[global]\ntime_stamping = software\nclock_servo = %s\n' "$servo" >"$tmp/$servo.conf"
done
ip netns exec "$M" capsh --drop=cap_sys_time -- -c "exec ptp4l -i m0 -2 -S -m \
	--free_running 1 --priority1 100 --logAnnounceInterval 0 --logSyncInterval 0 \
	--announceReceiptTimeout 3" >"$tmp/gm.log" 2>&1 &
BG_PIDS+=($!)
sleep 3

# first_at LOG REGEX START: seconds from START (CLOCK_MONOTONIC) to the first line matching.
first_at() {
	awk -v s="$3" -v re="$2" '$0 ~ re {
		t = $1; sub(/^[^[]*\[/, "", t); sub(/\].*/, "", t); printf "%.2f\n", t - s; exit }' "$1"
}

echo "# sync-time: $RUNS runs, Announce 1/s, Sync 1/s, announceReceiptTimeout 3, software" \
	"timestamps, slaves start ${OFFSET} ns and ${FREQ} ppb off, $(uname -r), $(nproc) CPUs," \
	"ptp4l $(ptp4l -v 2>&1 | head -n 1)"
echo "# run pi-station | pi: chosen s0 s1 SLAVE | linreg: chosen s0 s1 SLAVE |" \
	"ptp4l: announce chosen s0 s1 s2 | load"
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
		-f $tmp/pi.conf -s --clock virtual --virtual-offset $OFFSET --virtual-freq $FREQ \
		-m --every-sample" >"$log-pi.log" 2>&1 &
	BG_PIDS+=($!)
	ip netns exec "$lr_ns" capsh --drop=cap_sys_time -- -c "exec $PORT -i $lr_if \
		-f $tmp/linreg.conf -s --clock virtual --virtual-offset $OFFSET --virtual-freq $FREQ \
		-m --every-sample" >"$log-linreg.log" 2>&1 &
	BG_PIDS+=($!)
	ip netns exec "$C" capsh --drop=cap_sys_time -- -c "LD_PRELOAD=$SHIM \
		VCLOCK_OFFSET_NS=$OFFSET VCLOCK_FREQ_ERROR_PPB=$FREQ exec ptp4l -i c1 -2 -S -m -s \
		--logAnnounceInterval 0 --announceReceiptTimeout 3" >"$log-ptp4l.log" 2>&1 &
	BG_PIDS+=($!)
	for _ in $(seq 1 $((LIMIT * 10))); do
		if grep -q "to SLAVE" "$log-pi.log" && grep -q "to SLAVE" "$log-linreg.log" &&
			grep -q "to SLAVE" "$log-ptp4l.log"; then
			break
		fi
		sleep 0.1
	done
	kill "${BG_PIDS[@]:n0}" 2>/dev/null || true
	wait "${BG_PIDS[@]:n0}" 2>/dev/null || true
	BG_PIDS=("${BG_PIDS[@]:0:n0}")
	marks=""
	for s in pi linreg; do
		for re in "LISTENING to UNCALIBRATED" "master offset" " s1 " "to SLAVE"; do
			marks="$marks $(first_at "$log-$s.log" "$re" "$start" | grep . || echo -)"
		done
		marks="$marks |"
	done
	for re in "new foreign master" "LISTENING to UNCALIBRATED" "master offset" " s1 " \
		"to SLAVE"; do
		marks="$marks $(first_at "$log-ptp4l.log" "$re" "$start" | grep . || echo -)"
	done
	echo "$run $pi_if |$marks | $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$tmp/runs"
	sleep 2
done
# columns: 1 run, 2 station, 3 |, 4-7 pi, 8 |, 9-12 linreg, 13 |, 14-18 ptp4l
awk '{ for (i = 4; i <= 18; i++) if ($i ~ /^[0-9.]+$/) { s[i] += $i; ss[i] += $i * $i; n[i]++ } }
	END { split("pi-chosen pi-s0 pi-s1 pi-SLAVE - linreg-chosen linreg-s0 linreg-s1 " \
		"linreg-SLAVE - ptp4l-announce ptp4l-chosen ptp4l-s0 ptp4l-s1 ptp4l-s2", name)
		for (i = 4; i <= 18; i++) if (n[i]) { m = s[i] / n[i]; v = ss[i] / n[i] - m * m
			printf "# %s: mean %.2f s, sd %.2f s, n %d\n", name[i - 3], m,
				sqrt(v > 0 ? v : 0), n[i] } }' "$tmp/runs"
