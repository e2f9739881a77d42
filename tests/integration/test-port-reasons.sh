#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What an operator reads when a port does not work (issue 30, items 2, 3, 5, 6), with the real
# phcd: a mistyped interface is logged once and Health names it; a gPTP port that is not
# asCapable is in Health; `lo` named in interfaces is said
# to be a loopback interface, not "not present"; a bridge (no transmit timestamps) is refused at
# start with the reason and gets no worker; a worker crash and a port going FAULTY are logged at
# err (journalctl -p err), a refused reload too; LastError is cleared once the fault is over
# (worker restarted, link back), on D-Bus and in the exporter, while the log keeps the history.
# phcd's stderr carries the syslog priority of each line ("<3>" = err) as under journald
# (JOURNAL_STREAM set).
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin dbus ptp phcd

S=phpr-s$$ P=phpr-p$$
dbus_start "$tmp/bus"
netns_pair "$S" "$P" s1 p1
veth_add "$S" s2 "$P" p2
veth_add "$S" s3 "$P" p3
ip -n "$S" link add br0 type bridge
ip -n "$S" link set s2 master br0
ip -n "$S" link set br0 up
{
	phcd_fast_global
	cat <<CONF

[instance a]
interfaces = s1 eth-typo
clock_backend = virtual

[instance l]
domainNumber = 3
interfaces = lo

[instance b]
domainNumber = 4
interfaces = br0
clock_backend = virtual

[instance g]
profile = gPTP
interfaces = s3
clock_backend = virtual
CONF
} >"$tmp/phcd.conf"
phcd_start "$S" "$tmp/phcd.conf" "$tmp/phcd.log" JOURNAL_STREAM=0:0
wait_bus_name org.phcd1 10
LOG=$tmp/phcd.log
# The exporter, to see that LastError's end reaches it too.
ip netns exec "$S" "$BUILD/exporter/phcd-exporter" --listen 127.0.0.1:9436 >"$tmp/exporter.log" 2>&1 &
BG_PIDS+=($!)
# wait_metric SAMPLE VALUE SECONDS: poll the exporter until SAMPLE has VALUE, or fail.
wait_metric() {
	local deadline=$((SECONDS + $3)) v=
	while :; do
		v=$(ip netns exec "$S" curl -sf --max-time 2 http://127.0.0.1:9436/metrics 2>/dev/null |
			awk -v k="$1" '$1 == k { print $2 }') || true
		[ "$v" = "$2" ] && return 0
		[ "$SECONDS" -lt "$deadline" ] || fail "exporter: expected $1 $2 within $3 s, got '$v'"
		sleep 0.1
	done
}

# prop OBJECT IFACE NAME: a property's value as busctl prints it ('s "MASTER"').
prop() {
	busctl --system get-property org.phcd1 "/org/phcd1/$1" "org.phcd1.$2" "$3"
}
# wait_prop OBJECT IFACE NAME REGEX SECONDS: poll until the property matches, or fail.
wait_prop() {
	local deadline=$((SECONDS + $5)) v
	while :; do
		v=$(prop "$1" "$2" "$3" 2>&1) || true
		[[ "$v" =~ $4 ]] && return 0
		[ "$SECONDS" -lt "$deadline" ] ||
			fail "$1 $3: expected /$4/ within $5 s, got: $v; phcd: $(tail -n 15 "$LOG")"
		sleep 0.05
	done
}

# hold_prop OBJECT IFACE NAME REGEX SECONDS: the property keeps matching for SECONDS, or fail.
hold_prop() {
	local end=$((SECONDS + $5)) v
	while [ "$SECONDS" -lt "$end" ]; do
		v=$(prop "$1" "$2" "$3" 2>&1) || true
		[[ "$v" =~ $4 ]] || fail "$1 $3: expected /$4/ to hold $5 s, got: $v; phcd: $(tail -n 15 "$LOG")"
		sleep 0.05
	done
}

# --- a mistyped interface: Health says so, the log once (not at every change of the instance)
wait_prop port/s1 Port State '"(LISTENING|MASTER)"' 10
wait_prop instance/a Instance HealthReasons 'interface eth-typo is named in the instance.{1,2}s interfaces but not present' 5
wait_for "$LOG" "^<5>phcd: instance a: interface eth-typo is named in the instance's interfaces but not present$" 5
wait_prop port/s1 Port State '"MASTER"' 10
n=$(grep -c 'eth-typo' "$LOG")
[ "$n" = 1 ] || fail "eth-typo: expected one log line, got $n: $(grep eth-typo "$LOG")"
echo "ok: a missing interface is in Health and logged once: $(grep eth-typo "$LOG")"

# --- lo exists: not "not present", but a loopback interface (logged once at err)
wait_prop instance/l Instance HealthReasons 'interface lo is named .* is a loopback interface, which carries no PTP frames' 5
prop instance/l Instance HealthReasons | grep -q 'not present' &&
	fail "lo: Health still says not present: $(prop instance/l Instance HealthReasons)"
grep -q '^<3>phcd: lo: named in the interfaces of instance l, but a loopback interface carries no PTP frames: not a port, ignoring$' "$LOG" ||
	fail "lo: expected an err line naming instance l, got: $(grep -i 'lo\b' "$LOG")"
# ... and phcctl says so (issue 30 item 2, with the real phcd): Health and its reason, no
# clock identity of zeros and no offset before the first port and sample.
"$BUILD/phcctl/phcctl" instance l >"$tmp/inst-l" || fail "phcctl instance l: exit $?: $(cat "$tmp/inst-l")"
for re in '^Instance l: domain 3, .*clock not chosen yet \(no port\)' '^  Health +: degraded$' \
	'^ +interface lo is named .* is a loopback interface, which carries no PTP frames' \
	'^  Offset from master +: no sample yet$' '^  Ports: none$'; do
	grep -Eq -- "$re" "$tmp/inst-l" || fail "phcctl instance l: expected a line matching '$re', got: $(cat "$tmp/inst-l")"
done
! grep -q '000000\.0000\.000000' "$tmp/inst-l" || fail "phcctl instance l: a clock identity of zeros: $(cat "$tmp/inst-l")"
echo "ok: lo named in interfaces: a loopback interface in Health and at err in the log"

# --- a bridge: no transmit timestamps, refused at start with the reason, no worker
wait_prop port/br0 Port LastError 'not a PTP port: no software transmit timestamps' 5
[ "$(prop port/br0 Port State)" = 's "FAULTY"' ] || fail "br0: expected FAULTY, got $(prop port/br0 Port State)"
[ "$(prop port/br0 Port WorkerPID)" = 'u 0' ] || fail "br0: expected no worker, got $(prop port/br0 Port WorkerPID)"
grep -q '^<3>phcd: br0: not a PTP port: no software transmit timestamps' "$LOG" ||
	fail "br0: expected the refusal at err, got: $(grep br0 "$LOG")"
grep -q '^<3>phcd: br0: INITIALIZING -> FAULTY$' "$LOG" || fail "br0: FAULTY not at err: $(grep br0 "$LOG")"
echo "ok: a bridge is refused at start: $(prop port/br0 Port LastError)"

# --- gPTP with nobody answering peer delay requests on the link: not asCapable (from the
# start, so the worker logs no change), which Health says and the log with it (neither did)
wait_prop instance/g Instance HealthReasons '"not-as-capable" "port s3 is not asCapable: 802.1AS carries no time over its link' 10
wait_prop port/s3 Port AsCapable '^b false$' 1
wait_for "$LOG" '^<5>phcd: instance g: port s3 is not asCapable: ' 5
# ... and not ready: the grandmaster of no link (on 49019c6 Ready, "no better master heard",
# so wait-sync let time-sync.target through on it).
wait_prop instance/g Instance ReadyReason '"grandmaster of domain 0 on no link: port s3 is not asCapable \(802\.1AS carries no time' 10
[ "$(prop instance/g Instance Ready)" = 'b false' ] || fail "instance g: expected Ready false, got $(prop instance/g Instance Ready)"
echo "ok: a gPTP port without a peer is not asCapable, in Health, in the log and in ReadyReason (not ready)"

# --- a worker crash: at err, FAULTY at err; LastError set, then cleared once the new worker runs
old=$(prop port/s1 Port WorkerPID | cut -d' ' -f2)
from=$(wc -l <"$LOG")
kill -9 "$old"
wait_for "$LOG" "^<3>phcd: s1: worker .*" 5 "$from"
wait_for "$LOG" "^<3>phcd: s1: [A-Z_]+ -> FAULTY$" 5 "$from"
wait_prop port/s1 Port WorkerPID "^u [1-9]" 10
wait_prop port/s1 Port State '"(LISTENING|MASTER)"' 10
wait_prop port/s1 Port LastError '^s ""$' 10
[ "$(prop port/s1 Port LastErrorCode)" = 'i 0' ] || fail "s1: LastErrorCode $(prop port/s1 Port LastErrorCode) after the worker came back"
wait_for "$LOG" '^<6>phcd: s1: working again, error cleared \(was: worker ' 5 "$from"
echo "ok: a worker crash is at err, LastError cleared when its successor runs: $(grep -m1 "^<3>phcd: s1: worker" "$LOG")"

# --- link down and back: LastError "link down", then cleared
ip -n "$S" link set s1 down
wait_prop port/s1 Port LastError '^s "link down"$' 5
# ... and it stays while the link is down (the worker being stopped may still report a state).
hold_prop port/s1 Port LastError '^s "link down"$' 2
ERRCODE='phcd_port_last_error_code{ptp_instance="a",interface="s1"}'
wait_metric "$ERRCODE" 100 5 # ENETDOWN
ip -n "$S" link set s1 up
wait_prop port/s1 Port State '"(LISTENING|MASTER)"' 10
wait_prop port/s1 Port LastError '^s ""$' 10
wait_metric "$ERRCODE" 0 5
# ... and the exporter serves ConfiguredGrandmaster (instance a may become slave: 0).
wait_metric 'phcd_configured_grandmaster{ptp_instance="a"}' 0 5
echo "ok: link down sets LastError (held while down), link back clears it, on D-Bus and in the exporter"

# --- a refused reload: at err
from=$(wc -l <"$LOG")
printf '\n[instance bad]\nbogus_key = 1\n' >>"$tmp/phcd.conf"
kill -HUP "$PHCD_PID"
wait_for "$LOG" '^<3>phcd: reload refused' 5 "$from"
echo "ok: a refused reload is at err"
echo PASS
