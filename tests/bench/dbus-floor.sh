#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# GetManagedObjects on a quiet machine, without PTP: tool-bus-fake (phcd's real dbus/ code over a
# stand-in of the supervisor, no workers, no grandmasters) with PORTS one-port instances
# (LAYOUT=instances) or one instance of PORTS ports (LAYOUT=bc), against its floor:
# tests/bench/dbus-canned.py answering with the bytes of tool-bus-fake's reply, captured once
# (no marshalling). Each on its own private bus; tool-dbus-latency makes ROUNDS rounds on each,
# alternating, RUNS times. What this adds to tests/bench/dbus-latency.sh (FLOOR=1): the same
# calls without the benchmark's own 2 x PORTS PTP processes on the CPUs. Not pass/fail.
#
# usage: [LAYOUT=instances|bc] BUILD=build-dir tests/bench/dbus-floor.sh [ROUNDS [RUNS [PORTS]]]
#   root (private buses, dbus-monitor)
set -euo pipefail
: "${BUILD:?BUILD must name the build directory}"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "$BUILD" && pwd)
ROUNDS=${1:-1000}
RUNS=${2:-3}
PORTS=${3:-64}
LAYOUT=${LAYOUT:-instances}
fail() {
	echo "FAIL: $*" >&2
	exit 1
}
. "$SRC/tests/lib/dbus-helpers.sh"
TOOL=$BUILD/tests/bench/tool-dbus-latency
tmp=$(mktemp -d)
chmod 755 "$tmp"
pids=()
trap 'exec 5>&- 2>/dev/null || true; kill "${pids[@]}" 2>/dev/null || true; dbus_cleanup; rm -rf "$tmp"' EXIT
dbus_start "$tmp/bus-fake"
fake_addr=$DBUS_SYSTEM_BUS_ADDRESS
mkfifo "$tmp/in"
"$BUILD/tests/integration/tool-bus-fake" <"$tmp/in" >"$tmp/out" 2>"$tmp/err" &
pids+=($!)
exec 5>"$tmp/in"
wait_bus_name org.phcd1 10
bus_fake_ports "$LAYOUT" "$PORTS" s "$tmp/out" "$tmp/err"
# The reply as dbus-monitor --pcap sees it: the largest message captured.
dbus_capture_reply "$tmp/cap.pcap" "$tmp/reply" \
	"$TOOL" -n 1 -w 0 -o GetManagedObjects /org/phcd1/port/s1
dbus_start "$tmp/bus-canned"
canned_addr=$DBUS_SYSTEM_BUS_ADDRESS
python3 "$SRC/tests/bench/dbus-canned.py" "$tmp/reply" >"$tmp/canned.log" 2>&1 &
pids+=($!)
wait_bus_name org.phcd1 10
echo "GetManagedObjects at $PORTS ports ($LAYOUT), reply $(stat -c %s "$tmp/reply") bytes;" \
	"$ROUNDS rounds per run"
for run in $(seq "$RUNS"); do
	for what in fake canned; do
		if [ $what = fake ]; then
			DBUS_SYSTEM_BUS_ADDRESS=$fake_addr
			label="tool-bus-fake (phcd's dbus/ code)"
		else
			DBUS_SYSTEM_BUS_ADDRESS=$canned_addr
			label="floor (dbus-canned.py)"
		fi
		echo "=== run $run, $label; $(uptime | sed 's/.*load/load/')"
		"$TOOL" -n "$ROUNDS" /org/phcd1/port/s1 || fail "tool-dbus-latency failed"
	done
done
echo "=== end; $(uptime | sed 's/.*load/load/')"
