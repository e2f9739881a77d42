#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Guest side of tests/bench/sync-time-vm.sh: two igb NICs on one hub, eth0 a ptp4l -H grandmaster
# (free-running, PHC 0 50 ppm fast), eth1 the slave seat. Each run starts, one after the other in
# a rotating order, phcd with clock_servo pi, phcd with linreg (clock_backend phc: its worker
# steers PHC 1) and ptp4l -H -s steering PHC 1, every one with PHC 1 first set back to its own
# rate and 1 ms off; default intervals (Announce 1/s, Sync 1/s, announceReceiptTimeout 3).
# Prints "VMTEST-T RUN WHO SECONDS" from start to phcd's Synchronized (phcctl wait-sync) or to
# ptp4l's first s2, and "VMTEST-DONE" (tests/vm/guest-lib.sh).
. /guest-lib.sh
guest_boot 1
. /st.env
guest_dbus

$B/phc_ctl /dev/ptp0 freq 50000 >/dev/null
# linuxptp's defaults are the intervals measured: Announce 1/s, Sync 1/s, receipt timeout 3.
$B/ptp4l -i eth0 -2 -H -m --free_running 1 --masterOnly 1 --tx_timestamp_timeout $TX_TIMEOUT_MS \
	--uds_address /run/ptp4l-gm >/tmp/gm.log 2>&1 &
sleep 4

# PHC 1 back to its own rate (the grandmaster's minus 50 ppm) and 1 ms off.
reset_phc() {
	$B/phc_ctl /dev/ptp1 freq 0 >/dev/null
	$B/phc_ctl /dev/ptp1 adj 0.001 >/dev/null
}
phcd_run() { # RUN SERVO
	cat >/st.conf <<EOF
[global]
time_stamping = hardware
tx_timestamp_timeout = $TX_TIMEOUT_MS
logging_level = 7

[instance st]
interfaces = eth1
clock_backend = phc
clock_servo = $2
slaveOnly = 1
EOF
	reset_phc
	t0=$(up)
	$B/phcd -f /st.conf --port-binary $B/phcd-port --uds '' --uds-ro '' >/tmp/phcd-$1-$2.log 2>&1 &
	pid=$!
	if $B/phcctl wait-sync --timeout $LIMIT_S >/dev/null 2>&1; then
		t1=$(up)
		echo "VMTEST-T $1 $2 $(awk -v a=$t0 -v b=$t1 'BEGIN { printf "%.2f", b - a }')"
	else
		echo "VMTEST-T $1 $2 none"
	fi
	grep -E 'master offset|SLAVE|UNCALIBRATED' /tmp/phcd-$1-$2.log | head -n 6 |
		sed "s/^/VMTEST: run $1 $2: /"
	kill $pid
	wait $pid
}
ptp4l_run() { # RUN
	reset_phc
	t0=$(up)
	# -m stamps its lines with CLOCK_MONOTONIC, which /proc/uptime equals in a guest that never
	# suspends.
	$B/ptp4l -i eth1 -2 -H -m -s --tx_timestamp_timeout $TX_TIMEOUT_MS \
		--uds_address /run/ptp4l-s >/tmp/ptp4l-$1.log 2>&1 &
	pid=$!
	end=$(($(cut -d. -f1 /proc/uptime) + LIMIT_S))
	while ! grep -q ' s2 ' /tmp/ptp4l-$1.log && [ "$(cut -d. -f1 /proc/uptime)" -lt $end ]; do
		sleep 0.2
	done
	t1=$(sed -n 's/^ptp4l\[\([0-9.]*\)\]:.* s2 .*/\1/p' /tmp/ptp4l-$1.log | head -n 1)
	if [ -n "$t1" ]; then
		echo "VMTEST-T $1 ptp4l $(awk -v a=$t0 -v b=$t1 'BEGIN { printf "%.2f", b - a }')"
	else
		echo "VMTEST-T $1 ptp4l none"
	fi
	grep -E 'master offset|SLAVE|UNCALIBRATED' /tmp/ptp4l-$1.log | head -n 6 |
		sed "s/^/VMTEST: run $1 ptp4l: /"
	kill $pid
	wait $pid
}
one() { # RUN WHO
	# A random phase against the grandmaster's Announce and Sync (once a second each): started
	# back to back, every contender met nearly the same one.
	sleep 0.$(printf %03d $((RANDOM % 1000)))
	case $2 in
	ptp4l) ptp4l_run $1 ;;
	*) phcd_run $1 $2 ;;
	esac
}

r=1
while [ $r -le $RUNS ]; do
	case $((r % 3)) in
	1) order="pi linreg ptp4l" ;;
	2) order="linreg ptp4l pi" ;;
	0) order="ptp4l pi linreg" ;;
	esac
	for who in $order; do one $r $who; done
	r=$((r + 1))
done
grep -Ei 'fault|timeout|without' /tmp/gm.log | head -n 5 | sed 's/^/VMTEST: grandmaster: /'
echo "VMTEST-DONE at $(up)s"
poweroff -f
