#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ptp_dst_mac and p2p_dst_mac: a port joins exactly the multicast groups it needs (ip maddr in its
# namespace lists them, and no other PTP group) and sends every message to the configured
# address (a capture of everything phcd sends). Cases: E2E at the defaults (01-1B-19-00-00-00
# only), P2P at the defaults (both), G.8275.1's addresses (01-80-C2-00-00-0E only, E2E, as slave
# of ptp4l 3.1.1 and 4.2 configured the same), P2P at two other addresses, and phcd (the
# supervisor opens the socket) as master of a ptp4l slave at G.8275.1's address.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin port

G8275=01:80:c2:00:00:0e

# ptp_groups NS IF: the PTP multicast groups (01-1B-19-xx and 01-80-C2-xx) IF has joined, sorted.
ptp_groups() {
	ip -n "$1" maddr show dev "$2" | awk '$1 == "link" { print $2 }' |
		grep -E '^01:(1b:19|80:c2):' | sort | tr '\n' ' ' | sed 's/ $//'
}

# expect_groups NS IF "GROUPS" LABEL: within 10 s IF has joined exactly GROUPS.
expect_groups() {
	local deadline=$((SECONDS + 10)) have
	while :; do
		have=$(ptp_groups "$1" "$2")
		[ "$have" = "$3" ] && break
		[ "$SECONDS" -lt "$deadline" ] ||
			fail "$4: expected $2 to have joined exactly the PTP groups '$3', ip maddr shows '$have'"
		sleep 0.1
	done
	echo "ok: $4: $2 joined exactly $3"
}

# sent_by FILE MAC: "messageType destination" of each frame MAC sent, counted.
sent_by() {
	tshark -r "$1" -Y "eth.src == $2" -T fields -E separator=' ' -e ptp.v2.messagetype \
		-e eth.dst 2>/dev/null | sort | uniq -c
}

# expect_sent FILE MAC LABEL DEFAULT_DST PDELAY_DST: every frame MAC sent went to PDELAY_DST when
# it is a peer delay message (0x2, 0x3, 0xa) and to DEFAULT_DST otherwise, and some did.
expect_sent() {
	local file=$1 mac=$2 label=$3 dst=$4 pdst=$5 bad total
	sent_by "$file" "$mac" >"$file.sent"
	total=$(awk '{ n += $1 } END { print n + 0 }' "$file.sent")
	bad=$(awk -v d="$dst" -v p="$pdst" '{
		want = ($2 == "0x02" || $2 == "0x03" || $2 == "0x0a") ? p : d
		if ($3 != want) print }' "$file.sent")
	[ "$total" -gt 10 ] || fail "$label: only $total frames from $mac captured: $(cat "$file.sent")"
	[ -z "$bad" ] || fail "$label: frames from $mac to another address than $dst (peer delay: $pdst): $bad"
	echo "ok: $label: all $total frames phcd sent went to $dst (peer delay: $pdst): $(awk '{ printf "%s x%s -> %s; ", $2, $1, $3 }' "$file.sent")"
}

mac_of() { ip -n "$1" link show "$2" | awk '/link\/ether/ { print $2 }'; }

# case_port NAME PHCD_KEYS PTP4L_ARGS GROUPS DST PDST: phcd-port slave of a ptp4l grandmaster.
case_port() {
	local name=$1 keys=$2 args=$3 groups=$4 dst=$5 pdst=$6 v=$7
	local A=pdma$$$name B=pdmb$$$name ia=dm${name}a ib=dm${name}b log=$tmp/$name from
	netns_pair "$A" "$B" "$ia" "$ib"
	printf '[global]\nlogAnnounceInterval = 0\nannounceReceiptTimeout = 3\nlogSyncInterval = -2\nlogMinDelayReqInterval = -2\nlogMinPdelayReqInterval = -2\n%b' \
		"$keys" >"$tmp/$name.conf"
	capture_start "$B" "$ib" "$log.pcapng"
	ptp4l_start "$A" "$ia" "$log-ptp4l" --priority1 100 --logSyncInterval -2 $args
	ip netns exec "$B" capsh --drop=cap_sys_time -- -c \
		"exec $BUILD/worker/phcd-port -i $ib -m -f $tmp/$name.conf --clock virtual" \
		>"$log-phcd" 2>&1 &
	BG_PIDS+=($!)
	wait_for "$log-phcd" 'UNCALIBRATED to SLAVE on MASTER_CLOCK_SELECTED' 60
	expect_groups "$B" "$ib" "$groups" "$name"
	from=$(line_no "$log-phcd" 'UNCALIBRATED to SLAVE')
	# A path delay means ptp4l heard and answered phcd's Delay_Req or Pdelay_Req.
	wait_lines "$log-phcd" 'master offset .* s2 .* path delay +[1-9]' 5 30 "$from"
	echo "ok: $name: phcd-port SLAVE of ptp4l $v with a measured path delay"
	capture_stop
	expect_sent "$log.pcapng" "$(mac_of "$B" "$ib")" "$name" "$dst" "$pdst"
}

reference_linuxptp
case_port e2e '' '' '01:1b:19:00:00:00' 01:1b:19:00:00:00 none "${REF_VERSIONS[0]}"
case_port p2p 'delay_mechanism = P2P\n' '-P' "01:1b:19:00:00:00 $G8275" 01:1b:19:00:00:00 \
	"$G8275" "${REF_VERSIONS[0]}"
for i in "${!REF_VERSIONS[@]}"; do
	PTP4L_DIR=${REF_DIRS[$i]}
	case_port "g8275v$i" "ptp_dst_mac = 01:80:C2:00:00:0E\n" "--ptp_dst_mac $G8275" "$G8275" \
		"$G8275" none "${REF_VERSIONS[$i]}"
done
PTP4L_DIR=
case_port p2pother 'delay_mechanism = P2P\nptp_dst_mac = 01:1B:19:00:00:05\np2p_dst_mac = 01-80-c2-00-00-0f\n' \
	'-P --ptp_dst_mac 01:1B:19:00:00:05 --p2p_dst_mac 01:80:C2:00:00:0F' \
	'01:1b:19:00:00:05 01:80:c2:00:00:0f' 01:1b:19:00:00:05 01:80:c2:00:00:0f \
	"${REF_VERSIONS[0]}"

# phcd: the supervisor opens the socket and joins the groups, the worker sends.
A=pdmsa$$ B=pdmsb$$
netns_pair "$A" "$B" dmsa dmsb
cat >"$tmp/phcd.conf" <<CONF
[global]
time_stamping = software
logAnnounceInterval = 0
announceReceiptTimeout = 3
logSyncInterval = -2
priority1 = 100

[instance g]
interfaces = dmsb
clock_backend = free_running
ptp_dst_mac = 01:80:C2:00:00:0E
CONF
capture_start "$B" dmsb "$tmp/phcd.pcapng"
ptp4l_start "$A" dmsa "$tmp/phcd-ptp4l" -s --ptp_dst_mac "$G8275"
ip netns exec "$B" capsh --drop=cap_sys_time -- -c "exec $BUILD/daemon/phcd -f $tmp/phcd.conf" \
	>"$tmp/phcd.log" 2>&1 &
BG_PIDS+=($!)
# A free-running ptp4l slave stays UNCALIBRATED; its summaries show it measures against phcd.
wait_for "$tmp/phcd-ptp4l" 'LISTENING to UNCALIBRATED on RS_SLAVE' 60
from=$(line_no "$tmp/phcd-ptp4l" 'LISTENING to UNCALIBRATED')
wait_lines "$tmp/phcd-ptp4l" '^ptp4l.* rms .* delay +[1-9]' 1 30 "$from"
echo "ok: ptp4l (ptp_dst_mac $G8275) follows phcd and measures its path delay"
expect_groups "$B" dmsb "$G8275" "phcd"
capture_stop
expect_sent "$tmp/phcd.pcapng" "$(mac_of "$B" dmsb)" "phcd" "$G8275" none
echo PASS
