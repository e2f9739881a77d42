#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# 802.1AS with the whole daemon: phcd (supervisor and worker, `profile = gPTP`, software
# timestamps, a virtual clock) against ptp4l running linuxptp's own gPTP.cfg, unchanged but for
# neighborPropDelayThresh (800 ns there; veth's software path delay is 1-2 us). Both roles:
#   - D-Bus: Instance.Profile "gPTP", Port.AsCapable;
#   - phcd slave of ptp4l: its port SLAVE, its offsets near zero, both sides asCapable (phcd's
#     Port.AsCapable on D-Bus, ptp4l's PORT_DATA_SET_NP), ptp4l's Announce holding a path trace;
#   - phcd grandmaster of ptp4l: ptp4l's offsets near zero, both asCapable, and phcd's Announce
#     and Follow_Up on the wire (captured by dumpcap in ptp4l's namespace) carrying the path trace [phcd]
#     and the Follow_Up information TLV;
#   - then a neighborPropDelayThresh that veth cannot meet (100 ns) on phcd's side: phcd's port
#     goes not asCapable (D-Bus false), and no Sync nor Announce of phcd's is on the wire.
# Against Debian's ptp4l 3.1.1 and linuxptp 4.2, each with its own gPTP.cfg.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin dbus ptp port phcd gptp

PCAP=$SRC/tests/integration/ptp-pcap.py
dbus_start "$tmp/bus"

run() { # VERSION ROLE(slave|master)
	local v=${1//./}${2:0:1} A B ia ib from stats ptp4l_pid phcd_pid deadline cap id prof
	A=pgfa$$$v B=pgfb$$$v ia=gf${v}a ib=gf${v}b log=$tmp/$v
	gptp_cfg "$PTP4L_DIR" >"$log.cfg"
	{
		echo '[global]'
		echo 'logging_level = 7'
		echo "[instance gp]"
		echo "interfaces = $ib"
		echo 'profile = gPTP'
		echo 'time_stamping = software'
		echo 'clock_backend = virtual'
		echo 'neighborPropDelayThresh = 100000'
		echo 'pi_proportional_const = 0.7'
		echo 'pi_integral_const = 0.3'
		# gPTP.cfg's priority1 is 248: the grandmaster side takes a better one.
		if [ "$2" = master ]; then echo 'priority1 = 100'; else echo 'priority1 = 250'; fi
	} >"$log.phcd.conf"
	netns_pair "$A" "$B" "$ia" "$ib"
	ptp4l_start "$A" "$ia" "$log-ptp4l" -f "$log.cfg" --summary_interval -3
	ptp4l_pid=$LAST_PID
	phcd_start "$B" "$log.phcd.conf" "$log-phcd" --status-file "$log.status" --uds "" --uds-ro ""
	phcd_pid=$PHCD_PID
	wait_bus_name org.phcd1 10
	wait_as_capable "$ib" true 30
	echo "ok: phcd's port to ptp4l $1 is asCapable (D-Bus Port.AsCapable true)"
	prof=$(busctl --system get-property org.phcd1 /org/phcd1/instance/gp org.phcd1.Instance \
		Profile | awk '{ print $2 }')
	[ "$prof" = '"gPTP"' ] || fail "D-Bus Instance.Profile: expected \"gPTP\", got $prof"
	wait_ptp4l_as_capable "$A" "$ia" 30 "ptp4l $1"
	echo "ok: ptp4l $1 counts its port to phcd asCapable"
	if [ "$2" = slave ]; then
		gptp_phcd_slave_offsets "$ib" "phcd (profile gPTP) as slave of ptp4l $1 (gPTP.cfg)"
		[ "$(status_field "$log.status" port "$ib" state)" = SLAVE ] ||
			fail "phcd's status file: port $ib not SLAVE"
	else
		id=$(status_field "$log.status" instance gp clock)
		gptp_ptp4l_slave_offsets "$id" "ptp4l $1 (gPTP.cfg) as slave of phcd (profile gPTP)"
		# What phcd puts on the wire, seen from ptp4l's side.
		capture_for "$A" "$ia" 3 "$log.pcap"
		"$PCAP" "$log.pcap" >"$log.frames"
		local mac path
		mac=$(ip -n "$B" -j link show "$ib" | jq -r '.[0].address')
		path=$(awk -v m="$mac" '$1 == m && $2 == "ANNOUNCE" { print $12; exit }' "$log.frames")
		[ "$path" = "${id//./}" ] ||
			fail "phcd's Announce: expected the path trace [$id], got '$path'"
		grep -Eq "^$mac FOLLOW_UP .* sdo 1 csro 0$" "$log.frames" ||
			fail "phcd's Follow_Up: no Follow_Up information TLV (majorSdoId 1) captured"
		echo "ok: phcd's Announce carries the path trace [$id], its Follow_Up the 802.1AS TLV"
	fi

	# A threshold veth cannot meet: phcd's port is not asCapable and sends no time.
	sed -i 's/^neighborPropDelayThresh = .*/neighborPropDelayThresh = 100/' "$log.phcd.conf"
	kill -HUP "$phcd_pid"
	wait_as_capable "$ib" false 30
	test_duration 1 "a Sync or Announce already due when asCapable fell may still leave"
	capture_for "$A" "$ia" 3 "$log.pcap2"
	"$PCAP" "$log.pcap2" >"$log.frames2"
	mac=$(ip -n "$B" -j link show "$ib" | jq -r '.[0].address')
	if grep -Eq "^$mac (SYNC|FOLLOW_UP|ANNOUNCE) " "$log.frames2"; then
		fail "phcd not asCapable, yet its Sync/Announce on the wire: $(grep -E "^$mac" "$log.frames2" | head -3)"
	fi
	grep -Eq "^$mac PDELAY_REQ " "$log.frames2" ||
		fail "phcd not asCapable: expected it to keep measuring the link (Pdelay_Req)"
	echo "ok: neighborPropDelayThresh 100 ns: phcd's port not asCapable, no Sync or Announce" \
		"of phcd's on the wire in 3 s (Pdelay_Req only)"

	kill "$phcd_pid" "$ptp4l_pid" 2>/dev/null || true
	wait "$phcd_pid" "$ptp4l_pid" 2>/dev/null || true
}

reference_linuxptp
for i in "${!REF_VERSIONS[@]}"; do
	PTP4L_DIR=${REF_DIRS[$i]}
	run "${REF_VERSIONS[$i]}" slave
	run "${REF_VERSIONS[$i]}" master
done
