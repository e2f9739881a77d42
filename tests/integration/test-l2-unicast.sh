#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Unicast negotiation (IEEE 1588-2019 16.1) over IEEE 802.3 (network_transport L2), against
# Debian's ptp4l 3.1.1 and linuxptp 4.2, with linuxptp's own UNICAST-SLAVE.cfg, whose second
# port ([eth1]) is the L2 one, and UNICAST-MASTER.cfg:
#  0) phcd --check-config loads UNICAST-SLAVE.cfg as shipped (its L2 port and table included)
#     through ptp4l_config: no key refused nor "not honoured";
#  s) phcd grantee (UNICAST-SLAVE.cfg, its L2 table naming ptp4l's MAC, its [eth1] section for
#     phcd's port, the [eth0] UDPv4 port left out) of ptp4l grantor (UNICAST-MASTER.cfg, -2):
#     phcd SLAVE with offsets within the L2 tests' bounds; with 3.1.1, Port.UnicastTable on
#     D-Bus and phcctl show ptp4l's MAC with Sync granted;
#  m) ptp4l grantee (UNICAST-SLAVE.cfg naming phcd's MAC) of phcd grantor (UNICAST-MASTER.cfg and
#     network_transport = L2): ptp4l selects phcd (RS_SLAVE) and its offsets are within bounds.
# On the wire (tshark in ptp4l's namespace, ether proto 0x88f7) in each: the grantee's REQUEST to the
# grantor's MAC, the GRANT back, the grantor's Sync to the grantee's MAC with the unicast flag,
# its Delay_Resp to the grantee's Delay_Req (sent unicast too, hybrid_e2e), and no Sync or Announce
# of the grantor to 01:1b:19:00:00:00 (inhibit_multicast_service); phcd stopped, its CANCEL to
# ptp4l's MAC.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin dbus ptp port phcd gptp udp unicast

UC_FIELDS=(-T fields -E separator=' ' -E aggregator=, -e frame.time_relative -e ptp.v2.messagetype
	-e eth.src -e eth.dst -e ptp.v2.flags.unicast -e ptp.v2.sig.tlv.tlvType)

mac_of() { # NS IF
	ip -n "$1" link show dev "$2" | awk '/link\/ether/ { print $2 }'
}

# phcd grantee's median over 40 offsets (5 s at 8 Sync/s), not 10: over 10 its medians spread
# -2348..2062 ns in seven runs here and 5832 once under load (the bound is 5 us), the sign
# varying: a 1.25 s window catches the servo's ringing and the host's bursts, not a bias.
GPTP_PHCD_SAMPLES=40

# l2_slave_cfg OUT MASTER_MAC IF: UNICAST-SLAVE.cfg as shipped, its L2 table naming MASTER_MAC,
# its L2 port [eth1] named IF and its UDPv4 port [eth0] left out (a second port, not here).
l2_slave_cfg() {
	sed -e "s/^L2\([[:space:]]*\)00:11:22:33:44:55\$/L2\1$2/" -e "s/^\[eth1\]/[$3]/" \
		-e '/^\[eth0\]/,/^\[/{/^\[eth0\]/d;/^\[/!d}' "$CONFIGS/UNICAST-SLAVE.cfg" >"$1"
	grep -Eq "^L2[[:space:]]+$2\$" "$1" && grep -q "^\[$3\]" "$1" && ! grep -q '^\[eth0\]' "$1" ||
		fail "UNICAST-SLAVE.cfg: its L2 table or port not adapted: $(cat "$1")"
}

# run_role INDEX ROLE: phcd ROLE (slave|master) of linuxptp INDEX's ptp4l, both over L2 unicast.
run_role() {
	local role=$2 ma mb mcfg pcfg prio what cap ptp4l_pid g e
	udp_version "$1"
	v=l$1${role:0:1}x$((RANDOM % 100))
	A=l2a$$$v B=l2b$$$v ia=l2${v}a ib=l2${v}b log=$tmp/$v
	netns_pair "$A" "$B" "$ia" "$ib"
	ma=$(mac_of "$A" "$ia") mb=$(mac_of "$B" "$ib")
	what="ptp4l $VER, UNICAST-MASTER.cfg and UNICAST-SLAVE.cfg over L2"
	if [ "$role" = slave ]; then
		mcfg=$tmp/$v-ptp4l.cfg pcfg=$tmp/$v-phcd.cfg g=$ma e=$mb prio=(100 250)
		l2_slave_cfg "$pcfg" "$ma" "$ib"
	else
		mcfg=$tmp/$v-phcd.cfg pcfg=$tmp/$v-ptp4l.cfg g=$mb e=$ma prio=(250 100)
		l2_slave_cfg "$pcfg" "$mb" "$ia"
	fi
	cp "$CONFIGS/UNICAST-MASTER.cfg" "$mcfg"
	# UNICAST-SLAVE.cfg's [IF] says L2; UNICAST-MASTER.cfg says nothing (ptp4l's -2 does).
	if [ "$role" = slave ]; then
		udp_phcd_conf "$tmp/$v-phcd.cfg" "$ib" slave >"$log.phcd.conf"
	else
		udp_phcd_conf "$tmp/$v-phcd.cfg" "$ib" master "network_transport = L2" >"$log.phcd.conf"
	fi
	"$BUILD/daemon/phcd" --check-config -f "$log.phcd.conf" >"$log.check" 2>&1 ||
		fail "phcd --check-config ($role, L2 unicast) refused it: $(grep -m3 error "$log.check")"
	! grep -q "not honoured" "$log.check" ||
		fail "phcd --check-config: a key not honoured: $(grep 'not honoured' "$log.check")"
	uc_capture_start "$A" "$ia" "$log.cap" "ether proto 0x88f7"
	udp_ptp4l_start "$A" "$ia" "$log-ptp4l" "$tmp/$v-ptp4l.cfg" -2 --priority1 "${prio[0]}"
	ptp4l_pid=$LAST_PID
	gptp_phcd_start "$B" "$log.phcd.conf"
	udp_offsets "$role" "$ib" "phcd grantee of $what" "$what: ptp4l grantee of phcd"
	if [ "$role" = slave ] && [ -n "${DBUS_SYSTEM_BUS_ADDRESS-}" ]; then
		# The grantee's table on D-Bus and in phcctl: ptp4l's MAC, Sync granted, time left.
		uc_table_granted "$ib" "$ma" "$what, phcd slave"
		echo "ok: UnicastTable $UC_ROW; phcctl: $(grep -E "$ma +grantee +sync" <<<"$UC_VIEW" | tr -s ' ')"
	fi
	# phcd stopped: its worker cancels what it asked for or granted (CANCEL, tlvType 6), to
	# ptp4l's MAC, while the capture still runs.
	uc_stop_phcd
	uc_capture_wait "$log.cap" "^12 $mb $ma (1|True) ([0-9a-fx]*,)*(0x0*)?6(,|\$)" \
		"$what, phcd $role: expected phcd's CANCEL to ptp4l's MAC when it stopped"
	cap=$(uc_capture_read "$log.cap")
	uc_negotiated "$cap" "$g" "$e" "$what, phcd $role"
	uc_unseen "$cap" "^(0|11) $g 01:1b:19:00:00:00" \
		"$what, phcd $role: the grantor (inhibit_multicast_service) sent Sync or Announce to the group"
	uc_unseen "$cap" "^0 $g $e (0|False)" "$what, phcd $role: a Sync to $e without the unicast flag"
	# hybrid_e2e (UNICAST-MASTER.cfg): the grantee's Delay_Req and the grantor's Delay_Resp too.
	uc_seen "$cap" "^1 $e $g (1|True)" "$what, phcd $role: expected the Delay_Req of $e unicast to $g"
	uc_seen "$cap" "^9 $g $e (1|True)" "$what, phcd $role: expected the Delay_Resp of $g unicast to $e"
	kill "$ptp4l_pid" 2>/dev/null || true
	wait "$ptp4l_pid" 2>/dev/null || true
	echo "ok: $what: phcd $role; REQUEST, GRANT, CANCEL and $(grep -c "^0 $g $e " <<<"$cap") Sync to $e unicast on the wire"
}

# A job: one linuxptp version, phcd slave then master (its own namespaces, trap and, for 3.1.1,
# D-Bus: phcd alone on it).
job() {
	trap 'net_cleanup; dbus_cleanup' EXIT
	[ "$1" != 0 ] || dbus_start "$tmp/bus$1"
	run_role "$1" slave
	run_role "$1" master
}

"$BUILD/daemon/phcd" --check-config --ptp4l-config "$CONFIGS/UNICAST-SLAVE.cfg" >"$tmp/check0" 2>&1 ||
	fail "0: phcd --check-config refused UNICAST-SLAVE.cfg as shipped: $(grep -v ': honoured' "$tmp/check0" | tail -n 3)"
! grep -Eq "not honoured|refused|not supported" "$tmp/check0" ||
	fail "0: UNICAST-SLAVE.cfg as shipped: $(grep -E 'not honoured|refused|not supported' "$tmp/check0")"
grep -q "UNICAST-SLAVE.cfg:49: unicast_master_table 2: honoured" "$tmp/check0" ||
	fail "0: expected the L2 port's unicast_master_table 2 honoured, got: $(grep -v ': honoured' "$tmp/check0")"
echo "ok: 0: UNICAST-SLAVE.cfg as shipped: $(tail -n 2 "$tmp/check0" | tr -s ' \n' ' ')"

reference_linuxptp
udp_parallel job ${L2_UNICAST_RUNS-0 1}
