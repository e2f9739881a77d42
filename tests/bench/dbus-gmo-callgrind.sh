#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Instructions phcd's dbus/ code (with sd-bus) spends on one GetManagedObjects at PORTS one-port
# instances (LAYOUT=instances, the default) or at one instance with PORTS ports (LAYOUT=bc, a
# boundary clock): tool-bus-fake (the real dbus/ code over a stand-in of the supervisor) runs under
# callgrind on a private system bus, tool-dbus-latency makes CALLS GetManagedObjects, and only
# those are counted (callgrind_control zeroes the counts after warming up and dumps them after).
# Instruction counts do not depend on the machine's load, unlike tests/bench/dbus-latency.sh.
# Also the client's instructions per call, the reply's size in bytes (dbus-monitor --pcap) and
# its objects and properties (busctl).
#
# usage: [LAYOUT=instances|bc] [KEEP=dir] BUILD=build-dir tests/bench/dbus-gmo-callgrind.sh \
#          [CALLS [PORTS]]
#   root (private bus); KEEP: copy the callgrind files there (phcd's: cg.PID.1, for
#   callgrind_annotate)
set -euo pipefail
: "${BUILD:?BUILD must name the build directory}"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "$BUILD" && pwd)
CALLS=${1:-100}
PORTS=${2:-64}
LAYOUT=${LAYOUT:-instances}
fail() {
	echo "FAIL: $*" >&2
	exit 1
}
. "$SRC/tests/lib/dbus-helpers.sh"
command -v callgrind_control >/dev/null || fail "valgrind (callgrind_control) is not installed"
tmp=$(mktemp -d)
chmod 755 "$tmp"
trap 'exec 5>&- 2>/dev/null || true; dbus_cleanup; rm -rf "$tmp"' EXIT
dbus_start "$tmp/bus"
mkfifo "$tmp/in"
valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.%p" \
	"$BUILD/tests/integration/tool-bus-fake" <"$tmp/in" >"$tmp/out" 2>"$tmp/err" &
vg=$!
exec 5>"$tmp/in"
for _ in $(seq 300); do
	grep -q '^ready$' "$tmp/out" && break
	sleep 0.1
done
bus_fake_ports "$LAYOUT" "$PORTS" eth "$tmp/out" "$tmp/err"
LAT=("$BUILD/tests/bench/tool-dbus-latency" -o GetManagedObjects)
"${LAT[@]}" -n 5 -w 5 /org/phcd1/port/eth1 >/dev/null
callgrind_control -z "$vg" >/dev/null 2>&1
"${LAT[@]}" -n "$CALLS" -w 0 /org/phcd1/port/eth1 >/dev/null
callgrind_control -d "$vg" >/dev/null 2>&1
# The reply's size on the wire: one GetManagedObjects under dbus-monitor --pcap (root may
# monitor this bus), the largest message captured; its properties counted from busctl's JSON.
dbus-monitor --system --pcap >"$tmp/cap.pcap" 2>"$tmp/mon.err" &
mon=$!
bytes=0
for _ in $(seq 100); do
	"${LAT[@]}" -n 1 -w 0 /org/phcd1/port/eth1 >/dev/null
	bytes=$(python3 -c 'import struct, sys
d = open(sys.argv[1], "rb").read()
o, big = 24, 0
while o + 16 <= len(d):
	n = struct.unpack_from("<I", d, o + 8)[0]
	big, o = max(big, n), o + 16 + n
print(big)' "$tmp/cap.pcap")
	[ "$bytes" -gt 1000 ] && break
	sleep 0.1
done
kill "$mon"
wait "$mon" 2>/dev/null || true
busctl --system --json=short call org.phcd1 /org/phcd1 org.freedesktop.DBus.ObjectManager \
	GetManagedObjects >"$tmp/gmo.json"
props=$(python3 -c 'import json, sys
objs = json.load(open(sys.argv[1]))["data"][0]
n = {}
for ifaces in objs.values():
	for iface, props in ifaces.items():
		n[iface] = n.get(iface, 0) + len(props)
c = sum(len(p["org.phcd1.Port"].get("Counters", {}).get("data", {}))
	for p in objs.values() if "org.phcd1.Port" in p)
print(len(objs), "objects;", ", ".join(f"{k} {v}" for k, v in sorted(n.items()) if v),
      "properties; Counters entries", c)' "$tmp/gmo.json")
# The client's side: tool-dbus-latency itself under callgrind, 1 call and CALLS + 1 calls, the
# difference per call (sd-bus receiving the reply and walking its body to the end).
client_ir() {
	valgrind --tool=callgrind --callgrind-out-file="$tmp/client.$1" "${LAT[@]}" -n "$1" -w 0 \
		/org/phcd1/port/eth1 >/dev/null 2>&1
	sed -n 's/^summary: //p' "$tmp/client.$1"
}
c1=$(client_ir 1)
c2=$(client_ir $((CALLS + 1)))
exec 5>&-
wait "$vg" || true
total=$(sed -n 's/^summary: //p' "$tmp"/cg.*.1)
[ -z "${KEEP:-}" ] || cp "$tmp"/cg.* "$tmp"/client.* "$KEEP"/
echo "GetManagedObjects at $PORTS ports ($LAYOUT): $((total / CALLS)) instructions per call in phcd's D-Bus code ($CALLS calls)"
echo "GetManagedObjects at $PORTS ports ($LAYOUT): $(((c2 - c1) / CALLS)) instructions per call in the client"
echo "GetManagedObjects at $PORTS ports ($LAYOUT): reply $bytes bytes on the wire; $props"
