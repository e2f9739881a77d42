#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Holdover: the true time error of a slave some time after its grandmaster went away.
#
# A bridge in a namespace, one veth per station, software timestamps. The grandmaster is ptp4l
# --free_running 1 on CLOCK_REALTIME (Announce 4/s, Sync 8/s). Station A and B run
# `phcd-port --clock virtual -s -m --every-sample --true-error` with clock_servo = pi and linreg
# (swapping stations run by run); station C ptp4l -s steering a virtual clock of its own through
# tests/bench/vclock-shim.so. Every slave's clock runs FREQ ppb off (phcd-port --virtual-freq,
# the shim's VCLOCK_FREQ_ERROR_PPB), so holding it needs the learnt frequency. After LOCK seconds
# the grandmaster is stopped (SIGSTOP: no Announce, no Sync), HOLD seconds later continued
# (SIGCONT). The true error (virtual clock minus CLOCK_REALTIME) of each slave:
#   locked  RMS over the last 10 s before the grandmaster stopped
#   after   at the first sample after it came back: the error holdover left, HOLD s plus the
#           few seconds it takes to measure again (that time is printed too); nothing has
#           steered the clock since the stop (phcd's servo starts over and acts from its second
#           sample; ptp4l's shim logs before it applies a new frequency)
# Each line ends with the load average (1, 5, 15 min) after the run.
#
# usage: BUILD=build-dir tests/bench/holdover.sh [RUNS [LOCK [HOLD [FREQ]]]]
#        (root; 4 90 60 20000). KEEP=dir keeps the logs. Not a pass/fail test, not in any meson
#        suite. Results: docs/performance.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
SRC=${SRC:-$(cd "$here/../.." && pwd)}
BUILD=${BUILD:-$SRC/build}
RUNS=${1:-4}
LOCK=${2:-90}
HOLD=${3:-60}
FREQ=${4:-20000}
. "$SRC/tests/lib/net-helpers.sh"
. "$SRC/tests/lib/ptp-helpers.sh"

PORT=$BUILD/worker/phcd-port
SHIM=$BUILD/tests/bench/vclock-shim.so
[ -x "$PORT" ] || fail "no $PORT: build first (ninja -C $BUILD)"
[ -f "$SHIM" ] || fail "no $SHIM: build first (ninja -C $BUILD)"
command -v ptp4l >/dev/null || fail "ptp4l missing (linuxptp)"
tmp=$(mktemp -d)
L=phho-l$$ M=phho-m$$ A=phho-a$$ B=phho-b$$ C=phho-c$$
trap 'net_cleanup; bench_keep "$tmp"; rm -rf "$tmp"' EXIT
lan_bridge "$L"
lan_station "$L" "$M" m0
lan_station "$L" "$A" a1
lan_station "$L" "$B" b1
lan_station "$L" "$C" c1
for servo in pi linreg; do
	cat >"$tmp/$servo.conf" <<CONF
[global]
time_stamping = software
logAnnounceInterval = -2
announceReceiptTimeout = 3
logSyncInterval = -3
clock_servo = $servo
CONF
done
MONO_TO_REAL=$(python3 -c 'import time; print("%.6f" % (time.time() - time.monotonic()))')

# phcd_true LOG: "REALTIME_S TRUE_ERROR_NS" of each sample.
phcd_true() {
	awk -v m="$MONO_TO_REAL" '/true error/ {
		t = $1; sub(/^[^[]*\[/, "", t); sub(/\].*/, "", t); printf "%.6f %s\n", t + m, $NF }' "$1"
}

# report NAME SERIES STOP CONT: locked RMS, and the first error after CONT with its time since STOP.
report() {
	awk -v n="$1" -v s="$3" -v c="$4" '
		$1 >= s - 10 && $1 < s { ss += $2 * $2; k++ }
		$1 >= c && !done { done = 1; at = $1 - s; e = $2 }
		END { printf "%s locked-rms %.0f after %s at %.1f s\n", n, k ? sqrt(ss / k) : -1,
			done ? e : "-", done ? at : -1 }' "$2"
}

echo "# holdover: $RUNS runs, ${LOCK}s locked, grandmaster stopped ${HOLD}s, clocks ${FREQ} ppb" \
	"off, Announce 4/s, Sync 8/s, $(uname -r), $(nproc) CPUs, ptp4l $(ptp4l -v 2>&1 | head -n 1)"
echo "# run pi-station series locked-rms(ns) after(ns) at(s since stop) | load"
for run in $(seq 1 "$RUNS"); do
	if [ $((run % 2)) = 1 ]; then
		pi_ns=$A pi_if=a1 lr_ns=$B lr_if=b1
	else
		pi_ns=$B pi_if=b1 lr_ns=$A lr_if=a1
	fi
	log=$tmp/run$run
	n0=${#BG_PIDS[@]}
	ptp4l_gm "$M" m0 "$tmp/gm$run.uds" "$log-gm.log"
	sleep 2
	for s in pi linreg; do
		ns=$pi_ns ifn=$pi_if
		[ $s = linreg ] && ns=$lr_ns ifn=$lr_if
		ip netns exec "$ns" capsh --drop=cap_sys_time -- -c "exec $PORT -i $ifn \
			-f $tmp/$s.conf -s --clock virtual --virtual-freq $FREQ -m --every-sample \
			--true-error" >"$log-$s.log" 2>&1 &
		BG_PIDS+=($!)
	done
	ip netns exec "$C" capsh --drop=cap_sys_time -- -c "LD_PRELOAD=$SHIM \
		VCLOCK_FREQ_ERROR_PPB=$FREQ VCLOCK_LOG=$log-ptp4l.true exec ptp4l -i c1 -2 -S -m -s \
		$PTP4L_FAST" >"$log-ptp4l.log" 2>&1 &
	BG_PIDS+=($!)
	sleep "$LOCK"
	stop=$(date +%s.%N)
	kill -STOP "$GM_PID"
	sleep "$HOLD"
	cont=$(date +%s.%N)
	kill -CONT "$GM_PID"
	sleep 15
	kill "${BG_PIDS[@]:n0}" 2>/dev/null || true
	wait "${BG_PIDS[@]:n0}" 2>/dev/null || true
	BG_PIDS=("${BG_PIDS[@]:0:n0}")
	load=$(cut -d' ' -f1-3 /proc/loadavg)
	for s in pi linreg; do
		phcd_true "$log-$s.log" >"$log-$s.true"
	done
	for s in pi linreg ptp4l; do
		echo "$run $pi_if $(report "$s" "$log-$s.true" "$stop" "$cont") | $load"
	done | tee -a "$tmp/runs"
done
awk '$7 ~ /^-?[0-9]+$/ { a = $7 < 0 ? -$7 : $7; s[$3] += a; ss[$3] += a * a; n[$3]++; l[$3] += $5 }
	END { for (k in n) { m = s[k] / n[k]; v = ss[k] / n[k] - m * m
		printf "# %s: |true error| after holdover mean %.0f ns, sd %.0f ns, n %d;" \
			" locked RMS mean %.0f ns\n", k, m, sqrt(v > 0 ? v : 0), n[k], l[k] / n[k] } }' \
	"$tmp/runs"
