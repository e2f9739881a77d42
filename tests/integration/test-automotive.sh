#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The 802.1AS automotive profile: static roles, no BMCA, no Announce.
#   - phcd-port (`profile = automotive-slave`) the designated slave of ptp4l running linuxptp's
#     automotive-master.cfg: SLAVE without ever hearing an Announce, offsets near zero; once its
#     servo is stable it asks for Sync once a second (Signaling, 802.1AS message interval
#     request) and slows its Pdelay_Req to 2^2 s, and ptp4l's Syncs come at that interval.
#   - phcd-port (`profile = automotive-master`) the designated master of ptp4l running
#     automotive-slave.cfg: ptp4l follows it (offsets near zero), phcd never sends Pdelay_Req.
# A capture (dumpcap, in the slave's namespace) shows no Announce on the wire from either side,
# master or slave. Configs unchanged; phcd's servo_offset_threshold is 5 us instead of the
# profile's 30 ns, which software timestamps over veth never meet. ptp4l runs free-running (this
# machine's clock is never touched), so it never locks and never sends its own interval request:
# phcd's serving of one is shown by the first part's mirror in tests/unit/test-port-gptp.c.
# Against Debian's ptp4l 3.1.1 and linuxptp 4.2.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin port

PCAP=$SRC/tests/integration/ptp-pcap.py

cfg() { # DIR NAME
	local f=${1:+$1/configs/$2.cfg}
	f=${f:-/usr/share/doc/linuxptp/configs/$2.cfg}
	[ -f "$f" ] || fail "no $2.cfg at $f"
	echo "$f"
}

no_announce() { # FRAMES LABEL
	if grep -q ' ANNOUNCE ' "$1"; then
		fail "$2: Announce on the wire: $(grep ' ANNOUNCE ' "$1" | head -n 2)"
	fi
}

run() { # VERSION ROLE (slave: phcd the designated slave; master: phcd the designated master)
	local v=${1//./}${2:0:1} A B ia ib log from stats pids=() pm pp n slow fast
	A=pgaa$$$v B=pgab$$$v ia=ga${v}a ib=ga${v}b log=$tmp/$v
	netns_pair "$A" "$B" "$ia" "$ib"
	pm=$(ip -n "$A" -j link show "$ia" | jq -r '.[0].address')
	pp=$(ip -n "$B" -j link show "$ib" | jq -r '.[0].address')
	# From the first frame on: no Announce may ever appear.
	capture_start "$B" "$ib" "$log.pcap" -P
	if [ "$2" = slave ]; then
		printf '[global]\nprofile = automotive-slave\ntime_stamping = software\n' >"$tmp/phcd-port.conf"
		printf 'servo_offset_threshold = 5000\npi_proportional_const = 0.7\n' >>"$tmp/phcd-port.conf"
		printf 'pi_integral_const = 0.3\n' >>"$tmp/phcd-port.conf"
		ptp4l_start "$A" "$ia" "$log-ptp4l" -f "$(cfg "$PTP4L_DIR" automotive-master)"
		pids+=("$LAST_PID")
		phcd_port_start "$B" "$ib" "$log-phcd" --clock virtual
		pids+=("$LAST_PID")
		stats=$(port_slave_stats "$log-phcd" 6 30)
		check_stats "phcd-port (automotive-slave) designated slave of ptp4l $1 (automotive-master.cfg)" \
			"$stats" 5000 20000
		wait_for "$log-phcd" 'Sync interval now 2\^0 s' 60
		echo "ok: phcd-port stable, asked for the operational Sync interval"
		test_duration 5 "5 s of Syncs after the request in the capture"
		capture_stop
		"$PCAP" "$log.pcap" >"$log.frames"
		grep -q "^$pp SIGNALING .* ireq -128,0,-128$" "$log.frames" ||
			fail "phcd-port: no Signaling with the interval request (-128,0,-128) captured"
		# The Syncs after the request: once a second, as asked (one already on its way may
		# still say 2^-3 s).
		n=$(awk -v pp="$pp" -v pm="$pm" '$1 == pp && $2 == "SIGNALING" { after = 1; next }
			after && $1 == pm && $2 == "SYNC" { if ($6 == 0) slow++; else fast++ }
			END { printf "%d %d\n", slow, fast }' "$log.frames")
		read -r slow fast <<<"$n"
		[ "$slow" -ge 3 ] && [ "$fast" -le 1 ] ||
			fail "ptp4l $1: after phcd's request expected Syncs at logMessageInterval 0, got $slow at 0 and $fast at others"
		echo "ok: ptp4l $1 (automotive-master) sends Sync once a second at phcd's request" \
			"($slow Syncs at interval 0 after it, $fast at another)"
	else
		printf '[global]\nprofile = automotive-master\ntime_stamping = software\n' >"$tmp/phcd-port.conf"
		phcd_port_start "$B" "$ib" "$log-phcd" --clock virtual
		pids+=("$LAST_PID")
		ptp4l_start "$A" "$ia" "$log-ptp4l" -f "$(cfg "$PTP4L_DIR" automotive-slave)" \
			--summary_interval -3
		pids+=("$LAST_PID")
		wait_for "$log-phcd" 'INITIALIZING to MASTER' 10
		# Free-running ptp4l stays UNCALIBRATED; its offsets come every 2 s.
		wait_lines "$log-ptp4l" 'master offset' 6 40
		stats=$(offset_stats "$log-ptp4l" 0 6)
		check_stats "ptp4l $1 (automotive-slave.cfg) designated slave of phcd-port (automotive-master)" \
			"$stats" 5000 20000
		capture_stop
		"$PCAP" "$log.pcap" >"$log.frames"
		grep -q "^$pp SYNC " "$log.frames" || fail "phcd-port: no Sync captured"
		grep -q "^$pm PDELAY_REQ " "$log.frames" || fail "ptp4l $1: no Pdelay_Req captured"
		grep -q "^$pp PDELAY_RESP " "$log.frames" || fail "phcd-port: no Pdelay_Resp captured"
		if grep -q "^$pp PDELAY_REQ " "$log.frames"; then
			fail "phcd-port (inhibit_delay_req): Pdelay_Req on the wire"
		fi
		echo "ok: phcd-port (automotive-master) sends Sync, answers Pdelay_Req, asks none"
	fi
	no_announce "$log.frames" "automotive $2 with ptp4l $1"
	echo "ok: no Announce on the wire from start to end ($(wc -l <"$log.frames") PTP frames" \
		"captured, from $pm (ptp4l) and $pp (phcd))"
	kill "${pids[@]}" 2>/dev/null || true
	wait "${pids[@]}" 2>/dev/null || true
}

reference_linuxptp
for i in "${!REF_VERSIONS[@]}"; do
	PTP4L_DIR=${REF_DIRS[$i]}
	run "${REF_VERSIONS[$i]}" slave
	run "${REF_VERSIONS[$i]}" master
done
