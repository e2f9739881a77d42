#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Unicast negotiation (IEEE 1588-2019 16.1) over UDPv4 against Debian's ptp4l 3.1.1, with
# linuxptp's own UNICAST-MASTER.cfg and UNICAST-SLAVE.cfg (only their address lines adapted):
#  a) phcd grantee (UNICAST-SLAVE.cfg, its table naming ptp4l) of ptp4l grantor
#     (UNICAST-MASTER.cfg): the REQUEST/GRANT exchange on the wire, Sync to phcd unicast only,
#     phcd SLAVE with offsets within the UDP tests' bounds;
#  b) ptp4l grantee (UNICAST-SLAVE.cfg naming phcd) of phcd grantor (UNICAST-MASTER.cfg): ptp4l
#     selects phcd (RS_SLAVE; --free_running keeps its servo at s0, so it logs no SLAVE, as in
#     every test here) and its offsets are within the same bounds, phcd's Sync to ptp4l unicast only and none to the group
#     (inhibit_multicast_service);
#  a, b) phcd stopped: its worker sends CANCEL for what it asked for and what it granted, which
#     ptp4l's grantee logs ("server unilaterally canceled");
#  a6, b6) a) and b) over UDPv6 (link-local addresses);
#  d) ptp4l grantor stopped: phcd leaves SLAVE and its grants expire (D-Bus Counters);
#  c) ptp4l refusing (unicast_listen 0, so it answers no REQUEST; slaveOnly, no multicast Announce):
#     phcd asks again with backoff, never UNCALIBRATED or SLAVE, no GRANT on the wire.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin dbus ptp port phcd gptp udp unicast

run_a() {
	trap 'net_cleanup' EXIT
	uc_pair a
	cp "$CONFIGS/UNICAST-MASTER.cfg" "$tmp/master-a.cfg"
	uc_slave_cfg "$tmp/slave-a.cfg" 192.0.2.1 "$ib"
	udp_phcd_conf "$tmp/slave-a.cfg" "$ib" slave "network_transport = UDPv4" >"$log.phcd.conf"
	"$BUILD/daemon/phcd" --check-config -f "$log.phcd.conf" >"$log.check" 2>&1 ||
		fail "phcd --check-config with UNICAST-SLAVE.cfg refused it: $(grep -m3 error "$log.check")"
	uc_capture_start "$A" "$ia" "$log.cap"
	udp_ptp4l_start "$A" "$ia" "$log-ptp4l" "$tmp/master-a.cfg" -4 --priority1 100
	gptp_phcd_start "$B" "$log.phcd.conf"
	gptp_phcd_slave_offsets "$ib" "phcd (UNICAST-SLAVE.cfg) grantee of ptp4l (UNICAST-MASTER.cfg)"
	# phcd stopped: its worker cancels what it asked for (CANCEL, tlvType 6) on its way out.
	uc_stop_phcd
	uc_capture_wait "$log.cap" '^12 192\.0\.2\.2 192\.0\.2\.1 (1|True) (0x0*)?6$' \
		"a: expected phcd's CANCEL to ptp4l when it stopped"
	cap=$(uc_capture_read "$log.cap")
	# Signaling (12) from phcd to ptp4l with a REQUEST (4) TLV, from ptp4l with a GRANT (5).
	uc_seen "$cap" '^12 192\.0\.2\.2 192\.0\.2\.1 (1|True) (0x0*)?4$' "a: expected phcd's REQUEST to ptp4l on the wire"
	uc_seen "$cap" '^12 192\.0\.2\.1 192\.0\.2\.2 (1|True) (0x0*)?5$' "a: expected ptp4l's GRANT to phcd on the wire"
	uc_seen "$cap" '^0 192\.0\.2\.1 192\.0\.2\.2 (1|True)' "a: expected ptp4l's Sync unicast to phcd"
	uc_unseen "$cap" '^0 192\.0\.2\.1 224\.' "a: ptp4l (inhibit_multicast_service) sent Sync to the group"
	uc_seen "$cap" '^1 192\.0\.2\.2 192\.0\.2\.1 (1|True)' "a: expected phcd's Delay_Req unicast to ptp4l"
	uc_unseen "$cap" '^1 192\.0\.2\.2 224\.' "a: phcd sent a Delay_Req to the group"
	echo "ok: a: phcd SLAVE of ptp4l by negotiated unicast; $(grep -c '^0 ' <<<"$cap") unicast Sync captured"
}

run_b() {
	trap 'net_cleanup' EXIT
	uc_pair b
	cp "$CONFIGS/UNICAST-MASTER.cfg" "$tmp/master-b.cfg"
	uc_slave_cfg "$tmp/slave-b.cfg" 192.0.2.2 "$ia"
	udp_phcd_conf "$tmp/master-b.cfg" "$ib" master "network_transport = UDPv4" >"$log.phcd.conf"
	"$BUILD/daemon/phcd" --check-config -f "$log.phcd.conf" >"$log.check" 2>&1 ||
		fail "phcd --check-config with UNICAST-MASTER.cfg refused it: $(grep -m3 error "$log.check")"
	uc_capture_start "$A" "$ia" "$log.cap"
	udp_ptp4l_start "$A" "$ia" "$log-ptp4l" "$tmp/slave-b.cfg" -4 --priority1 250
	gptp_phcd_start "$B" "$log.phcd.conf"
	wait_for "$log.status" "^instance default .* clock [0-9a-f.]+ " 10
	id=$(status_field "$log.status" instance default clock)
	gptp_ptp4l_slave_offsets "$id" "ptp4l (UNICAST-SLAVE.cfg) grantee of phcd (UNICAST-MASTER.cfg)"
	# phcd stopped: its grants cancelled, which ptp4l's grantee says.
	uc_stop_phcd
	wait_for "$log-ptp4l" "server unilaterally canceled unicast (SYNC|ANNOUNCE) grant" 10
	cap=$(uc_capture_read "$log.cap")
	uc_seen "$cap" '^12 192\.0\.2\.2 192\.0\.2\.1 (1|True) (0x0*)?5$' "b: expected phcd's GRANT to ptp4l on the wire"
	uc_seen "$cap" '^0 192\.0\.2\.2 192\.0\.2\.1 (1|True)' "b: expected phcd's Sync unicast to ptp4l"
	uc_unseen "$cap" '^(0|11) 192\.0\.2\.2 224\.' "b: phcd (inhibit_multicast_service) sent Sync or Announce to the group"
	uc_seen "$cap" '^9 192\.0\.2\.2 192\.0\.2\.1 (1|True)' "b: expected phcd's Delay_Resp unicast to ptp4l"
	echo "ok: b: ptp4l slave (RS_SLAVE) of phcd by negotiated unicast; $(grep -c '^0 ' <<<"$cap") unicast Sync captured"
}

run_c() {
	local times gaps
	trap 'net_cleanup' EXIT
	uc_pair c
	cp "$CONFIGS/UNICAST-MASTER.cfg" "$tmp/master-c.cfg"
	# Asked every second (the file's 4 s would make this run two minutes long).
	uc_slave_cfg "$tmp/slave-c.cfg" 192.0.2.1 "$ib"
	sed -i 's/^logQueryInterval.*/logQueryInterval 0/' "$tmp/slave-c.cfg"
	udp_phcd_conf "$tmp/slave-c.cfg" "$ib" slave "network_transport = UDPv4" >"$log.phcd.conf"
	# ptp4l serves no unicast (unicast_listen 0: it answers no REQUEST), and sends no multicast
	# Announce (slaveOnly) that phcd would take as ptp4l's own unicast client takes one: a
	# master that will not serve phcd. (This kernel has no tc actions to drop its multicast.)
	uc_capture_start "$A" "$ia" "$log.cap"
	udp_ptp4l_start "$A" "$ia" "$log-ptp4l" "$tmp/master-c.cfg" -4 --priority1 100 \
		--unicast_listen 0 --slaveOnly 1
	gptp_phcd_start "$B" "$log.phcd.conf"
	wait_for "$log-phcd" "$ib: LISTENING" 20
	sleep_until=$((SECONDS + 25))
	while [ "$SECONDS" -lt "$sleep_until" ]; do
		! grep -Eq "$ib: .*-> (UNCALIBRATED|SLAVE)" "$log-phcd" ||
			fail "c: phcd's port left LISTENING with no grant: $(grep -E "$ib: .*->" "$log-phcd")"
		sleep 1
	done
	cap=$(uc_capture_read "$log.cap")
	uc_unseen "$cap" '^12 192\.0\.2\.1 192\.0\.2\.2 .* (0x0*)?5$' "c: ptp4l (unicast_listen 0) granted"
	# The times of phcd's REQUESTs: each wait longer than the one before (the backoff).
	times=$(awk '$2 == "0x0c" && $3 == "192.0.2.2" && $6 ~ /^(0x0*)?4$/ { print $1 }' "$log.cap")
	gaps=$(awk 'NR > 1 { printf "%.1f\n", $1 - prev } { prev = $1 }' <<<"$times")
	[ "$(wc -l <<<"$gaps")" -ge 2 ] ||
		fail "c: expected at least 3 REQUESTs of phcd in 25 s, got at: $(tr '\n' ' ' <<<"$times")"
	awk 'NR > 1 && $1 < 1.5 * prev { bad = 1 } { prev = $1 } END { exit bad }' <<<"$gaps" ||
		fail "c: expected each wait between phcd's REQUESTs to grow (backoff), got: $(tr '\n' ' ' <<<"$gaps")"
	echo "ok: c: no grant, phcd not SLAVE, REQUESTs $(tr '\n' ' ' <<<"$gaps")s apart"
}

# a6: a) over UDPv6, the table naming ptp4l's link-local address: phcd SLAVE within the bounds
# (ptp4l sends no multicast, inhibit_multicast_service: only the negotiation makes it SLAVE).
run_a6() {
	local peer
	trap 'net_cleanup' EXIT
	uc_pair a6 6
	peer=$(ip -n "$A" -6 addr show dev "$ia" scope link | awk '/inet6/ { sub("/.*", "", $2); print $2; exit }')
	cp "$CONFIGS/UNICAST-MASTER.cfg" "$tmp/master-a6.cfg"
	uc_slave_cfg "$tmp/slave-a6.cfg" "$peer" "$ib"
	udp_phcd_conf "$tmp/slave-a6.cfg" "$ib" slave "network_transport = UDPv6" >"$log.phcd.conf"
	"$BUILD/daemon/phcd" --check-config -f "$log.phcd.conf" >"$log.check" 2>&1 ||
		fail "phcd --check-config with UNICAST-SLAVE.cfg (UDPv6) refused it: $(grep -m3 error "$log.check")"
	udp_ptp4l_start "$A" "$ia" "$log-ptp4l" "$tmp/master-a6.cfg" -6 --priority1 100
	gptp_phcd_start "$B" "$log.phcd.conf"
	gptp_phcd_slave_offsets "$ib" "phcd (UNICAST-SLAVE.cfg, UDPv6 $peer) grantee of ptp4l (UNICAST-MASTER.cfg, -6)"
}

# b6: b) over UDPv6, ptp4l's table naming phcd's link-local address.
run_b6() {
	local peer
	trap 'net_cleanup' EXIT
	uc_pair b6 6
	peer=$(ip -n "$B" -6 addr show dev "$ib" scope link | awk '/inet6/ { sub("/.*", "", $2); print $2; exit }')
	cp "$CONFIGS/UNICAST-MASTER.cfg" "$tmp/master-b6.cfg"
	uc_slave_cfg "$tmp/slave-b6.cfg" "$peer" "$ia"
	udp_phcd_conf "$tmp/master-b6.cfg" "$ib" master "network_transport = UDPv6" >"$log.phcd.conf"
	udp_ptp4l_start "$A" "$ia" "$log-ptp4l" "$tmp/slave-b6.cfg" -6 --priority1 250
	gptp_phcd_start "$B" "$log.phcd.conf"
	wait_for "$log.status" "^instance default .* clock [0-9a-f.]+ " 10
	id=$(status_field "$log.status" instance default clock)
	gptp_ptp4l_slave_offsets "$id" "ptp4l (UNICAST-SLAVE.cfg, UDPv6 $peer) grantee of phcd (UNICAST-MASTER.cfg)"
}

# d: ptp4l, the grantor, stops (it sends no CANCEL): phcd leaves SLAVE, its grants run out
# (unicast_req_duration 10 here: the file's 60 would make the run a minute longer), counted as
# Counters unicast_expiries on D-Bus (phcd alone on the test's bus). Before that, while SLAVE:
# Port.UnicastTable shows ptp4l's address with Sync granted, seconds left above 0, and phcctl's
# port view shows the same row, and phcd-exporter exports its seconds left.
run_d() {
	local deadline exp m
	uc_pair d
	cp "$CONFIGS/UNICAST-MASTER.cfg" "$tmp/master-d.cfg"
	uc_slave_cfg "$tmp/slave-d.cfg" 192.0.2.1 "$ib"
	udp_phcd_conf "$tmp/slave-d.cfg" "$ib" slave "network_transport = UDPv4" \
		"unicast_req_duration = 10" >"$log.phcd.conf"
	udp_ptp4l_start "$A" "$ia" "$log-ptp4l" "$tmp/master-d.cfg" -4 --priority1 100
	ptp4l_pid=$LAST_PID
	gptp_phcd_start "$B" "$log.phcd.conf"
	wait_for "$log-phcd" "$ib: .*-> SLAVE" 60
	uc_table_granted "$ib" 192.0.2.1 d
	echo "ok: d: UnicastTable $UC_ROW; phcctl: $(grep -E '192\.0\.2\.1 +grantee +sync' <<<"$UC_VIEW" | tr -s ' ')"
	ip netns exec "$B" "$BUILD/exporter/phcd-exporter" --listen 127.0.0.1:9434 \
		--counter-interval 1 >"$log.exporter" 2>&1 &
	BG_PIDS+=($!)
	m='phcd_port_unicast_grant_seconds_left{ptp_instance="default",interface="'$ib'",peer="192.0.2.1",role="grantee",message="sync"}'
	deadline=$((SECONDS + 15))
	until ip netns exec "$B" curl -sf --max-time 5 http://127.0.0.1:9434/metrics >"$log.metrics" &&
		awk -v k="$m" '$1 == k && $2 > 0 { ok = 1 } END { exit !ok }' "$log.metrics"; do
		[ "$SECONDS" -lt "$deadline" ] ||
			fail "d: expected the exporter's $m above 0 within 15 s, got: $(grep -s unicast_grant "$log.metrics"; cat "$log.exporter")"
		sleep 0.5
	done
	echo "ok: d: exporter: $(grep -F "$m" "$log.metrics")"
	kill "$ptp4l_pid"
	wait "$ptp4l_pid" 2>/dev/null || true
	from=$(wc -l <"$log-phcd")
	wait_for "$log-phcd" "$ib: SLAVE -> " 20 "$from"
	deadline=$((SECONDS + 20))
	until exp=$(busctl --system --json=short get-property org.phcd1 "/org/phcd1/port/$ib" \
		org.phcd1.Port Counters | jq -r '.data.unicast_expiries') && [ "$exp" -ge 1 ]; do
		[ "$SECONDS" -lt "$deadline" ] ||
			fail "d: expected Counters unicast_expiries >= 1 within 20 s of ptp4l stopping, got '$exp'"
		sleep 0.5
	done
	echo "ok: d: ptp4l stopped, phcd left SLAVE and $exp grant(s) expired"
}

job() { "run_$1"; }

reference_linuxptp
runs=${UC_RUNS-a b c a6 b6 d}
if [ -n "${runs% d}" ] && [ "${runs% d}" != d ]; then
	udp_parallel job ${runs% d}
fi
if [[ " $runs " == *" d "* ]]; then
	dbus_start "$tmp/bus"
	run_d
fi
