#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Sync quality: phcd's port engine and ptp4l as slaves of the same ptp4l grandmaster, at the same
# time, on the same LAN (a bridge in a namespace, one veth per station, software timestamps),
# every sample of each.
#
# Two slave stations, A and B, each its own namespace and veth on the bridge. In each run one
# station runs `phcd-port -m --every-sample --clock free` (the worker's engine, by hand) and the
# other `ptp4l -m --free_running 1 --freq_est_interval -3 --summary_interval -3` (which prints a
# "master offset" line per Sync); the stations swap from one run to the next, so a difference
# between the two stations (the bridge floods a Sync to its ports one after the other) falls on
# both daemons alike. Grandmaster and slaves read the one CLOCK_REALTIME of the machine and
# neither slave adjusts it, so every offset is pure measurement error: timestamps, bridge, path
# delay filter. The first WARMUP seconds of each run are cut (both slaves start together);
# then every sample in the next SECONDS, for both, in the same window of CLOCK_MONOTONIC.
#
# Per run and pooled over all runs: n, mean offset, RMS, p99 of |offset|, max |offset|, mean
# path delay; the ratios phcd / ptp4l of RMS and p99 per run, with their mean and sd.
#
# usage: BUILD=build-dir tests/bench/sync-quality.sh [SECONDS [RUNS [WARMUP]]]  (root; 120 6 15)
# SLAVES="ptp4l ptp4l" (or "phcd phcd") runs the same daemon on both stations: the A/B station
# bias alone. KEEP=dir keeps the logs. Not a pass/fail test, not in any meson suite. Results:
# docs/performance.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
SRC=${SRC:-$(cd "$here/../.." && pwd)}
BUILD=${BUILD:-$SRC/build}
SECS=${1:-120}
RUNS=${2:-6}
WARMUP=${3:-15}
read -r SLAVE_1 SLAVE_2 <<<"${SLAVES:-phcd ptp4l}"
. "$SRC/tests/lib/net-helpers.sh"
. "$SRC/tests/lib/ptp-helpers.sh"

PORT=$BUILD/worker/phcd-port
[ -x "$PORT" ] || fail "no $PORT: build first (ninja -C $BUILD)"
command -v ptp4l >/dev/null || fail "ptp4l missing (linuxptp)"
tmp=$(mktemp -d)
L=phsq-l$$ M=phsq-m$$ A=phsq-a$$ B=phsq-b$$
trap 'net_cleanup; bench_keep "$tmp"; rm -rf "$tmp"' EXIT
lan_bridge "$L"
lan_station "$L" "$M" m0
lan_station "$L" "$A" a1
lan_station "$L" "$B" b1
phcd_fast_global >"$tmp/port.conf"
ptp4l_gm "$M" m0 "$tmp/gm.uds" "$tmp/gm.log"

# Seconds to add to CLOCK_MONOTONIC for CLOCK_REALTIME (nobody steers it here).
MONO_TO_REAL=$(python3 -c 'import time; print("%.6f" % (time.time() - time.monotonic()))')

# slave KIND NS IF LOG: one slave in the background, its clock left alone; PIDs in BG_PIDS.
# ptp4l --free_running prints an offset only once per freq_est_interval (1 s at least), so its
# every sample is read from TIME_STATUS_NP (masterOffset, ingress time) polled through one pmc
# session at 20/s (pmc_poll; Sync comes at 8/s; repeats are dropped by ingress time), with
# CURRENT_DATA_SET's meanPathDelay once a second.
slave() {
	case $1 in
	phcd)
		ip netns exec "$2" capsh --drop=cap_sys_time -- -c "exec $PORT -i $3 -f \
			$tmp/port.conf -s --clock free -m --every-sample" >"$4" 2>&1 &
		BG_PIDS+=($!)
		;;
	ptp4l)
		ip netns exec "$2" capsh --drop=cap_sys_time -- -c "exec ptp4l -i $3 -2 -S -m -s \
			--free_running 1 $PTP4L_FAST --uds_address $tmp/$3.uds" >"$4" 2>&1 &
		BG_PIDS+=($!)
		pmc_poll "$tmp/$3.uds" 20 "$4.pmc" 20
		;;
	esac
}

# samples KIND LOG FROM TO: "offset delay" of each sample taken with FROM <= CLOCK_REALTIME < TO
# (seconds); the delay is the latest path delay the slave reported.
samples() {
	case $1 in
	phcd)
		# The line's prefix is CLOCK_MONOTONIC: MONO_TO_REAL converts it.
		awk -v a="$3" -v b="$4" -v m="$MONO_TO_REAL" '/master offset/ {
			t = $1; sub(/^[^[]*\[/, "", t); sub(/\].*/, "", t); t += m
			if (t < a || t >= b) next
			for (i = 1; i < NF; i++) {
				if ($i == "offset") o = $(i + 1)
				if ($i == "delay") d = $(i + 1)
			}
			print o, d }' "$2"
		;;
	ptp4l)
		awk -v a="$3" -v b="$4" '
			$1 == "meanPathDelay" { d = $2 + 0 }
			$1 == "master_offset" { o = $2 }
			$1 == "ingress_time" && $2 != last { last = $2; t = $2 / 1e9
				if (t >= a && t < b && d != "") print o, d }' "$2.pmc"
		;;
	esac
}

# stats NAME: "NAME n mean rms p99 max delay" from "offset delay" lines on stdin.
stats() {
	awk '{ a = $1 < 0 ? -$1 : $1; print a, $1, $2 }' | sort -n | awk -v s="$1" '
		{ a[NR] = $1; sum += $2; ss += $2 * $2; d += $3 }
		END { if (!NR) { print s, 0, 0, 0, 0, 0, 0; exit }
			i = int(NR * 0.99 + 0.999); if (i > NR) i = NR
			printf "%s %d %.0f %.0f %.0f %.0f %.0f\n", s, NR, sum / NR, sqrt(ss / NR),
				a[i], a[NR], d / NR }'
}

echo "# sync-quality: $RUNS runs of ${SECS}s after ${WARMUP}s warm-up, slaves $SLAVE_1/$SLAVE_2" \
	"swapping stations, $(uname -r), $(nproc) CPUs, ptp4l $(ptp4l -v 2>&1 | head -n 1)"
echo "# run station-of-$SLAVE_1 series n mean rms p99|x| max|x| mean-delay   (ns)   load"
for run in $(seq 1 "$RUNS"); do
	if [ $((run % 2)) = 1 ]; then
		st1=a1 ns1=$A st2=b1 ns2=$B
	else
		st1=b1 ns1=$B st2=a1 ns2=$A
	fi
	n0=${#BG_PIDS[@]}
	start=$(date +%s.%N)
	slave "$SLAVE_1" "$ns1" "$st1" "$tmp/run$run-1.log"
	slave "$SLAVE_2" "$ns2" "$st2" "$tmp/run$run-2.log"
	sleep "$((WARMUP + SECS))"
	kill "${BG_PIDS[@]:n0}" 2>/dev/null || true
	wait "${BG_PIDS[@]:n0}" 2>/dev/null || true
	BG_PIDS=("${BG_PIDS[@]:0:n0}")
	load=$(cut -d' ' -f1-3 /proc/loadavg)
	from=$(awk -v s="$start" -v w="$WARMUP" 'BEGIN { printf "%.3f", s + w }')
	to=$(awk -v f="$from" -v d="$SECS" 'BEGIN { printf "%.3f", f + d }')
	for i in 1 2; do
		name=$([ $i = 1 ] && echo "$SLAVE_1" || echo "$SLAVE_2")
		[ "$SLAVE_1" != "$SLAVE_2" ] || name=$name-$i
		samples "${name%-?}" "$tmp/run$run-$i.log" "$from" "$to" | tee -a "$tmp/all-$name" |
			sed "s/^/$run $st1 $name /" >>"$tmp/samples"
		echo "$run $st1 $(samples "${name%-?}" "$tmp/run$run-$i.log" "$from" "$to" | stats "$name") $load" |
			tee -a "$tmp/runs"
	done
done
cp "$tmp/samples" "${SYNC_SAMPLES:-/dev/null}" 2>/dev/null || true

n1=$SLAVE_1 n2=$SLAVE_2
[ "$n1" != "$n2" ] || n1=$n1-1 n2=$n2-2
echo "# pooled: series n mean rms p99|x| max|x| mean-delay"
for name in "$n1" "$n2"; do
	stats "$name" <"$tmp/all-$name"
done | sed 's/^/pooled /' | tee "$tmp/pooled"
# The ratios of the first series to the second, per run, then their mean and sd across runs.
awk -v x="$n1" -v y="$n2" '
	$3 == x { r[$1] = $6; p[$1] = $7; m[$1] = $5 } $3 == y { R[$1] = $6; P[$1] = $7; M[$1] = $5 }
	END { for (k in r) if (R[k] && P[k]) { q = r[k] / R[k]; u = p[k] / P[k]; n++
			sq += q; qq += q * q; su += u; uu += u * u; dm += m[k] - M[k]; ddm += (m[k] - M[k]) ^ 2
			printf "# run %s: %s/%s rms %.2f p99 %.2f, mean difference %+d ns\n", k, x, y, q, u, m[k] - M[k] }
		if (n > 1) printf "# %s/%s over %d runs: rms ratio %.2f (sd %.2f), p99 ratio %.2f (sd %.2f), mean difference %+.0f (sd %.0f) ns\n",
			x, y, n, sq / n, sqrt((qq - sq * sq / n) / (n - 1)), su / n, sqrt((uu - su * su / n) / (n - 1)),
			dm / n, sqrt((ddm - dm * dm / n) / (n - 1)) }' "$tmp/runs" | sort -V
awk -v x="$n1" -v y="$n2" '$2 == x { r = $5; p = $6 } $2 == y { R = $5; P = $6 }
	END { if (R && P) printf "# pooled %s/%s: rms %.2f, p99 %.2f\n", x, y, r / R, p / P }' "$tmp/pooled"
