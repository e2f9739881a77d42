#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# G.8275.1's alternate BMCA against ptp4l's (dataset_comparison G.8275.x): two grandmasters,
# ptp4l A (priority1 10, the smaller identity) and ptp4l B (priority1 200), each with one port to
# phcd (profile G.8275.1, a boundary clock of ports s1 to A and s2 to B) and one to a ptp4l
# boundary clock T run with linuxptp's G.8275.1.cfg (ports t1 to A, t2 to B). On s2 and t2
# G.8275.portDS.localPriority is 100. With G.8275.x both boundary clocks follow B: priority1 plays
# no part, localPriority beats the identity. With every clock switched to dataset_comparison
# ieee1588 (nothing else changed) both follow A: 1588's BMCA picks another grandmaster. phcd's
# grandmaster is read with pmc on its management socket, T's on ptp4l's; the ptp4l and pmc are
# linuxptp 4.2's, its configs/G.8275.1.cfg unchanged. Also: phcd's ports joined 01-80-C2-00-00-0E
# only.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin port

reference_linuxptp
L42=${REF_DIRS[1]}
CFG=$L42/configs/G.8275.1.cfg
[ -f "$CFG" ] || fail "linuxptp 4.2 ships no configs/G.8275.1.cfg at $CFG"

GM_A=020000.fffe.00000a
GM_B=020000.fffe.00000b

# gm_of UDS: the grandmasterIdentity pmc reads from the clock behind UDS (domain 24).
gm_of() {
	"$L42/pmc" -u -b 0 -d 24 -s "$1" -i "$1.pmc$$" 'GET PARENT_DATA_SET' 2>/dev/null |
		awk '$1 == "grandmasterIdentity" { print $2; exit }'
}

# expect_gm LABEL UDS GM: within 40 s the clock behind UDS names GM, and still does 3 s later.
expect_gm() {
	local deadline=$((SECONDS + 40)) have
	while :; do
		have=$(gm_of "$2")
		if [ "$have" = "$3" ]; then
			test_duration 3 "and it still does 3 s later"
			have=$(gm_of "$2")
			[ "$have" = "$3" ] && break
		fi
		[ "$SECONDS" -lt "$deadline" ] ||
			fail "$1: expected grandmaster $3 within 40 s, pmc says '${have:-nothing}'"
		sleep 0.5
	done
	echo "ok: $1: grandmaster $3"
}

run() { # MODE: G.8275.x or ieee1588
	local mode=$1 v A B S T
	v=${mode//./}
	v=${v:0:4}
	A=pg8a$$$v B=pg8b$$$v S=pg8s$$$v T=pg8t$$$v
	for ns in "$A" "$B" "$S" "$T"; do netns_add "$ns"; done
	link() { # NS1 IF1 MAC1 NS2 IF2 MAC2
		ip link add "$2" netns "$1" address "$3" type veth peer name "$5" netns "$4" \
			address "$6" || fail "veth $2/$5"
		ip -n "$1" link set "$2" up
		ip -n "$4" link set "$5" up
	}
	link "$A" a1 02:00:00:00:00:0a "$S" s1 02:00:00:00:00:51
	link "$A" a2 02:00:00:00:01:0a "$T" t1 02:00:00:00:00:61
	link "$B" b1 02:00:00:00:00:0b "$S" s2 02:00:00:00:00:52
	link "$B" b2 02:00:00:00:01:0b "$T" t2 02:00:00:00:00:62

	ptp() { # NS LOG CONFIG ARGS...: linuxptp 4.2's ptp4l that touches no clock
		local ns=$1 log=$2 conf=$3
		shift 3
		ip netns exec "$ns" capsh --drop=cap_sys_time -- -c "exec $L42/ptp4l -f $conf -S -m \
			--free_running 1 --dataset_comparison $mode $*" >"$log" 2>&1 &
		BG_PIDS+=($!)
	}
	# The grandmasters' ports are masterOnly, as a T-GM's are: without it the result depended on
	# who spoke first. Under G.8275.x a clockClass-248 B ranks below A by identity alone, so when
	# T (or phcd) followed A for a moment at start and announced it on t2 (s2), B became T's
	# slave, stopped announcing itself, and everyone stayed with A (seen in CI under load).
	ptp "$A" "$tmp/$v-a.log" "$CFG" -i a1 -i a2 --priority1 10 --masterOnly 1 \
		--uds_address "$tmp/$v-a.uds"
	ptp "$B" "$tmp/$v-b.log" "$CFG" -i b1 -i b2 --priority1 200 --masterOnly 1 \
		--uds_address "$tmp/$v-b.uds"
	{ cat "$CFG"; printf '\n[t1]\n[t2]\nG.8275.portDS.localPriority 100\n'; } >"$tmp/$v-t.cfg"
	ptp "$T" "$tmp/$v-t.log" "$tmp/$v-t.cfg" --uds_address "$tmp/$v-t.uds"

	cat >"$tmp/$v-phcd.conf" <<CONF
[global]
time_stamping = software

[instance tbc]
interfaces = s1, s2
profile = G.8275.1
dataset_comparison = $mode
clock_backend = free_running

[interface s2]
G.8275.portDS.localPriority = 100
CONF
	ip netns exec "$S" capsh --drop=cap_sys_time -- -c "exec $BUILD/daemon/phcd \
		-f $tmp/$v-phcd.conf --uds $tmp/$v-phcd.uds --uds-ro ''" >"$tmp/$v-phcd.log" 2>&1 &
	BG_PIDS+=($!)

	local want=$GM_B
	[ "$mode" = ieee1588 ] && want=$GM_A
	expect_gm "dataset_comparison $mode: ptp4l T (G.8275.1.cfg)" "$tmp/$v-t.uds" "$want"
	expect_gm "dataset_comparison $mode: phcd (profile G.8275.1)" "$tmp/$v-phcd.uds" "$want"
	for i in s1 s2; do
		g=$(ip -n "$S" maddr show dev "$i" | awk '$1 == "link" { print $2 }' |
			grep -E '^01:(1b:19|80:c2):' | tr '\n' ' ')
		[ "$g" = "01:80:c2:00:00:0e " ] ||
			fail "phcd's $i joined the PTP groups '$g', expected 01:80:c2:00:00:0e only"
	done
	echo "ok: phcd's s1 and s2 joined 01:80:c2:00:00:0e only"
	net_cleanup
	BG_PIDS=()
	NETNS_CREATED=()
}

run G.8275.x
run ieee1588
echo PASS
