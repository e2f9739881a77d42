#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# PTP frames tagged for a VLAN (802.1Q, VID 5) that has no device on phcd-port's untagged
# interface are counted (vlan_tagged; ignored_vlan_tagged on D-Bus), not dropped unseen; a
# priority-tagged frame (VID 0) is the interface's own and reaches the engine.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin port

A=pvta$$ B=pvtb$$
netns_pair "$A" "$B" vta vtb
phcd_port_start "$B" vtb "$tmp/phcd" --clock virtual
wait_for "$tmp/phcd" 'INITIALIZING to LISTENING' 10

# send NS IF COUNT VID|none: COUNT Announce-sized PTP frames (domain 7, so that an untagged one is
# counted as other_domain) to 01-1B-19-00-00-00, with an 802.1Q tag of VID (or none).
send() {
	ip netns exec "$1" python3 - "$2" "$3" "$4" <<'PY'
import socket, struct, sys
ifn, count, vid = sys.argv[1], int(sys.argv[2]), sys.argv[3]
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((ifn, 0))
src = bytes.fromhex(open(f"/sys/class/net/{ifn}/address").read().strip().replace(":", ""))
hdr = bytes.fromhex("011b19000000") + src
tag = b"" if vid == "none" else struct.pack("!HH", 0x8100, int(vid))
for seq in range(count):
    ptp = bytearray(64)
    ptp[0], ptp[1] = 0x0B, 0x02          # Announce, PTP version 2
    struct.pack_into("!H", ptp, 2, 64)   # messageLength
    ptp[4] = 7                           # domainNumber
    ptp[20:28] = bytes.fromhex("0200000000000077")
    struct.pack_into("!HH", ptp, 28, 1, seq)
    ptp[33] = 1                          # logMessageInterval
    s.send(hdr + tag + b"\x88\xf7" + bytes(ptp))
PY
}
send "$A" vta 20 5
send "$A" vta 3 0
send "$A" vta 4 none
# Until phcd-port has read them all: no frame left queued on a packet socket in $B (the Rmem
# column of /proc/net/packet); it reports its counters when it ends.
deadline=$((SECONDS + 10))
until ip netns exec "$B" awk 'NR > 1 && $7 != 0 { q = 1 } END { exit q }' /proc/net/packet; do
	[ "$SECONDS" -lt "$deadline" ] ||
		fail "phcd-port left frames unread for 10 s: $(ip netns exec "$B" cat /proc/net/packet)"
	sleep 0.05
done
kill -TERM "$LAST_PID"
wait_for "$tmp/phcd" '^phcd-port: counters:' 10
counters=$(grep '^phcd-port: counters:' "$tmp/phcd")
echo "$counters"
get() { tr ' ' '\n' <<<"$counters" | awk -F= -v k="$1" '$1 == k { print $2 }'; }
[ "$(get vlan_tagged)" = 20 ] || fail "expected vlan_tagged=20 for 20 frames tagged VID 5, got '$(get vlan_tagged)'"
[ "$(get other_domain)" = 7 ] ||
	fail "expected other_domain=7 (3 priority-tagged and 4 untagged frames of domain 7), got '$(get other_domain)'"
echo "ok: 20 VLAN-tagged frames counted as vlan_tagged, 7 priority-tagged or untagged ones reached the engine"
