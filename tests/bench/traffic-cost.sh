#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Cost to unrelated traffic of a PTP port holder: iperf3 TCP and 64-byte UDP across a veth pair
# with nothing, with Debian's ptp4l, with phcd's transport, and with the full phcd (supervisor
# and worker, phcd-full) holding the receiving end; and
# the sending thread's CPU time per 64-byte UDP packet (tool-udpcost), which other load on a
# shared machine disturbs less than throughput does.
#
# usage: BUILD=build-dir tests/bench/traffic-cost.sh [RUNS [SECONDS]]   (root; default 8 x 5 s)
#        TESTS="cpu" ... to measure only some of: udp tcp cpu (default all three)
#        HOLDERS="none ptp4l phcd-full" ... some holders only (default none ptp4l phcd phcd-full)
# Interleaved: each run measures every holder in turn, so drift hits all of them alike.
# Not a pass/fail test and not in any meson suite.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
SRC=${SRC:-$(cd "$here/../.." && pwd)}
BUILD=${BUILD:-$SRC/build}
RUNS=${1:-8}
SECS=${2:-5}
. "$SRC/tests/lib/net-helpers.sh"

TOOL=$BUILD/tests/integration/tool-transport
COST=$BUILD/tests/bench/tool-udpcost
[ -x "$TOOL" ] && [ -x "$COST" ] || fail "no $TOOL or $COST: build first (ninja -C $BUILD)"
command -v iperf3 >/dev/null || fail "iperf3 missing"
command -v ptp4l >/dev/null || fail "ptp4l missing (linuxptp)"
A=phba$$
B=phbb$$
tmp=$(mktemp -d)
trap 'net_cleanup; rm -rf "$tmp"' EXIT
# phcd-full serves no D-Bus here: never the machine's own system bus.
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$tmp/no-bus
netns_pair "$A" "$B" bva bvb
ip -n "$A" addr add 169.254.88.1/24 dev bva
ip -n "$B" addr add 169.254.88.2/24 dev bvb
ncpu=$(nproc)
# Client and server on different CPUs when there are two, so each holds one.
caff=0
saff=$((ncpu > 1 ? 1 : 0))
iperf3_server "$B" 169.254.88.2 "$tmp/server.log" -A "$saff"

holder_pid=
start_holder() {
	holder_pid=
	case $1 in
	none) ;;
	ptp4l)
		# Never near a real clock: free running, and CAP_SYS_TIME dropped all the same.
		ip netns exec "$B" capsh --drop=cap_sys_time -- -c \
			"exec ptp4l -i bvb -2 -S -m --free_running 1 --uds_address $tmp/uds" \
			>"$tmp/holder.log" 2>&1 &
		holder_pid=$!
		;;
	phcd)
		ip netns exec "$B" "$TOOL" sink bvb >"$tmp/holder.log" 2>&1 &
		holder_pid=$!
		;;
	phcd-full)
		# The daemon as deployed: the supervisor, one worker on bvb; alone on the link, it
		# ends up MASTER sending Announce and Sync, as ptp4l does.
		printf '[global]\ntime_stamping = software\n\n[instance t]\ninterfaces = bvb\nclock_backend = virtual\n' \
			>"$tmp/phcd.conf"
		ip netns exec "$B" capsh --drop=cap_sys_time -- -c \
			"exec $BUILD/daemon/phcd -f $tmp/phcd.conf --uds $tmp/mgmt --uds-ro $tmp/mgmt-ro" \
			>"$tmp/holder.log" 2>&1 &
		holder_pid=$!
		;;
	esac
	# Ready when its packet socket shows in B's /proc/net/packet.
	local deadline=$((SECONDS + 5))
	while [ -n "$holder_pid" ] &&
		[ -z "$(ip netns exec "$B" awk 'NR > 1 { print $4 }' /proc/net/packet)" ]; do
		[ "$SECONDS" -lt "$deadline" ] || fail "$1 did not open its socket: $(cat "$tmp/holder.log")"
		sleep 0.02
	done
	protos=$(ip netns exec "$B" awk 'NR > 1 { print $4 }' /proc/net/packet | sort -u | tr '\n' ' ')
}

stop_holder() {
	if [ -n "$holder_pid" ]; then
		kill "$holder_pid" 2>/dev/null || true
		wait "$holder_pid" 2>/dev/null || true
	fi
}

# One measurement: packets/s (udp) or bits/s (tcp) as iperf3's receiver counted them, or the
# sending thread's CPU ns per 64-byte UDP packet (cpu; see tool-udpcost.c).
measure() {
	local out=$tmp/iperf.json
	if [ "$1" = cpu ]; then
		ip netns exec "$A" taskset -c "$caff" "$COST" 169.254.88.2 200000 |
			sed -n 's/.*cpu_ns_per_packet=\([0-9.]*\).*/\1/p'
	elif [ "$1" = udp ]; then
		# -w 4M: no loss at the server, so the rate is what the sending CPU, which also
		# runs the veth receive path and every packet tap on it, can push.
		ip netns exec "$A" iperf3 -c 169.254.88.2 -A "$caff" -u -l 64 -b 0 -w 4M -t "$SECS" \
			-J >"$out"
		jq -r '.end.sum | (.packets - .lost_packets) / .seconds' "$out"
	else
		ip netns exec "$A" iperf3 -c 169.254.88.2 -A "$caff" -t "$SECS" -J >"$out"
		jq -r '.end.sum_received.bits_per_second' "$out"
	fi
}

echo "# traffic-cost: $RUNS interleaved runs x ${SECS}s, $(uname -r), $ncpu CPUs, $(ptp4l -v 2>&1 | head -n 1) ptp4l"
echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# run holder test value sockets-in-B"
for run in $(seq 1 "$RUNS"); do
	for holder in ${HOLDERS:-none ptp4l phcd phcd-full}; do
		start_holder "$holder"
		for test in ${TESTS:-udp tcp cpu}; do
			v=$(measure "$test") || fail "iperf3 $test with $holder failed"
			echo "$run $holder $test $v ${protos:--}" | tee -a "$tmp/results"
		done
		stop_holder
	done
done

echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "# holder test mean sd sd/mean ratio-of-means paired-ratio(mean sd) best best-ratio"
echo "#   udp: received 64-byte packets/s; tcp: bits/s; cpu: sender CPU ns per 64-byte packet,"
echo "#   its ratios inverted (none/holder) so that all read as rate relative to nothing;"
echo "#   paired: the ratio within each run, then mean and sd over runs; best: the highest rate or"
echo "#   lowest cost of all runs (other load only ever makes a run worse)"
awk '
	{
		k = $2 " " $3; n[k]++; s[k] += $4; ss[k] += $4 * $4; v[$1, $2, $3] = $4; runs[$1] = 1
		if (!(k in best) || ($3 == "cpu" ? $4 < best[k] : $4 > best[k])) best[k] = $4
		seen[$3] = 1
	}
	END {
		nh = split(H, hs, " "); split("udp tcp cpu", ts, " ")
		for (t = 1; t <= 3; t++) for (h = 1; h <= nh; h++) {
			if (!(ts[t] in seen)) continue
			k = hs[h] " " ts[t]
			m = s[k] / n[k]; var = (ss[k] - n[k] * m * m) / (n[k] - 1)
			sd = var > 0 ? sqrt(var) : 0
			mean[k] = m
			rn = 0; rs = 0; rss = 0
			for (r in runs) {
				q = v[r, hs[h], ts[t]] / v[r, "none", ts[t]]
				if (ts[t] == "cpu") q = 1 / q
				rn++; rs += q; rss += q * q
			}
			rm = rs / rn; rv = (rss - rn * rm * rm) / (rn - 1); rsd = rv > 0 ? sqrt(rv) : 0
			ratio = m / mean["none " ts[t]]
			bratio = best[k] / best["none " ts[t]]
			if (ts[t] == "cpu") { ratio = 1 / ratio; bratio = 1 / bratio }
			printf "%-9s %s %14.1f %12.1f %5.1f%% %6.3f %6.3f %5.3f %14.1f %6.3f\n", hs[h],
				ts[t], m, sd, 100 * sd / m, ratio, rm, rsd, best[k], bratio
		}
	}' H="${HOLDERS:-none ptp4l phcd phcd-full}" "$tmp/results"
