#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Latency of D-Bus calls to the real phcd from a C client (tool-dbus-latency, sd-bus, one
# connection, synchronous calls): Get of a port's State, GetAll of a port, GetManagedObjects,
# beside GetId (the bus daemon's own round trip) and Peer.Ping to phcd (the round trip through
# the bus daemon to phcd's process, answered inside sd-bus). Two or three phcd run at once, each
# on its own private system bus: one with 1 port (1 instance) and, by LAYOUT, one with PORTS
# one-port instances (LAYOUT=instances, the default), one with a single instance of PORTS ports
# (LAYOUT=bc, a boundary clock: `interfaces = auto`, as a line cannot hold 64 names), or both of
# those (LAYOUT=both). Every port faces its own ptp4l grandmaster (sync 8/s): each one-port
# instance is SLAVE, the boundary clock has one SLAVE port and the others PASSIVE or MASTER. The
# runs alternate between the setups (1, PORTS, [PORTS bc,] 1, ...) so all see the same machine.
# Each run also times busctl (a process per call) on GetId and GetManagedObjects, to show
# busctl's own share. The load average is printed before every run. Last, per setup, CPU_CALLS
# GetManagedObjects alone while phcd's (supervisor) and the bus daemon's CPU time are read from
# /proc, less their CPU time over as long a quiet interval right after: each process's share of
# a call. Not pass/fail, not in a meson suite. Results: docs/performance.md.
# FLOOR=1 adds, per setup of PORTS ports, a floor: tests/bench/dbus-canned.py on a bus of its own
# answers GetManagedObjects with the bytes of that phcd's reply, captured once, without building
# anything (setups "floor-many", "floor-bc"), in the same rounds and on the same machine.
#
# usage: [LAYOUT=instances|bc|both] BUILD=build-dir tests/bench/dbus-latency.sh \
#          [ROUNDS [RUNS [PORTS]]]
#   (root; default 1000 calls of each kind per run, 3 runs per setup, 64 ports)
#   GM_ARGS="--logSyncInterval 0": more ptp4l options for every grandmaster (here Sync 1/s
#   instead of 8/s, so that the benchmark's own 2 x PORTS PTP processes load the CPUs less)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
SRC=${SRC:-$(cd "$here/../.." && pwd)}
BUILD=${BUILD:-$SRC/build}
ROUNDS=${1:-1000}
RUNS=${2:-3}
PORTS=${3:-64}
BUSCTL_CALLS=${BUSCTL_CALLS:-50}
CPU_CALLS=${CPU_CALLS:-300}
LAYOUT=${LAYOUT:-instances}
case $LAYOUT in
instances) SETUPS="one many" ;;
bc) SETUPS="one bc" ;;
both) SETUPS="one many bc" ;;
*)
	echo "LAYOUT must be instances, bc or both, not $LAYOUT" >&2
	exit 2
	;;
esac
PHCDS=$SETUPS
. "$SRC/tests/lib/net-helpers.sh"
. "$SRC/tests/lib/dbus-helpers.sh"
. "$SRC/tests/lib/ptp-helpers.sh"

PHCD=$BUILD/daemon/phcd
PHCCTL=$BUILD/phcctl/phcctl
TOOL=$BUILD/tests/bench/tool-dbus-latency
[ -x "$PHCD" ] && [ -x "$PHCCTL" ] && [ -x "$TOOL" ] || fail "build first: ninja -C $BUILD"
tmp=$(mktemp -d)
chmod 755 "$tmp"
trap 'net_cleanup; dbus_cleanup; rm -rf "$tmp"' EXIT

# setup NAME NPORTS: namespaces, NPORTS grandmasters, a private bus and phcd with NPORTS
# one-port instances, or for NAME bc one instance with every interface of its namespace (a
# line of the configuration holds at most 198 characters, too few for 64 names); the bus
# address is saved in $tmp/NAME.addr.
setup() {
	local name=$1 n=$2 s=phl-$1s$$ g=phl-$1g$$ i
	dbus_start "$tmp/bus-$name"
	echo "$DBUS_SYSTEM_BUS_ADDRESS" >"$tmp/$name.addr"
	netns_pair "$s" "$g" s1 g1
	# shellcheck disable=SC2086 # GM_ARGS: several options
	ptp4l_gm "$g" g1 "$tmp/$name-gm1.uds" "$tmp/$name-gm1.log" ${GM_ARGS:-}
	{
		phcd_fast_global
		if [ "$name" = bc ]; then
			printf '\n[instance bc]\ninterfaces = auto\ninclude_software_interfaces = 1\n'
		else
			printf '\n[instance x1]\ninterfaces = s1\n'
		fi
		printf 'clock_backend = virtual\n'
	} >"$tmp/$name.conf"
	for i in $(seq 2 "$n"); do
		veth_add "$s" "s$i" "$g" "g$i"
		# shellcheck disable=SC2086
		ptp4l_gm "$g" "g$i" "$tmp/$name-gm$i.uds" "$tmp/$name-gm$i.log" ${GM_ARGS:-}
		[ "$name" = bc ] ||
			printf '\n[instance x%d]\ninterfaces = s%d\nclock_backend = virtual\n' \
				"$i" "$i" >>"$tmp/$name.conf"
	done
	ip netns exec "$s" capsh --drop=cap_sys_time -- -c "exec $PHCD -f $tmp/$name.conf \
		--uds $tmp/$name.ptp --uds-ro $tmp/$name.ptp-ro" >"$tmp/$name.log" 2>&1 &
	BG_PIDS+=($!)
	echo $! >"$tmp/$name.pid"
	wait_bus_name org.phcd1 10
}

# ports_of NAME: how many port objects phcd (NAME) serves.
ports_of() {
	DBUS_SYSTEM_BUS_ADDRESS=$(cat "$tmp/$1.addr") busctl --system tree --list org.phcd1 |
		grep -c '^/org/phcd1/port/' || true
}
for name in $PHCDS; do
	if [ "$name" = one ]; then setup one 1; else setup "$name" "$PORTS"; fi
done
for name in $PHCDS; do
	DBUS_SYSTEM_BUS_ADDRESS=$(cat "$tmp/$name.addr") "$PHCCTL" wait-sync --timeout 90 \
		>/dev/null || fail "phcd ($name) did not synchronize: $(tail "$tmp/$name.log")"
	[ "$name" = one ] && n=1 || n=$PORTS
	for _ in $(seq 100); do
		[ "$(ports_of "$name")" -ge "$n" ] && break
		sleep 0.1
	done
	[ "$(ports_of "$name")" -eq "$n" ] || fail "phcd ($name): $(ports_of "$name") ports, not $n"
	echo "phcd ($name): $(pgrep -c -P "$(cat "$tmp/$name.pid")" -x phcd-port || true) workers;" \
		"port states: $(DBUS_SYSTEM_BUS_ADDRESS=$(cat "$tmp/$name.addr") "$PHCCTL" ports |
			awk '$1 != "INTERFACE" { n[$2]++ } END { for (s in n) printf "%s %d ", s, n[s] }')"
done
# floor NAME: phcd (NAME)'s GetManagedObjects reply captured by dbus-monitor --pcap (root may
# monitor these buses), then dbus-canned.py answering with it on a bus of its own, as setup
# floor-NAME.
floor() {
	local name=$1 f=floor-$1
	export DBUS_SYSTEM_BUS_ADDRESS
	DBUS_SYSTEM_BUS_ADDRESS=$(cat "$tmp/$name.addr")
	dbus_capture_reply "$tmp/$f.pcap" "$tmp/$f.reply" \
		"$TOOL" -n 1 -w 0 -o GetManagedObjects /org/phcd1/port/s1
	dbus_start "$tmp/bus-$f"
	echo "$DBUS_SYSTEM_BUS_ADDRESS" >"$tmp/$f.addr"
	python3 "$SRC/tests/bench/dbus-canned.py" "$tmp/$f.reply" >"$tmp/$f.log" 2>&1 &
	BG_PIDS+=($!)
	echo $! >"$tmp/$f.pid"
	wait_bus_name org.phcd1 10
	echo "floor ($name): dbus-canned.py answers with phcd's reply of $(stat -c %s "$tmp/$f.reply") bytes"
	SETUPS="$SETUPS $f"
}
if [ "${FLOOR:-0}" = 1 ]; then
	for name in $PHCDS; do
		[ "$name" = one ] || floor "$name"
	done
fi
# Let the servos settle past their first seconds before measuring.
sleep 10

# busctl_us N ARGS...: N calls of busctl ARGS, one process each, wall time in us, sorted.
busctl_us() {
	local n=$1 k a
	shift
	for k in $(seq "$n"); do
		a=$(date +%s%N)
		busctl --system "$@" >/dev/null
		echo $((($(date +%s%N) - a) / 1000))
	done | sort -n
}
# nth FILE P: the nearest-rank P-th percentile of a sorted column.
nth() { awk -v p="$2" '{ v[NR] = $1 } END { r = int((NR * p + 99) / 100); print v[r < 1 ? 1 : r] }' "$1"; }

echo "tool-dbus-latency: $ROUNDS rounds (one call of each kind per round), 20 warm-up rounds;" \
	"busctl: $BUSCTL_CALLS processes per call; grandmasters' extra options: '${GM_ARGS:-}'"
# what NAME: the setup in words.
what() {
	case $1 in
	one) echo "1 port(s), 1 instance(s)" ;;
	many) echo "$PORTS port(s), $PORTS instance(s)" ;;
	bc) echo "$PORTS port(s), 1 instance(s) (bc)" ;;
	floor-*) echo "floor: canned reply of $(what "${1#floor-}")" ;;
	esac
}
for run in $(seq "$RUNS"); do
	for name in $SETUPS; do
		export DBUS_SYSTEM_BUS_ADDRESS
		DBUS_SYSTEM_BUS_ADDRESS=$(cat "$tmp/$name.addr")
		echo "=== run $run, $(what "$name"); $(uptime | sed 's/.*load/load/')"
		"$TOOL" -n "$ROUNDS" /org/phcd1/port/s1 || fail "tool-dbus-latency failed"
		busctl_us "$BUSCTL_CALLS" call org.freedesktop.DBus /org/freedesktop/DBus \
			org.freedesktop.DBus GetId >"$tmp/b.id"
		busctl_us "$BUSCTL_CALLS" call org.phcd1 /org/phcd1 org.freedesktop.DBus.ObjectManager \
			GetManagedObjects >"$tmp/b.gmo"
		echo "busctl (process per call, us): GetId p50 $(nth "$tmp/b.id" 50) p99" \
			"$(nth "$tmp/b.id" 99); GetManagedObjects p50 $(nth "$tmp/b.gmo" 50) p99" \
			"$(nth "$tmp/b.gmo" 99)"
	done
done

# cpu_ticks PID: utime + stime of PID, in clock ticks.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
tck=$(getconf CLK_TCK)
for name in $SETUPS; do
	DBUS_SYSTEM_BUS_ADDRESS=$(cat "$tmp/$name.addr")
	ppid=$(cat "$tmp/$name.pid") bpid=$(cat "$tmp/bus-$name/pid")
	case $name in
	floor-*) [ "$(cat "/proc/$ppid/comm")" = python3 ] || fail "pid $ppid is not the canned server" ;;
	*) [ "$(cat "/proc/$ppid/comm")" = phcd ] || fail "pid $ppid is not phcd" ;;
	esac
	echo "=== CPU per GetManagedObjects, $(what "$name"), $CPU_CALLS calls alone;" \
		"$(uptime | sed 's/.*load/load/')"
	p0=$(cpu_ticks "$ppid") b0=$(cpu_ticks "$bpid") t0=$(date +%s%N)
	"$TOOL" -n "$CPU_CALLS" -o GetManagedObjects /org/phcd1/port/s1 || fail "tool failed"
	p1=$(cpu_ticks "$ppid") b1=$(cpu_ticks "$bpid") t1=$(date +%s%N)
	sleep "$(awk -v ns=$((t1 - t0)) 'BEGIN { printf "%.3f", ns / 1e9 }')"
	p2=$(cpu_ticks "$ppid") b2=$(cpu_ticks "$bpid")
	awk -v c="$CPU_CALLS" -v t="$tck" -v p=$((p1 - p0 - (p2 - p1))) -v b=$((b1 - b0 - (b2 - b1))) \
		-v pq=$((p2 - p1)) -v bq=$((b2 - b1)) 'BEGIN {
		printf "server (phcd or dbus-canned.py) CPU per call %.0f us, dbus-daemon CPU per call %.0f us", \
			p * 1e6 / t / c, b * 1e6 / t / c
		printf " (quiet interval of the same length: phcd %d, dbus-daemon %d ticks)\n", pq, bq }'
done
for name in $PHCDS; do
	echo "phcd ($name) log lines with error, fail or warn:" \
		"$(grep -ciE 'error|fail|warn' "$tmp/$name.log" || true)"
done
echo "=== end; $(uptime | sed 's/.*load/load/')"
