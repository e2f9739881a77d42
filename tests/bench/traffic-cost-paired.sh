#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Cost to unrelated traffic of a PTP port holder, measured paired: one sending namespace A
# joined by a veth pair to each of several namespaces, each peer end held by one holder, all
# running at once: nothing, Debian's ptp4l over L2 (-2, an ETH_P_ALL packet socket), ptp4l
# over UDPv4 (-4), phcd over L2 (supervisor and worker, ETH_P_1588) and phcd over UDPv4.
# tool-udpcost sends 64-byte UDP datagrams to a closed port of each peer in turn, CHUNK at a
# time, and charges each chunk's CPU time to its peer (over veth the peer's receive path, every
# packet tap included, runs in softirq on the sending CPU and is charged to the sending thread).
# The holders are thus compared within milliseconds of each other: load on the machine that
# drifts over seconds falls on all of them alike, which interleaving whole runs could not give.
#
# usage: BUILD=build-dir tests/bench/traffic-cost-paired.sh [RUNS [PACKETS [CHUNK]]]
#        (root; default 30 runs x 400000 packets per peer, chunks of 2000)
# Each run gives one ratio per holder: CPU per packet to the bare peer / to the held one (a rate
# relative to nothing, 1.0 = costs nothing). The summary: mean, sd and standard error of that
# ratio over runs, and how many standard errors apart ptp4l -2 and phcd over L2 are.
# Not a pass/fail test and not in any meson suite.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
SRC=${SRC:-$(cd "$here/../.." && pwd)}
BUILD=${BUILD:-$SRC/build}
RUNS=${1:-30}
PACKETS=${2:-400000}
CHUNK=${3:-2000}
. "$SRC/tests/lib/net-helpers.sh"

COST=$BUILD/tests/bench/tool-udpcost
PHCD=$BUILD/daemon/phcd
[ -x "$COST" ] && [ -x "$PHCD" ] || fail "no $COST or $PHCD: build first (ninja -C $BUILD)"
command -v ptp4l >/dev/null || fail "ptp4l missing (linuxptp)"
tmp=$(mktemp -d)
trap 'net_cleanup; rm -rf "$tmp"' EXIT
# phcd serves no D-Bus here: never the machine's own system bus.
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$tmp/no-bus

HOLDERS=(none ptp4l-L2 ptp4l-UDPv4 phcd-L2 phcd-UDPv4)
A=pcpa$$
netns_add "$A"
dsts=
for i in "${!HOLDERS[@]}"; do
	ns=pcp$i$$
	netns_add "$ns"
	veth_add "$A" "pa$i" "$ns" "pb$i"
	ip -n "$A" addr add "169.254.$((90 + i)).1/24" dev "pa$i"
	ip -n "$ns" addr add "169.254.$((90 + i)).2/24" dev "pb$i"
	dsts+=${dsts:+,}169.254.$((90 + i)).2
done

# Each holder as deployed; ptp4l free running with CAP_SYS_TIME dropped all the same, phcd on
# its virtual clock. Alone on their links, both end up MASTER sending Announce and Sync.
start_holder() {
	local i=$1 ns=pcp$1$$ dev=pb$1
	case ${HOLDERS[$i]} in
	none) return 0 ;;
	ptp4l-L2 | ptp4l-UDPv4)
		local t=-2
		[ "${HOLDERS[$i]}" = ptp4l-UDPv4 ] && t=-4
		ip netns exec "$ns" capsh --drop=cap_sys_time -- -c \
			"exec ptp4l -i $dev $t -S -m --free_running 1 --uds_address $tmp/uds$i" \
			>"$tmp/holder$i.log" 2>&1 &
		;;
	phcd-L2 | phcd-UDPv4)
		printf '[global]\ntime_stamping = software\nnetwork_transport = %s\n\n[instance t]\ninterfaces = %s\nclock_backend = virtual\n' \
			"${HOLDERS[$i]#phcd-}" "$dev" >"$tmp/phcd$i.conf"
		ip netns exec "$ns" capsh --drop=cap_sys_time -- -c \
			"exec $PHCD -f $tmp/phcd$i.conf --uds $tmp/mgmt$i --uds-ro $tmp/mgmt-ro$i" \
			>"$tmp/holder$i.log" 2>&1 &
		;;
	esac
	BG_PIDS+=($!)
}

# Ready when the holder's sockets show in its namespace (a packet socket, or UDP port 319).
holder_sockets() {
	local ns=pcp$1$$
	{
		ip netns exec "$ns" awk 'NR > 1 { printf "packet:%s ", $4 }' /proc/net/packet
		ip netns exec "$ns" ss -Hlun 'sport = :319' | awk '{ printf "udp:%s ", $4 }'
	} 2>/dev/null
}

for i in "${!HOLDERS[@]}"; do
	start_holder "$i"
done
for i in "${!HOLDERS[@]}"; do
	[ "${HOLDERS[$i]}" = none ] && continue
	deadline=$((SECONDS + 10))
	until [ -n "$(holder_sockets "$i")" ]; do
		[ "$SECONDS" -lt "$deadline" ] ||
			fail "${HOLDERS[$i]} opened no socket within 10 s: $(cat "$tmp/holder$i.log")"
		sleep 0.05
	done
done
# The packet socket protocols: 0003 is ETH_P_ALL, 88f7 ETH_P_1588.
for i in "${!HOLDERS[@]}"; do
	echo "# ${HOLDERS[$i]}: 169.254.$((90 + i)).2, sockets: $(holder_sockets "$i")"
done

echo "# traffic-cost-paired: $RUNS runs x $PACKETS packets per peer in chunks of $CHUNK, $(uname -r), $(nproc) CPUs, ptp4l $(ptp4l -v 2>&1 | head -n 1)"
echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# run holder cpu_ns_per_packet rate_vs_none round_ratio_mean round_ratio_sd"
for run in $(seq 1 "$RUNS"); do
	for i in "${!HOLDERS[@]}"; do
		[ "${HOLDERS[$i]}" = none ] || kill -0 "${BG_PIDS[$((i - 1))]}" 2>/dev/null ||
			fail "${HOLDERS[$i]} ended during run $run: $(tail -n 5 "$tmp/holder$i.log")"
	done
	ip netns exec "$A" taskset -c 0 "$COST" "$dsts" "$PACKETS" "$CHUNK" >"$tmp/run.out" ||
		fail "tool-udpcost failed in run $run"
	awk -v run="$run" -v H="${HOLDERS[*]}" '
		BEGIN { split(H, h, " ") }
		{
			for (f = 1; f <= NF; f++) { split($f, kv, "="); v[kv[1]] = kv[2] }
			printf "%d %s %s %s %s %s\n", run, h[v["dst"] + 1], v["cpu_ns_per_packet"],
				v["rate_vs_dst0"], v["round_ratio_mean"], v["round_ratio_sd"]
		}' "$tmp/run.out" | tee -a "$tmp/results"
done
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "# holder: mean ns/packet, rate relative to nothing (mean over runs, sd, standard error)"
awk '
	{ n[$2]++; c[$2] += $3; s[$2] += $4; ss[$2] += $4 * $4; order[$2] = NR }
	END {
		for (k in n) {
			m[k] = s[k] / n[k]
			var = n[k] > 1 ? (ss[k] - n[k] * m[k] * m[k]) / (n[k] - 1) : 0
			sd[k] = var > 0 ? sqrt(var) : 0
			se[k] = sd[k] / sqrt(n[k])
		}
		nh = split(H, h, " ")
		for (i = 1; i <= nh; i++) {
			k = h[i]
			printf "%-12s %8.1f ns/pkt  rate %.4f  sd %.4f  se %.4f  (%d runs)\n", k,
				c[k] / n[k], m[k], sd[k], se[k], n[k]
		}
		d = m["phcd-L2"] - m["ptp4l-L2"]
		e = sqrt(se["phcd-L2"] ^ 2 + se["ptp4l-L2"] ^ 2)
		printf "phcd-L2 - ptp4l-L2: %.4f, %.1f standard errors\n", d, (e > 0 ? d / e : 0)
	}' H="${HOLDERS[*]}" "$tmp/results"
