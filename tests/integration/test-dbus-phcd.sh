#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The real phcd on a private system bus against a ptp4l grandmaster: wait-sync returns once the
# instance is synchronized, a port's State change (carrier lost) is signalled within a second of
# phcd changing it,
# disable/enable/set-priority1 go through the supervisor, an unprivileged caller is refused, and a
# vanished interface's port goes away with InterfacesRemoved.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin dbus ptp

PHCD=$BUILD/daemon/phcd
PHCCTL=$BUILD/phcctl/phcctl
S=phdb-s$$ G=phdb-g$$ Q=phdb-q$$
dbus_start "$tmp/bus"
netns_add "$S"
netns_add "$G"
netns_add "$Q"
veth_add "$S" s1 "$G" g1
veth_add "$S" s2 "$Q" q1

ptp4l_gm "$G" g1 "$tmp/gm.uds" "$tmp/gm.log"
{
	phcd_fast_global
	cat <<CONF

[instance lab]
interfaces = s1, s2
clock_backend = virtual
# The profile's P2P default, overridden by the key: the ptp4l grandmaster runs E2E.
profile = default-p2p
delay_mechanism = E2E
CONF
} >"$tmp/phcd.conf"
# stamp: each line prefixed with the time it arrived ($EPOCHREALTIME: no fork per line), so lines
# of phcd and of phcctl can be compared.
stamp() {
	local l
	while IFS= read -r l; do
		printf '%s %s\n' "${EPOCHREALTIME//[.,]/}" "$l"
	done
}
ip netns exec "$S" capsh --drop=cap_sys_time -- -c "exec $PHCD -f $tmp/phcd.conf" \
	> >(stamp >"$tmp/phcd.log") 2>&1 &
BG_PIDS+=($!)
wait_bus_name org.phcd1 10

"$PHCCTL" monitor --json > >(stamp >"$tmp/mon") 2>"$tmp/mon.err" &
BG_PIDS+=($!)
wait_for "$tmp/mon.err" '^Monitoring' 5

rc=0
"$PHCCTL" wait-sync --timeout 30 --max-offset 100000 >"$tmp/ws" 2>&1 || rc=$?
[ "$rc" = 0 ] || fail "wait-sync against ptp4l: exit $rc: $(cat "$tmp/ws"); phcd: $(tail -n 20 "$tmp/phcd.log")"
echo "ok: wait-sync: $(cat "$tmp/ws")"
# wait-sync is also satisfied by an instance that is grandmaster (had s2's timeout come before s1
# heard ptp4l): poll for the synchronization this test is about.
deadline=$((SECONDS + 30))
until "$PHCCTL" status --json | jq -e '.Instances[0].Synchronized and .Instances[0].StepsRemoved == 1' \
	>/dev/null; do
	[ "$SECONDS" -lt "$deadline" ] || fail "status --json: not synchronized to ptp4l within 30 s"
	sleep 0.2
done
"$PHCCTL" port s1 --json | jq -e '.State == "SLAVE"' >/dev/null || fail "s1 is not SLAVE"
got=$(busctl --system get-property org.phcd1 /org/phcd1/instance/lab org.phcd1.Instance Profile)
[ "$got" = 's "default-p2p"' ] || fail "Instance Profile: expected s \"default-p2p\", got '$got'"
got=$(busctl --system get-property org.phcd1 /org/phcd1/port/s1 org.phcd1.Port DelayMechanism)
[ "$got" = 's "E2E"' ] || fail "s1 DelayMechanism: expected the key's E2E over the profile's P2P, got '$got'"
echo "ok: Instance Profile default-p2p, its P2P default overridden by delay_mechanism = E2E"
"$PHCCTL" status --json | jq -e '.Instances[0].Synchronized and .Instances[0].StepsRemoved == 1' \
	>/dev/null || fail "status --json: not synchronized"

# What a GUI or fleet tool reads, from the real supervisor: the grandmaster's quality (ptp4l's
# priority1 100, clockClass 248), a sample time that is recent on CLOCK_MONOTONIC, offset
# statistics of 1 s windows at 8 Syncs a second, health ok, the port's intervals.
deadline=$((SECONDS + 10))
until "$PHCCTL" instance lab --json >"$tmp/inst.json" &&
	jq -e '.OffsetStatisticsCount > 0 and .Health == "ok"' "$tmp/inst.json" >/dev/null; do
	[ "$SECONDS" -lt "$deadline" ] ||
		fail "expected offset statistics and Health ok within 10 s, got: $(jq -c '{OffsetStatisticsCount, Health, HealthReasons}' "$tmp/inst.json")"
	sleep 0.2
done
jq -e '.GrandmasterPriority1 == 100 and .GrandmasterPriority2 == 128 and
	.GrandmasterClockClass == 248 and .IsGrandmaster == false and .HealthReasons == [] and
	.OffsetTimestamp > 0 and .OffsetStatisticsCount >= 4 and .OffsetStatisticsCount <= 12 and
	.OffsetStatisticsWindowUSec >= 900000 and .OffsetStatisticsWindowUSec <= 1300000 and
	.OffsetStatisticsMax >= .OffsetStatisticsRMS and .OffsetStatisticsRMS < 100000' \
	"$tmp/inst.json" >/dev/null ||
	fail "instance lab: unexpected GUI/fleet values: $(jq -c '{GrandmasterPriority1, GrandmasterPriority2, GrandmasterClockClass, IsGrandmaster, HealthReasons, OffsetTimestamp, OffsetStatisticsCount, OffsetStatisticsWindowUSec, OffsetStatisticsRMS, OffsetStatisticsMax}' "$tmp/inst.json")"
age=$((${EPOCHREALTIME//[.,]/} - $(jq -r .OffsetTimestamp "$tmp/inst.json")))
[ "$age" -ge -100000 ] && [ "$age" -lt 3000000 ] ||
	fail "OffsetTimestamp is ${age} us old, expected a sample from the last 3 s"
# Its CLOCK_MONOTONIC twin is the same moment: realtime - monotonic as at phcd's start (to 50 ms).
mapfile -t st < <(busctl --system get-property org.phcd1 /org/phcd1 org.phcd1.Manager \
	StartTimestamp StartTimestampMonotonic | cut -d' ' -f2)
skew=$((st[0] - st[1]))
d=$(($(jq -r '.OffsetTimestamp - .OffsetTimestampMonotonic' "$tmp/inst.json") - skew))
[ "${d#-}" -lt 50000 ] || fail "OffsetTimestamp and OffsetTimestampMonotonic differ by ${d} us from the clocks' offset"
got=$(busctl --system get-property org.phcd1 /org/phcd1/port/s1 org.phcd1.Port LogSyncInterval \
	AnnounceReceiptTimeoutUSec | tr '\n' ' ')
[ "$got" = "n -3 t 750000 " ] || fail "port s1 LogSyncInterval/AnnounceReceiptTimeoutUSec: got '$got'"
mgr=$(busctl --system get-property org.phcd1 /org/phcd1 org.phcd1.Manager Health StartTimestamp | tr '\n' ' ')
[[ "$mgr" =~ ^s\ \"ok\"\ t\ 1[0-9]{15}\ $ ]] || fail "Manager Health/StartTimestamp: got '$mgr'"
echo "ok: GM priority1 100 class 248, sample ${age} us old, statistics $(jq -c '[.OffsetStatisticsCount, .OffsetStatisticsMean, .OffsetStatisticsRMS, .OffsetStatisticsMax]' "$tmp/inst.json") (count, mean, rms, max), Health ok; s1 LogSyncInterval/AnnounceReceiptTimeoutUSec $got; Manager $mgr"

# Carrier lost on s1: its State must be signalled within a second of phcd changing it (measured
# from phcd's "s1: SLAVE -> FAULTY" line, so the time phcd takes to notice the carrier loss does
# not count).
from=$(wc -l <"$tmp/mon")
from_log=$(wc -l <"$tmp/phcd.log")
t_down=${EPOCHREALTIME//[.,]/}
ip -n "$G" link set g1 down
signal_re='"path":"/org/phcd1/port/s1","args":\["org.phcd1.Port",\{[^]]*"State":"FAULTY"'
change_re='phcd: s1: [A-Z_]+ -> FAULTY$'
wait_for "$tmp/phcd.log" "$change_re" 5 "$from_log"
wait_for "$tmp/mon" "$signal_re" 3 "$from"
t_change=$(tail -n +$((from_log + 1)) "$tmp/phcd.log" | grep -m1 -E "$change_re" | cut -d' ' -f1)
t_signal=$(tail -n +$((from + 1)) "$tmp/mon" | grep -m1 -E "$signal_re" | cut -d' ' -f1)
ms=$(((t_signal - t_change) / 1000))
[ "$ms" -lt 1000 ] ||
	fail "State FAULTY of s1 signalled ${ms} ms after phcd changed it (log line at $t_change us, signal at $t_signal us), expected < 1000"
state=$("${BUSCTL:-busctl}" --system get-property org.phcd1 /org/phcd1/port/s1 org.phcd1.Port State)
# s1 FAULTY: the instance and the daemon say so, with the port's reason.
deadline=$((SECONDS + 5))
until busctl --system --json=short get-property org.phcd1 /org/phcd1 org.phcd1.Manager HealthReasons |
	jq -e '[.data[][0]] | index("port-faulty") != null' >/dev/null; do
	[ "$SECONDS" -lt "$deadline" ] || fail "Manager HealthReasons: expected port-faulty within 5 s"
	sleep 0.1
done
got=$(busctl --system get-property org.phcd1 /org/phcd1/instance/lab org.phcd1.Instance Health)
[ "$got" = 's "degraded"' ] || fail "instance lab with s1 FAULTY: expected Health degraded, got $got"
echo "ok: carrier lost on s1 -> phcd FAULTY after $(((t_change - t_down) / 1000)) ms -> PropertiesChanged State ${ms} ms later (now ${state#s })"
ip -n "$G" link set g1 up

# Control through the supervisor.
rc=0
setpriv --reuid=nobody --regid=nogroup --clear-groups "$PHCCTL" disable s2 2>"$tmp/err" || rc=$?
[ "$rc" = 4 ] || fail "nobody: phcctl disable s2: expected exit 4, got $rc: $(cat "$tmp/err")"
# wait_port IF JQ_EXPR SECONDS: poll phcctl port IF --json until the expression is true.
wait_port() {
	local deadline=$((SECONDS + $3))
	until [ "$("$PHCCTL" port "$1" --json | jq -r "$2")" = true ]; do
		[ "$SECONDS" -lt "$deadline" ] ||
			fail "port $1: expected $2 within $3 s, got: $("$PHCCTL" port "$1" --json | head -c 300)"
		sleep 0.05
	done
}
"$PHCCTL" disable s2
wait_port s2 '.State == "DISABLED" and .Enabled == false and .WorkerPID == 0' 5
"$PHCCTL" enable s2
wait_port s2 '.Enabled and .WorkerPID > 0' 5
"$PHCCTL" set-priority1 lab 42
got=$(busctl --system get-property org.phcd1 /org/phcd1/instance/lab org.phcd1.Instance Priority1)
[ "$got" = "y 42" ] || fail "after set-priority1 lab 42: got '$got'"
echo "ok: nobody refused (exit 4); root: disable -> DISABLED without worker, enable -> worker back; Priority1 42"

# Reload over D-Bus: an invalid file is refused with file:line, a valid change is applied.
cp "$tmp/phcd.conf" "$tmp/phcd.conf.good"
echo "bogus_key = 1" >>"$tmp/phcd.conf"
rc=0
"$PHCCTL" reload 2>"$tmp/err" || rc=$?
[ "$rc" = 1 ] && grep -q "phcd.conf:[0-9]*:" "$tmp/err" ||
	fail "reload of an invalid file: expected exit 1 with file:line, got $rc: $(cat "$tmp/err")"
# ... and phcd's log says so too, with the file:line (the journal gets them at error priority).
wait_for "$tmp/phcd.log" 'phcd: D-Bus Reload\(\) refused: the new configuration is invalid, the old one keeps running$' 5
wait_for "$tmp/phcd.log" '^[0-9]+ [^ ]*phcd.conf:[0-9]+: unknown key "bogus_key"' 5
# priority1: instance lab's Priority1 as busctl prints it ("y 42").
priority1() {
	busctl --system get-property org.phcd1 /org/phcd1/instance/lab org.phcd1.Instance Priority1
}
# The runtime value of set-priority1 holds until a reload that changes the instance (phcctl(1),
# docs/dbus-api.md "Fleet"): a refused reload changes nothing.
[ "$(priority1)" = "y 42" ] || fail "after a refused reload: expected the runtime Priority1 42 kept, got '$(priority1)'"
sed 's/^clock_backend = virtual$/clock_backend = virtual\npriority2 = 77/' "$tmp/phcd.conf.good" \
	>"$tmp/phcd.conf"
from=$(wc -l <"$tmp/mon")
"$PHCCTL" reload || fail "reload of a valid file failed"
wait_for "$tmp/mon" '"path":"/org/phcd1/instance/lab","args":\["org.phcd1.Instance",\{[^]]*"Priority2":77' 3 "$from"
# ... a reload that changes lab: phcd.conf's priority1 (the default, 128) again.
[ "$(priority1)" = "y 128" ] || fail "after a reload that changed instance lab (priority2 = 77): expected phcd.conf's Priority1 128, got '$(priority1)'"
# ... a reload that leaves lab as it was: the runtime value stays.
"$PHCCTL" set-priority1 lab 42
"$PHCCTL" reload || fail "reload of the same file failed"
[ "$(priority1)" = "y 42" ] || fail "after a reload that left instance lab as it was: expected the runtime Priority1 42 kept, got '$(priority1)'"
echo "ok: reload: invalid file refused ($(grep -o 'phcd.conf:[0-9]*:[^;]*' "$tmp/err" | head -n 1)), priority2 = 77 applied and signalled;" \
	"runtime Priority1 42 kept by the refused reload and by one that left lab unchanged, 128 again after the one that changed it"

# The interface goes away: so does its port object.
from=$(wc -l <"$tmp/mon")
ip -n "$S" link del s2
wait_for "$tmp/mon" '"signal":"InterfacesRemoved","path":"/org/phcd1","args":\["/org/phcd1/port/s2"' 5 "$from"
rc=0
"$PHCCTL" port s2 2>/dev/null || rc=$?
[ "$rc" = 3 ] || fail "port s2 after its veth was deleted: expected exit 3, got $rc"
echo "ok: veth s2 deleted -> InterfacesRemoved /org/phcd1/port/s2, phcctl port s2 exits 3"
echo PASS
