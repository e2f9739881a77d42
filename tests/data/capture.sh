#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Regenerate tests/data/*.hex: real ptp4l/pmc frames captured on a veth pair in two namespaces.
#
# Run as root: tests/data/capture.sh [OUTDIR]  (default: the directory of this script).
# Never touches a clock: ptp4l runs with --free_running 1 and without CAP_SYS_TIME.
set -euo pipefail
out=$(realpath "${1:-$(dirname "$0")}")
tag=phcdcap$$
nsm=$tag-m
nss=$tag-s
work=$(mktemp -d /tmp/$tag.XXXX)
pids=()

cleanup() {
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null || true
	done
	wait 2>/dev/null || true
	ip netns del "$nsm" 2>/dev/null || true
	ip netns del "$nss" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

ip netns add "$nsm"
ip netns add "$nss"
ip link add vm netns "$nsm" address 02:00:00:00:00:01 type veth \
	peer vs netns "$nss" address 02:00:00:00:00:02
ip -n "$nsm" link set vm up
ip -n "$nss" link set vs up

# Start a command in a namespace without CAP_SYS_TIME, remember its pid.
bg_ns() {
	local ns=$1
	shift
	ip netns exec "$ns" capsh --drop=cap_sys_time -- -c "exec $*" &
	pids+=($!)
}

# Wait until the capture holds every wanted messageType (tshark's ptp.v2.messagetype), or fail.
wait_for_types() {
	local pcap=$1
	shift
	local deadline=$((SECONDS + 30)) have t missing
	while :; do
		have=" $(tshark -r "$pcap" -Y ptp -T fields -e ptp.v2.messagetype 2>/dev/null |
			while read -r v; do printf '%d ' "$v"; done)"
		missing=
		for t in "$@"; do
			[[ $have == *" $((t)) "* ]] || missing="$missing $t"
		done
		[ -z "$missing" ] && return 0
		if [ $SECONDS -ge $deadline ]; then
			echo "capture: expected message types $* in $pcap, missing:$missing" >&2
			echo "capture: have (decimal):$have" >&2
			return 1
		fi
		sleep 0.5
	done
}

# One run: master on vm, slave on vs, capture on vm. $1 = pcap, $2.. = extra ptp4l options.
run() {
	local pcap=$1 opts=$2 types=$3
	shift 3
	bg_ns "$nsm" tshark -q -i vm -F pcap -w "$pcap" -f "'ether proto 0x88f7'"
	local deadline=$((SECONDS + 10))
	until [ -s "$pcap" ]; do
		[ $SECONDS -lt $deadline ] || { echo "capture: tshark did not start" >&2; return 1; }
		sleep 0.2
	done
	bg_ns "$nsm" ptp4l -i vm -2 -S -m --free_running 1 --priority1 100 \
		--uds_address "$work/m.sock" $opts ">$work/m.log" "2>&1"
	bg_ns "$nss" ptp4l -i vs -2 -S -s -m --free_running 1 \
		--uds_address "$work/s.sock" $opts ">$work/s.log" "2>&1"
	wait_for_types "$pcap" $types
	"$@"
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null || true
	done
	wait 2>/dev/null || true
	pids=()
}

# pmc: one GET that ptp4l answers, one it answers with MANAGEMENT_ERROR_STATUS (PORT_PROPERTIES_NP is UDS-only).
pmc_gets() {
	ip netns exec "$nss" capsh --drop=cap_sys_time -- -c \
		"pmc -2 -i vs -b 0 'GET CURRENT_DATA_SET' 'GET PORT_PROPERTIES_NP'" >"$work/pmc.log"
	wait_for_types "$work/e2e.pcap" 0xd
}

# E2E: Sync (0x0), Delay_Req (0x1), Follow_Up (0x8), Delay_Resp (0x9), Announce (0xb).
run "$work/e2e.pcap" "" "0x0 0x1 0x8 0x9 0xb" pmc_gets
# P2P with the 802.1AS Follow_Up information TLV and PATH_TRACE on Announce.
run "$work/p2p.pcap" "-P --follow_up_info 1 --path_trace_enabled 1" "0x2 0x3 0xa 0x8 0xb" true

# Keep the first frame of each kind; the PTP payload is the frame after its 14-byte Ethernet header.
python3 - "$work" "$out" <<'PY'
import struct, sys
work, out = sys.argv[1], sys.argv[2]

def frames(path):
    data = open(path, 'rb').read()
    pos = 24
    while pos + 16 <= len(data):
        incl = struct.unpack_from('<I', data, pos + 8)[0]
        frame = data[pos + 16:pos + 16 + incl]
        pos += 16 + incl
        if frame[12:14] == b'\x88\xf7':
            yield frame[14:]

def mgmt_kind(p):
    action = p[46] & 0x0f
    tlv = struct.unpack_from('>H', p, 48)[0] if len(p) >= 52 else None
    if tlv == 2:
        return 'ptp4l-management-error'
    return {0: 'pmc-management-get', 2: 'ptp4l-management-response'}.get(action)

names = {0x0: 'ptp4l-sync', 0x1: 'ptp4l-delay-req', 0x8: 'ptp4l-follow-up',
         0x9: 'ptp4l-delay-resp', 0xb: 'ptp4l-announce'}
p2p = {0x2: 'ptp4l-pdelay-req', 0x3: 'ptp4l-pdelay-resp', 0xa: 'ptp4l-pdelay-resp-follow-up',
       0x8: 'ptp4l-follow-up-info', 0xb: 'ptp4l-announce-path-trace'}
got = {}
for pcap, table in (('e2e.pcap', names), ('p2p.pcap', p2p)):
    for p in frames(work + '/' + pcap):
        t = p[0] & 0x0f
        name = mgmt_kind(p) if t == 0xd else table.get(t)
        if name and name not in got:
            got[name] = p
want = sorted(set(names.values()) | set(p2p.values()) |
              {'pmc-management-get', 'ptp4l-management-response', 'ptp4l-management-error'})
missing = [n for n in want if n not in got]
if missing:
    sys.exit('capture: no frame for ' + ', '.join(missing))
for name in want:
    with open(f'{out}/{name}.hex', 'w') as f:
        f.write(got[name].hex() + '\n')
    print(f'{name}.hex: {len(got[name])} bytes')
PY
