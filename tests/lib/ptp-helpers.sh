# SPDX-License-Identifier: GPL-2.0-or-later
# PTP test and benchmark helpers: a LAN in namespaces (one bridge, one veth per station), the
# fast-rate phcd configuration and ptp4l grandmaster the tests share, and phcd's status file.
# Source it after net-helpers.sh (its namespaces and BG_PIDS go away in that EXIT trap).

# Message rates that reach every state in seconds; fixed PI constants lock at once.
PTP4L_FAST="--logAnnounceInterval -2 --announceReceiptTimeout 3 --logSyncInterval -3"

# bench_keep DIR: with KEEP=dir set, the benchmarks' logs (DIR) are copied there, its parent made
# if missing (a missing parent once made a finished run exit 1 from its EXIT trap).
bench_keep() {
	[ -z "${KEEP:-}" ] || { mkdir -p "$(dirname "$KEEP")" && cp -r "$1" "$KEEP"; }
}

# phcd_fast_global: the [global] section of a phcd.conf with those rates (phcd-port by hand
# reads it alone; phcd wants an [instance] after it).
phcd_fast_global() {
	cat <<CONF
[global]
time_stamping = software
logAnnounceInterval = -2
announceReceiptTimeout = 3
logSyncInterval = -3
pi_proportional_const = 0.7
pi_integral_const = 0.3
CONF
}

# ptp4l_gm NS IF UDS LOG [ARGS...]: a ptp4l grandmaster (priority1 100) that touches no clock,
# in the background; its PID is in BG_PIDS and in GM_PID.
ptp4l_gm() {
	local ns=$1 ifn=$2 uds=$3 log=$4
	shift 4
	ip netns exec "$ns" capsh --drop=cap_sys_time -- -c "exec ptp4l -i $ifn -2 -S -m \
		--free_running 1 --priority1 100 $PTP4L_FAST --uds_address $uds $*" >"$log" 2>&1 &
	GM_PID=$!
	BG_PIDS+=($GM_PID)
}

# pmc_poll UDS HZ OUT [EVERY]: one pmc session on the UDS of a ptp4l that asks TIME_STATUS_NP HZ
# times a second (CURRENT_DATA_SET instead every EVERY-th time if given), in the background, its
# output in OUT; the PID in BG_PIDS. ptp4l --free_running logs an offset only once per
# freq_est_interval (1 s at least), and TIME_STATUS_NP holds its latest sample (master_offset,
# ingress_time): polled faster than Sync, with repeats dropped by ingress time, it gives every one.
pmc_poll() {
	python3 -u -c 'import sys, time
hz, every, i = float(sys.argv[1]), int(sys.argv[2]), 0
try:
	while True:
		print("GET CURRENT_DATA_SET" if every and i % every == 0 else "GET TIME_STATUS_NP")
		i += 1
		time.sleep(1 / hz)
except BrokenPipeError:  # pmc ended with the test
	pass' "$2" "${4:-0}" 2>/dev/null | pmc -u -b 0 -s "$1" -i "$1.pmc" >"$3" 2>&1 &
	BG_PIDS+=($!)
}

# status_field FILE KIND NAME KEY: a value from phcd's --status-file ("" when absent).
status_field() {
	awk -v k="$2" -v n="$3" -v f="$4" \
		'$1 == k && $2 == n { for (i = 3; i < NF; i++) if ($i == f) print $(i + 1) }' \
		"$1" 2>/dev/null || true
}

# lan_bridge NS: a namespace holding bridge br0 that forwards PTP's peer-delay address too
# (01-80-C2-00-00-0E, group_fwd_mask bit 14), with no STP and no forwarding delay.
lan_bridge() {
	netns_add "$1"
	ip -n "$1" link add br0 type bridge stp_state 0 forward_delay 0 group_fwd_mask 0x4000 ||
		fail "bridge in $1"
	ip -n "$1" link set br0 up
}

# lan_station BRIDGE_NS NS IF [isolated]: namespace NS (created unless it exists) joins the
# bridge with interface IF; the bridge's end is named b-IF. Isolated ports reach every port but
# the other isolated ones (an attacker that the grandmaster must not hear, for instance).
lan_station() {
	local br=$1 ns=$2 ifn=$3
	ip netns pid "$ns" >/dev/null 2>&1 || [ -e "/run/netns/$ns" ] || netns_add "$ns"
	ip link add "$ifn" netns "$ns" type veth peer name "b-$ifn" netns "$br" || fail "veth $ifn"
	ip -n "$br" link set "b-$ifn" master br0
	if [ "${4-}" = isolated ]; then
		bridge -n "$br" link set dev "b-$ifn" isolated on
	fi
	ip -n "$br" link set "b-$ifn" up
	ip -n "$ns" link set "$ifn" up
}

# eui64 IF NS: the clockIdentity a PTP clock derives from IF's MAC, as 16 hex digits.
eui64() {
	ip -n "$2" -j link show "$1" | jq -r '.[0].address' |
		awk -F: '{ printf "%s%s%sfffe%s%s%s\n", $1, $2, $3, $4, $5, $6 }'
}
