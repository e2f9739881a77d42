#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# PTP over UDP/IPv6 (IEEE 1588-2019 Annex D) with linuxptp's default.cfg unchanged in phcd
# (ptp4l_config, phcd.conf saying network_transport = UDPv6) and in ptp4l (-6): phcd slave of
# ptp4l 4.2 and master of ptp4l 3.1.1, at once; the slave's offsets judged as the L2 tests judge
# them, phcd's worker on ports 319 and 320 and its interface a member of FF0E::181 (udp6_scope
# 0x0E). Management over UDPv6 (pmc -6 from the peer, as over L2 in test-mgmt.sh): GETs answered
# by phcd's port (its clockIdentity, priority1 and portState), SET refused as the default
# management_network read-only says (MANAGEMENT_ERROR_STATUS, priority1 unchanged).
set -euo pipefail
: "${BUILD:?BUILD must name the build directory}" "${SRC:?SRC must name the source directory}"
. "$SRC/tests/lib/net-helpers.sh"
. "$SRC/tests/lib/ptp-helpers.sh"
. "$SRC/tests/lib/port-helpers.sh"
. "$SRC/tests/lib/phcd-helpers.sh"
. "$SRC/tests/lib/gptp-helpers.sh"
. "$SRC/tests/lib/udp-helpers.sh"

tmp=$(mktemp -d)
chmod 755 "$tmp"
trap 'net_cleanup; rm -rf "$tmp"' EXIT

# udp_mgmt_checks WHAT: pmc over the last run's transport gets phcd's answers, and a SET is
# refused.
udp_mgmt_checks() {
	local out id
	id=$(status_field "$log.status" instance default clock)
	out=$(udp_pmc 'GET DEFAULT_DATA_SET' 'GET PORT_DATA_SET')
	grep -Eq "^[[:space:]]+clockIdentity +$id$" <<<"$out" &&
		grep -Eq "^[[:space:]]+priority1 +100$" <<<"$out" &&
		grep -Eq "^[[:space:]]+portIdentity +$id-1$" <<<"$out" &&
		grep -Eq "^[[:space:]]+portState +MASTER$" <<<"$out" ||
		fail "$1: expected DEFAULT_DATA_SET (clockIdentity $id, priority1 100) and PORT_DATA_SET (MASTER) from phcd, got: $out"
	out=$(udp_pmc 'SET PRIORITY1 5')
	grep -q 'RESPONSE MANAGEMENT_ERROR_STATUS' <<<"$out" ||
		fail "$1: SET PRIORITY1 expected MANAGEMENT_ERROR_STATUS (management_network read-only), got: $out"
	out=$(udp_pmc 'GET PRIORITY1')
	grep -Eq "^[[:space:]]+priority1 +100$" <<<"$out" ||
		fail "$1: priority1 after a refused SET: expected 100, got: $out"
	echo "ok: $1: GET DEFAULT_DATA_SET and PORT_DATA_SET answered by phcd $id-1, SET PRIORITY1 refused"
}

one() { # INDEX: 0 phcd master of 3.1.1 (and pmc -6), 1 phcd slave of 4.2
	local cfg dir ver
	trap 'net_cleanup' EXIT
	PTP4L_DIR=${REF_DIRS[$1]}
	ver=${REF_VERSIONS[$1]}
	UDP_TAG=$1
	dir=${PTP4L_DIR:+$PTP4L_DIR/configs}
	cfg=$tmp/$ver-default.cfg
	cp "${dir:-/usr/share/doc/linuxptp/configs}/default.cfg" "$cfg"
	if [ "$1" = 0 ]; then
		udp_run master 6 "$cfg" "linuxptp $ver's default.cfg, ptp4l -6" "network_transport = UDPv6"
		udp_mgmt_checks "pmc -6 (linuxptp $ver)"
	else
		udp_run slave 6 "$cfg" "linuxptp $ver's default.cfg, ptp4l -6" "network_transport = UDPv6"
	fi
	udp_stop
}

reference_linuxptp
udp_parallel one "${!REF_VERSIONS[@]}"
