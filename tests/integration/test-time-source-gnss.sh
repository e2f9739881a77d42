#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 28, a grandmaster fed by a real gpsd: Debian's gpsd reads NMEA that nmea-pty.py writes to
# a pseudo-terminal with the current time; phcd (profile G.8275.1, a virtual clock over
# CLOCK_REALTIME, time_source gnss, gpsd_address on the namespace's loopback) is the grandmaster
# of a ptp4l 3.1.1 slave (linuxptp's G.8275.1.cfg, domain 24, --free_running 1).
# The slave's PARENT_DATA_SET and TIME_PROPERTIES_DATA_SET follow the T-GM classes as the receiver
# has its fix, loses it and gets it back: fix -> 6 (after holdover_lock_time), no fix -> 7, after
# holdover_time -> 150 (gm_out_of_spec_class), after holdover_out_of_spec_time -> 248, fix again ->
# 6 only after the lock time; timeTraceable with them; currentUtcOffset 37 from the receiver
# (gpsd's leapseconds 18 from Garmin's PGRMF, + 19), no leapfile. Then gpsd itself goes: not 6.
# D-Bus ReferenceSource gnss, ReferenceReason gpsd's. The host's clock is never touched: phcd
# runs without CAP_SYS_TIME on a virtual clock, gpsd never sets a clock (docs/testing.md).
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin dbus phcd gnss gmclass

command -v gpsd >/dev/null || fail "gpsd is not installed (scripts/deps.sh installs it)"
S=tgnm$$ P=tgns$$
dbus_start "$tmp/bus"
netns_pair "$S" "$P" tgg tgs
ip -n "$S" link set lo up
gnss_receiver_start
gpsd_start "$S"

cat >"$tmp/phcd.conf" <<CONF
[global]
time_stamping = software

[instance tgm]
interfaces = tgg
profile = G.8275.1
clock_backend = virtual
time_source = gnss
gpsd_address = localhost:2947
holdover_lock_time = 2
holdover_time = 4
holdover_out_of_spec_time = 4
gm_out_of_spec_class = 150
CONF
phcd_start "$S" "$tmp/phcd.conf" "$tmp/phcd.log"
ip netns exec "$P" capsh --drop=cap_sys_time -- -c "exec ptp4l \
	-f /usr/share/doc/linuxptp/configs/G.8275.1.cfg -i tgs -s -S -m --free_running 1 --domainNumber 24 \
	--uds_address $tmp/slave.uds" >"$tmp/slave.log" 2>&1 &
BG_PIDS+=($!)
wait_bus_name org.phcd1 10
wait_for "$tmp/slave.log" 'to UNCALIBRATED on RS_SLAVE' 30
gm_poller_start "$tmp/slave.uds" 24
I=/org/phcd1/instance/tgm

# 1. The receiver has a fix: locked, class 6, the UTC offset the receiver says.
expect_class 6 1 30
wait_prop $I Instance ClockMode locked 5
wait_prop $I Instance ReferenceSource gnss 1
wait_prop $I Instance ReferenceOk true 1
[ "$(prop $I Instance ReferenceUtcOffset)" = 37 ] ||
	fail "ReferenceUtcOffset: expected 37 (gpsd's leapseconds 18 + 19), got $(prop $I Instance ReferenceUtcOffset)"
tail -n 1 "$tmp/seen" | grep -q ' 37 1$' ||
	fail "expected the slave's currentUtcOffset 37, valid (from the receiver), got: $(tail -n 1 "$tmp/seen")"
echo "ok: gpsd's fix: ClockMode locked, ReferenceSource gnss, ReferenceUtcOffset 37, on the slave too"

# 2. The fix lost: holdover (7), then out of specification (150), then free-run (248).
echo nofix >"$tmp/gnss-control"
expect_class 7 1 10
reason=$(prop $I Instance ReferenceReason)
[[ "$reason" == *"no fix"* ]] || fail "ReferenceReason: expected gpsd's no fix, got '$reason'"
expect_class 150 0 10
expect_class 248 0 10

# 3. The fix back: 6 again only after the lock time.
echo fix >"$tmp/gnss-control"
flip=$(date +%s.%N)
expect_relock "$flip" "the fix came back"

# Every class the slave saw, in order: exactly the machine's sequence, nothing better between.
expect_tgm_sequence

# 4. gpsd itself gone: holdover, the reason says so.
test_stop "$GPSD_PID"
expect_class 7 1 10
wait_prop $I Instance ReferenceOk false 3
reason=$(prop $I Instance ReferenceReason)
[[ "$reason" == *"gpsd"* ]] || fail "ReferenceReason: expected gpsd's loss, got '$reason'"
echo "ok: gpsd gone: class 7, ReferenceReason '$reason'"
echo PASS
