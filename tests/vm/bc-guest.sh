#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The boundary-clock scenario's guest side (tests/vm/bc.sh builds the initramfs and judges the
# output): eth0..eth3, four igb NICs with their own PHCs (ptp0..ptp3), eth0+eth1 on hub 0,
# eth2+eth3 on hub 1. Lines for the host start with VMTEST (tests/vm/guest-lib.sh).
. /guest-lib.sh
guest_boot 3
. /bc.env

prop() { # PORT PROPERTY
	$B/busctl --system get-property org.phcd1 /org/phcd1/port/$1 org.phcd1.Port $2 2>&1
}
iprop() { # PROPERTY
	$B/busctl --system get-property org.phcd1 /org/phcd1/instance/bc org.phcd1.Instance $1 2>&1
}
wait_prop() { # PORT PROPERTY VALUE SECONDS
	local end=$(($(cut -d. -f1 /proc/uptime) + $4))
	while [ "$(prop $1 $2)" != "$3" ]; do
		[ "$(cut -d. -f1 /proc/uptime)" -lt $end ] || return 1
		sleep 0.5
	done
}

guest_dbus

# The errors to remove: the grandmaster's PHC 50 ppm fast, every other PHC 1 ms off.
$B/phc_ctl /dev/ptp0 freq 50000 >/dev/null
for n in 1 2 3; do $B/phc_ctl /dev/ptp$n adj 0.001 >/dev/null; done

OPTS="-2 -H -m --tx_timestamp_timeout $TX_TIMEOUT_MS --logAnnounceInterval -2
	--announceReceiptTimeout 3 --logSyncInterval -3 --logMinDelayReqInterval -3"
# The grandmaster measures nothing (free-running: it steers no PHC anyway).
$B/ptp4l -i eth0 $OPTS --free_running 1 --masterOnly 1 --uds_address /run/ptp4l-gm \
	>/tmp/ptp4l-gm.log 2>&1 &
cat >/bc.conf <<EOF
[global]
time_stamping = hardware
tx_timestamp_timeout = $TX_TIMEOUT_MS
logging_level = 7
logAnnounceInterval = -2
announceReceiptTimeout = 3
logSyncInterval = -3
logMinDelayReqInterval = -3

[instance bc]
interfaces = eth1 eth2
clock_backend = phc
priority1 = 200
EOF
$B/phcd -f /bc.conf --port-binary $B/phcd-port --uds '' --uds-ro '' >/tmp/bc.log 2>&1 &
# The downstream slave steers its own PHC 3 (the guest's: nothing of the host's).
# --summary_interval -3: one "master offset" line a sample.
$B/ptp4l -i eth3 $OPTS -s --summary_interval -3 --uds_address /run/ptp4l-s >/tmp/ptp4l-s.log 2>&1 &
start=$(up)
if wait_prop eth1 State 's "SLAVE"' $SLAVE_WAIT_S; then
	say "phcd eth1 SLAVE at $(up)s (started ${start}s); running ${BC_S}s"
	sleep $BC_S
fi
echo "VMTEST-A-STATE $(prop eth1 State)"
echo "VMTEST-B-STATE $(prop eth2 State)"
echo "VMTEST-A-ERROR $(prop eth1 LastError)"
echo "VMTEST-B-ERROR $(prop eth2 LastError)"
echo "VMTEST-FOLLOWERS $(iprop PhcFollowers)"
echo "VMTEST-SYNC $(iprop Synchronized)"
# Over 20 s: the servo's phase corrections (a microsecond or two) stay under 100 ppb of it.
echo "VMTEST-RATE21 $($B/tool-vm-igb rate /dev/ptp2 /dev/ptp1 20)"
echo "VMTEST-STEPS $($B/pmc -u -b 0 -s /run/ptp4l-s -i /tmp/pmc.sock 'GET CURRENT_DATA_SET' 2>&1 |
	sed -n 's/^[[:space:]]*stepsRemoved[[:space:]]*\([0-9]*\).*/\1/p' | head -n 1)"
# The slave's offsets over the second half of the run: n, mean, p99 and max of |offset|.
grep 'master offset' /tmp/ptp4l-s.log |
	sed -n 's/.*master offset *\(-\?[0-9]*\) .*/\1/p' >/tmp/offs
total=$(wc -l </tmp/offs)
tail -n $((total / 2)) /tmp/offs >/tmp/half
mean=$(awk '{ s += $1 } END { printf "%d", NR ? s / NR : 0 }' /tmp/half)
awk '{ print $1 < 0 ? -$1 : $1 }' /tmp/half | sort -n >/tmp/abs
n=$(wc -l </tmp/abs)
pct() { awk -v q=$1 '{ v[NR] = $1 } END { i = int(NR * q + 0.5); if (i < 1) i = 1; print NR ? v[i] : 0 }' /tmp/abs; }
echo "VMTEST-SLAVE-STATS $n $mean $(pct 0.5) $(pct 0.99) $(tail -n 1 /tmp/abs)"
grep 'master offset' /tmp/ptp4l-s.log | tail -n 3 | sed 's/^/VMTEST: ptp4l slave: /'
grep -E 'follow|FAULTY|error|refused|step' /tmp/bc.log | grep -v 'offset from' | head -n 20 |
	sed 's/^/VMTEST: phcd log: /'
# Every sample, for diagnosis on the host: the follower's, phcd's SLAVE port's, the slave's.
grep 'offset from /dev/ptp' /tmp/bc.log | sed 's/^/VMTEST-SERIES-FOLLOW /'
grep 'master offset' /tmp/bc.log | sed 's/^/VMTEST-SERIES-PHCD /'
grep 'master offset' /tmp/ptp4l-s.log | sed 's/^/VMTEST-SERIES-SLAVE /'
grep -Ei 'fault|timeout|without' /tmp/ptp4l-s.log /tmp/ptp4l-gm.log | head -n 5 |
	sed 's/^/VMTEST: ptp4l log: /'
echo "VMTEST-DONE at $(up)s"
poweroff -f
