#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# linuxptp's own default.cfg (network_transport UDPv4, IEEE 1588-2019 Annex C), unchanged, in
# phcd and in ptp4l: phcd reads Debian's 3.1.1 default.cfg and 4.2's through ptp4l_config
# (--check-config refuses none of their keys, and says the file's transport is UDPv4) and runs it
# over UDP/IPv4 against ptp4l run with the same file: slave of ptp4l 3.1.1 and master of ptp4l 4.2,
# then master of 3.1.1 and slave of 4.2. The slave's offsets are judged as the L2 tests judge
# them (gptp-helpers.sh); phcd's worker holds UDP sockets on ports 319 and 320 and its interface
# joined 224.0.1.129. And phcd as master of a ptp4l hybrid_e2e slave (below).
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin ptp port phcd gptp udp

# The runs of one linuxptp version, its two roles one after the other (a subshell of its own).
version_runs() { # INDEX
	local role roles ver cfg
	trap 'net_cleanup' EXIT
	udp_version "$1"
	ver=$VER cfg=$CFG
	grep -Eq '^network_transport[[:space:]]+UDPv4' "$cfg" ||
		fail "$ver's default.cfg: expected network_transport UDPv4"
	"$BUILD/daemon/phcd" --check-config --ptp4l-config "$cfg" >"$cfg.check" 2>&1 ||
		fail "phcd --check-config --ptp4l-config $ver's default.cfg: $(grep -m3 'error' "$cfg.check")"
	grep -Eq "^$cfg:[0-9]+: network_transport UDPv4: honoured \(as phcd key network_transport = UDPv4\)" \
		"$cfg.check" ||
		fail "$ver's default.cfg: expected network_transport UDPv4 honoured, got $(grep network_transport "$cfg.check")"
	echo "ok: linuxptp $ver's default.cfg: no key refused, network_transport UDPv4 honoured"
	if [ "$1" = 0 ]; then roles=(slave master); else roles=(master slave); fi
	for role in "${roles[@]}"; do
		udp_run "$role" 4 "$cfg" "both with linuxptp $ver's default.cfg"
		udp_stop
	done
}

# A ptp4l 4.2 slave with hybrid_e2e 1 (its Delay_Req unicast to the master's address) and phcd as
# master: phcd takes the unicast Delay_Req on port 319 and answers to the group, which ptp4l
# accepts; the slave's offsets as above. (phcd's own hybrid_e2e, unicast Delay_Req and Delay_Resp,
# is not there: phcd.conf(5).)
hybrid_run() {
	local got
	trap 'net_cleanup' EXIT
	udp_version 1
	UDP_TAG=2
	UDP_PTP4L_OPTS="--hybrid_e2e 1"
	udp_run master 4 "$CFG" "ptp4l $VER with hybrid_e2e 1, both with default.cfg"
	got=$(ip netns exec "$UDP_LAST_PEER_NS" timeout 10 tshark -i "$UDP_LAST_PEER_IF" -a duration:5 \
		-f 'src host 192.0.2.1 and dst host 192.0.2.2 and udp dst port 319' -c 1 -T fields \
		-e ip.dst 2>/dev/null || true)
	[ "$got" = 192.0.2.2 ] ||
		fail "hybrid_e2e: expected ptp4l's Delay_Req unicast to phcd's 192.0.2.2, captured '$got'"
	echo "ok: ptp4l's hybrid_e2e Delay_Req came unicast to 192.0.2.2 and were answered"
	udp_stop
}

job() { # 0, 1: the versions' runs; h: the hybrid run
	if [ "$1" = h ]; then hybrid_run; else version_runs "$1"; fi
}

# All at once, so that the test stays within a minute.
reference_linuxptp
udp_parallel job "${!REF_VERSIONS[@]}" h
