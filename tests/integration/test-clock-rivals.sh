#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# phcd refuses to steer a clock another program steers: with system_clock_instance set and a
# "chronyd" running, it leaves CLOCK_REALTIME alone and says so on D-Bus (SystemClockConflict,
# Health clock-conflict) and in its log at error priority, wait-sync does not hold the boot for it,
# and it takes the clock over once chronyd is gone; a "ptp4l -i s1" makes port s1 measure only
# (phc-conflict). phcd, the stand-ins and their /proc live in a PID namespace of their own, so
# neither sees the other tests' processes. phcd runs without CAP_SYS_TIME, as every test.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin dbus ptp

PHCD=$BUILD/daemon/phcd
PHCCTL=$BUILD/phcctl/phcctl
S=phcr-s$$ P=phcr-p$$
# unshare --fork ignores SIGTERM: the namespace's PID 1 (run.sh) ends when ns.run goes, and the
# kernel ends the rest of the namespace with it.
test_on_exit 'rm -f "$tmp/ns.run"'
dbus_start "$tmp/bus"
netns_pair "$S" "$P" s1 p1
{
	phcd_fast_global
	cat <<CONF
system_clock_instance = lab

[instance lab]
interfaces = s1
clock_backend = phc
CONF
} >"$tmp/phcd.conf"
# In the PID namespace: the stand-ins (a process whose comm is chronyd, one that is "ptp4l -i s1"),
# then phcd. The chronyd stand-in runs while its file exists (its pid is the namespace's).
# They wait with read -t on a FIFO that nobody writes: no child (a forked child keeps the comm
# until it execs, and would be one more "chronyd").
touch "$tmp/chronyd.run" "$tmp/ns.run"
mkfifo "$tmp/idle"
cat >"$tmp/run.sh" <<RUN
bash -c 'printf chronyd >/proc/\$\$/comm; exec 3<>$tmp/idle; touch $tmp/chronyd.up; while [ -e $tmp/chronyd.run ]; do read -r -t 0.2 -u 3 _ || :; done' &
bash -c 'printf ptp4l >/proc/\$\$/comm; exec 3<>$tmp/idle; while [ -e $tmp/idle ]; do read -r -t 0.2 -u 3 _ || :; done' ptp4l -i s1 -2 &
until [ -e $tmp/chronyd.up ]; do sleep 0.05; done
# Not exec'd: PID 1 of the namespace stays this shell (phcd-port refuses a parent that is PID 1,
# and the stand-ins must not be phcd's children).
capsh --drop=cap_sys_time -- -c "exec $PHCD -f $tmp/phcd.conf" &
exec 3<>$tmp/idle
while [ -e $tmp/ns.run ]; do read -r -t 0.2 -u 3 _ || :; done
kill %3
wait %3
RUN
ip netns exec "$S" unshare --pid --fork --mount-proc bash "$tmp/run.sh" >"$tmp/phcd.log" 2>&1 &
BG_PIDS+=($!)
wait_bus_name org.phcd1 15
B=(busctl --system)

got=$("${B[@]}" get-property org.phcd1 /org/phcd1 org.phcd1.Manager SystemClockConflict)
[[ "$got" =~ ^s\ \"chronyd\ \(pid\ [0-9]+\)\ already\ steers\ CLOCK_REALTIME\"$ ]] ||
	fail "SystemClockConflict: expected chronyd named, got '$got'; phcd: $(tail -n 5 "$tmp/phcd.log")"
grep -Eq '^(<3>)?phcd: refusing to steer the system clock \(system_clock_instance lab\): chronyd \(pid [0-9]+\) already steers CLOCK_REALTIME; stop it, or unset system_clock_instance$' "$tmp/phcd.log" ||
	fail "phcd's log lacks the refusal: $(cat "$tmp/phcd.log")"
[ "$("${B[@]}" get-property org.phcd1 /org/phcd1 org.phcd1.Manager SystemClockSynchronized)" = "b false" ] ||
	fail "SystemClockSynchronized: expected false"
deadline=$((SECONDS + 10))
until "${B[@]}" --json=short get-property org.phcd1 /org/phcd1 org.phcd1.Manager HealthReasons |
	jq -e '[.data[][0]] | (index("clock-conflict") != null) and (index("phc-conflict") != null)' >/dev/null; do
	[ "$SECONDS" -lt "$deadline" ] ||
		fail "HealthReasons: expected clock-conflict and phc-conflict, got $("${B[@]}" get-property org.phcd1 /org/phcd1 org.phcd1.Manager HealthReasons)"
	sleep 0.2
done
grep -Eq '^(<3>)?phcd: s1: refusing to steer its PHC: ptp4l \(pid [0-9]+\) steers the PHC of s1: phcd only measures on this port$' "$tmp/phcd.log" ||
	fail "phcd's log lacks the PHC refusal for s1: $(grep s1 "$tmp/phcd.log" | head -n 5)"
"$PHCCTL" wait-sync --timeout 5 --json >"$tmp/ws.json" ||
	fail "wait-sync while chronyd steers the clock: expected ready, got $(cat "$tmp/ws.json")"
jq -e '.Ready and .SystemClock.Ready and (.SystemClock.Reason | startswith("not steered by phcd: chronyd"))' \
	"$tmp/ws.json" >/dev/null || fail "wait-sync --json: $(cat "$tmp/ws.json")"
echo "ok: chronyd and ptp4l -i s1 running: phcd refuses both clocks ($got), logs it, Health says clock-conflict and phc-conflict, wait-sync ready"

# chronyd goes: phcd looks again (every 10 s while refused) and takes the clock over.
from=$(wc -l <"$tmp/phcd.log")
rm "$tmp/chronyd.run"
wait_for "$tmp/phcd.log" 'nothing else steers CLOCK_REALTIME any more: phcd takes it over \(system_clock_instance lab\)' 25 "$from"
got=$("${B[@]}" get-property org.phcd1 /org/phcd1 org.phcd1.Manager SystemClockConflict)
[ "$got" = 's ""' ] || fail "SystemClockConflict after chronyd stopped: expected empty, got $got"
echo "ok: chronyd stopped: phcd takes CLOCK_REALTIME over, SystemClockConflict empty"
echo PASS
