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
# every sample. Station C runs ptp4l -s (PI, its software defaults) steering a virtual clock of
# its own through tests/bench/vclock-shim.so (LD_PRELOAD; never this machine's clock): its
# reported offsets (TIME_STATUS_NP polled, as sync-quality.sh does) and its true error (the
# shim's log at each frequency change). FREE_PTP4L=1 runs it --free_running 1 instead (reported
# offsets only: measurement noise). PTP4L_PI="KP KI" gives it those PI constants by hand
# (--pi_proportional_const, --pi_integral_const; e.g. "0.7 0.3", the constants issue 19 names).
# Packet delay variation between the grandmaster and the bridge, so every slave sees the same:
# with tc netem on the grandmaster's veth where the kernel has sch_netem (master to slaves only;
# Delay_Req goes plain), else (or with JITTER=relay) by tests/bench/tool-jitter-relay, an
# AF_PACKET relay at real-time priority in a namespace between the two that holds each event
# message, both ways, 2 ms (absorbing its own wakeup latency, the same both ways) plus a draw;
# the output says which, and the relay's summary how many messages it released late. PROFILES:
#   none     no added delay
#   uniform  0..100 us, uniform
#   normal   100 us +- 20 us, normal distribution
#   bursty   netem: 100 us +- 50 us, pareto, 75% correlated; relay: calm (10 us + exp 5 us) and
#            congested (100 us + exp 100 us) states, bursts of about five (both in the spirit of
#            ITU-T G.8261's variable-delay test cases, not one of them)
# netem's `rate 1gbit` and the relay's queue keep Sync and Follow_Up in order.
# Rates: Announce 4/s, Sync 8/s (so short runs hold enough samples); phcd's default servo
# constants for software timestamps. The first WARMUP seconds are cut. Runs are interleaved:
# for each run, every profile in turn.
# Per profile, run and servo: n, mean, RMS, p99 |x|, max |x| of the true error and of the offset
# reported (with the load average after the run); ptp4l's likewise; at the end, pooled, and the
# median |x| of each series (the raw offsets' median is a free-running phcd-port's, station D).
#
# BASE=path/to/phcd-port (another build, e.g. main's before a change) adds station E running it
# with clock_servo = pi in the same runs: series base-true and base-offset, for "no regression".
#
# usage: BUILD=build-dir tests/bench/servo-quality.sh [SECONDS [RUNS [WARMUP [PROFILES]]]]
#        (root; 60 2 30 "none uniform normal bursty"). KEEP=dir keeps the logs. Not a pass/fail
#        test, not in any meson suite. Results: docs/performance.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
SRC=${SRC:-$(cd "$here/../.." && pwd)}
BUILD=${BUILD:-$SRC/build}
SECS=${1:-60}
RUNS=${2:-2}
WARMUP=${3:-30}
PROFILES=${4:-none uniform normal bursty}
. "$SRC/tests/lib/net-helpers.sh"
. "$SRC/tests/lib/ptp-helpers.sh"

PORT=$BUILD/worker/phcd-port
SHIM=$BUILD/tests/bench/vclock-shim.so
RELAY=$BUILD/tests/bench/tool-jitter-relay
[ -x "$PORT" ] || fail "no $PORT: build first (ninja -C $BUILD)"
[ -f "$SHIM" ] && [ -x "$RELAY" ] || fail "no $SHIM or $RELAY: build first (ninja -C $BUILD)"
command -v ptp4l >/dev/null || fail "ptp4l missing (linuxptp)"
command -v tc >/dev/null || fail "tc missing (iproute2)"
tmp=$(mktemp -d)
L=phsv-l$$ M=phsv-m$$ R=phsv-r$$ A=phsv-a$$ B=phsv-b$$ C=phsv-c$$ D=phsv-d$$ E=phsv-e$$
BASE=${BASE:-}
[ -z "$BASE" ] || [ -x "$BASE" ] || fail "BASE=$BASE is no executable"
servos="pi linreg"
[ -n "$BASE" ] && servos="pi linreg base"
trap 'net_cleanup; bench_keep "$tmp"; rm -rf "$tmp"' EXIT
lan_bridge "$L"
netns_add "$M"
lan_station "$L" "$R" r1
ip link add m0 netns "$M" type veth peer name r0 netns "$R" || fail "veth m0"
ip -n "$M" link set m0 up
ip -n "$R" link set r0 up
lan_station "$L" "$A" a1
lan_station "$L" "$B" b1
lan_station "$L" "$C" c1
lan_station "$L" "$D" d1
[ -n "$BASE" ] && lan_station "$L" "$E" e1
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
# netem is a kernel module (sch_netem): some kernels lack it. Try it in the namespace.
if [ "${JITTER:-}" != relay ] && ip netns exec "$M" tc qdisc add dev m0 root netem delay 1us \
	2>/dev/null; then
	ip netns exec "$M" tc qdisc del dev m0 root
	JITTER=netem
else
	JITTER=relay
fi

MONO_TO_REAL=$(python3 -c 'import time; print("%.6f" % (time.time() - time.monotonic()))')

# jitter PROFILE LOG: the relay (always in the path; it adds the delays unless netem does).
jitter() {
	local relay=$1
	[ -n "${RELAY_PID:-}" ] && kill "$RELAY_PID" 2>/dev/null && wait "$RELAY_PID" 2>/dev/null
	if [ "$JITTER" = netem ]; then
		relay=none
		ip netns exec "$M" tc qdisc del dev m0 root 2>/dev/null || true
		case $1 in
		none) ;;
		uniform) ip netns exec "$M" tc qdisc add dev m0 root netem delay 50us 50us \
			rate 1gbit ;;
		normal) ip netns exec "$M" tc qdisc add dev m0 root netem delay 100us 20us \
			distribution normal rate 1gbit ;;
		bursty) ip netns exec "$M" tc qdisc add dev m0 root netem delay 100us 50us 75% \
			distribution pareto rate 1gbit ;;
		*) fail "unknown profile $1" ;;
		esac
	fi
	# real-time priority: on a loaded host its own scheduling delays would be the jitter
	ip netns exec "$R" chrt -f 20 "$RELAY" r0 r1 "$relay" "$RANDOM" 2>>"$2" &
	RELAY_PID=$!
	BG_PIDS+=($RELAY_PID)
}

# phcd NS IF SERVO LOG [BINARY]: phcd-port on a virtual clock, every sample with its true error.
phcd() {
	ip netns exec "$1" capsh --drop=cap_sys_time -- -c "exec ${5:-$PORT} -i $2 -f $tmp/$3.conf -s \
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

# stats NAME: "NAME n mean rms p50 p99 max" (ns; percentiles of |x|) from one value a line.
stats() {
	awk '{ a = $1 < 0 ? -$1 : $1; print a, $1 }' | sort -n | awk -v s="$1" '
		{ a[NR] = $1; sum += $2; ss += $2 * $2 }
		END { if (!NR) { print s, 0, 0, 0, 0, 0, 0; exit }
			i = int(NR * 0.99 + 0.999); if (i > NR) i = NR
			h = int(NR * 0.5 + 0.999); if (h < 1) h = 1
			printf "%s %d %.0f %.0f %.0f %.0f %.0f\n", s, NR, sum / NR, sqrt(ss / NR),
				a[h], a[i], a[NR] }'
}

ptp4l_mode="steering a virtual clock (vclock-shim)"
[ -n "${FREE_PTP4L:-}" ] && ptp4l_mode="--free_running 1"
ptp4l_pi=
if [ -n "${PTP4L_PI:-}" ]; then
	read -r kp ki <<<"$PTP4L_PI"
	[ -n "$ki" ] || fail "PTP4L_PI='$PTP4L_PI': want \"KP KI\""
	ptp4l_pi="--pi_proportional_const $kp --pi_integral_const $ki"
	ptp4l_mode="$ptp4l_mode, Kp $kp Ki $ki"
fi
echo "# servo-quality: profiles '$PROFILES', $RUNS runs of ${SECS}s after ${WARMUP}s each," \
	"$(uname -r), $(nproc) CPUs, ptp4l $(ptp4l -v 2>&1 | head -n 1) $ptp4l_mode"
echo "# packet delay variation by: $JITTER"
echo "# profile run station-of-pi series n mean rms p50|x| p99|x| max|x| (ns)  load"
for run in $(seq 1 "$RUNS"); do
	for profile in $PROFILES; do
		jitter "$profile" "$tmp/relay.log"
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
		[ -n "$BASE" ] && phcd "$E" e1 pi "$log-base.log" "$BASE"
		# D: free-running, the raw offsets the servos are compared with
		ip netns exec "$D" capsh --drop=cap_sys_time -- -c "exec $PORT -i d1 \
			-f $tmp/pi.conf -s --clock free -m --every-sample" >"$log-raw.log" 2>&1 &
		BG_PIDS+=($!)
		if [ -n "${FREE_PTP4L:-}" ]; then
			ip netns exec "$C" capsh --drop=cap_sys_time -- -c "exec ptp4l -i c1 -2 -S \
				-m -s --free_running 1 $PTP4L_FAST $ptp4l_pi --uds_address $tmp/c1.uds" \
				>"$log-ptp4l.log" 2>&1 &
		else
			ip netns exec "$C" capsh --drop=cap_sys_time -- -c "LD_PRELOAD=$SHIM \
				VCLOCK_LOG=$log-ptp4l.true exec ptp4l -i c1 -2 -S -m -s $PTP4L_FAST $ptp4l_pi \
				--uds_address $tmp/c1.uds" >"$log-ptp4l.log" 2>&1 &
		fi
		BG_PIDS+=($!)
		pmc_poll "$tmp/c1.uds" 20 "$log-ptp4l.log.pmc"
		sleep "$((WARMUP + SECS))"
		kill "${BG_PIDS[@]:n0}" 2>/dev/null || true
		wait "${BG_PIDS[@]:n0}" 2>/dev/null || true
		BG_PIDS=("${BG_PIDS[@]:0:n0}")
		load=$(cut -d' ' -f1-3 /proc/loadavg)
		from=$(awk -v s="$start" -v w="$WARMUP" 'BEGIN { printf "%.3f", s + w }')
		to=$(awk -v f="$from" -v d="$SECS" 'BEGIN { printf "%.3f", f + d }')
		for servo in $servos; do
			for f in true offset; do
				phcd_samples "$log-$servo.log" "$from" "$to" $f |
					tee -a "$tmp/all-$profile-$servo-$f" | stats "$servo-$f" |
					sed "s/^/$profile $run $pi_if /; s/\$/ $load/"
			done
		done
		phcd_samples "$log-raw.log" "$from" "$to" offset | tee -a "$tmp/all-$profile-raw-offset" |
			stats raw-offset | sed "s/^/$profile $run $pi_if /; s/\$/ $load/"
		ptp4l_samples "$log-ptp4l.log" "$from" "$to" | tee -a "$tmp/all-$profile-ptp4l-offset" |
			stats ptp4l-offset | sed "s/^/$profile $run $pi_if /; s/\$/ $load/"
		if [ -f "$log-ptp4l.true" ]; then
			awk -v a="$from" -v b="$to" '$1 >= a && $1 < b { print $2 }' "$log-ptp4l.true" |
				tee -a "$tmp/all-$profile-ptp4l-true" | stats ptp4l-true |
				sed "s/^/$profile $run $pi_if /; s/\$/ $load/"
		fi
	done
done
[ "$JITTER" = relay ] && sed 's/^/# /' "$tmp/relay.log"
echo "# pooled over the runs: profile series n mean rms p50|x| p99|x| max|x|"
for profile in $PROFILES; do
	for s in pi-true linreg-true base-true ptp4l-true pi-offset linreg-offset base-offset \
		ptp4l-offset raw-offset; do
		[ -f "$tmp/all-$profile-$s" ] || continue
		stats "$s" <"$tmp/all-$profile-$s" | sed "s/^/$profile /"
	done
done
