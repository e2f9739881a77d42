#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# linuxptp's unicast profiles over UDPv4, each file as the linuxptp version ships it, in phcd
# (through ptp4l_config; --check-config refuses none of its keys) and in that version's ptp4l:
#  - G.8275.2.cfg (telecom phase/time, partial timing support: dataset_comparison G.8275.x,
#    hybrid_e2e, unicast_listen, inhibit_multicast_service, unicast_req_duration 60; 4.2's adds
#    domainNumber 44), with Debian's ptp4l 3.1.1 and with linuxptp 4.2;
#  - G.8265.1.cfg (telecom frequency: the same unicast keys, the default BMCA; 4.2's adds
#    domainNumber 4), with 3.1.1 and 4.2;
#  - UNICAST-MASTER.cfg / UNICAST-SLAVE.cfg with linuxptp 4.2 (3.1.1's pairs: test-udp-unicast.sh).
# Each twice: phcd slave (grantee) of ptp4l (grantor), then ptp4l slave (grantee) of phcd
# (grantor). The grantor runs the file as shipped. The grantee runs it made a slave's as the file
# says: for G.8275.2/G.8265.1 its commented "[unicast_master_table] table_id 1, logQueryInterval 2,
# UDPv4 <address>" and "[eth0] unicast_master_table 1" lines uncommented, the address and the
# interface name adapted (uc_profile_slave_cfg); for UNICAST-SLAVE.cfg its first table's first
# address and [eth0] adapted, its other addresses and its L2 [eth1] left out (uc_slave_cfg).
# Only phcd.conf adds lines (udp_phcd_conf: port, software timestamps, virtual clock, rates), and
# the role: priority1, and for G.8275.x (which compares no priority1) priority2, on both sides.
# SLAVE and offsets within the bounds of test-udp-unicast.sh (gptp-helpers.sh); on the wire
# (dumpcap in ptp4l's namespace, read by tshark) the grantee's REQUEST, the grantor's GRANT and
# its Sync unicast, none of its Sync or Announce to a group.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin ptp port phcd gptp udp unicast

# run_role PROFILE INDEX ROLE: phcd ROLE (slave|master) against linuxptp INDEX's ptp4l with its
# PROFILE (G.8275.2, G.8265.1, UNICAST), in namespaces of its own.
run_role() {
	local prof=$1 role=$3 dir shipped pcfg mcfg what prio tag ptp4l_pid cap
	udp_version "$2"
	dir=${PTP4L_DIR:+$PTP4L_DIR/configs}
	dir=${dir:-$CONFIGS}
	case $prof in G.8275.2) tag=t ;; G.8265.1) tag=f ;; *) tag=u ;; esac
	uc_pair "$tag$2${role:0:1}"
	what="$prof.cfg of linuxptp $VER"
	[ "$prof" != UNICAST ] || what="UNICAST-MASTER.cfg and UNICAST-SLAVE.cfg of linuxptp $VER"
	# The peer that will be master, and the one that asks it (its table naming the master).
	if [ "$role" = slave ]; then mcfg=$tmp/$v-ptp4l.cfg pcfg=$tmp/$v-phcd.cfg; else
		mcfg=$tmp/$v-phcd.cfg pcfg=$tmp/$v-ptp4l.cfg; fi
	if [ "$prof" = UNICAST ]; then
		shipped=$dir/UNICAST-MASTER.cfg
		cp "$shipped" "$mcfg"
		# uc_slave_cfg reads Debian's UNICAST-SLAVE.cfg: 4.2's is the same file (diffed).
		cmp -s "$dir/UNICAST-SLAVE.cfg" "$CONFIGS/UNICAST-SLAVE.cfg" ||
			fail "$VER's UNICAST-SLAVE.cfg differs from Debian's 3.1.1 one"
		if [ "$role" = slave ]; then uc_slave_cfg "$pcfg" 192.0.2.1 "$ib"; else
			uc_slave_cfg "$pcfg" 192.0.2.2 "$ia"; fi
	else
		shipped=$dir/$prof.cfg
		cp "$shipped" "$mcfg"
		if [ "$role" = slave ]; then uc_profile_slave_cfg "$shipped" "$pcfg" 192.0.2.1 "$ib"; else
			uc_profile_slave_cfg "$shipped" "$pcfg" 192.0.2.2 "$ia"; fi
	fi
	# phcd master: priority 100 on its side, 250 on ptp4l's; phcd slave the other way round.
	if [ "$role" = master ]; then prio=(250 100); else prio=(100 250); fi
	udp_phcd_conf "$tmp/$v-phcd.cfg" "$ib" "$role" "network_transport = UDPv4" \
		"priority2 = ${prio[1]}" >"$log.phcd.conf"
	"$BUILD/daemon/phcd" --check-config -f "$log.phcd.conf" >"$log.check" 2>&1 ||
		fail "phcd --check-config with $what ($role) refused it: $(grep -m3 error "$log.check")"
	# Not one key of the file refused, nor ignored.
	! grep -q "not honoured" "$log.check" ||
		fail "phcd --check-config: a key of $what not honoured: $(grep 'not honoured' "$log.check")"
	uc_pcap_start "$A" "$ia" "$log.cap"
	udp_ptp4l_start "$A" "$ia" "$log-ptp4l" "$tmp/$v-ptp4l.cfg" -4 --priority1 "${prio[0]}" \
		--priority2 "${prio[0]}"
	ptp4l_pid=$LAST_PID
	gptp_phcd_start "$B" "$log.phcd.conf"
	udp_offsets "$role" "$ib" "phcd grantee of ptp4l $VER grantor, both with $what" \
		"ptp4l $VER grantee of phcd grantor, both with $what"
	cap=$(uc_pcap_read "$log.cap")
	if [ "$role" = slave ]; then
		uc_negotiated "$cap" 192.0.2.1 192.0.2.2 "$what, phcd slave"
	else
		uc_negotiated "$cap" 192.0.2.2 192.0.2.1 "$what, phcd master"
	fi
	kill "$PHCD_PID" "$ptp4l_pid" 2>/dev/null || true
	wait "$PHCD_PID" "$ptp4l_pid" 2>/dev/null || true
	echo "ok: $what: phcd $role, REQUEST, GRANT and $(grep -c '^0 ' <<<"$cap") unicast Sync on the wire"
}

# A job: a profile with one linuxptp version, phcd slave then master (one pair of namespaces at a
# time, its own trap).
job() { # PROFILE:INDEX
	trap 'net_cleanup' EXIT
	run_role "${1%:*}" "${1#*:}" slave
	run_role "${1%:*}" "${1#*:}" master
}

reference_linuxptp
udp_parallel job ${UC_PROFILE_RUNS-G.8275.2:0 G.8275.2:1 G.8265.1:0 G.8265.1:1 UNICAST:1}
