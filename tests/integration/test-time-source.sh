#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 28, a grandmaster with a reference: phcd (profile G.8275.1, a virtual clock over
# CLOCK_REALTIME, time_source system, leapfile) is the grandmaster of a ptp4l 3.1.1 slave
# (linuxptp's G.8275.1.cfg, domain 24 as 4.x sets it, --free_running 1). The kernel's sync state
# phcd reads is the clock shim's (tests/doubles/clock-shim.c, $PHCD_CLOCK_SHIM_SYNC): the test
# flips it, never the host's.
# The slave's PARENT_DATA_SET and TIME_PROPERTIES_DATA_SET follow the T-GM classes: synchronized ->
# 6 (after holdover_lock_time), STA_UNSYNC -> 7, after holdover_time -> 150 (gm_out_of_spec_class),
# after holdover_out_of_spec_time -> 248, synchronized again -> 6 only after the lock time;
# timeTraceable with them, currentUtcOffset 37 from the leapfile. A poller sees every Announce's
# class: never one better than the machine's, nothing out of that order. D-Bus and phcctl agree.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin dbus phcd gmclass

S=tsgm$$ P=tssl$$
LEAPS=/usr/share/zoneinfo/leap-seconds.list
[ -r "$LEAPS" ] || fail "expected tzdata's $LEAPS"
dbus_start "$tmp/bus"
netns_pair "$S" "$P" tsg tss

echo "sync maxerror=2000 tai=37" >"$tmp/sync"
cat >"$tmp/phcd.conf" <<CONF
[global]
time_stamping = software

[instance tgm]
interfaces = tsg
profile = G.8275.1
clock_backend = virtual
time_source = system
leapfile = $LEAPS
holdover_lock_time = 2
holdover_time = 4
holdover_out_of_spec_time = 4
gm_out_of_spec_class = 150
CONF
phcd_start_shimmed "$S" "$tmp/phcd.conf" "$tmp/phcd.log" "$tmp/shim.log" \
	PHCD_CLOCK_SHIM_SYNC="$tmp/sync"
ip netns exec "$P" capsh --drop=cap_sys_time -- -c "exec ptp4l \
	-f /usr/share/doc/linuxptp/configs/G.8275.1.cfg -i tss -s -S -m --free_running 1 --domainNumber 24 \
	--uds_address $tmp/slave.uds" >"$tmp/slave.log" 2>&1 &
BG_PIDS+=($!)
wait_bus_name org.phcd1 10
wait_for "$tmp/slave.log" 'to UNCALIBRATED on RS_SLAVE' 30

# The poller: what the slave holds of its grandmaster five times a second, one line each
# ("SECONDS.ms class timeTraceable currentUtcOffset valid"), repeats dropped.
gm_poller_start "$tmp/slave.uds" 24
t0=$SECONDS

I=/org/phcd1/instance/tgm

expect_class 6 1 20
wait_prop $I Instance ClockMode locked 5
wait_prop $I Instance ReferenceSource system 1
wait_prop $I Instance ReferenceOk true 1
[ "$(prop $I Instance ReferenceMaxError)" = 2000000 ] ||
	fail "ReferenceMaxError: expected 2000000 ns (the kernel's maxerror 2000 us), got $(prop $I Instance ReferenceMaxError)"
[ "$(prop $I Instance ReferenceUtcOffset)" = 37 ] ||
	fail "ReferenceUtcOffset: expected 37 (the kernel's tai), got $(prop $I Instance ReferenceUtcOffset)"
tail -n 1 "$tmp/seen" | grep -q ' 37 1$' ||
	fail "expected the slave's currentUtcOffset 37, valid (the leapfile's), got: $(tail -n 1 "$tmp/seen")"
status=$(ip netns exec "$S" "$BUILD/phcctl/phcctl" status 2>&1 || true)
grep -q 'Time source *: system, ok (the kernel.s clock is synchronized), max error 2000000 ns' \
	<<<"$status" || fail "phcctl status: expected the time source's line, got: $status"
echo "ok: D-Bus ClockMode locked, ReferenceOk, maxerror and TAI offset; phcctl status's line"

# PropertiesChanged: what the machine says reaches a D-Bus client without asking.
"$BUILD/phcctl/phcctl" monitor --json >"$tmp/mon" 2>"$tmp/mon.err" &
BG_PIDS+=($!)
wait_for "$tmp/mon.err" '^Monitoring' 5

echo "unsync maxerror=16000000" >"$tmp/sync"
expect_class 7 1 5
wait_for "$tmp/mon" '"ReferenceOk":false' 3
wait_for "$tmp/mon" '"ClockMode":"holdover"' 3
echo "ok: PropertiesChanged ReferenceOk false and ClockMode holdover"
wait_prop $I Instance ReferenceOk false 3
reason=$(prop $I Instance ReferenceReason)
[[ "$reason" == *"clock is not synchronized (STA_UNSYNC)" ]] ||
	fail "ReferenceReason: expected STA_UNSYNC's, got '$reason'"
expect_class 150 0 10
expect_class 248 0 10

echo "sync maxerror=3000 tai=37" >"$tmp/sync"
flip=$(date +%s.%N)
expect_relock "$flip" "the kernel is synchronized"

# Every class the slave saw, in order: exactly the machine's sequence, nothing better between.
expect_tgm_sequence

# One journal line per transition.
n=$(grep -c 'instance tgm: clock mode ' "$tmp/phcd.log" || true)
[ "$n" = 5 ] || fail "expected 5 clock mode transitions logged (free-run -> locked -> holdover -> holdover-out-of-spec -> free-run -> locked), got $n: $(grep 'clock mode' "$tmp/phcd.log")"
echo "ok: $n transitions, one line each"
# The shim saw no write to CLOCK_REALTIME: the time source only reads the kernel's state.
! grep -q 'clock=0 ' "$tmp/shim.log" || fail "expected no write to CLOCK_REALTIME, the shim logged: $(grep 'clock=0 ' "$tmp/shim.log" | head -n 3)"
echo PASS
