# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by tests/vm/hw-guest.sh in the closed-loop tier, after D and E: T, issue 28's
# time_source = system on a real PHC. phcd, grandmaster (masterOnly) on eth0 with hardware
# timestamps and clock_backend phc, keeps PHC 0 on the guest's CLOCK_REALTIME + 37 s (TAI: the
# kernel's TAI offset, set here) through its PHC followers, and takes its quality from the guest
# kernel's sync state, which this script sets as chronyd would (tool-vm-igb kernel on|off: the
# guest's clock is its own). A ptp4l -H slave (free-running) on eth1 reads the class announced;
# pmc polls its PARENT_DATA_SET, every change logged with its time. In order:
#  - kernel synchronized: ClockMode locked, the slave's grandmasterClockClass 6; then, after
#    TS_SETTLE_S, PHC 0 against CLOCK_REALTIME + 37 s over WINDOW_S (tool-vm-igb track);
#  - STA_UNSYNC set: holdover (7), after holdover_time holdover-out-of-spec (52, the default
#    profile's), after holdover_out_of_spec_time free-run (248);
#  - STA_UNSYNC cleared: locked (6) again, not before holdover_lock_time.
# The host judges (tests/vm/hw.sh).

# ts_mode MODE SECONDS: the instance's D-Bus ClockMode is MODE within SECONDS.
ts_mode() {
	local end=$(($(cut -d. -f1 /proc/uptime) + $2))
	while [ "$($B/busctl --system get-property org.phcd1 /org/phcd1/instance/tgm \
		org.phcd1.Instance ClockMode 2>&1)" != "s \"$1\"" ]; do
		[ "$(cut -d. -f1 /proc/uptime)" -lt $end ] || return 1
		sleep 0.2
	done
}
# ts_class CLASS SECONDS: the slave's grandmasterClockClass is CLASS within SECONDS.
ts_class() {
	local end=$(($(cut -d. -f1 /proc/uptime) + $2))
	while ! tail -n 1 /tmp/ts-classes 2>/dev/null | grep -q " $1\$"; do
		[ "$(cut -d. -f1 /proc/uptime)" -lt $end ] || return 1
		sleep 0.2
	done
}
# ts_step X MODE CLASS SECONDS FROM: both within SECONDS; "VMTEST-T-X SECONDS-SINCE-FROM MODE CLASS".
ts_step() {
	if ts_mode $2 $4 && ts_class $3 $4; then
		echo "VMTEST-T-$1 $(since $5) $2 $3"
	else
		echo "VMTEST-T-$1 never $($B/busctl --system get-property org.phcd1 \
			/org/phcd1/instance/tgm org.phcd1.Instance ClockMode 2>&1) $(tail -n 1 /tmp/ts-classes)"
	fi
}

if want T; then
	cat >/tgm.conf <<CONF
[global]
time_stamping = hardware
tx_timestamp_timeout = $TX_TIMEOUT_MS
logAnnounceInterval = -2
announceReceiptTimeout = 3
logSyncInterval = -3
logMinDelayReqInterval = -3

[instance tgm]
interfaces = eth0
masterOnly = 1
clock_backend = phc
time_source = system
holdover_lock_time = $TS_LOCK_S
holdover_time = $TS_HOLDOVER_S
holdover_out_of_spec_time = $TS_OOS_S
CONF
	echo "VMTEST-T-KERNEL-ON $($B/tool-vm-igb kernel on)"
	# PHC 0 from 1 ms off the guest's TAI: the followers must bring it there.
	$B/phc_ctl /dev/ptp0 set >/dev/null
	$B/phc_ctl /dev/ptp0 adj 0.001 >/dev/null
	start=$(up)
	start_phcd tgm
	$B/ptp4l -i eth1 $PTP4L_OPTS -s --uds_address /run/ptp4l-t >/tmp/ptp4l-t.log 2>&1 &
	echo $! >/tmp/ptp4l.pid
	# The poller: "SECONDS CLASS" at each change of the slave's grandmasterClockClass (5/s).
	(
		last=
		while :; do
			c=$($B/pmc -u -b 0 -s /run/ptp4l-t -i /run/pmc-t 'GET PARENT_DATA_SET' 2>/dev/null |
				sed -n 's/^[[:space:]]*gm.ClockClass[[:space:]]*\([0-9]*\).*/\1/p')
			[ -z "$c" ] || [ "$c" = "$last" ] || { echo "$(up) $c" >>/tmp/ts-classes; last=$c; }
			sleep 0.2
		done
	) &
	echo $! >/tmp/ts-poller.pid
	ts_step LOCKED locked 6 $SLAVE_WAIT_S $start
	say "T: settling ${TS_SETTLE_S}s, then PHC 0 against CLOCK_REALTIME + 37 s for ${WINDOW_S}s"
	sleep $TS_SETTLE_S
	echo "VMTEST-T-TRACK $($B/tool-vm-igb track CLOCK_REALTIME /dev/ptp0 $WINDOW_S 37)"
	echo "VMTEST-T-MAXERROR $($B/busctl --system get-property org.phcd1 /org/phcd1/instance/tgm \
		org.phcd1.Instance ReferenceMaxError 2>&1)"
	echo "VMTEST-T-KERNEL-OFF $($B/tool-vm-igb kernel off)"
	t=$(up)
	ts_step HOLDOVER holdover 7 10 $t
	ts_step OOS holdover-out-of-spec 52 $((TS_HOLDOVER_S + 10)) $t
	ts_step FREERUN free-run 248 $((TS_HOLDOVER_S + TS_OOS_S + 10)) $t
	echo "VMTEST-T-KERNEL-ON2 $($B/tool-vm-igb kernel on)"
	t=$(up)
	ts_step RELOCK locked 6 $((TS_LOCK_S + 20)) $t
	echo "VMTEST-T-CLASSES $(awk -v t0=$start '{ printf "%.1f:%s ", $1 - t0, $2 }' /tmp/ts-classes)"
	echo "VMTEST-T-LOAD $(cut -d' ' -f1-3 /proc/loadavg)"
	stop_all
	grep -Ei 'follow|time source|reference|mode|error|fault' /tmp/tgm.log | head -n 16 |
		sed 's/^/VMTEST: T: phcd log: /'
fi
