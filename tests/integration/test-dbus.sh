#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# org.phcd1 on a private system bus, served by tool-bus-fake (the real dbus/ code over a scripted
# stand-in of the supervisor's state): busctl tree/introspect/get-property/call, GetManagedObjects,
# InterfacesAdded/Removed, PropertiesChanged of State within 1 s, coalescing of fast values,
# AccessDenied for an unprivileged caller on every write, InvalidArgs, named phcd errors, the
# shipped introspection XML, a python3-dbus client, phcctl --json through jq, and wait-sync.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin dbus

FAKE=$BUILD/tests/integration/tool-bus-fake
PHCCTL=$BUILD/phcctl/phcctl
test_on_exit 'exec 6>&- 2>/dev/null || true'
dbus_start "$tmp/bus"
NOBODY=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
B=(busctl --system)

bus_fake_start "$tmp"

fake instance default
fake instance "dom-24"
fake port veth0 default
fake port veth1 default
fake port veth2 "dom-24"

# --- busctl tree / introspect / get-property / call
"${B[@]}" tree org.phcd1 >"$tmp/tree"
for p in /org/phcd1/instance/default /org/phcd1/instance/dom_2d24 /org/phcd1/port/veth0 \
	/org/phcd1/port/veth1 /org/phcd1/port/veth2; do
	grep -q -- "$p\$" "$tmp/tree" || fail "busctl tree lacks $p: $(cat "$tmp/tree")"
done
echo "ok: busctl tree lists 2 instances and 3 ports"
"${B[@]}" introspect org.phcd1 /org/phcd1/port/veth0 >"$tmp/intro"
grep -q '^org.phcd1.Port  *interface' "$tmp/intro" || fail "introspect lacks org.phcd1.Port"
grep -Eq '^\.State +property +s +"LISTENING" +emits-change' "$tmp/intro" ||
	fail "introspect: expected State LISTENING emits-change, got: $(grep State "$tmp/intro")"
echo "ok: busctl introspect shows org.phcd1.Port with State \"LISTENING\" emits-change"
got=$("${B[@]}" get-property org.phcd1 /org/phcd1/instance/default org.phcd1.Instance Priority1)
[ "$got" = "y 128" ] || fail "get-property Priority1: expected 'y 128', got '$got'"
got=$("${B[@]}" call org.phcd1 /org/phcd1 org.phcd1.Manager GetPortByInterface s veth2)
[ "$got" = 'o "/org/phcd1/port/veth2"' ] || fail "GetPortByInterface veth2: got '$got'"
got=$("${B[@]}" call org.phcd1 /org/phcd1 org.phcd1.Manager GetInstance s "dom-24")
[ "$got" = 'o "/org/phcd1/instance/dom_2d24"' ] || fail "GetInstance 'dom-24': got '$got'"
echo "ok: get-property Priority1 = 128; GetPortByInterface veth2, GetInstance 'dom-24' -> $got"

# --- GetManagedObjects lists every instance and port
"${B[@]}" --json=short call org.phcd1 /org/phcd1 org.freedesktop.DBus.ObjectManager \
	GetManagedObjects >"$tmp/objects"
got=$(jq -r '.data[0] | to_entries[] | "\(.key) \(.value | keys | map(select(startswith("org.phcd1."))) | join(","))"' \
	"$tmp/objects" | sort | tr '\n' ';')
want="/org/phcd1/instance/default org.phcd1.Instance;/org/phcd1/instance/dom_2d24 org.phcd1.Instance;/org/phcd1/port/veth0 org.phcd1.Port;/org/phcd1/port/veth1 org.phcd1.Port;/org/phcd1/port/veth2 org.phcd1.Port;"
[ "$got" = "$want" ] || fail "GetManagedObjects: expected '$want', got '$got'"
echo "ok: GetManagedObjects: $got"
# phcd answers GetManagedObjects itself (dbus/bus-manager.c): each object's properties must be
# exactly GetAll's, and nothing else may be listed but its org.phcd1 interface.
for o in /org/phcd1/port/veth0:org.phcd1.Port /org/phcd1/instance/dom_2d24:org.phcd1.Instance; do
	want=$("${B[@]}" --json=short call org.phcd1 "${o%%:*}" org.freedesktop.DBus.Properties \
		GetAll s "${o#*:}" | jq -cS '.data[0]')
	got=$(jq -cS --arg o "${o%%:*}" '.data[0][$o] | to_entries[] | [.key, .value]' "$tmp/objects")
	[ "$got" = "$(jq -cS --arg i "${o#*:}" '[$i, .]' <<<"$want")" ] ||
		fail "GetManagedObjects of ${o%%:*}: expected only ${o#*:} with GetAll's $want, got $got"
done
rc=0
"${B[@]}" call org.phcd1 /org/phcd1 org.freedesktop.DBus.ObjectManager GetManagedObjects s x \
	2>"$tmp/err" || rc=$?
[ "$rc" != 0 ] && grep -q "takes no arguments" "$tmp/err" ||
	fail "GetManagedObjects with an argument: expected InvalidArgs, got $rc: $(cat "$tmp/err")"
echo "ok: GetManagedObjects: each object as GetAll gives it; an argument is refused"

# --- the shipped introspection XML is what the daemon serves
for p in /org/phcd1 /org/phcd1/instance/default /org/phcd1/port/veth0; do
	"${B[@]}" introspect --xml-interface org.phcd1 "$p" >"$tmp/served-$(basename "$p").xml"
done
"$SRC/tests/integration/dbus-xml-normalize.py" "$tmp"/served-*.xml >"$tmp/served.norm"
"$SRC/tests/integration/dbus-xml-normalize.py" "$SRC/dbus/org.phcd1.xml" >"$tmp/shipped.norm"
diff -u "$tmp/shipped.norm" "$tmp/served.norm" ||
	fail "dbus/org.phcd1.xml differs from the served introspection (diff above: - shipped, + served)"
echo "ok: dbus/org.phcd1.xml matches the served introspection ($(grep -c '<property' "$tmp/served.norm") properties, $(grep -c '<method' "$tmp/served.norm") methods)"

# --- signals: monitor (phcctl --json) and a PropertiesChanged of State within 1 s
"$PHCCTL" monitor --json >"$tmp/mon" 2>"$tmp/mon.err" &
BG_PIDS+=($!)
wait_for "$tmp/mon.err" '^Monitoring' 5
t0=$(date +%s%N)
fake state veth0 SLAVE
wait_for "$tmp/mon" '"path":"/org/phcd1/port/veth0".*"State":"SLAVE"' 2
t1=$(date +%s%N)
ms=$(((t1 - t0) / 1000000))
[ "$ms" -lt 1000 ] || fail "PropertiesChanged of State took ${ms} ms, expected < 1000"
echo "ok: PropertiesChanged State=SLAVE seen by phcctl monitor ${ms} ms after the change"

# Byte enums travel as strings: Table 5 / Table 6 names, "0xNN" for profile-specific values.
got=$("${B[@]}" get-property org.phcd1 /org/phcd1/instance/default org.phcd1.Instance ClockAccuracy)
[ "$got" = 's "UNKNOWN"' ] || fail "ClockAccuracy 0xFE: expected 's \"UNKNOWN\"', got '$got'"
from=$(wc -l <"$tmp/mon")
fake accuracy default 0x21
wait_for "$tmp/mon" '"path":"/org/phcd1/instance/default","args":\["org.phcd1.Instance",\{[^]]*"ClockAccuracy":"WITHIN_100NS"' 2 "$from"
fake accuracy default 0x85
fake time-source default 0xf0
got=$("${B[@]}" get-property org.phcd1 /org/phcd1/instance/default org.phcd1.Instance ClockAccuracy)
[ "$got" = 's "0x85"' ] || fail "ClockAccuracy 0x85 (profile-specific): expected 's \"0x85\"', got '$got'"
got=$("${B[@]}" get-property org.phcd1 /org/phcd1/instance/default org.phcd1.Instance TimeSource)
[ "$got" = 's "0xf0"' ] || fail "TimeSource 0xf0 (profile-specific): expected 's \"0xf0\"', got '$got'"
"$PHCCTL" status | grep -q 'accuracy 0x85$' || fail "phcctl status lacks 'accuracy 0x85': $("$PHCCTL" status)"
fake accuracy default 0x20
fake time-source default 0xa0
got=$("$PHCCTL" instance default --json | jq -r '"\(.ClockAccuracy) \(.TimeSource)"')
[ "$got" = "WITHIN_25NS INTERNAL_OSCILLATOR" ] ||
	fail "instance --json: expected 'WITHIN_25NS INTERNAL_OSCILLATOR', got '$got'"
echo "ok: ClockAccuracy UNKNOWN, WITHIN_100NS (signalled), 0x85; TimeSource 0xf0, INTERNAL_OSCILLATOR"

from=$(wc -l <"$tmp/mon")
fake port veth3 default
wait_for "$tmp/mon" '"signal":"InterfacesAdded","path":"/org/phcd1","args":\["/org/phcd1/port/veth3",\{.*"org.phcd1.Port":\{"Interface":"veth3"' 2 "$from"
fake rm-port veth3
wait_for "$tmp/mon" '"signal":"InterfacesRemoved","path":"/org/phcd1","args":\["/org/phcd1/port/veth3",\[.*"org.phcd1.Port"' 2 "$from"
wait_for "$tmp/mon" '"path":"/org/phcd1","args":\["org.phcd1.Manager",\{"Ports":' 2 "$from"
echo "ok: InterfacesAdded/Removed for port veth3 and Manager.Ports changed"

# Fast values are coalesced: 20 offset updates within ~0.2 s give at most 2 signals
# (the first at once, the rest in one emission a second later). Written in one go, not one
# `fake` (a round trip of several processes) each: on a loaded machine 20 of those took 9 s.
from=$(wc -l <"$tmp/mon")
from_out=$(wc -l <"$tmp/out")
for k in $(seq 1 20); do
	echo "sample default $((100 + k)) 50 1.5"
done >&5
wait_for "$tmp/out" '^ok sample$' 5 "$((from_out + 19))"
wait_for "$tmp/mon" '"OffsetFromMaster":120,' 3 "$from"
n=$(tail -n +$((from + 1)) "$tmp/mon" | grep -c '"OffsetFromMaster"' || true)
[ "$n" -le 2 ] || fail "expected at most 2 coalesced signals for 20 offset updates, got $n"
echo "ok: 20 offset updates -> $n PropertiesChanged (coalesced), last OffsetFromMaster=120"

# --- a client outside C and sd-bus: python3-dbus reads and receives the signal
"$SRC/tests/integration/dbus-client.py" veth1 PASSIVE 5 >"$tmp/py" 2>&1 &
py=$!
BG_PIDS+=($py)
wait_for "$tmp/py" '^ready$' 10
fake state veth1 PASSIVE
wait_pid "$py" 5 || fail "python client: $(cat "$tmp/py")"
grep -q '^object /org/phcd1/port/veth1 org.phcd1.Port 25 properties$' "$tmp/py" ||
	fail "python client did not list veth1 with 25 properties (all but Counters): $(cat "$tmp/py")"
grep -q '^port veth1 State=LISTENING TimestampingMode=software Counters=70 in GetAll=False$' "$tmp/py" ||
	fail "python client GetAll: $(grep '^port' "$tmp/py")"
echo "ok: python3-dbus: $(grep -c '^object' "$tmp/py") objects, $(grep '^port' "$tmp/py"), $(tail -n 1 "$tmp/py")"
# gdbus too (GLib's own implementation), for a read.
got=$(gdbus call --system --dest org.phcd1 --object-path /org/phcd1/port/veth1 \
	--method org.freedesktop.DBus.Properties.Get org.phcd1.Port State)
[ "$got" = "(<'PASSIVE'>,)" ] || fail "gdbus Get State: expected (<'PASSIVE'>,), got $got"
echo "ok: gdbus Get State -> $got"

# --- what a GUI and a fleet tool read: grandmaster quality, sample time, statistics, health,
# message intervals, start time; with busctl, gdbus and python3-dbus, signalled like the rest
got=$("${B[@]}" get-property org.phcd1 /org/phcd1 org.phcd1.Manager StartTimestamp StartTimestampMonotonic Health)
[ "$got" = $'t 1764547200000000\nt 12345678\ns "ok"' ] ||
	fail "Manager StartTimestamp/StartTimestampMonotonic/Health: got '$got'"
got=$("${B[@]}" get-property org.phcd1 /org/phcd1/instance/default org.phcd1.Instance \
	OffsetTimestamp OffsetStatisticsCount OffsetStatisticsTimestamp | tr '\n' ' ')
[ "$got" = "t 0 u 0 t 0 " ] ||
	fail "before any sample: expected OffsetTimestamp 0, statistics count 0 and timestamp 0, got '$got'"
from=$(wc -l <"$tmp/mon")
fake gm-quality default 5 6 7
wait_for "$tmp/mon" '"path":"/org/phcd1/instance/default".*"GrandmasterPriority1":5' 2 "$from"
got=$("${B[@]}" get-property org.phcd1 /org/phcd1/instance/default org.phcd1.Instance \
	GrandmasterPriority1 GrandmasterPriority2 GrandmasterClockClass GrandmasterClockAccuracy \
	GrandmasterOffsetScaledLogVariance | tr '\n' ' ')
[ "$got" = 'y 5 y 6 y 7 s "WITHIN_100NS" q 20061 ' ] || fail "busctl grandmaster quality: got '$got'"
got=$(gdbus call --system --dest org.phcd1 --object-path /org/phcd1/instance/default \
	--method org.freedesktop.DBus.Properties.Get org.phcd1.Instance GrandmasterClockClass)
[ "$got" = "(<byte 0x07>,)" ] || fail "gdbus Get GrandmasterClockClass: expected (<byte 0x07>,), got $got"
fake sample-time default 1764547300123456 22345678
fake stats default 16 -42 310
wait_for "$tmp/mon" '"path":"/org/phcd1/instance/default".*"OffsetStatisticsRMS":310' 3 "$from"
grep -q '"path":"/org/phcd1/instance/default".*"OffsetTimestamp":1764547300123456' "$tmp/mon" ||
	fail "OffsetTimestamp not signalled"
fake health default degraded port-faulty port veth0 is FAULTY: link down
fake health manager degraded port-faulty instance default: port veth0 is FAULTY: link down
wait_for "$tmp/mon" '"path":"/org/phcd1","args":\["org.phcd1.Manager",\{"Health":"degraded","HealthReasons":\[\["port-faulty","instance default: port veth0 is FAULTY: link down"\]\]' 2 "$from"
grep -q '"path":"/org/phcd1/instance/default".*"Health":"degraded"' "$tmp/mon" ||
	fail "Instance Health not signalled: $(grep -c Health "$tmp/mon")"
got=$(gdbus call --system --dest org.phcd1 --object-path /org/phcd1/instance/default \
	--method org.freedesktop.DBus.Properties.Get org.phcd1.Instance HealthReasons)
[ "$got" = "(<[('port-faulty', 'port veth0 is FAULTY: link down')]>,)" ] ||
	fail "gdbus Get HealthReasons: got $got"
got=$("${B[@]}" get-property org.phcd1 /org/phcd1/port/veth0 org.phcd1.Port LogAnnounceInterval \
	LogSyncInterval LogMinDelayReqInterval LogMinPdelayReqInterval AnnounceReceiptTimeout \
	AnnounceReceiptTimeoutUSec SyncReceiptTimeout SummaryInterval | tr '\n' ' ')
[ "$got" = "n 1 n 0 n 0 n 0 y 3 t 6000000 y 0 n 0 " ] || fail "busctl port intervals: got '$got'"
cat >"$tmp/fleet.py" <<'PY'
import dbus
bus = dbus.SystemBus()
i = dbus.Interface(bus.get_object("org.phcd1", "/org/phcd1/instance/default"),
                   "org.freedesktop.DBus.Properties").GetAll("org.phcd1.Instance")
m = dbus.Interface(bus.get_object("org.phcd1", "/org/phcd1"),
                   "org.freedesktop.DBus.Properties").GetAll("org.phcd1.Manager")
p = dbus.Interface(bus.get_object("org.phcd1", "/org/phcd1/port/veth0"),
                   "org.freedesktop.DBus.Properties").GetAll("org.phcd1.Port")
print(int(i["GrandmasterPriority1"]), int(i["GrandmasterPriority2"]), int(i["GrandmasterClockClass"]),
      int(i["OffsetTimestamp"]), int(i["OffsetStatisticsCount"]), int(i["OffsetStatisticsMean"]),
      int(i["OffsetStatisticsRMS"]), int(i["OffsetStatisticsMax"]), int(i["OffsetStatisticsWindowUSec"]),
      str(i["Health"]), [tuple(str(x) for x in r) for r in i["HealthReasons"]][0][0],
      str(m["Health"]), int(m["StartTimestamp"]), int(p["AnnounceReceiptTimeoutUSec"]),
      int(p["LogAnnounceInterval"]))
PY
got=$(cd / && /usr/bin/python3 "$tmp/fleet.py" 2>&1)
[ "$got" = "5 6 7 1764547300123456 16 -42 310 620 1000000 degraded port-faulty degraded 1764547200000000 6000000 1" ] ||
	fail "python3-dbus fleet read: got '$got'"
fake health default ok
fake health manager ok
echo "ok: grandmaster priority1/2 and quality, OffsetTimestamp, statistics, health and reasons, port intervals, start time: busctl, gdbus, python3-dbus ($got), signalled"

# --- authorization: nobody reads, and every write is AccessDenied (no polkit on this bus)
got=$("${NOBODY[@]}" busctl --system get-property org.phcd1 /org/phcd1/port/veth0 org.phcd1.Port State)
[ "$got" = 's "SLAVE"' ] || fail "nobody get-property State: got '$got'"
"${NOBODY[@]}" "$PHCCTL" status --json | jq -e '.Instances | length == 2' >/dev/null ||
	fail "nobody: phcctl status --json"
from=$(wc -l <"$tmp/out")
denied() {
	local path=$1 method=$2 out rc=0
	shift 2
	out=$("${NOBODY[@]}" gdbus call --system --dest org.phcd1 --object-path "$path" \
		--method "$method" "$@" 2>&1) || rc=$?
	[ "$rc" != 0 ] || fail "nobody: $method succeeded, expected AccessDenied"
	grep -q "org.freedesktop.DBus.Error.AccessDenied: Only root may do this: polkit is not running" \
		<<<"$out" || fail "nobody: $method: expected AccessDenied about polkit, got: $out"
}
denied /org/phcd1/instance/default org.phcd1.Instance.SetPriority1 "byte 1"
denied /org/phcd1/instance/default org.phcd1.Instance.SetPriority2 "byte 1"
denied /org/phcd1/instance/default org.phcd1.Instance.SetGrandmasterSettings "byte 6" "byte 0x21" \
	"uint16 0x4e5d" "int16 37" false false true true true "byte 0x20"
denied /org/phcd1/port/veth0 org.phcd1.Port.Enable
denied /org/phcd1/port/veth0 org.phcd1.Port.Disable
denied /org/phcd1/port/veth0 org.phcd1.Port.Restart
denied /org/phcd1 org.phcd1.Manager.Reload
rc=0
"${NOBODY[@]}" "$PHCCTL" disable veth0 2>"$tmp/err" || rc=$?
[ "$rc" = 4 ] || fail "nobody: phcctl disable: expected exit 4, got $rc: $(cat "$tmp/err")"
test_duration 0.1 "a quiet period: a wrongly accepted call would show up by now"
if tail -n +$((from + 1)) "$tmp/out" | grep -q '^call '; then
	fail "a denied call reached the manager: $(tail -n +$((from + 1)) "$tmp/out")"
fi
echo "ok: nobody reads, and gets AccessDenied on all 7 writes (phcctl exit 4); none reached the manager"

# root may write: each call reaches the manager.
"$PHCCTL" set-priority1 default 100
"$PHCCTL" set-priority2 "dom-24" 7
"$PHCCTL" disable veth1
"$PHCCTL" enable veth1
"$PHCCTL" restart veth1
"$PHCCTL" reload
for c in "set-priority1 default 100" "set-priority2 dom-24 7" "disable veth1" "enable veth1" \
	"restart veth1" "reload"; do
	grep -q "^call $c\$" "$tmp/out" || fail "root: expected 'call $c' at the manager"
done
got=$("${B[@]}" get-property org.phcd1 /org/phcd1/instance/default org.phcd1.Instance Priority1)
[ "$got" = "y 100" ] || fail "after set-priority1: expected y 100, got $got"
echo "ok: root: set-priority1/2, disable, enable, restart, reload reach the manager"

# --- errors: InvalidArgs and named phcd errors
err() { "${B[@]}" call org.phcd1 "$@" 2>&1 && fail "'$*' succeeded" || true; }
got=$(gdbus call --system --dest org.phcd1 --object-path /org/phcd1 \
	--method org.phcd1.Manager.GetPortByInterface nosuch0 2>&1 || true)
grep -q "org.phcd1.Error.NoSuchInterface: phcd runs no PTP port on interface 'nosuch0'" <<<"$got" ||
	fail "unknown interface: expected org.phcd1.Error.NoSuchInterface, got: $got"
echo "ok: unknown interface -> $got"
got=$(gdbus call --system --dest org.phcd1 --object-path /org/phcd1 \
	--method org.phcd1.Manager.GetInstance nosuch 2>&1 || true)
grep -q "org.phcd1.Error.NoSuchInstance" <<<"$got" || fail "unknown instance: got: $got"
for bad in "a/b" "" "waytoolonginterfacename0"; do
	got=$(gdbus call --system --dest org.phcd1 --object-path /org/phcd1 \
		--method org.phcd1.Manager.GetPortByInterface "$bad" 2>&1 || true)
	grep -q "org.freedesktop.DBus.Error.InvalidArgs" <<<"$got" ||
		fail "GetPortByInterface '$bad': expected InvalidArgs, got: $got"
done
got=$(err /org/phcd1/instance/default org.phcd1.Instance SetPriority1 s high)
grep -qi "invalid" <<<"$got" || fail "SetPriority1 with a string: expected InvalidArgs, got: $got"
# A wrong argument type, sent as is (gdbus would refuse it before sending).
got=$(cd / && /usr/bin/python3 -c '
import dbus
o = dbus.SystemBus().get_object("org.phcd1", "/org/phcd1/instance/default")
try:
    o.SetPriority1("high", signature="s", dbus_interface="org.phcd1.Instance")
except dbus.DBusException as e:
    print(e.get_dbus_name())' 2>&1)
[ "$got" = org.freedesktop.DBus.Error.InvalidArgs ] ||
	fail "SetPriority1('high'): expected InvalidArgs, got: $got"
rc=0
"$PHCCTL" port nosuch0 2>"$tmp/err" || rc=$?
[ "$rc" = 3 ] || fail "phcctl port nosuch0: expected exit 3, got $rc"
fake reload-invalid 1
rc=0
"$PHCCTL" reload 2>"$tmp/err" || rc=$?
[ "$rc" = 1 ] && grep -q "the old one keeps running" "$tmp/err" && grep -q "phcd.conf:3:" "$tmp/err" ||
	fail "invalid reload: expected exit 1 with file:line, got $rc: $(cat "$tmp/err")"
echo "ok: InvalidArgs for 'a/b', '', a long name and a wrong type; NoSuchInstance; invalid reload says file:line"

# --- phcctl --json through jq
"$PHCCTL" status --json >"$tmp/status.json"
jq -e '.Manager.Version and (.Instances | length == 2) and (.Ports | length == 3) and
	(.Ports[] | select(.Interface == "veth0") | .State == "SLAVE")' "$tmp/status.json" >/dev/null ||
	fail "status --json: $(head -c 400 "$tmp/status.json")"
"$PHCCTL" ports --json | jq -e 'map(.Interface) == ["veth0","veth1","veth2"]' >/dev/null ||
	fail "ports --json"
"$PHCCTL" port veth2 --json | jq -e '.Instance == "/org/phcd1/instance/dom_2d24" and
	.TimestampingMode == "software" and .Counters.rx_sync == 0' >/dev/null || fail "port --json"
"$PHCCTL" instance default --json | jq -e '.Priority1 == 100 and .ServoState == "unlocked"' \
	>/dev/null || fail "instance --json"
"$PHCCTL" status >"$tmp/status.txt"
grep -q '^Instance default: domain 0' "$tmp/status.txt" || fail "status text: $(cat "$tmp/status.txt")"
echo "ok: phcctl status/ports/port/instance --json parse with jq"

# port / instance without --json: readable blocks, like status.
from=$(wc -l <"$tmp/mon")
fake counters veth2 7
# Counters is explicit and not signalled: no PropertiesChanged names it (checked once a later
# change of veth2, its State, has been signalled), InterfacesAdded and GetManagedObjects leave it
# out, Get returns the new value (phcctl port fetches it so).
fake state veth2 PASSIVE
wait_for "$tmp/mon" '"path":"/org/phcd1/port/veth2".*"State":"PASSIVE"' 3 "$from"
fake state veth2 LISTENING
wait_for "$tmp/mon" '"path":"/org/phcd1/port/veth2".*"State":"LISTENING"' 3 "$from"
got=$(tail -n +"$((from + 1))" "$tmp/mon" | grep -c '"PropertiesChanged".*"Counters"' || true)
[ "$got" = 0 ] || fail "Counters: expected no PropertiesChanged for it, got $got: $(grep Counters "$tmp/mon" | head -n 2)"
"${B[@]}" --json=short get-property org.phcd1 /org/phcd1/port/veth2 org.phcd1.Port Counters |
	jq -e '.data.rx_sync == 7' >/dev/null || fail "Get Counters: expected rx_sync 7 after the change"
got=$(grep -c '"InterfacesAdded".*"Counters"' "$tmp/mon" || true)
[ "$got" = 0 ] || fail "InterfacesAdded: expected no Counters, got them in $got signal(s)"
"${B[@]}" --json=short call org.phcd1 /org/phcd1 org.freedesktop.DBus.ObjectManager \
	GetManagedObjects >"$tmp/gmo.json"
got=$(grep -c '"Counters"' "$tmp/gmo.json" || true)
[ "$got" = 0 ] || fail "GetManagedObjects: expected no Counters, got: $(head -c 300 "$tmp/gmo.json")"
echo "ok: Counters: never signalled, Get has the new value, left out of InterfacesAdded and GetManagedObjects"
"$PHCCTL" port veth2 >"$tmp/port.txt"
for re in '^Port veth2: instance dom-24, enabled$' '^  State +: LISTENING$' \
	'^  Timestamping +: software, no PHC$' '^  Worker +: pid [0-9]+, 0 restart\(s\)$' \
	'^  Last error +: none$' '^  Received +: sync 7$' '^  Sent +: none$'; do
	grep -Eq "$re" "$tmp/port.txt" || fail "phcctl port veth2: expected a line matching '$re', got: $(cat "$tmp/port.txt")"
done
"$PHCCTL" instance "dom-24" >"$tmp/instance.txt"
for re in '^Instance dom-24: domain 1,' '^  Local priority1/2 +: 128 / 7, class 248, accuracy UNKNOWN$' \
	'^  Log variance +: 0xffff$' '^  Leap second +: none announced$' '^  veth2 +LISTENING'; do
	grep -Eq "$re" "$tmp/instance.txt" || fail "phcctl instance dom-24: expected a line matching '$re', got: $(cat "$tmp/instance.txt")"
done
echo "ok: phcctl port / instance print readable blocks ($(wc -l <"$tmp/port.txt") and $(wc -l <"$tmp/instance.txt") lines)"

# --- wait-sync: non-zero on timeout, 0 once synchronized
rc=0
"$PHCCTL" wait-sync --instance default --timeout 0.5 2>"$tmp/err" || rc=$?
[ "$rc" = 5 ] || fail "wait-sync on an unlocked servo: expected exit 5, got $rc"
grep -q "not synchronized (servo unlocked)" "$tmp/err" || fail "wait-sync message: $(cat "$tmp/err")"
"$PHCCTL" wait-sync --instance default --timeout 10 --max-offset 1000 >"$tmp/ws" 2>&1 &
ws=$!
BG_PIDS+=($ws)
fake servo default LOCKED
wait_pid "$ws" 5 || fail "wait-sync after LOCKED: $(cat "$tmp/ws")"
grep -q '^default: synchronized' "$tmp/ws" || fail "wait-sync output: $(cat "$tmp/ws")"
rc=0
"$PHCCTL" wait-sync --instance default --timeout 0.3 --max-offset 10 2>"$tmp/err" || rc=$?
[ "$rc" = 5 ] && grep -q "offset 120 ns > 10 ns" "$tmp/err" ||
	fail "wait-sync --max-offset 10 with offset 120: expected exit 5, got $rc: $(cat "$tmp/err")"
echo "ok: wait-sync: exit 5 on timeout, exit 0 once LOCKED ($(cat "$tmp/ws")), --max-offset honoured"

# --- when phcd steers CLOCK_REALTIME, wait-sync (time-sync.target) waits for the system clock
# itself, not for the instance: the instance above is LOCKED, the system clock is not yet.
fake system-clock auto
rc=0
"$PHCCTL" wait-sync --timeout 0.5 2>"$tmp/err" || rc=$?
[ "$rc" = 5 ] && grep -q "system clock is not locked yet (system_clock_instance auto)" "$tmp/err" ||
	fail "wait-sync with an unlocked system clock: expected exit 5, got $rc: $(cat "$tmp/err")"
[ "$(busctl --system get-property org.phcd1 /org/phcd1 org.phcd1.Manager SystemClockSynchronized)" = "b false" ] ||
	fail "SystemClockSynchronized before the system clock locks: expected b false"
"$PHCCTL" wait-sync --timeout 10 >"$tmp/ws" 2>&1 &
ws=$!
BG_PIDS+=($ws)
fake system-clock-locked 1
wait_pid "$ws" 5 || fail "wait-sync after the system clock locked: $(cat "$tmp/ws")"
grep -q '^system clock: synchronized (system_clock_instance auto)' "$tmp/ws" ||
	fail "wait-sync output: $(cat "$tmp/ws")"
fake system-clock-locked 0
fake system-clock none
echo "ok: wait-sync with system_clock_instance waits for SystemClockSynchronized ($(cat "$tmp/ws"))"

# --- a worker's error text is not trusted: invalid UTF-8 must not break GetAll for everyone
# (\xef\xbf\xbe and \xef\xb7\x90 are the noncharacters U+FFFE and U+FDD0, which sd-bus refuses)
printf 'error veth1 bad \xff\xc0\xaf \xed\xa0\x80 \xef\xbf\xbe\xef\xb7\x90 text \xc3\xa9\n' >&5
wait_for "$tmp/out" '^ok error$' 5
got=$("${B[@]}" get-property org.phcd1 /org/phcd1/port/veth1 org.phcd1.Port LastError)
# (busctl prints the é of the valid tail as octal escapes)
[ "$got" = 's "bad ??? ??? ?????? text \303\251"' ] || fail "LastError with invalid UTF-8: got '$got'"
"${B[@]}" --json=short call org.phcd1 /org/phcd1 org.freedesktop.DBus.ObjectManager \
	GetManagedObjects | jq -e '.data[0]["/org/phcd1/port/veth1"]["org.phcd1.Port"].LastError.data
	| startswith("bad ??? ??? ?????? text")' >/dev/null ||
	fail "GetManagedObjects with invalid UTF-8 in a LastError"
"$PHCCTL" port veth1 --json | jq -e '.LastErrorCode == 100' >/dev/null || fail "GetAll of veth1 after a bad error text"
echo "ok: invalid UTF-8 in LastError shown as '?', GetAll still works: $got"

# --- removal of an instance takes its ports with it
from=$(wc -l <"$tmp/mon")
fake rm-instance "dom-24"
wait_for "$tmp/mon" '"signal":"InterfacesRemoved","path":"/org/phcd1","args":\["/org/phcd1/instance/dom_2d24"' 2 "$from"
grep -q '"InterfacesRemoved","path":"/org/phcd1","args":\["/org/phcd1/port/veth2"' "$tmp/mon" ||
	fail "port veth2 of the removed instance was not removed"
echo "ok: removing an instance removes it and its port (InterfacesRemoved)"

# --- dbus/ logs as the supervisor does: "phcd: [IFNAME: ]message" on stderr, outside journald
kill "${DBUS_PIDS[0]}"
wait_for "$tmp/out" '^phcd: D-Bus: disconnected from the system bus, reconnecting$' 5
fake state veth0 MASTER
wait_for "$tmp/out" '^phcd: veth0: D-Bus PropertiesChanged of /org/phcd1/port/veth0 failed: .*, ignoring$' 5
echo "ok: stderr: $(grep -c '^phcd: ' "$tmp/out") lines of dbus/ in the supervisor's format after the bus went away"

# ... and under journald (stderr is the journal's stream): native entries with the object's
# path and interface as fields (the interface also leading the MESSAGE, as networkd does), nothing
# on stderr. A listener stands in for journald's socket
# in a mount namespace of the stand-in's own.
JOURNAL_PY='
import os, socket, subprocess, sys
os.makedirs("/run/systemd/journal")
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("/run/systemd/journal/socket")
s.settimeout(0.05)
child = subprocess.Popen(sys.argv[2:])
with open(sys.argv[1], "ab", buffering=0) as out:
    while child.poll() is None:
        try:
            out.write(s.recv(65536).rstrip(b"\n").replace(b"\n", b" | ") + b"\n")
        except socket.timeout:
            pass
'
dbus_start "$tmp/bus2"
: >"$tmp/out2"
: >"$tmp/journal"
mkfifo "$tmp/in2"
JOURNAL_STREAM=$(stat -c %d:%i "$tmp/out2") unshare -m sh -c \
	'mount -t tmpfs tmpfs /run && exec python3 -c "$0" "$@"' "$JOURNAL_PY" "$tmp/journal" "$FAKE" \
	<"$tmp/in2" >>"$tmp/out2" 2>&1 &
BG_PIDS+=($!)
exec 6>"$tmp/in2"
wait_for "$tmp/out2" '^ready$' 30
echo "instance default" >&6
echo "port veth0 default" >&6
wait_for "$tmp/out2" '^ok port$' 5
kill "${DBUS_PIDS[-1]}"
wait_for "$tmp/journal" '^MESSAGE=D-Bus: disconnected from the system bus, reconnecting \| PRIORITY=4 \| SYSLOG_IDENTIFIER=phcd$' 5
echo "state veth0 SLAVE" >&6
wait_for "$tmp/journal" '^MESSAGE=veth0: D-Bus PropertiesChanged of /org/phcd1/port/veth0 failed: .*, ignoring \| PRIORITY=4 \| SYSLOG_IDENTIFIER=phcd \| PHCD_OBJECT_PATH=/org/phcd1/port/veth0 \| PHCD_INTERFACE=veth0$' 5
dbus_start "$tmp/bus2"
wait_for "$tmp/journal" '^MESSAGE=D-Bus: connected to the system bus again \| PRIORITY=5' 5
if grep -q '^phcd: ' "$tmp/out2"; then
	fail "under journald, dbus/ also wrote to stderr: $(grep '^phcd: ' "$tmp/out2")"
fi
exec 6>&-
echo "ok: journald: $(wc -l <"$tmp/journal") native entries, e.g. $(grep -m1 PHCD_OBJECT_PATH "$tmp/journal")"
echo PASS
