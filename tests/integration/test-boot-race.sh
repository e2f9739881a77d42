#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The boot race of issue 30: a ptp4l grandmaster (priority1 100; priority2 100 with G.8275.1,
# whose BMCA skips priority1) and phcd (default priorities) started together on one link,
# `phcctl wait-sync` started with them (as phcd-wait-sync.service is at boot). Each start is
# followed by the link taken down and up again (both ends lose carrier, so ptp4l too starts
# over): wait-sync must never exit 0 while phcd's own clock is the grandmaster, only once phcd
# follows ptp4l. ROUNDS starts (10 by default) with the default profile against Debian's ptp4l
# 3.1.1, then OTHER_ROUNDS (2) of each other pair of the issue: the default profile against
# linuxptp 4.2, and gPTP (linuxptp's gPTP.cfg) and G.8275.1 (its G.8275.1.cfg, domain 24)
# against both. On c73b1b8 it returned 0 with "grandmaster of domain 0" in 3 of 3 boots: both
# ports were MASTER after their announce receipt timeout, and phcd's went SLAVE once it had
# qualified ptp4l's Announces. With gPTP neither side announces before its port is asCapable
# (two Pdelay exchanges, a second apart): a gate counted from the worker's start alone opens
# before the first Announce can come. Fast rates on both sides (announce 0.25 s, receipt
# timeout 3): about 6 s a round on an idle machine.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin dbus ptp phcd port

PHCCTL=${PHCCTL:-$BUILD/phcctl/phcctl}
ROUNDS=${ROUNDS:-10}
OTHER_ROUNDS=${OTHER_ROUNDS:-2}
reference_linuxptp
dbus_start "$tmp/bus"

# gm_start NS IF PROFILE DIR LOG: ptp4l of linuxptp build DIR ("": Debian's) as the better
# grandmaster with PROFILE's configuration file, at the fast rates, touching no clock; its PID in
# GM_PID and BG_PIDS. fault_reset_interval ASAP: a ptp4l whose port went FAULTY in the flap (a
# Sync it could not send) waits 16 s by default before it listens again, announcing nothing;
# phcd is then rightly the grandmaster of the link. Here the better clock stays on the link.
gm_start() {
	local ns=$1 ifn=$2 profile=$3 dir=$4 log=$5 args
	case $profile in
	default) args="-2 --priority1 100" ;;
	gPTP)
		gptp_cfg "$dir" >"$tmp/gptp.cfg"
		args="-f $tmp/gptp.cfg --priority1 100"
		;;
	# Debian's 3.1.1 ships a G.8275.1.cfg without its domainNumber (24, which 4.2's has).
	G.8275.1)
		args="-f ${dir:-/usr/share/doc/linuxptp}/configs/G.8275.1.cfg --domainNumber 24"
		args+=" --priority2 100"
		;;
	esac
	ip netns exec "$ns" capsh --drop=cap_sys_time -- -c "exec ${dir:+$dir/}ptp4l -i $ifn -S -m \
		--free_running 1 $args $PTP4L_FAST --fault_reset_interval ASAP \
		--uds_address $tmp/gm.uds" >"$log" 2>&1 &
	GM_PID=$!
	BG_PIDS+=("$GM_PID")
}

# phcd_conf PROFILE: phcd's file, the fast rates (which override the profile's) and one instance
# lab on s1 with PROFILE.
phcd_conf() {
	phcd_virtual_conf lab s1
	case $1 in
	default) ;;
	# veth's software path delay (1-2 us) is above gPTP's neighborPropDelayThresh (800 ns).
	gPTP) printf 'profile = gPTP\nneighborPropDelayThresh = 100000\n' ;;
	*) printf 'profile = %s\n' "$1" ;;
	esac
}

# gm_silent: with gPTP, ptp4l's port is not asCapable (its PORT_DATA_SET_NP), so it announces
# nothing. ptp4l 3.1.1 gets there when a Sync or Announce it sends as the carrier goes fails
# ("send sync failed"): the fault, cleared at once while the link is down, leaves it without
# Pdelay_Req of its own after the link is back (seen in a capture: it answers phcd's, sends
# none, for good). The better clock is then not on the link, and phcd is rightly its grandmaster.
# Silent means for good: not asCapable for 5 s more (a port that becomes asCapable late, the
# race itself, does so within 3 Pdelay intervals of 1 s).
gm_silent() {
	local until=$((SECONDS + 5))
	[ "$profile" = gPTP ] || return 1
	while [ "$SECONDS" -lt "$until" ]; do
		! "${dir:+$dir/}pmc" -u -b 0 -t 1 -s "$tmp/gm.uds" -i "$tmp/pmc-$round" \
			'GET PORT_DATA_SET_NP' 2>/dev/null | grep -Eq 'asCapable +1' || return 1
		sleep 0.2
	done
}

# check WHAT: wait-sync's verdict in $tmp/ws.json (exit status $rc) must be "synchronized to
# ptp4l's clock", never "its own clock is the grandmaster"; unless ptp4l went silent (gm_silent):
# then the round proves nothing and is run again (redo=1).
check() {
	local what=$1 own gm
	[ "$rc" = 0 ] || fail "$what: wait-sync exited $rc: $(cat "$tmp/ws.err") $(cat "$tmp/ws.json"); phcd: $(tail -n 20 "$PHCD_LOG")"
	own=$(busctl --system get-property org.phcd1 /org/phcd1/instance/lab org.phcd1.Instance ClockIdentity)
	gm=$(busctl --system get-property org.phcd1 /org/phcd1/instance/lab org.phcd1.Instance GrandmasterIdentity)
	if ! jq -e '.Ready and (.Instances[0] | .Synchronized and (.IsGrandmaster | not) and
		(.Reason | startswith("synchronized")))' "$tmp/ws.json" >/dev/null; then
		if gm_silent; then
			echo "note: $what: ptp4l's port is not asCapable, it announces nothing (gm_silent):" \
				"phcd rightly its own grandmaster; the round is run again"
			redo=1
			return 0
		fi
		fail "$what: wait-sync exited 0 without following ptp4l (own clock $own, grandmaster now $gm): $(jq -c '.Instances[0] | {Synchronized, IsGrandmaster, Reason}' "$tmp/ws.json")"
	fi
	[ "$own" != "$gm" ] || fail "$what: phcd's own clock $own is the grandmaster after wait-sync"
}

# port_state STATE SECONDS: poll port s1's State on the bus until it is STATE.
port_state() {
	local deadline=$((SECONDS + $2)) got=
	while :; do
		got=$(busctl --system get-property org.phcd1 /org/phcd1/port/s1 org.phcd1.Port State 2>/dev/null || true)
		[ "$got" != "s \"$1\"" ] || return 0
		[ "$SECONDS" -lt "$deadline" ] || fail "port s1: expected $1 within $2 s, got $got"
		sleep 0.05
	done
}

# The cases: PROFILE VERSION-INDEX (into REF_DIRS) ROUNDS.
CASES=("default 0 $ROUNDS" "default 1 $OTHER_ROUNDS" "gPTP 0 $OTHER_ROUNDS" "gPTP 1 $OTHER_ROUNDS"
	"G.8275.1 0 $OTHER_ROUNDS" "G.8275.1 1 $OTHER_ROUNDS")
t0=$SECONDS
round=0
summary=()
for c in "${CASES[@]}"; do
	read -r profile v n <<<"$c"
	dir=${REF_DIRS[$v]} version=${REF_VERSIONS[$v]}
	phcd_conf "$profile" >"$tmp/phcd.conf"
	tc=$SECONDS
	done_n=0 redos=0
	while [ "$done_n" -lt "$n" ]; do
		round=$((round + 1)) redo=0
		S=phbr-s$$-$round G=phbr-g$$-$round
		netns_pair "$S" "$G" s1 g1
		# Together, as at boot: ptp4l, phcd and wait-sync (which waits for phcd on the bus).
		gm_start "$G" g1 "$profile" "$dir" "$tmp/gm-$round.log"
		phcd_start "$S" "$tmp/phcd.conf" "$tmp/phcd-$round.log"
		rc=0
		"$PHCCTL" wait-sync --timeout 30 --json >"$tmp/ws.json" 2>"$tmp/ws.err" || rc=$?
		check "round $round ($profile, ptp4l $version), start"

		# The interface goes away and comes back: both ends lose carrier, both start over.
		if [ "$redo" = 0 ]; then
			ip -n "$S" link set s1 down
			port_state FAULTY 10
			ip -n "$S" link set s1 up
			rc=0
			"$PHCCTL" wait-sync --timeout 30 --json >"$tmp/ws.json" 2>"$tmp/ws.err" || rc=$?
			check "round $round ($profile, ptp4l $version), after link down/up"
		fi

		kill "$PHCD_PID" "$GM_PID"
		wait_pid "$PHCD_PID" 10 || true
		wait_pid "$GM_PID" 10 || true
		BG_PIDS=()
		ip netns del "$S"
		ip netns del "$G"
		deadline=$((SECONDS + 10))
		while busctl --system status org.phcd1 >/dev/null 2>&1; do
			[ "$SECONDS" -lt "$deadline" ] || fail "org.phcd1 still owned 10 s after phcd ended"
			sleep 0.02
		done
		if [ "$redo" = 1 ]; then
			redos=$((redos + 1))
			[ "$redos" -le 3 ] || fail "$profile, ptp4l $version: ptp4l went silent in $redos rounds"
		else
			done_n=$((done_n + 1))
		fi
	done
	note=
	[ "$redos" = 0 ] || note=" (and $redos run again: ptp4l silent)"
	summary+=("$profile/ptp4l $version: $n in $((SECONDS - tc)) s$note")
done
joined=$(printf '%s; ' "${summary[@]}")
echo "ok: $round starts and $round link down/up (${joined%; }):" \
	"wait-sync returned only once phcd followed ptp4l ($((SECONDS - t0)) s)"
