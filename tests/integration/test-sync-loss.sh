#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Sync receipt timeout: phcd-port (syncReceiptTimeout 3) follows ptp4l; when the master's Sync
# messages are dropped on the way (a relay, Announce still flowing) the port leaves SLAVE for
# LISTENING within 3 Sync intervals (plus the one in flight and a scheduling margin), says why,
# stays out of SLAVE while Sync is missing, and is SLAVE again once Sync comes back. Then every
# Follow_Up is made to arrive before its Sync: phcd-port still measures each pair. Against
# Debian's ptp4l 3.1.1 and linuxptp 4.2.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin port

# Announce every second, Sync every 2^-1 s: the timeout is 3 x 0.5 s = 1.5 s.
printf '[global]\nlogAnnounceInterval = 0\nannounceReceiptTimeout = 3\nlogSyncInterval = -1\nsyncReceiptTimeout = 3\n' \
	>"$tmp/phcd-port.conf"

# A relay namespace between ptp4l and phcd-port (this kernel has no tc classifiers to drop by
# message type): drop_sync on|off drops the master's Sync messages there, or passes them.
drop_sync() {
	if [ "$1" = on ]; then echo drop-sync >"$tmp/relay-mode"; else echo pass >"$tmp/relay-mode"; fi
}

run() { # PTP4L_VERSION
	local v=${1//./} A B R ia ib log from t0 t1 ms n
	A=psla$$$v B=pslb$$$v R=pslr$$$v ia=sl${v}a ib=sl${v}b log=$tmp/$v
	drop_sync off
	netns_pair "$A" "$R" "$ia" "r$ia"
	netns_add "$B"
	veth_add "$B" "$ib" "$R" "r$ib"
	ip netns exec "$R" python3 "$SRC/tests/lib/ptp-relay.py" "r$ia" "r$ib" "$tmp/relay-mode" \
		>"$log-relay" 2>&1 &
	BG_PIDS+=($!)
	ptp4l_start "$A" "$ia" "$log-ptp4l" --priority1 100 --logSyncInterval -1
	phcd_port_start "$B" "$ib" "$log-phcd" --clock virtual --every-sample
	wait_for "$log-phcd" 'UNCALIBRATED to SLAVE on MASTER_CLOCK_SELECTED' 60
	wait_lines "$log-phcd" 'master offset' 5 15

	from=$(wc -l <"$log-phcd")
	drop_sync on
	t0=$(date +%s%N)
	wait_for "$log-phcd" 'SLAVE to LISTENING on SYNC_RECEIPT_TIMEOUT_EXPIRES' 10 "$from"
	t1=$(date +%s%N)
	ms=$(((t1 - t0) / 1000000))
	# 3 intervals of 0.5 s after the last Sync (which came up to 0.5 s before the drop), plus
	# 1 s for the polling and a loaded machine.
	[ "$ms" -le 3000 ] || fail "ptp4l $1: left SLAVE ${ms} ms after Sync stopped, expected <= 3000"
	echo "ok: ptp4l $1: Sync dropped, phcd-port left SLAVE for LISTENING after ${ms} ms"
	from=$(wc -l <"$log-phcd")
	test_duration 5 "Announce keeps coming: it must not become SLAVE without Sync"
	if tail -n +"$((from + 1))" "$log-phcd" | grep -q 'to SLAVE'; then
		fail "ptp4l $1: SLAVE again without Sync: $(tail -n +"$((from + 1))" "$log-phcd" | grep 'to SLAVE')"
	fi
	if tail -n +"$((from + 1))" "$log-phcd" | grep -q 'to MASTER'; then
		fail "ptp4l $1: became MASTER while ptp4l still announces"
	fi
	from=$(wc -l <"$log-phcd")
	drop_sync off
	wait_for "$log-phcd" 'UNCALIBRATED to SLAVE on MASTER_CLOCK_SELECTED' 30 "$from"
	echo "ok: ptp4l $1: Sync back, phcd-port SLAVE again"

	# Reordered: every Follow_Up now arrives before its Sync. Each pair is still measured
	# (2 Syncs a second: at least 15 offsets in 10 s), none of the Follow_Ups thrown away.
	from=$(wc -l <"$log-phcd")
	echo swap-sync >"$tmp/relay-mode"
	test_duration 10 "10 s of reordered pairs"
	n=$(tail -n +"$((from + 1))" "$log-phcd" | grep -c 'master offset' || true)
	[ "$n" -ge 15 ] || fail "ptp4l $1: $n offsets in 10 s with each Follow_Up before its Sync, expected >= 15"
	if tail -n +"$((from + 1))" "$log-phcd" | grep -q 'SLAVE to '; then
		fail "ptp4l $1: left SLAVE with reordered Follow_Ups"
	fi
	echo "ok: ptp4l $1: every Follow_Up before its Sync: $n offsets in 10 s, still SLAVE"
}

reference_linuxptp
for i in "${!REF_VERSIONS[@]}"; do
	PTP4L_DIR=${REF_DIRS[$i]}
	run "${REF_VERSIONS[$i]}"
done
