#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Time to Synchronized from start through the full phcd (the supervisor) on D-Bus, default
# intervals, software timestamps: what phcd-wait-sync.service waits for at boot.
#
# The grandmaster is ptp4l --free_running 1 with Announce 1/s, Sync 1/s, announceReceiptTimeout 3
# (as tests/bench/sync-time.sh), started first and left running. Each run starts, at the same
# moment, on three stations:
#   - phcd with clock_servo = pi, and phcd with clock_servo = linreg (they swap stations from run
#     to run), each on a private system bus of its own (tests/lib/dbus-helpers.sh), one instance
#     with clock_backend = virtual over software timestamps, its clock starting OFFSET ns and
#     FREQ ppb off (virtual_clock_offset_ns, virtual_clock_freq_ppb), under
#     `capsh --drop=cap_sys_time`, logging_level 7 (each worker's samples in the log, lines
#     stamped with CLOCK_MONOTONIC here); `phcctl wait-sync` is started with it (it waits for phcd to
#     appear on the bus) and its exit is the moment the instance's Synchronized turned true;
#   - ptp4l -s (PI, its software defaults) on tests/bench/vclock-shim.so, its clock as far off,
#     to its s2 (UNCALIBRATED to SLAVE).
# Seconds from start: phcd's wait-sync exit (its exit code too) and its port's "-> SLAVE" in
# phcd's log; ptp4l's s2. Each line ends with the load average (1, 5, 15 min) after the run.
#
# usage: BUILD=build-dir tests/bench/sync-time-dbus.sh [RUNS [LIMIT [OFFSET [FREQ]]]]
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
. "$SRC/tests/lib/dbus-helpers.sh"
. "$SRC/tests/lib/ptp-helpers.sh"

PHCD=$BUILD/daemon/phcd
PHCCTL=$BUILD/phcctl/phcctl
SHIM=$BUILD/tests/bench/vclock-shim.so
[ -x "$PHCD" ] && [ -x "$PHCCTL" ] || fail "no $PHCD or $PHCCTL: build first (ninja -C $BUILD)"
[ -f "$SHIM" ] || fail "no $SHIM: build first (ninja -C $BUILD)"
command -v ptp4l >/dev/null || fail "ptp4l missing (linuxptp)"
tmp=$(mktemp -d)
chmod 755 "$tmp"
L=phsd-l$$ M=phsd-m$$ A=phsd-a$$ B=phsd-b$$ C=phsd-c$$
trap 'net_cleanup; dbus_cleanup; bench_keep "$tmp"; rm -rf "$tmp"' EXIT
lan_bridge "$L"
lan_station "$L" "$M" m0
lan_station "$L" "$A" a1
lan_station "$L" "$B" b1
lan_station "$L" "$C" c1
# One bus per phcd (both claim org.phcd1); each dbus_start exports its address: keep them.
dbus_start "$tmp/bus-pi"
BUS_pi=$DBUS_SYSTEM_BUS_ADDRESS
dbus_start "$tmp/bus-linreg"
BUS_linreg=$DBUS_SYSTEM_BUS_ADDRESS
unset DBUS_SYSTEM_BUS_ADDRESS

ip netns exec "$M" capsh --drop=cap_sys_time -- -c "exec ptp4l -i m0 -2 -S -m \
	--free_running 1 --priority1 100 --logAnnounceInterval 0 --logSyncInterval 0 \
	--announceReceiptTimeout 3" >"$tmp/gm.log" 2>&1 &
BG_PIDS+=($!)
sleep 3

now() { perl -MTime::HiRes=clock_gettime,CLOCK_MONOTONIC -e 'printf "%.3f\n", clock_gettime(CLOCK_MONOTONIC)'; }

# first_at LOG REGEX START: seconds from START (CLOCK_MONOTONIC) to the first line matching.
first_at() {
	awk -v s="$3" -v re="$2" '$0 ~ re {
		t = $1; sub(/^[^[]*\[/, "", t); sub(/\].*/, "", t); printf "%.2f\n", t - s; exit }' "$1"
}

# conf SERVO IF: phcd.conf for one instance on IF.
conf() {
	cat <<CONF
[global]
time_stamping = software
clock_servo = $1
logging_level = 7

[instance i]
interfaces = $2
clock_backend = virtual
virtual_clock_offset_ns = $OFFSET
virtual_clock_freq_ppb = $FREQ
CONF
}

# start_phcd SERVO NS IF LOG: phcd and, beside it, wait-sync; writes LOG.ws (seconds from START
# to wait-sync's exit, its exit code).
start_phcd() {
	local servo=$1 ns=$2 ifn=$3 log=$4 bus
	bus=BUS_$servo
	conf "$servo" "$ifn" >"$log.conf"
	(
		export DBUS_SYSTEM_BUS_ADDRESS=${!bus}
		rc=0
		"$PHCCTL" wait-sync --timeout "$LIMIT" >"$log.wsout" 2>&1 || rc=$?
		echo "$(now) $rc" >"$log.ws"
	) &
	BG_PIDS+=($!)
	if [ -n "${MONITOR:-}" ]; then
		DBUS_SYSTEM_BUS_ADDRESS=${!bus} "$PHCCTL" monitor >"$log.mon" 2>&1 &
		BG_PIDS+=($!)
	fi
	# phcd's lines carry no time: stamp them with CLOCK_MONOTONIC as phcd-port -m does
	DBUS_SYSTEM_BUS_ADDRESS=${!bus} ip netns exec "$ns" capsh --drop=cap_sys_time -- -c \
		"exec $PHCD -f $log.conf --uds $log.uds --uds-ro $log.uds-ro" \
		> >(perl -MTime::HiRes=clock_gettime,CLOCK_MONOTONIC -ne \
			'$| = 1; printf "[%.3f] %s", clock_gettime(CLOCK_MONOTONIC), $_' >"$log") 2>&1 &
	BG_PIDS+=($!)
}

echo "# sync-time-dbus: $RUNS runs, phcd on D-Bus (wait-sync), Announce 1/s, Sync 1/s," \
	"announceReceiptTimeout 3, software timestamps, clocks start ${OFFSET} ns and ${FREQ} ppb" \
	"off, $(uname -r), $(nproc) CPUs, ptp4l $(ptp4l -v 2>&1 | head -n 1)"
echo "# run pi-station | pi: wait-sync rc SLAVE | linreg: wait-sync rc SLAVE | ptp4l: s2 | load"
for run in $(seq 1 "$RUNS"); do
	if [ $((run % 2)) = 1 ]; then
		pi_ns=$A pi_if=a1 lr_ns=$B lr_if=b1
	else
		pi_ns=$B pi_if=b1 lr_ns=$A lr_if=a1
	fi
	n0=${#BG_PIDS[@]}
	log=$tmp/run$run
	start=$(now)
	start_phcd pi "$pi_ns" "$pi_if" "$log-pi.log"
	start_phcd linreg "$lr_ns" "$lr_if" "$log-linreg.log"
	ip netns exec "$C" capsh --drop=cap_sys_time -- -c "LD_PRELOAD=$SHIM \
		VCLOCK_OFFSET_NS=$OFFSET VCLOCK_FREQ_ERROR_PPB=$FREQ exec ptp4l -i c1 -2 -S -m -s \
		--logAnnounceInterval 0 --announceReceiptTimeout 3" >"$log-ptp4l.log" 2>&1 &
	BG_PIDS+=($!)
	for _ in $(seq 1 $((LIMIT * 10 + 20))); do
		if [ -f "$log-pi.log.ws" ] && [ -f "$log-linreg.log.ws" ] &&
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
		if [ -f "$log-$s.log.ws" ]; then
			read -r t rc <"$log-$s.log.ws"
			marks="$marks $(awk -v t="$t" -v s="$start" 'BEGIN { printf "%.2f", t - s }') $rc"
		else
			marks="$marks - -"
		fi
		marks="$marks $(grep -a -e '-> SLAVE' "$log-$s.log" | head -n 1 | first_at /dev/stdin . "$start" |
			grep . || echo -) |"
	done
	marks="$marks $(first_at "$log-ptp4l.log" "to SLAVE" "$start" | grep . || echo -)"
	echo "$run $pi_if |$marks | $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$tmp/runs"
	sleep 2
done
# columns: 1 run, 2 station, 3 |, 4 pi wait-sync, 5 rc, 6 pi SLAVE, 7 |, 8 linreg wait-sync,
# 9 rc, 10 linreg SLAVE, 11 |, 12 ptp4l s2
awk '{ for (i = 4; i <= 12; i++) if ($i ~ /^[0-9.]+$/) { s[i] += $i; ss[i] += $i * $i; n[i]++ } }
	END { split("pi-wait-sync pi-rc pi-SLAVE - linreg-wait-sync linreg-rc linreg-SLAVE - " \
		"ptp4l-s2", name)
		for (i = 4; i <= 12; i++) if (n[i] && name[i - 3] != "-" && name[i - 3] !~ /-rc$/) {
			m = s[i] / n[i]
			v = ss[i] / n[i] - m * m
			printf "# %s: mean %.2f s, sd %.2f s, n %d\n", name[i - 3], m,
				sqrt(v > 0 ? v : 0), n[i] } }' "$tmp/runs"
