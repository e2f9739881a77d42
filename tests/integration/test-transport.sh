#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The L2 transport over veth in namespaces: timestamped exchange, TX timestamp matching under a
# burst, no foreign traffic on the PTP socket, ETH_P_1588 (never ETH_P_ALL), hardware fallback.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin

T=$BUILD/tests/integration/tool-transport
A=phta$$
B=phtb$$
netns_pair "$A" "$B" pva pvb

# 1. Exchange A -> B (B adopts a supervisor-style fd), then B -> A, software timestamps both ways.
N=500
ip netns exec "$B" "$T" --adopt --timeout-ms 10000 recv pvb $((2 * N)) >"$tmp/rx" &
rxpid=$!
BG_PIDS+=("$rxpid")
wait_for "$tmp/rx" '^pvb: open timestamping=software phc=-1 adopt=1$' 5
ip netns exec "$A" "$T" --interleave-general send pva "$N" >"$tmp/tx" ||
	fail "send A->B: $(tail -n 3 "$tmp/tx")"
rc=0
wait_pid "$rxpid" 15 || rc=$?
[ "$rc" = 0 ] || fail "B expected $((2 * N)) frames, got: $(tail -n 1 "$tmp/rx")"
grep -q "^tx done sent=$N failed=0$" "$tmp/tx" || fail "send: $(tail -n 1 "$tmp/tx")"
[ "$(grep -c '^tx seq=[0-9]* ts=[1-9]' "$tmp/tx")" = "$N" ] ||
	fail "expected $N TX timestamps, got $(grep -c '^tx seq=[0-9]* ts=[1-9]' "$tmp/tx")"
[ "$(grep -c ' ts=-1$' "$tmp/rx")" = 0 ] || fail "received frames without RX timestamp"
[ "$(grep -c '^rx seq=.* type=0 ' "$tmp/rx")" = "$N" ] || fail "expected $N Sync frames at B"
[ "$(grep -c '^rx seq=.* type=8 ' "$tmp/rx")" = "$N" ] || fail "expected $N Follow_Up frames at B"
amac=$(ip -n "$A" -br link show pva | awk '{print $3}')
grep -q "src=$amac " "$tmp/rx" || fail "expected source MAC $amac at B"
echo "ok: $N event + $N general frames A->B with software TX and RX timestamps"

ip netns exec "$A" "$T" --timeout-ms 10000 recv pva 20 >"$tmp/rx2" &
rxpid=$!
BG_PIDS+=("$rxpid")
wait_for "$tmp/rx2" '^pva: open' 5
ip netns exec "$B" "$T" --adopt send pvb 20 >"$tmp/tx2" || fail "send B->A"
rc=0
wait_pid "$rxpid" 15 || rc=$?
[ "$rc" = 0 ] || fail "A expected 20 frames, got: $(tail -n 1 "$tmp/rx2")"
echo "ok: 20 frames B->A, sender on an adopted fd"

# 2. Burst: every TX timestamp belongs to its own frame. The veth path is synchronous, so frame
# i is stamped at TX, then at RX, before frame i+1 is sent: tx[i] <= rx[i] <= tx[i+1]. A
# timestamp paired with the wrong frame breaks that chain.
awk '
	FNR == NR && /^tx seq=/ { split($2, s, "="); split($3, t, "="); tx[s[2]] = t[2]; next }
	/^rx seq=.* type=0 / { split($2, s, "="); split($NF, t, "="); rx[s[2]] = t[2] }
	END {
		n = 0; bad = 0
		for (i in tx) n++
		for (i = 0; i < n; i++) {
			if (!(i in rx)) { print "no RX for seq " i; bad++; continue }
			if (tx[i] > rx[i]) { print "seq " i ": tx " tx[i] " > rx " rx[i]; bad++ }
			if ((i + 1) in tx && rx[i] > tx[i + 1]) {
				print "seq " i ": rx " rx[i] " > next tx " tx[i + 1]; bad++
			}
		}
		printf "burst: %d frames, %d out of order\n", n, bad
		exit bad > 0
	}' "$tmp/tx" "$tmp/rx" >"$tmp/burst" || fail "TX timestamps not matched to their frames: $(head -n 5 "$tmp/burst")"
echo "ok: $(tail -n 1 "$tmp/burst")"

# 3. Foreign traffic: the PTP socket in B must see none of it, /proc/net/packet must show 88f7.
ip netns exec "$B" "$T" sink pvb >"$tmp/sink" &
sinkpid=$!
BG_PIDS+=("$sinkpid")
wait_for "$tmp/sink" '^sink ready$' 5
# The general socket (sends only) is bound with protocol 0 and not running (R 0): it hooks nothing.
protos=$(ip netns exec "$B" awk 'NR > 1 { print $4 ($4 == "0000" ? "/R" $6 : "") }' /proc/net/packet |
	sort -u | tr '\n' ' ')
[ "$protos" = "0000/R0 88f7 " ] ||
	fail "expected protocol 88f7 and a non-running protocol 0 socket in B's /proc/net/packet, got '$protos'"
grep -q "0003" <(ip netns exec "$B" awk 'NR > 1 { print $4 }' /proc/net/packet) &&
	fail "an ETH_P_ALL (0003) socket in B"
ip -n "$A" addr add 169.254.77.1/24 dev pva
ip -n "$B" addr add 169.254.77.2/24 dev pvb
iperf3_server "$B" 169.254.77.2 "$tmp/iperf-s" -1
ip netns exec "$A" iperf3 -c 169.254.77.2 -u -b 20M -l 64 -t 1 >"$tmp/iperf-c" 2>&1 ||
	fail "iperf3 client: $(tail -n 3 "$tmp/iperf-c")"
for t in "0x88b5 ptp" "0x88cc pdelay" "0x0800 ptp" "0x88f8 bcast" "0x8100 ptp"; do
	set -- $t
	ip netns exec "$A" "$T" raw pva "$1" "$2" 200 >/dev/null || fail "raw sender $t"
done
ip netns exec "$A" "$T" send pva 10 >/dev/null || fail "PTP send during foreign traffic"
# Frames cross the veth in order, so once the 10 PTP frames are in, every earlier one was seen.
wait_for "$tmp/sink" '^sink ptp=10 socket=' 5
kill "$sinkpid"
rc=0
wait_pid "$sinkpid" 5 || rc=$?
# The kernel hands the socket the 200 PTP frames tagged for VLAN 2 too (it strips the tag even
# without a VLAN device); the transport must drop those. Nothing else may reach the socket.
grep -q '^sink done ptp=10 socket=210$' "$tmp/sink" ||
	fail "expected 'sink done ptp=10 socket=210' (10 PTP + 200 VLAN-tagged PTP dropped by the transport), got '$(tail -n 1 "$tmp/sink")'"
udp=$(grep -Eo '[0-9]+/[0-9]+ \(' "$tmp/iperf-c" | tail -n 1 | tr -d ' (' || true)
echo "ok: PTP socket: 10 PTP frames delivered; of the foreign traffic only the 200 VLAN-2 PTP" \
	"frames reached the socket, and the transport dropped them (iperf3 UDP lost/total: $udp;" \
	"4 x 200 raw frames of other ethertypes, some to the PTP multicast addresses)"
echo "ok: /proc/net/packet in B shows protocol 88f7 only (and the general socket, protocol 0, not running)"

# 4. Hardware requested on veth: SIOCSHWTSTAMP refused, software fallback, reason given once.
ip netns exec "$A" "$T" --ts hardware send pva 5 >"$tmp/hw" 2>&1 || fail "send with --ts hardware"
n=$(grep -c 'hardware timestamping refused' "$tmp/hw" || true)
[ "$n" = 1 ] || fail "expected the refusal reported once, got $n times: $(cat "$tmp/hw")"
grep -q 'refused (SIOCSHWTSTAMP: Operation not supported), using software' "$tmp/hw" ||
	fail "expected the reason 'Operation not supported': $(head -n 1 "$tmp/hw")"
grep -q 'open timestamping=software' "$tmp/hw" || fail "expected software mode after fallback"
grep -q '^tx done sent=5 failed=0$' "$tmp/hw" || fail "sends after fallback: $(tail -n 1 "$tmp/hw")"
echo "ok: $(head -n 1 "$tmp/hw")"

# 5. A TX timestamp that never comes (the fd claims hardware stamping, veth has none): each
# event send ends with -ETIME ("Timer expired") once its 20 ms deadline has passed, not before.
start=$(date +%s%N)
rc=0
ip netns exec "$A" "$T" --adopt --fake-hw --tx-timeout-ms 20 send pva 3 >"$tmp/to" 2>&1 || rc=$?
elapsed=$((($(date +%s%N) - start) / 1000000))
n=$(grep -c '^tx seq=[0-2] error=Timer expired$' "$tmp/to" || true)
[ "$n" = 3 ] || fail "expected 3 sends to end in 'Timer expired', got: $(cat "$tmp/to")"
[ "$rc" != 0 ] || fail "sends without TX timestamps must fail"
[ "$elapsed" -ge 60 ] || fail "3 sends with a 20 ms deadline returned after only ${elapsed} ms"
echo "ok: no TX timestamp -> 3 x 'Timer expired' (-ETIME) in ${elapsed} ms (deadline 20 ms each)"
echo "PASS"
