#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Servo quality under packet delay variation: true time error of phcd's PI and linreg servos,
# slaves of one ptp4l grandmaster in the same runs, beside ptp4l's reported offset.
#
# A bridge in a namespace, one veth per station, software timestamps. The grandmaster is ptp4l
# --free_running 1 on this machine's CLOCK_REALTIME (nobody steers it). Station A and B run
# `phcd-port --clock virtual -m --every-sample --true-error`, one with clock_servo = pi, the other
# linreg (they swap stations from one run to the next); each steers only its virtual clock, a view
# of CLOCK_REALTIME, so the virtual clock minus CLOCK_REALTIME is its true error, printed with
# every sample. Station C runs ptp4l --free_running 1 (it cannot steer a clock of its own here):
# its reported offsets (TIME_STATUS_NP polled, as sync-quality.sh does) are measurement only.
# Packet delay variation: tc netem on the grandmaster's veth, so every slave sees the same
# (Sync, Follow_Up, Delay_Resp; Delay_Req goes plain): PROFILES among
#   none    no netem
#   normal  delay 100 us +- 20 us, normal distribution
#   bursty  delay 100 us +- 50 us, pareto distribution, 75% correlated: runs of long delays
#           (in the spirit of ITU-T G.8261's variable-delay test cases, not one of them)
# `rate 1gbit` keeps netem from reordering Sync and its Follow_Up.
#
# Rates: Announce 4/s, Sync 8/s (so short runs hold enough samples); phcd's default servo
# constants for software timestamps. The first WARMUP seconds are cut.
# Per profile, run and servo: n, mean, RMS, p99 |x|, max |x| of the true error and of the offset
# reported; ptp4l's reported offset likewise.
#
# usage: BUILD=build-dir tests/bench/servo-quality.sh [SECONDS [RUNS [WARMUP [PROFILES]]]]
#        (root; 60 2 20 "none normal bursty"). KEEP=dir keeps the logs. Not a pass/fail test,
#        not in any meson suite. Results: docs/performance.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
SRC=${SRC:-$(cd "$here/../.." && pwd)}
BUILD=${BUILD:-$SRC/build}
SECS=${1:-60}
RUNS=${2:-2}
WARMUP=${3:-20}
PROFILES=${4:-none normal bursty}
. "$SRC/tests/lib/net-helpers.sh"
. "$SRC/tests/lib/ptp-helpers.sh"

PORT=$BUILD/worker/phcd-port
[ -x "$PORT" ] || fail "no $PORT: build first (ninja -C $BUILD)"
command -v ptp4l >/dev/null || fail "ptp4l missing (linuxptp)"
command -v tc >/dev/null || fail "tc missing (iproute2)"
tmp=$(mktemp -d)
L=phsv-l$$ M=phsv-m$$ A=phsv-a$$ B=phsv-b$$ C=phsv-c$$
trap 'net_cleanup; [ -n "${KEEP:-}" ] && cp -r "$tmp" "$KEEP"; rm -rf "$tmp"' EXIT
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
ptp4l_gm "$M" m0 "$tmp/gm.uds" "$tmp/gm.log"
if [ "$PROFILES" != none ]; then
	# netem is a kernel module (sch_netem): some kernels lack it. Try it in the namespace.
	ip netns exec "$M" tc qdisc add dev m0 root netem delay 1us 2>/dev/null ||
		fail "this kernel has no netem qdisc (sch_netem): run with PROFILES=none, or in a VM"
	ip netns exec "$M" tc qdisc del dev m0 root
fi

MONO_TO_REAL=$(python3 -c 'import time; print("%.6f" % (time.time() - time.monotonic()))')

netem() {
	ip netns exec "$M" tc qdisc del dev m0 root 2>/dev/null || true
	case $1 in
	none) ;;
	normal) ip netns exec "$M" tc qdisc add dev m0 root netem delay 100us 20us \
		distribution normal rate 1gbit ;;
	bursty) ip netns exec "$M" tc qdisc add dev m0 root netem delay 100us 50us 75% \
		distribution pareto rate 1gbit ;;
	*) fail "unknown profile $1" ;;
	esac
}

# phcd NS IF SERVO LOG: phcd-port on a virtual clock, every sample with its true error.
phcd() {
	ip netns exec "$1" capsh --drop=cap_sys_time -- -c "exec $PORT -i $2 -f $tmp/$3.conf -s \
		--clock virtual -m --every-sample --true-error" >"$4" 2>&1 &
	BG_PIDS+=($!)
}

# phcd_samples LOG FROM TO FIELD: "offset" or "true" (error) of each sample in [FROM, TO).
phcd_samples() {
	awk -v a="$2" -v b="$3" -v m="$MONO_TO_REAL" -v f="$4" '/master offset/ {
		t = $1; sub(/^[^[]*\[/, "", t); sub(/\].*/, "", t); t += m
		if (t < a || t >= b) next
		for (i = 1; i < NF; i++) {
			if ($i == "offset") o = $(i + 1)
			if ($i == "error") e = $(i + 1)
		}
		print (f == "true" ? e : o) }' "$1"
}

ptp4l_samples() {
	awk -v a="$2" -v b="$3" '
		$1 == "master_offset" { o = $2 }
		$1 == "ingress_time" && $2 != last { last = $2; t = $2 / 1e9
			if (t >= a && t < b) print o }' "$1.pmc"
}

# stats NAME: "NAME n mean rms p99 max" (ns) from one value a line on stdin.
stats() {
	awk '{ a = $1 < 0 ? -$1 : $1; print a, $1 }' | sort -n | awk -v s="$1" '
		{ a[NR] = $1; sum += $2; ss += $2 * $2 }
		END { if (!NR) { print s, 0, 0, 0, 0, 0; exit }
			i = int(NR * 0.99 + 0.999); if (i > NR) i = NR
			printf "%s %d %.0f %.0f %.0f %.0f\n", s, NR, sum / NR, sqrt(ss / NR), a[i], a[NR] }'
}

echo "# servo-quality: profiles '$PROFILES', $RUNS runs of ${SECS}s after ${WARMUP}s each," \
	"$(uname -r), $(nproc) CPUs, $(ptp4l -v 2>&1 | head -n 1)"
echo "# profile run station-of-pi series n mean rms p99|x| max|x| (ns)  load"
for profile in $PROFILES; do
	netem "$profile"
	for run in $(seq 1 "$RUNS"); do
		if [ $((run % 2)) = 1 ]; then
			pi_ns=$A pi_if=a1 lr_ns=$B lr_if=b1
		else
			pi_ns=$B pi_if=b1 lr_ns=$A lr_if=a1
		fi
		n0=${#BG_PIDS[@]}
		start=$(date +%s.%N)
		log=$tmp/$profile-$run
		phcd "$pi_ns" "$pi_if" pi "$log-pi.log"
		phcd "$lr_ns" "$lr_if" linreg "$log-linreg.log"
		ip netns exec "$C" capsh --drop=cap_sys_time -- -c "exec ptp4l -i c1 -2 -S -m -s \
			--free_running 1 $PTP4L_FAST --uds_address $tmp/c1.uds" >"$log-ptp4l.log" 2>&1 &
		BG_PIDS+=($!)
		pmc_poll "$tmp/c1.uds" 20 "$log-ptp4l.log.pmc"
		sleep "$((WARMUP + SECS))"
		kill "${BG_PIDS[@]:n0}" 2>/dev/null || true
		wait "${BG_PIDS[@]:n0}" 2>/dev/null || true
		BG_PIDS=("${BG_PIDS[@]:0:n0}")
		load=$(cut -d' ' -f1-3 /proc/loadavg)
		from=$(awk -v s="$start" -v w="$WARMUP" 'BEGIN { printf "%.3f", s + w }')
		to=$(awk -v f="$from" -v d="$SECS" 'BEGIN { printf "%.3f", f + d }')
		for servo in pi linreg; do
			for f in true offset; do
				phcd_samples "$log-$servo.log" "$from" "$to" $f |
					tee -a "$tmp/all-$profile-$servo-$f" | stats "$servo-$f" |
					sed "s/^/$profile $run $pi_if /; s/\$/ $load/"
			done
		done
		ptp4l_samples "$log-ptp4l.log" "$from" "$to" | tee -a "$tmp/all-$profile-ptp4l-offset" |
			stats ptp4l-offset | sed "s/^/$profile $run $pi_if /; s/\$/ $load/"
	done
done
echo "# pooled over the runs: profile series n mean rms p99|x| max|x|"
for profile in $PROFILES; do
	for s in pi-true linreg-true pi-offset linreg-offset ptp4l-offset; do
		[ -f "$tmp/all-$profile-$s" ] || continue
		stats "$s" <"$tmp/all-$profile-$s" | sed "s/^/$profile /"
	done
done
