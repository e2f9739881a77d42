#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Hardware tier (in the default test command): a QEMU (TCG) guest with two igb NICs on one hub,
# each with its PTP hardware clock, stock QEMU 10 from bookworm-backports. In it:
#  - the full phcd supervisor finds both PHCs over ethtool netlink (--list-interfaces);
#  - A: ptp4l -H master on eth1, phcd (time_stamping hardware, clock_backend virtual) slave on
#    eth0: D-Bus says TimestampingMode "hardware", PhcIndex 0 and the receive filter, the port
#    reaches SLAVE, and phcd's frequency learns the +50 ppm imposed on the master's PHC to
#    within FREQ_TOL_PPB;
#  - B: roles swapped, phcd MASTER on eth0, ptp4l -H slave (free-running) measuring it;
#  - both: every event message sent was stamped in hardware (a missing TX stamp fails the
#    send: ptp4l logs a timeout, phcd's port goes FAULTY), and every one received that the
#    kernel delivered with a hardware timestamp was taken with it: phcd's and ptp4l's
#    "no timestamp" counts never exceed the frames that arrived unstamped, counted in the guest
#    by a packet socket of tool-vm-igb with SO_TIMESTAMPING;
#  - W: over UDP/IPv4 (network_transport UDPv4), phcd MASTER on eth0 sends every Sync with its
#    hardware TX timestamp to a ptp4l -4 -H slave on eth1. Stock QEMU's igb stamps UDP frames on
#    transmit but never on receipt (bug (d) in docs/testing.md: it models only the ETQF
#    ethertype filter, not the 5-tuple filter Linux's igb programs for UDP port 319), so ptp4l
#    gets them unstamped and phcd cannot be a UDP slave here: the UDPv4 exchange with hardware
#    timestamps both ways is scenario U of the opt-in closed-loop tier
#    (tests/vm/closed-loop.sh, PHCD_TEST_VM_QEMUFIX=1).
# QEMU's igb drops RX timestamps (bugs (a), (b) in docs/testing.md): the guest runs
# tool-vm-igb quirks to compensate, a workaround for QEMU, nothing phcd needs on real NICs.
# Bug (a) still costs the frames that arrive while the previous stamp is latched (a few per
# cent under TCG); at most MAX_UNSTAMPED_PCT of them, or the tier fails. The opt-in closed-loop
# tier (PHCD_TEST_VM_QEMUFIX=1, a QEMU with the bugs fixed) requires none missing.
#
# Usage: tests/vm/hw.sh [WORKDIR] (default build-vm/, shared with tests/vm/run.sh).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(realpath -m "${1:-$top/build-vm}")
# PHCD_VM_CLOSED_LOOP=1 (tests/vm/closed-loop.sh, with PHCD_VM_QEMU naming a fixed QEMU): no
# workaround in the guest, clock_backend phc, no event message without its timestamp.
CLOSED=${PHCD_VM_CLOSED_LOOP:-0}
if [ "$CLOSED" = 1 ]; then
	FREQ_TOL_PPB=${PHCD_VM_FREQ_TOL_PPB:-500}
	MAX_UNSTAMPED_PCT=0
	SYS_BOUND_NS=${PHCD_VM_SYS_BOUND_NS:-100000}
	# C: phcd's PHC's median and p99 |PHC - grandmaster's PHC| at most C_FACTOR times ptp4l's
	# on the same seat (or C_FLOOR_NS); "locked": 40 samples within LOCK_NS.
	C_FACTOR=${PHCD_VM_C_FACTOR:-3}
	C_FLOOR_NS=${PHCD_VM_C_FLOOR_NS:-2000}
	# A, S, D, E: the guest's CLOCK_REALTIME against the grandmaster's PHC 1 over the window,
	# bounds on the median and p95 of |offset| (ns). Hardware timestamps: phcd steering it alone
	# (A) and chronyd on the PHC phcd steers (E), seen at medians 0.23-1.44 us and p95 0.66-3.72
	# us in five runs: 5 and 20 us. Software timestamps: phcd alone (S, two runs) and chronyd on
	# phcd's SOCK samples (D, four), seen at medians 61-295 us and p95 150-732 us (TCG delivers
	# the stamps late, never early): 1 and 2 ms. About 3-5 times the worst, for the host's load,
	# which moves TCG's timing. Figures in docs/performance.md ("The guest's CLOCK_REALTIME").
	SYS_GM_A=${PHCD_VM_SYS_GM_A:-"5000 20000"}
	SYS_GM_D=${PHCD_VM_SYS_GM_D:-"1000000 2000000"}
	SYS_GM_E=${PHCD_VM_SYS_GM_E:-"5000 20000"}
	# T: PHC 0, kept by phcd's PHC followers on CLOCK_REALTIME + 37 s (time_source = system), read
	# against it: CLOCK_REALTIME + 37 s - PHC 0, seen at median 139 ns, p95 345 ns, max 621 ns
	# (first run); the bounds A's, the same read of CLOCK_REALTIME against a PHC under TCG.
	SYS_GM_T=${PHCD_VM_SYS_GM_T:-"5000 20000"}
	CHRONY_SELECT_S=${PHCD_VM_CHRONY_SELECT_S:-90}
	tier="closed-loop tier"
else
	FREQ_TOL_PPB=${PHCD_VM_FREQ_TOL_PPB:-1000}
	MAX_UNSTAMPED_PCT=${PHCD_VM_MAX_UNSTAMPED_PCT:-10}
	tier="hardware tier"
fi

LOCK_NS=${PHCD_VM_LOCK_NS:-50000}
# T: the instance's holdover_lock_time, holdover_time and holdover_out_of_spec_time (s).
TS_LOCK_S=${PHCD_VM_TS_LOCK_S:-3}
TS_HOLDOVER_S=${PHCD_VM_TS_HOLDOVER_S:-8}
TS_OOS_S=${PHCD_VM_TS_OOS_S:-8}
# PHCD_VM_ONLY: a subset of the scenarios, for diagnosis; the tier then judges those and fails.
ALL=$([ "$CLOSED" = 1 ] && echo ABCSDETU || echo ABCW)
ONLY=${PHCD_VM_ONLY:-$ALL}
want() { case "$ONLY" in *$1*) return 0 ;; esac; return 1; }
not_run() {
	echo "$tier: NOT RUN: $*" >&2
	exit 1
}
fail() {
	echo "FAIL: $*" >&2
	exit 1
}

[ "$(id -u)" -eq 0 ] || not_run "needs root (apt-get for QEMU 10 from bookworm-backports)"
"$top/tests/vm/setup.sh" "$work" || not_run "tests/vm/setup.sh could not provide QEMU 10 + kernel"
. "$top/tests/vm/lib.sh"

vm_build "$work" daemon/phcd worker/phcd-port tests/vm/tool-vm-igb
# Closed loop, D and E: Debian's chronyd and chronyc (tests/vm/chrony-guest.sh).
chrony=()
if [ "$CLOSED" = 1 ]; then
	for b in chronyd chronyc; do
		command -v $b >/dev/null || not_run "$b missing (Debian's chrony, scripts/deps.sh)"
		chrony+=("$(command -v $b)")
	done
	[ -e /usr/share/zoneinfo/right/UTC ] || not_run "/usr/share/zoneinfo/right/UTC missing (tzdata)"
fi
ird=$work/initramfs-hw
vm_initramfs "$work" "$ird" "$work/build/daemon/phcd" "$work/build/worker/phcd-port" \
	"$work/build/tests/vm/tool-vm-igb" "$(command -v ptp4l)" "$(command -v phc_ctl)" \
	"$(command -v dbus-daemon)" "$(command -v busctl)" "$(command -v pmc)" "${chrony[@]}"
vm_dbus_config "$ird"
cp "$top/tests/vm/hw-guest.sh" "$ird/init"
# Closed loop: the guest side of D and E, and the leap second table chronyd's `tai` reads.
if [ "$CLOSED" = 1 ]; then
	mkdir -p "$ird/usr/share/zoneinfo/right"
	cp /usr/share/zoneinfo/right/UTC "$ird/usr/share/zoneinfo/right/"
	cp "$top/tests/vm/chrony-guest.sh" "$ird/chrony-guest.sh"
	cp "$top/tests/vm/ts-guest.sh" "$ird/ts-guest.sh"
fi
cat >"$ird/hw.env" <<EOF
SLAVE_WAIT_S=${PHCD_VM_SLAVE_WAIT_S:-90}
LEARN_S=${PHCD_VM_LEARN_S:-40}
WINDOW_S=${PHCD_VM_WINDOW_S:-60}
SETTLE_S=${PHCD_VM_SETTLE_S:-30}
LOCK_NS=$LOCK_NS
MEAN_SAMPLES=${PHCD_VM_MEAN_SAMPLES:-120}
MASTER_S=${PHCD_VM_MASTER_S:-20}
TX_TIMEOUT_MS=${PHCD_VM_TX_TIMEOUT_MS:-400}
ONLY=$ONLY
CHRONY_SELECT_S=${CHRONY_SELECT_S:-0}
CHRONY_SETTLE_S=${PHCD_VM_CHRONY_SETTLE_S:-60}
TS_LOCK_S=$TS_LOCK_S
TS_HOLDOVER_S=$TS_HOLDOVER_S
TS_OOS_S=$TS_OOS_S
TS_SETTLE_S=${PHCD_VM_TS_SETTLE_S:-20}
U_TRANSPORT=${PHCD_VM_U_TRANSPORT:-UDPv4}
QUIRKS=$((1 - CLOSED))
BACKEND=$([ "$CLOSED" = 1 ] && echo phc || echo virtual)
EOF
log=$work/serial-hw.log
started=$(date +%s)
load0=$(cut -d' ' -f1-3 /proc/loadavg)
# Closed loop: a third NIC on the same hub for C (phcd and ptp4l side by side as slaves).
if [ "$CLOSED" = 1 ]; then
	vm_boot "$ird" "$log" 1800 3 "iomem=relaxed" "0 0 0"
	want_phcs=0,1,2
else
	vm_boot "$ird" "$log" 600 2 "iomem=relaxed"
	want_phcs=0,1
fi
echo "$tier: guest ran $(($(date +%s) - started)) s; host load average (1, 5, 15 min) before $load0, after $(cut -d' ' -f1-3 /proc/loadavg)"
v() { tr -d '\r' <"$log" | sed -n "s/^VMTEST-$1 //p" | tail -n 1; }
tr -d '\r' <"$log" | grep '^VMTEST: ' | sed 's/^VMTEST: //'
[ -n "$(v DONE)" ] || fail "the guest did not finish its script (see $log)"

# Discovery.
phcs=$(jq -r '[.[] | select(.phc_index >= 0) | .phc_index] | sort | join(",")' <<<"$(v JSON)")
[ "$phcs" = "$want_phcs" ] ||
	fail "phcd --list-interfaces in the guest: expected PHCs $want_phcs, got '$phcs'"
echo "ok: phcd --list-interfaces (ethtool netlink) finds every igb PHC: $phcs"

# sys_judge LABEL TRACK MEDIAN_NS P95_NS [CLOCK]: the guest's CLOCK_REALTIME + 37 s against the
# grandmaster's PHC 1, or CLOCK (tool-vm-igb track CLOCK_REALTIME's line): |offset| median and p95
# within their bounds; the figures kept for the summary.
sys_figures=()
sys_judge() {
	local n med p95 max ref=${5:-"grandmaster's PHC 1"}
	read -r _ _ _ _ _ _ _ n _ med _ _ p95 max <<<"$2"
	[ "${n:-0}" -gt 0 ] && [ -n "${max:-}" ] ||
		fail "$1: no reads of CLOCK_REALTIME against the $ref ('$2')"
	sys_figures+=("$1, against the $ref: median $med, p95 $p95, max $max ns ($n reads)")
	[ "$med" -le "$3" ] && [ "$p95" -le "$4" ] ||
		fail "$1: expected |CLOCK_REALTIME + 37 s - $ref| median <= $3 ns and" \
			"p95 <= $4 ns over the window, got median $med, p95 $p95, max $max ns ($n reads)"
	echo "ok: $1: |CLOCK_REALTIME + 37 s - $ref| median $med, p95 $p95, max" \
		"$max ns over $n reads (bounds: median $3, p95 $4 ns)"
}

# counter NAME COUNTERS: one value of "rx_sync=12 tx_sync=0 ..."
counter() { tr ' ' '\n' <<<"$2" | sed -n "s/^$1=//p"; }
# stamped_strict ROLE NIC WHO MISSING: no event message received without its timestamp. An
# 82576 latches one RX timestamp until the driver reads it: a starved TCG guest whose driver reads
# late leaves the next event message unstamped. One is tolerated and reported, as ptp4l's TX
# timeouts are; more fail.
stamped_strict() {
	[ "$4" -le 1 ] ||
		fail "$1: $3 on $2 got $4 event messages without a timestamp (at most 1 under TCG)"
	if [ "$4" = 0 ]; then
		echo "ok: $1: $3 on $2: every event message received with its hardware timestamp"
	else
		echo "ok: $1: $3 on $2: ONE event message received without a timestamp (at most 1" \
			"tolerated under TCG: one RX latch, read late by a starved guest)"
	fi
}
# nic_stamped ROLE NIC WHO MISSING: WHO's count of event messages received without a timestamp
# on NIC against the frames the NIC left unstamped (tool-vm-igb's count); on a fixed QEMU, none.
nic_stamped() {
	local frames unst
	if [ "$CLOSED" = 1 ]; then
		stamped_strict "$@"
		return
	fi
	read -r frames unst <<<"$(v "$1-QUIRKS-$2")"
	[ "${frames:-0}" -gt 0 ] || fail "$1: no stamped-type frame counted on $2"
	[ "$4" -le "$unst" ] ||
		fail "$1: $3 on $2 counted $4 event messages without a timestamp, but only $unst of" \
			"$frames arrived without one: a hardware timestamp was lost on the way"
	[ $((unst * 100)) -le $((frames * MAX_UNSTAMPED_PCT)) ] ||
		fail "$1: $2 left $unst of $frames frames unstamped (QEMU bug (a)), more than" \
			"$MAX_UNSTAMPED_PCT%"
	echo "ok: $1: $3 on $2: $frames event frames, $((frames - unst)) with a hardware timestamp," \
		"all taken with it ($3 counted $4 without; $unst arrived unstamped, QEMU bug (a))"
}
# ptp4l_tx ROLE TIMEOUTS: ptp4l's own TX timestamps in a starved TCG guest (its driver skips a
# stamp while one is in flight): reported, one tolerated (its port recovers), more fail.
ptp4l_tx() {
	[ "${2:-0}" -le 1 ] || fail "$1: ptp4l timed out on $2 TX timestamps (tx_timestamp_timeout $TX_TIMEOUT_MS ms)"
	echo "ok: $1: ptp4l TX timestamp timeouts: ${2:-0} (at most 1 tolerated under TCG)"
}
# phcd_counters ROLE COUNTERS RX_TYPE TX_TYPE: messages flowed both ways.
phcd_counters() {
	local rx tx
	rx=$(counter "rx_$3" "$2")
	tx=$(counter "tx_$4" "$2")
	[ "${rx:-0}" -gt 0 ] && [ "${tx:-0}" -gt 0 ] ||
		fail "$1: expected rx_$3 > 0 and tx_$4 > 0, got rx_$3=${rx:-none} tx_$4=${tx:-none}"
	echo "ok: $1: phcd took $rx $3 and sent $tx $4, each send with its hardware TX timestamp" \
		"(a missing one fails the send and the port)"
}

# The rate imposed on the grandmaster's PHC 1, measured before A.
rate=$(v RATE | sed -n 's/^rate \(-\?[0-9.]*\) ppb$/\1/p')

# slave_judge X STAMPED FILTER...: phcd slave of a ptp4l -H master in scenario X (A, U): SLAVE,
# hardware timestamps on PHC 0 with one of the receive filters, messages both ways, each event
# message received judged by STAMPED (nic_stamped, stamped_strict), no error; then its frequency:
# the imposed rate learnt (clock_backend virtual: phcd's logged frequency; phc: PHC 0 read
# against the grandmaster's PHC 1 in the guest).
slave_judge() {
	local x=$1 stamped=$2 f filters=
	shift 2
	[ "$(v $x-SLAVE)" = 1 ] ||
		fail "$x: phcd on eth0 did not reach SLAVE (State $(v $x-STATE), LastError $(v $x-ERROR))"
	[ "$(v $x-MODE)" = 's "hardware"' ] && [ "$(v $x-PHC)" = "i 0" ] ||
		fail "$x: expected D-Bus TimestampingMode \"hardware\" and PhcIndex 0, got $(v $x-MODE), $(v $x-PHC)"
	echo "ok: $x: phcd SLAVE of ptp4l -H; D-Bus TimestampingMode $(v $x-MODE), PhcIndex $(v $x-PHC)"
	for f in "$@"; do
		[ "$(v $x-FILTER)" != "s \"$f\"" ] || filters=ok
	done
	[ -n "$filters" ] ||
		fail "$x: expected TimestampingRxFilter $* (igb widens ptpv2-l2-event and ptpv2-l4-event)," \
			"got $(v $x-FILTER)"
	echo "ok: $x: D-Bus TimestampingRxFilter $(v $x-FILTER) (chosen from the driver's TSINFO rx_filters, read back)"
	phcd_counters $x "$(v $x-COUNTERS)" sync delay_req
	$stamped $x eth0 phcd "$(counter ignored_no_timestamp "$(v $x-COUNTERS)")"
	$stamped $x eth1 ptp4l "$(v $x-PTP4L-NOTS)"
	[ "$(v $x-ERROR)" = 's ""' ] || fail "$x: phcd's LastError: expected none, got $(v $x-ERROR)"
	echo "ok: $x: phcd's LastError empty: no TX timestamp timeout, no failed action"
	ptp4l_tx $x "$(v $x-PTP4L-TXTO)"
	read -r freq nfreq <<<"$(v $x-FREQ)"
	[ -n "$rate" ] && [ -n "${freq:-}" ] || fail "$x: no imposed rate ('$(v RATE)') or no phcd frequency"
	if [ "$CLOSED" = 0 ]; then
		awk -v r="$rate" -v f="$freq" -v t="$FREQ_TOL_PPB" \
			'BEGIN { d = f - r; if (d < 0) d = -d; exit !(r > 40000 && d <= t) }' ||
			fail "$x: expected phcd's frequency within $FREQ_TOL_PPB ppb of the imposed $rate ppb," \
				"got $freq ppb (median of $nfreq samples)"
		echo "ok: $x: phcd (clock_backend virtual, PHC 0) learnt the imposed $rate ppb: median" \
			"freq $freq ppb of its last $nfreq samples (tolerance $FREQ_TOL_PPB ppb)"
		return
	fi
	# The verdict from the clocks: PHC 0 (steered by phcd) against PHC 1 (the grandmaster's,
	# +50 ppm imposed), both read in the guest at the start and end of WINDOW_S.
	read -r _ tsecs trate td0 td1 tmin tmax tn tabs tamed tap99 tslope _ <<<"$(v $x-TRACK)"
	awk -v r="${trate:-x}" -v t="$FREQ_TOL_PPB" 'BEGIN { exit !(r == r + 0 && r <= t && -r <= t) }' ||
		fail "$x: expected phcd's PHC 0 at the rate of the grandmaster's PHC 1 (+$rate ppb imposed)" \
			"within $FREQ_TOL_PPB ppb over the window, got '$(v $x-TRACK)'"
	echo "ok: $x: phcd's PHC 0 runs at the grandmaster's rate (PHC 1, +$rate ppb imposed):" \
		"PHC 0 - PHC 1 read in the guest over ${tsecs} s: rate $trate ppb (tolerance" \
		"$FREQ_TOL_PPB; least squares $tslope ppb), from $td0 to $td1 ns, within [$tmin, $tmax] ns," \
		"|PHC 0 - PHC 1| median $tamed, p99 $tap99, mean $tabs ns ($tn reads)"
	echo "    (information: phcd's logged frequency, median of its last $nfreq samples, $freq ppb;" \
		"biased upward by QEMU's one-sided noise for any PI servo)"
}
# master_judge X STAMPED: phcd MASTER of a ptp4l -H slave (free-running) in scenario X (B, V):
# hardware timestamps, messages both ways, stamping judged by STAMPED, no error, and ptp4l's
# estimates of its PHC against phcd's.
master_judge() {
	local x=$1 n pfreq mfreq pdelay nmed nslope want_rate tsecs
	[ "$(v $x-STATE)" = 's "MASTER"' ] && [ "$(v $x-MODE)" = 's "hardware"' ] ||
		fail "$x: expected phcd MASTER with hardware timestamps, got $(v $x-STATE) $(v $x-MODE)" \
			"(LastError $(v $x-ERROR))"
	phcd_counters $x "$(v $x-COUNTERS)" delay_req sync
	$2 $x eth0 phcd "$(counter ignored_no_timestamp "$(v $x-COUNTERS)")"
	$2 $x eth1 ptp4l "$(v $x-PTP4L-NOTS)"
	[ "$(v $x-ERROR)" = 's ""' ] || fail "$x: phcd's LastError: expected none, got $(v $x-ERROR)"
	ptp4l_tx $x "$(v $x-PTP4L-TXTO)"
	n=$(v $x-PTP4L-OFFSETS)
	read -r mfreq pdelay nmed <<<"$(v $x-PTP4L-MEDIAN)"
	read -r pfreq nslope <<<"$(v $x-PTP4L-SLOPE)"
	[ "${n:-0}" -ge 4 ] && [ -n "${pdelay:-}" ] && [ "${pfreq:-none}" != none ] ||
		fail "$x: ptp4l slave: expected >= 4 measurement lines and their slope, got ${n:-0}" \
			"('$(v $x-PTP4L-SLOPE)')"
	# What ptp4l estimates is PHC 1's rate against PHC 0, read in the guest over the window
	# (PHC 1 - PHC 0): the imposed +50 ppm on the default tier, about 0 in the closed loop (A
	# left PHC 0 steered to PHC 1's rate).
	read -r _ tsecs want_rate _ <<<"$(v $x-TRACK)"
	awk -v r="${want_rate:-x}" 'BEGIN { exit !(r == r + 0) }' ||
		fail "$x: no read of PHC 1 against PHC 0 over the window: '$(v $x-TRACK)'"
	awk -v r="$want_rate" -v f="$pfreq" -v d="$pdelay" -v t="$FREQ_TOL_PPB" \
		'BEGIN { e = f - r; if (e < 0) e = -e; exit !(e <= t && d > 0 && d < 1000000) }' ||
		fail "$x: ptp4l's measurements of phcd's PHC: expected the slope of its offsets within" \
			"$FREQ_TOL_PPB ppb of $want_rate (PHC 1 - PHC 0 read in the guest) and" \
			"0 < median path delay < 1 ms, got slope $pfreq ppb over ${nslope:-0} offsets" \
			"(median estimate $mfreq) and delay $pdelay"
	echo "ok: $x: ptp4l -H slave of phcd MASTER: $n measurements; the slope of its offsets from" \
		"phcd's PHC $pfreq ppb over $nslope (median of its 2 s estimates $mfreq), PHC 1 - PHC 0" \
		"read in the guest over $tsecs s: $want_rate ppb (imposed on PHC 1: $rate); path delay" \
		"$pdelay ns (QEMU's own), median over $nmed estimates"
}

# A: phcd slave of ptp4l.
if want A; then
slave_judge A nic_stamped ptpv2-event
if [ "$CLOSED" = 1 ]; then
	read -r worst nreads <<<"$(v A-SYSWORST)"
	[ "$(v A-SYSLOCKED)" -ge 1 ] && [ "${nreads:-0}" -ge 3 ] && [ "$worst" -le "$SYS_BOUND_NS" ] ||
		fail "A: system_clock_instance: expected 'system clock LOCKED' and CLOCK_REALTIME" \
			"within $SYS_BOUND_NS ns of PHC 0 - 37 s, got locked $(v A-SYSLOCKED), worst" \
			"${worst:-none} ns of ${nreads:-0} reads"
	echo "ok: A: the guest's CLOCK_REALTIME follows the steered PHC: LOCKED, worst |PHC - 37 s" \
		"- CLOCK_REALTIME| $worst ns over $nreads reads (bound $SYS_BOUND_NS ns)"
	# shellcheck disable=SC2086 # "MEDIAN P95"
	sys_judge "A (phcd alone, system_clock_instance)" "$(v A-SYSTRACK)" $SYS_GM_A
fi
fi

# B: ptp4l slave of phcd.
if want B; then
	master_judge B nic_stamped
fi

# U (closed loop; on stock QEMU only with PHCD_VM_ONLY, where it fails: bug (d)): A and B over
# UDP/IPv4, phcd slave (U) then master (V) of ptp4l -4 -H; every UDP event message received with
# its hardware timestamp, on stock QEMU's igb none is (no tool-vm-igb quirk reaches them).
if want U; then
	echo "U: over ${PHCD_VM_U_TRANSPORT:-UDPv4}"
	slave_judge U stamped_strict ptpv2-event ptpv2-l4-event
	master_judge V stamped_strict
fi
# W (stock QEMU): phcd MASTER over UDPv4 on eth0 with hardware TX timestamps, a ptp4l -4 -H slave
# on eth1. Each Sync phcd sends waits for its TX timestamp, a missing one fails the send and the
# port (FAULTY, LastError): MASTER to the end with Syncs sent and no error is the proof. ptp4l
# gets them without an RX timestamp (stock igb stamps no UDP frame, bug (d)): reported, and
# counted only as proof that they came.
if [ "$CLOSED" = 0 ] && want W; then
	echo "W: over ${PHCD_VM_U_TRANSPORT:-UDPv4}"
	tx=$(counter tx_sync "$(v V-COUNTERS)")
	got=$(($(v V-PTP4L-NOTS) + $(v V-PTP4L-OFFSETS)))
	[ "$(v V-STATE)" = 's "MASTER"' ] && [ "$(v V-MODE)" = 's "hardware"' ] &&
		[ "${tx:-0}" -gt 0 ] && [ "$(v V-ERROR)" = 's ""' ] ||
		fail "W: expected phcd MASTER over UDP with hardware timestamps, Syncs sent and no" \
			"error, got $(v V-STATE) $(v V-MODE), tx_sync=${tx:-none}, LastError $(v V-ERROR)"
	[ "$got" -gt 0 ] || fail "W: ptp4l slave on eth1 got none of phcd's $tx Syncs"
	echo "ok: W: phcd MASTER over UDP: $tx Syncs sent, each with its hardware TX timestamp" \
		"(LastError empty); ptp4l -H got $(v V-PTP4L-NOTS) event messages without an RX" \
		"timestamp (stock QEMU's igb stamps no UDP frame: bug (d)), measured $(v V-PTP4L-OFFSETS) times"
fi

# C (closed loop): phcd and ptp4l, each steering its own PHC, slaves of one grandmaster, in both
# seats (C0: phcd on eth0, ptp4l on eth2; C1 swapped). The verdict is from the clocks: each
# slave's PHC is read against the grandmaster's PHC in the guest over the window (8/s); per NIC,
# phcd's median and p99 |PHC - GM PHC| there at most C_FACTOR times ptp4l's there (or C_FLOOR_NS,
# below which reading two PHCs under TCG decides). Each daemon's own logged offsets
# (they carry the seat's delivery noise, not only the clock's error), the time to locked (40
# samples in a row within LOCK_NS) and the PHC's rate against the grandmaster's are reported.
# Messages without a timestamp are reported, not judged, here: an 82576 latches one RX timestamp
# at a time, and on a shared hub each slave's NIC also takes the other slave's multicast
# Delay_Req, so a Sync that follows it closely goes unstamped (real NICs do the same).
if [ "$CLOSED" = 1 ] && want C; then
	ptp4l_tx C "$(v C-GM-TXTO)"
	echo "ok: C: side by side, one grandmaster (PHC 1 at +50 ppm), both slave PHCs from 1 ms off" \
		"each time; locked = 40 samples in a row within $LOCK_NS ns; offsets over the window"
	for seat in 0 1; do
		read -r cp cq <<<"$(v C$seat-SEATS)"
		[ -n "${cq:-}" ] || fail "C$seat: the guest did not run it"
		read -r pl pmed pp99 pn pmean prms <<<"$(v C$seat-PHCD)"
		read -r ql qmed qp99 qn qmean qrms <<<"$(v C$seat-PTP4L)"
		read -r _ _ prate _ _ pmin pmax pk pabs pamed pap99 pslope _ <<<"$(v C$seat-PHCD-TRACK)"
		read -r _ _ qrate _ _ qmin qmax qk qabs qamed qap99 qslope _ <<<"$(v C$seat-PTP4L-TRACK)"
		[ "$(v C$seat-ERROR)" = 's ""' ] || fail "C$seat: phcd's LastError: expected none, got $(v C$seat-ERROR)"
		ptp4l_tx C$seat "$(v C$seat-PTP4L-TXTO)"
		[ "${pk:-0}" -gt 0 ] && [ "${qk:-0}" -gt 0 ] && [ -n "${qap99:-}" ] ||
			fail "C$seat: no PHC reads ('$(v C$seat-PHCD-TRACK)', '$(v C$seat-PTP4L-TRACK)')"
		# seat_NIC: "median p99" of |PHC - PHC 1| for the daemon that sat there
		eval "phcd_$cp='$pamed $pap99' ptp4l_$cq='$qamed $qap99'"
		echo "C$seat: phcd on $cp, ptp4l on $cq (guest load $(v C$seat-LOAD)):"
		echo "    |PHC - grandmaster's PHC| read in the guest over the window ($pk, $qk reads), ns:" \
			"median / p99 / mean: phcd $pamed / $pap99 / $pabs, ptp4l $qamed / $qap99 / $qabs;" \
			"range phcd [$pmin, $pmax], ptp4l [$qmin, $qmax]"
		echo "    PHC rate against the grandmaster's (end points / least squares), ppb: phcd" \
			"$prate / $pslope, ptp4l $qrate / $qslope"
		[ "$pl" != never ] || echo "    phcd NEVER LOCKED ($LOCK_NS ns for 40 samples)"
		[ "$ql" != never ] || echo "    ptp4l NEVER LOCKED ($LOCK_NS ns for 40 samples)"
		echo "    time to locked: phcd $pl s, ptp4l $ql s"
		echo "    logged |offset| median / p99, ns: phcd $pmed / $pp99, ptp4l $qmed / $qp99;" \
			"mean, RMS: phcd $pmean, $prms, ptp4l $qmean, $qrms ($pn, $qn samples)"
		echo "    without a timestamp: phcd $(counter ignored_no_timestamp "$(v C$seat-COUNTERS)")," \
			"ptp4l $(v C$seat-PTP4L-NOTS)"
	done
	# Seat for seat: phcd on eth0 (C0) against ptp4l on eth0 (C1), and so on eth2.
	cfail=
	for nic in eth0 eth2; do
		eval "read -r pamed pap99 <<<\"\$phcd_$nic\"; read -r qamed qap99 <<<\"\$ptp4l_$nic\""
		if awk -v a="$pamed" -v b="$qamed" -v c="$pap99" -v d="$qap99" -v k="$C_FACTOR" -v f="$C_FLOOR_NS" \
			'BEGIN { exit !(a <= k * (b > f ? b : f) && c <= k * (d > f ? d : f)) }'; then
			echo "ok: C: on $nic, phcd's PHC median / p99 |PHC - GM| $pamed / $pap99 ns, within" \
				"${C_FACTOR}x ptp4l's $qamed / $qap99 ns (or $C_FLOOR_NS ns)"
		else
			echo "C: on $nic, phcd's PHC median / p99 $pamed / $pap99 ns exceed ${C_FACTOR}x" \
				"ptp4l's $qamed / $qap99 ns"
			cfail="$cfail $nic"
		fi
	done
	echo "C: the grandmaster ptp4l got $(v C-GM-NOTS) messages without a timestamp (two slaves' Delay_Req)"
	[ -z "$cfail" ] || fail "C: on$cfail phcd's PHC more than ${C_FACTOR}x as far off the grandmaster's as ptp4l's on that NIC"
fi
# D, E (closed loop): chronyd steering the guest's CLOCK_REALTIME from phcd
# (tests/vm/chrony-guest.sh): PHCD selected (#*) within CHRONY_SELECT_S and still after the
# window, and the clock against the grandmaster's as A reads it.
chrony_judge() { # X WHAT MEDIAN_NS P95_NS
	local src
	src=$(v "$1-SOURCES")
	[ -n "$(v "$1-SELECTED")" ] && [[ "$src" == '#* PHCD '* ]] ||
		fail "$1: expected chronyc sources to show '#* PHCD' within $CHRONY_SELECT_S s and" \
			"still after the window, got '$src'"
	echo "ok: $1: chronyd selected PHCD $(v "$1-SELECTED") s after phcd started (guest load" \
		"$(v "$1-LOAD")); after the window: $src"
	sys_judge "$1 ($2)" "$(v "$1-TRACK")" "$3" "$4"
}
# T (closed loop, tests/vm/ts-guest.sh): time_source = system. Each step "SECONDS MODE CLASS"
# (SECONDS since phcd started or since the guest's kernel sync state changed), or "never ...".
ts_judge() {
	local x secs min
	for x in LOCKED:0 HOLDOVER:0 OOS:$TS_HOLDOVER_S FREERUN:$((TS_HOLDOVER_S + TS_OOS_S)) \
		RELOCK:$TS_LOCK_S; do
		min=${x#*:}
		x=${x%%:*}
		read -r secs _ <<<"$(v "T-$x")"
		[ -n "${secs:-}" ] && [ "$secs" != never ] &&
			awk -v s="$secs" -v m="$min" 'BEGIN { exit !(s + 1 >= m) }' ||
			fail "T: $x: expected the mode and the slave's class within its time and not" \
				"before $min s, got '$(v "T-$x")' (classes seen: $(v T-CLASSES))"
		echo "ok: T: $(v "T-$x" | cut -d' ' -f2-3) (ClockMode, ptp4l slave's grandmasterClockClass)" \
			"$secs s after $([ $x = LOCKED ] && echo "phcd started" || echo "the kernel's sync state changed")"
	done
	echo "    (T: kernel sync state on: $(v T-KERNEL-ON), off: $(v T-KERNEL-OFF); ReferenceMaxError" \
		"$(v T-MAXERROR); classes seen (s since start:class): $(v T-CLASSES); guest load $(v T-LOAD))"
	# Every class the slave held, from the first 6 on, in the machine's order: none skipped, none
	# better than the mode's in between (a 255 first is the slave's own, before any Announce).
	local classes
	classes=$(v T-CLASSES | tr ' ' '\n' | sed -n 's/^[0-9.]*://p' | tr '\n' ' ')
	[ "${classes#255 }" = "248 6 7 52 248 6 " ] ||
		fail "T: expected the slave's grandmasterClockClass to go 248 6 7 52 248 6, got $classes"
	echo "ok: T: the slave's grandmasterClockClass went ${classes% } (5 polls a second)"
	# shellcheck disable=SC2086 # "MEDIAN P95"
	sys_judge "T (time_source = system)" "$(v T-TRACK)" $SYS_GM_T "PHC 0 that phcd keeps on it"
}
if [ "$CLOSED" = 1 ]; then
	if want S; then
		[ -n "$(v S-LOCKED)" ] ||
			fail "S: phcd's system clock (software timestamps) not LOCKED within ${PHCD_VM_SLAVE_WAIT_S:-90} s"
		echo "ok: S: phcd alone, software timestamps: system clock LOCKED $(v S-LOCKED) s after" \
			"phcd started (guest load $(v S-LOAD))"
		# shellcheck disable=SC2086 # "MEDIAN P95"
		sys_judge "S (phcd alone, software timestamps)" "$(v S-TRACK)" $SYS_GM_D
	fi
	if want D; then
		[ "$(v D-REFCLOCK)" = 's "sending"' ] ||
			fail "D: phcd's RefclockState: expected \"sending\", got $(v D-REFCLOCK)"
		# shellcheck disable=SC2086 # "MEDIAN P95"
		chrony_judge D "chronyd, refclock SOCK, software timestamps" $SYS_GM_D
	fi
	if want E; then
		[ -n "$(v E-SYNC)" ] || fail "E: phcd's instance not Synchronized within ${PHCD_VM_SLAVE_WAIT_S:-90} s"
		# shellcheck disable=SC2086 # "MEDIAN P95"
		chrony_judge E "chronyd, refclock PHC, hardware timestamps" $SYS_GM_E
		read -r _ _ _ _ _ _ _ _ _ pmed _ _ pp95 pmax <<<"$(v E-PHCTRACK)"
		echo "    (E: phcd's PHC 0 against PHC 1 in the same window: |offset| median ${pmed:-?}," \
			"p95 ${pp95:-?}, max ${pmax:-?} ns)"
	fi
	if want T; then
		ts_judge
	fi
	echo "the guest's CLOCK_REALTIME + 37 s against a PHC, |offset| over the window:"
	printf '    %s\n' "${sys_figures[@]}"
fi
[ "$ONLY" = "$ALL" ] || {
	echo "$tier: NOT A PASS: only scenarios $ONLY ran (PHCD_VM_ONLY=$ONLY)" >&2
	exit 1
}
echo "$tier: PASS"
