#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Does a storm of D-Bus reads change a port's offset RMS (issue 8: a 10,000-read storm changes no
# port's offset RMS by more than 5%)? phcd runs PORTS one-port instances (clock_backend =
# virtual, software timestamps), each port SLAVE of its own `ptp4l --free_running 1` grandmaster
# over a veth pair, Sync 16/s, on a private system bus, with logging_level 7 so that every
# worker logs every servo sample with its CLOCK_MONOTONIC time (phcd-port -m under phcd).
#
# After every port is locked and SETTLE seconds more, quiet and storm phases alternate,
# Q S Q S ... Q (STORMS storms): a storm is tool-dbus-latency -s READS, exactly READS calls
# back to back (Get(State), GetAll(Port), GetManagedObjects in turn, over every port object) from
# one sd-bus client, and its phase is the storm's own window; each quiet phase lasts as long as
# the storm before it (the first, as a warm-up storm that is not counted). dbus-storm.py then
# gives, per port, the offset RMS pooled over quiet and over storm phases from every sample, their
# ratio with a 95% bootstrap interval over phases, the same for the first half of the quiet
# phases against the second half (the noise floor), per-phase ratios (mean and sd), the verdict
# on the 5% criterion, and the sample intervals in each kind of phase (is any sample late?).
# Not pass/fail, not in a meson suite. Results: docs/performance.md.
#
# usage: BUILD=build-dir tests/bench/dbus-storm.sh [PORTS [STORMS [READS]]]
#   (root; defaults 1 port, 10 storms, 10000 reads; env SYNC: logSyncInterval, default -4;
#   SETTLE: seconds after every port is locked, default 20; KEEP=DIR keeps the samples and the
#   phases, for `tests/bench/dbus-storm.py stats DIR/samples DIR/phases SYNC`)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
SRC=${SRC:-$(cd "$here/../.." && pwd)}
BUILD=${BUILD:-$SRC/build}
PORTS=${1:-1}
STORMS=${2:-10}
READS=${3:-10000}
SYNC=${SYNC:--4}
SETTLE=${SETTLE:-20}
. "$SRC/tests/lib/net-helpers.sh"
. "$SRC/tests/lib/dbus-helpers.sh"
. "$SRC/tests/lib/ptp-helpers.sh"

PHCD=$BUILD/daemon/phcd
PHCCTL=$BUILD/phcctl/phcctl
TOOL=$BUILD/tests/bench/tool-dbus-latency
[ -x "$PHCD" ] && [ -x "$PHCCTL" ] && [ -x "$TOOL" ] || fail "build first: ninja -C $BUILD"
tmp=$(mktemp -d)
chmod 755 "$tmp"
S=phst-s$$ G=phst-g$$
trap 'net_cleanup; dbus_cleanup; rm -rf "$tmp"' EXIT
dbus_start "$tmp/bus"
netns_pair "$S" "$G" s1 g1

{
	phcd_fast_global | sed "s/^logSyncInterval = .*/logSyncInterval = $SYNC/"
	echo "logging_level = 7"
} >"$tmp/phcd.conf"
paths=()
for i in $(seq 1 "$PORTS"); do
	if [ "$i" -gt 1 ]; then
		ip link add "s$i" netns "$S" type veth peer name "g$i" netns "$G" || fail "veth s$i"
		ip -n "$S" link set "s$i" up
		ip -n "$G" link set "g$i" up
	fi
	ptp4l_gm "$G" "g$i" "$tmp/gm$i.uds" "$tmp/gm$i.log" --logSyncInterval "$SYNC"
	printf '\n[instance x%d]\ninterfaces = s%d\nclock_backend = virtual\n' "$i" "$i" >>"$tmp/phcd.conf"
	paths+=("/org/phcd1/port/s$i")
done
ip netns exec "$S" capsh --drop=cap_sys_time -- -c "exec $PHCD -f $tmp/phcd.conf" \
	>"$tmp/phcd.log" 2>&1 &
BG_PIDS+=($!)
wait_bus_name org.phcd1 10
"$PHCCTL" wait-sync --timeout 120 >/dev/null || fail "phcd did not synchronize: $(tail "$tmp/phcd.log")"
# Every port's worker has logged a locked sample (s2).
for i in $(seq 1 "$PORTS"); do
	wait_for "$tmp/phcd.log" "^phcd-port\[[0-9.]*\]: s$i: master offset .* s2 " 60
done
# Let the servos settle past their first seconds before measuring.
sleep "$SETTLE"

echo "phcd: $PORTS port(s), each SLAVE of its own ptp4l --free_running 1 over veth, software" \
	"timestamps, clock_backend virtual, logSyncInterval $SYNC; $STORMS storms of $READS reads"
echo "load before: $(uptime)"
(cd / && python3 "$here/dbus-storm.py" drive "$TOOL" "$READS" "$STORMS" "$tmp/phases" \
	"${paths[@]}")
echo "load after: $(uptime)"
grep -a '^phcd-port\[' "$tmp/phcd.log" >"$tmp/samples" || true
python3 "$here/dbus-storm.py" stats "$tmp/samples" "$tmp/phases" "$SYNC"
if [ -n "${KEEP:-}" ]; then
	mkdir -p "$KEEP"
	cp "$tmp/samples" "$tmp/phases" "$tmp/phcd.log" "$KEEP/"
fi
