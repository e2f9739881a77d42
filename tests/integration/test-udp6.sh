#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# PTP over UDP/IPv6 (IEEE 1588-2019 Annex D) with linuxptp's default.cfg unchanged in phcd
# (ptp4l_config, phcd.conf saying network_transport = UDPv6) and in ptp4l (-6): phcd slave of
# ptp4l 4.2 and master of ptp4l 3.1.1, at once; the slave's offsets judged as the L2 tests judge
# them, phcd's worker on ports 319 and 320 and its interface a member of FF0E::181 (udp6_scope
# 0x0E). Management over UDPv6 (pmc -6 from the peer, as over L2 in test-mgmt.sh): GETs answered
# by phcd's port (its clockIdentity, priority1 and portState), SET refused as the default
# management_network read-only says (MANAGEMENT_ERROR_STATUS, priority1 unchanged). The port's
# transport as a user sees it (that run on a private system bus): D-Bus Port.NetworkTransport
# "UDPv6", `phcctl port` "Transport: UDPv6", phcd-exporter's phcd_port_info network_transport.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin ptp port phcd gptp udp dbus

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

# udp_user_view FAMILY: the last run's port shows its transport on D-Bus, in phcctl and in the
# exporter's metrics.
udp_user_view() {
	local want=UDPv$1 got addr=127.0.0.1:9434
	wait_bus_name org.phcd1 10
	got=$(busctl --system get-property org.phcd1 "/org/phcd1/port/$UDP_LAST_IF" org.phcd1.Port \
		NetworkTransport)
	[ "$got" = "s \"$want\"" ] || fail "D-Bus Port.NetworkTransport of $UDP_LAST_IF: expected $want, got '$got'"
	got=$("$BUILD/phcctl/phcctl" port "$UDP_LAST_IF")
	grep -Eq "^ +Transport +: $want$" <<<"$got" || fail "phcctl port $UDP_LAST_IF: expected 'Transport: $want', got: $got"
	ip netns exec "$UDP_LAST_NS" "$BUILD/exporter/phcd-exporter" --listen "$addr" >"$log.exporter" 2>&1 &
	BG_PIDS+=($!)
	local deadline=$((SECONDS + 10))
	until got=$(ip netns exec "$UDP_LAST_NS" curl -sf --max-time 2 "http://$addr/metrics") &&
		grep -q "^phcd_port_info{.*interface=\"$UDP_LAST_IF\".*network_transport=\"$want\".*} 1$" <<<"$got"; do
		[ "$SECONDS" -lt "$deadline" ] ||
			fail "phcd-exporter: expected phcd_port_info with network_transport=\"$want\" within 10 s, got: $(grep phcd_port_info <<<"$got")"
		sleep 0.2
	done
	echo "ok: $UDP_LAST_IF's transport $want on D-Bus (Port.NetworkTransport), in phcctl port and in phcd_port_info"
}

one() { # INDEX: 0 phcd master of 3.1.1 (and pmc -6), 1 phcd slave of 4.2
	local cfg ver
	trap 'net_cleanup' EXIT
	udp_version "$1"
	ver=$VER cfg=$CFG
	if [ "$1" = 0 ]; then
		trap 'net_cleanup; dbus_cleanup' EXIT
		dbus_start "$tmp/bus"
		udp_run master 6 "$cfg" "linuxptp $ver's default.cfg, ptp4l -6" "network_transport = UDPv6"
		udp_mgmt_checks "pmc -6 (linuxptp $ver)"
		udp_user_view 6
	else
		udp_run slave 6 "$cfg" "linuxptp $ver's default.cfg, ptp4l -6" "network_transport = UDPv6"
	fi
	udp_stop
}

reference_linuxptp
udp_parallel one "${!REF_VERSIONS[@]}"
