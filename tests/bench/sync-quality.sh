#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Sync quality: phcd and ptp4l as slaves of the same ptp4l grandmaster, at the same time, on the
# same LAN (a bridge in a namespace, one veth per station, software timestamps).
#
# What each number is (all ns, offsetFromMaster as each slave reports it):
#   ptp4l-raw   ptp4l -s --free_running 1: the measured offset of its free-running clock
#               (CLOCK_REALTIME, read through pmc CURRENT_DATA_SET at each new value);
#   phcd-raw    phcd instance with clock_backend = free_running: the same measurement, its clock
#               also CLOCK_REALTIME left alone (status file, each new value, about 1 per second).
#               Grandmaster and slaves read one CLOCK_REALTIME, so both raw series are pure
#               measurement noise (timestamps, path delay filter): the like-for-like comparison.
#   phcd-servo  phcd instance with clock_backend = virtual: the offset of a virtual clock its
#               PI servo steers (closed loop); ptp4l has no equivalent that leaves the machine's
#               clocks alone, so it is reported beside, not compared.
# The run is cut into WINDOWS equal windows; the summary gives each series' mean, RMS and 99th
# percentile of |offset| over the whole run, their spread (sd) across windows, and phcd-raw's
# ratio to ptp4l-raw.
#
# usage: BUILD=build-dir tests/bench/sync-quality.sh [SECONDS [WINDOWS]]   (root; default 120 5)
# Not a pass/fail test and not in any meson suite. Results: docs/performance.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
SRC=${SRC:-$(cd "$here/../.." && pwd)}
BUILD=${BUILD:-$SRC/build}
SECS=${1:-120}
WINDOWS=${2:-5}
. "$SRC/tests/lib/net-helpers.sh"
. "$SRC/tests/lib/ptp-helpers.sh"

PHCD=$BUILD/daemon/phcd
[ -x "$PHCD" ] || fail "no $PHCD: build first (ninja -C $BUILD)"
command -v ptp4l >/dev/null && command -v pmc >/dev/null || fail "ptp4l/pmc missing (linuxptp)"
tmp=$(mktemp -d)
L=phsq-l$$ M=phsq-m$$ P=phsq-p$$ S=phsq-s$$
trap 'net_cleanup; [ -n "${KEEP:-}" ] && cp -r "$tmp" "$KEEP"; rm -rf "$tmp"' EXIT
# No D-Bus here: never the machine's own system bus.
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$tmp/no-bus
lan_bridge "$L"
lan_station "$L" "$M" m0
lan_station "$L" "$P" p1
lan_station "$L" "$S" s1
lan_station "$L" "$S" s2

ptp4l_gm "$M" m0 "$tmp/gm.uds" "$tmp/gm.log"
ip netns exec "$P" capsh --drop=cap_sys_time -- -c "exec ptp4l -i p1 -2 -S -m -s \
	--free_running 1 $PTP4L_FAST --uds_address $tmp/p.uds" >"$tmp/ptp4l.log" 2>&1 &
BG_PIDS+=($!)
{
	phcd_fast_global
	printf '\n[instance raw]\ninterfaces = s1\nclock_backend = free_running\n'
	printf '\n[instance servo]\ninterfaces = s2\nclock_backend = virtual\n'
} >"$tmp/phcd.conf"
STATUS=$tmp/status
ip netns exec "$S" capsh --drop=cap_sys_time -- -c \
	"exec $PHCD -f $tmp/phcd.conf --status-file $STATUS" >"$tmp/phcd.log" 2>&1 &
BG_PIDS+=($!)

deadline=$((SECONDS + 30))
until [ "$(status_field "$STATUS" port s1 state)" = SLAVE ] &&
	[ "$(status_field "$STATUS" port s2 state)" = SLAVE ] &&
	[ "$(status_field "$STATUS" instance servo servo)" = LOCKED ]; do
	[ "$SECONDS" -lt "$deadline" ] || fail "phcd not SLAVE and LOCKED in 30 s: $(cat "$STATUS")"
	sleep 0.1
done
# The servo's convergence is not what is measured: let it settle.
sleep 10

echo "# sync-quality: ${SECS}s in $WINDOWS windows, $(uname -r), $(nproc) CPUs, $(ptp4l -v 2>&1 | head -n 1) ptp4l"
echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
# Every new value of each series, with its time since the start: "t series offset".
start=$(date +%s.%N)
end=$((SECONDS + SECS))
last_raw= last_servo= last_p=
while [ "$SECONDS" -lt "$end" ]; do
	now=$(date +%s.%N)
	t=$(awk -v a="$now" -v b="$start" 'BEGIN { printf "%.2f", a - b }')
	line=$(grep '^instance raw ' "$STATUS" || true)
	if [ -n "$line" ] && [ "$line" != "$last_raw" ]; then
		echo "$t phcd-raw $(status_field "$STATUS" instance raw offset)" >>"$tmp/samples"
		# ptp4l at phcd's cadence: its latest value when phcd's arrives.
		[ -z "$last_p" ] || echo "$t ptp4l-1s ${last_p%.*}" >>"$tmp/samples"
		last_raw=$line
	fi
	line=$(grep '^instance servo ' "$STATUS" || true)
	if [ -n "$line" ] && [ "$line" != "$last_servo" ]; then
		echo "$t phcd-servo $(status_field "$STATUS" instance servo offset)" >>"$tmp/samples"
		last_servo=$line
	fi
	v=$(ip netns exec "$P" pmc -u -b 0 -s "$tmp/p.uds" -i "$tmp/pmc" 'GET CURRENT_DATA_SET' |
		awk '$1 == "offsetFromMaster" { print $2 }')
	if [ -n "$v" ] && [ "$v" != "$last_p" ]; then
		echo "$t ptp4l-raw ${v%.*}" >>"$tmp/samples"
		last_p=$v
	fi
	[ "$(status_field "$STATUS" port s1 state)" = SLAVE ] || echo "# warning: s1 left SLAVE at $t"
	sleep 0.1
done
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
cp "$tmp/samples" "${SYNC_SAMPLES:-/dev/null}" 2>/dev/null || true

echo "# series n mean rms p99|x| max|x|   (ns; then per-window rms: mean sd)"
for series in ptp4l-raw ptp4l-1s phcd-raw phcd-servo; do
	awk -v s="$series" '$2 == s { print $3 }' "$tmp/samples" | sort -n >"$tmp/$series"
	awk -v s="$series" -v W="$WINDOWS" -v T="$SECS" '
		$2 == s { w = int($1 / T * W); if (w >= W) w = W - 1; n[w]++; ss[w] += $3 * $3 }
		END { for (w = 0; w < W; w++) if (n[w]) { r = sqrt(ss[w] / n[w]); m += r; q += r * r; c++ }
			m /= c; sd = c > 1 ? sqrt((q - c * m * m) / (c - 1)) : 0
			printf "%.0f %.0f\n", m, sd }' "$tmp/samples" >"$tmp/$series.win"
	awk '{ a = $1 < 0 ? -$1 : $1; print a, $1 }' "$tmp/$series" | sort -n |
		awk -v s="$series" -v win="$(cat "$tmp/$series.win")" '
		{ a[NR] = $1; sum += $2; ss += $2 * $2 }
		END { if (!NR) { print s, "no samples"; exit }
			i = int(NR * 0.99 + 0.999); if (i > NR) i = NR
			printf "%-10s %5d %8.0f %8.0f %8.0f %8.0f   %s\n", s, NR, sum / NR,
				sqrt(ss / NR), a[i], a[NR], win }'
done | tee "$tmp/summary"
awk '$1 == "ptp4l-raw" { r = $4; p = $5 } $1 == "ptp4l-1s" { r1 = $4; p1 = $5 }
	$1 == "phcd-raw" { R = $4; P = $5 }
	END { if (r && p) printf "# phcd-raw / ptp4l-raw: rms %.2f, p99 %.2f\n", R / r, P / p
		if (r1 && p1) printf "# phcd-raw / ptp4l-1s: rms %.2f, p99 %.2f\n", R / r1, P / p1 }' \
	"$tmp/summary"
