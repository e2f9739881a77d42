#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Does a storm of D-Bus property reads disturb synchronisation? phcd follows a ptp4l grandmaster
# over a veth pair; its offset (OffsetFromMaster, signalled once a second) is recorded for SECS
# seconds with the bus quiet, then for SECS seconds while CLIENTS python3-dbus clients read
# properties of the instance and port as fast as they can (at least 10,000 reads in all), then
# quiet again. Prints offset statistics per phase, the read rate and Get/GetAll/GetManagedObjects
# latencies. Not pass/fail, not in a meson suite. Results: docs/performance.md.
#
# PORTS > 1 adds PORTS - 1 one-port instances x2, x3, ... (each port SLAVE of its own ptp4l), so
# that the latencies and the storm are measured with that many port and instance objects.
#
# usage: BUILD=build-dir tests/bench/dbus-storm.sh [SECS [CLIENTS [PORTS]]]
#   (root; default 30 s, 2 clients, 1 port)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
SRC=${SRC:-$(cd "$here/../.." && pwd)}
BUILD=${BUILD:-$SRC/build}
SECS=${1:-30}
CLIENTS=${2:-2}
PORTS=${3:-1}
. "$SRC/tests/lib/net-helpers.sh"
. "$SRC/tests/lib/dbus-helpers.sh"
. "$SRC/tests/lib/ptp-helpers.sh"

PHCD=$BUILD/daemon/phcd
PHCCTL=$BUILD/phcctl/phcctl
[ -x "$PHCD" ] && [ -x "$PHCCTL" ] || fail "build first: ninja -C $BUILD"
tmp=$(mktemp -d)
chmod 755 "$tmp"
S=phst-s$$ G=phst-g$$
trap 'net_cleanup; dbus_cleanup; rm -rf "$tmp"' EXIT
dbus_start "$tmp/bus"
netns_pair "$S" "$G" s1 g1

ptp4l_gm "$G" g1 "$tmp/gm.uds" "$tmp/gm.log"
{
	phcd_fast_global
	cat <<CONF

[instance bench]
interfaces = s1
clock_backend = virtual
CONF
} >"$tmp/phcd.conf"
for i in $(seq 2 "$PORTS"); do
	ip link add "s$i" netns "$S" type veth peer name "g$i" netns "$G" || fail "veth s$i"
	ip -n "$S" link set "s$i" up
	ip -n "$G" link set "g$i" up
	ptp4l_gm "$G" "g$i" "$tmp/gm$i.uds" "$tmp/gm$i.log"
	printf '\n[instance x%d]\ninterfaces = s%d\nclock_backend = virtual\n' "$i" "$i" >>"$tmp/phcd.conf"
done
ip netns exec "$S" capsh --drop=cap_sys_time -- -c "exec $PHCD -f $tmp/phcd.conf" \
	>"$tmp/phcd.log" 2>&1 &
BG_PIDS+=($!)
wait_bus_name org.phcd1 10
"$PHCCTL" wait-sync --timeout 60 >/dev/null || fail "phcd did not synchronize: $(tail "$tmp/phcd.log")"
# Let the servo settle past its first seconds before measuring.
sleep 10

# Every offset signal, stamped with the phase it falls in.
"$PHCCTL" monitor --json >"$tmp/mon" 2>"$tmp/mon.err" &
BG_PIDS+=($!)
wait_for "$tmp/mon.err" '^Monitoring' 5
# The monitor's lines arrive in time order: a phase is the range of lines written during it.
phase() { wc -l <"$tmp/mon" >"$tmp/phase.$1"; }

cat >"$tmp/storm.py" <<'PY'
import sys, time
import dbus
secs, out = float(sys.argv[1]), sys.argv[2]
bus = dbus.SystemBus()
inst = bus.get_object("org.phcd1", "/org/phcd1/instance/bench")
port = bus.get_object("org.phcd1", "/org/phcd1/port/s1")
names = [(inst, "org.phcd1.Instance", "OffsetFromMaster"), (inst, "org.phcd1.Instance", "ServoState"),
         (port, "org.phcd1.Port", "State"), (port, "org.phcd1.Port", "Counters")]
lat, n, end = [], 0, time.monotonic() + secs
while time.monotonic() < end:
    o, i, p = names[n % len(names)]
    t = time.monotonic()
    o.Get(i, p, dbus_interface="org.freedesktop.DBus.Properties")
    lat.append(time.monotonic() - t)
    n += 1
lat.sort()
with open(out, "w") as f:
    f.write(f"{n} {sum(lat) / len(lat) * 1e6:.0f} {lat[len(lat) * 99 // 100] * 1e6:.0f}\n")
PY
cat >"$tmp/latency.py" <<'PY'
import time
import dbus
bus = dbus.SystemBus()
root = bus.get_object("org.phcd1", "/org/phcd1")
inst = bus.get_object("org.phcd1", "/org/phcd1/instance/bench")
P = "org.freedesktop.DBus.Properties"
calls = {
    "Get(OffsetFromMaster)": lambda: inst.Get("org.phcd1.Instance", "OffsetFromMaster", dbus_interface=P),
    "GetAll(Instance)": lambda: inst.GetAll("org.phcd1.Instance", dbus_interface=P),
    "GetManagedObjects": lambda: root.GetManagedObjects(dbus_interface="org.freedesktop.DBus.ObjectManager"),
    "Describe": lambda: root.Describe(dbus_interface="org.phcd1.Manager"),
}
for name, call in calls.items():
    lat = []
    for _ in range(1000):
        t = time.monotonic()
        call()
        lat.append(time.monotonic() - t)
    lat.sort()
    print(f"  {name:22s} median {lat[500] * 1e6:6.0f} us  p90 {lat[900] * 1e6:6.0f} us"
          f"  p99 {lat[990] * 1e6:6.0f} us  max {lat[-1] * 1e6:6.0f} us  (1000 calls)")
PY

phase quiet1
sleep "$SECS"
phase storm
pids=()
for c in $(seq 1 "$CLIENTS"); do
	(cd / && /usr/bin/python3 "$tmp/storm.py" "$SECS" "$tmp/storm.$c") &
	pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
phase quiet2
sleep "$SECS"
phase end
rx_sync=$("$PHCCTL" port s1 --json | jq .Counters.rx_sync)
echo "latency of single calls on the quiet bus ($PORTS port(s), $PORTS instance(s)):"
(cd / && /usr/bin/python3 "$tmp/latency.py")
# GetManagedObjects from a C client (busctl, sd-bus), 100 calls, beside busctl's own cost on a
# trivial call to the bus daemon (GetId): their difference is phcd's share plus the transfer,
# without python's unmarshalling.
us() { local a=$(date +%s%N); "$@" >/dev/null; echo $((($(date +%s%N) - a) / 1000)); }
for k in $(seq 100); do us busctl --system call org.freedesktop.DBus /org/freedesktop/DBus \
	org.freedesktop.DBus GetId; done | sort -n >"$tmp/lat.base"
for k in $(seq 100); do us busctl --system call org.phcd1 /org/phcd1 \
	org.freedesktop.DBus.ObjectManager GetManagedObjects; done | sort -n >"$tmp/lat.gmo"
echo "  busctl GetManagedObjects median $(sed -n 50p "$tmp/lat.gmo") us p99 $(sed -n 99p "$tmp/lat.gmo") us;" \
	"busctl GetId (the process's own cost) median $(sed -n 50p "$tmp/lat.base") us p99 $(sed -n 99p "$tmp/lat.base") us"

# Offsets per phase from the monitor's OffsetFromMaster signals.
stats() { # NAME FROM_PHASE TO_PHASE
	local from to
	from=$(cat "$tmp/phase.$2")
	to=$(cat "$tmp/phase.$3")
	sed -n "$((from + 1)),${to}p" "$tmp/mon" | grep -o '"OffsetFromMaster":-\?[0-9]*' |
		cut -d: -f2 | /usr/bin/python3 -c '
import statistics, sys
v = [int(x) for x in sys.stdin]
name = sys.argv[1]
if not v:
    print(f"{name:8s}: no samples"); sys.exit()
a = [abs(x) for x in v]
print(f"{name:8s}: {len(v):3d} samples  mean {statistics.mean(v):+8.0f} ns  stddev {statistics.pstdev(v):7.0f} ns"
      f"  mean|x| {statistics.mean(a):7.0f} ns  max|x| {max(a):7d} ns")' "$1"
}
echo "phcd slave of ptp4l over veth, software timestamps, sync 8/s; offsets as signalled (1/s)"
stats quiet quiet1 storm
stats storm storm quiet2
stats "quiet 2" quiet2 end
# Per instance: the storm's offset RMS over the first quiet phase's (the 5% question).
sed -n "$(($(cat "$tmp/phase.quiet1") + 1)),$(cat "$tmp/phase.end")p" "$tmp/mon" >"$tmp/mon.all"
/usr/bin/python3 - "$tmp/mon.all" $(($(cat "$tmp/phase.storm") - $(cat "$tmp/phase.quiet1"))) \
	$(($(cat "$tmp/phase.quiet2") - $(cat "$tmp/phase.quiet1"))) <<'PY'
import math, re, sys
lines = open(sys.argv[1]).read().splitlines()
s0, s1 = int(sys.argv[2]), int(sys.argv[3])
pat = re.compile(r'"path":"(/org/phcd1/instance/[^"]+)".*"OffsetFromMaster":(-?[0-9]+)')
v = {}
for k, line in enumerate(lines):
    m = pat.search(line)
    if m:
        ph = 0 if k < s0 else 1 if k < s1 else 2
        v.setdefault(m.group(1), ([], [], []))[ph].append(int(m.group(2)))
rms = lambda x: math.sqrt(sum(y * y for y in x) / len(x)) if x else float("nan")
r = sorted(rms(p[1]) / rms(p[0]) for p in v.values() if p[0] and p[1])
q = sorted(rms(p[2]) / rms(p[0]) for p in v.values() if p[0] and p[2])
if r:
    print(f"per instance ({len(r)}): storm rms / quiet rms: min {r[0]:.2f} median {r[len(r) // 2]:.2f}"
          f" max {r[-1]:.2f}, {sum(x > 1.05 for x in r)} above 1.05;"
          f" quiet 2 / quiet: median {q[len(q) // 2]:.2f} max {q[-1]:.2f} (the noise floor)")
PY
reads=0
for c in $(seq 1 "$CLIENTS"); do
	read -r n mean p99 <"$tmp/storm.$c"
	reads=$((reads + n))
	echo "storm client $c: $n reads, mean $mean us, p99 $p99 us"
done
echo "storm: $reads property reads in ${SECS} s by $CLIENTS clients ($((reads / SECS)) reads/s)"
[ "$reads" -ge 10000 ] || echo "WARNING: fewer than 10,000 reads; raise SECS or CLIENTS"
echo "rx_sync counter at the end: $rx_sync"
