#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# One timescale per boundary clock (virtual back end, software timestamps): the upstream
# grandmaster is a phcd-port whose virtual clock runs 0.5 s ahead of the host clock; phcd is the
# boundary clock; a free-running ptp4l measures the BC's MASTER port. Its offsets must be near
# -0.5 s: the MASTER port serves the time its SLAVE sibling learnt, not the host's raw time
# (which would show as offsets near 0).
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin ptp port phcd

PORT=$BUILD/worker/phcd-port
S=phbt-s$$ G=phbt-g$$ D=phbt-d$$
GM_OFFSET=500000000
TOLERANCE=3000000 # |offset + GM_OFFSET| in ns: a few ms
# net_cleanup stops every process in BG_PIDS (phcd too, SIGTERM) before the namespaces go.
for ns in $S $G $D; do netns_add "$ns"; done
veth_add "$S" bt1 "$G" gt1
veth_add "$S" bt2 "$D" dt2

# Fast intervals, the same on every clock, so the chain settles in seconds.
phcd_fast_global >"$tmp/gm.conf"
ip netns exec "$G" capsh --drop=cap_sys_time -- -c "exec $PORT -i gt1 -m -f $tmp/gm.conf \
	--clock virtual --virtual-offset $GM_OFFSET --priority1 100" >"$tmp/gm.log" 2>&1 &
BG_PIDS+=($!)
ip netns exec "$D" capsh --drop=cap_sys_time -- -c "exec ptp4l -i dt2 -2 -S -m \
	--free_running 1 -s $PTP4L_FAST --summary_interval -3 --uds_address $tmp/uds-down" \
	>"$tmp/down.log" 2>&1 &
BG_PIDS+=($!)

{
	phcd_fast_global
	cat <<EOF

[instance bc]
interfaces = bt1, bt2
domainNumber = 0
clock_backend = virtual
EOF
} >"$tmp/phcd.conf"
STATUS=$tmp/status
phcd_start "$S" "$tmp/phcd.conf" "$tmp/phcd.log" --port-binary "$PORT" --status-file "$STATUS"

wait_status port bt1 state SLAVE 20
wait_status port bt2 state MASTER 10
wait_status instance bc servo LOCKED 20
# Offsets the downstream ptp4l prints from now on (--summary_interval as the sync interval: one
# "master offset" line per sample instead of an unsigned rms summary). Judged on the median of
# five: the BC steps its clock by 0.5 s once, shortly after its MASTER port starts serving, and a
# first Delay_Req exchange of ptp4l's that straddles the step leaves ptp4l a path delay 0.25 s off
# until its delay filter moves on (seen: the first offset -750 ms, the next ones -500 ms).
from=$(wc -l <"$tmp/down.log")
wait_lines "$tmp/down.log" 'master offset +-?[0-9]+ s[0-9]' 5 30 "$from"
offsets=$(tail -n +$((from + 1)) "$tmp/down.log" | grep -E 'master offset +-?[0-9]+ s[0-9]' |
	head -n 5 | awk '{ for (i = 1; i < NF; i++) if ($i == "offset") print $(i + 1) }')
median=$(sort -n <<<"$offsets" | sed -n 3p)
d=$((median + GM_OFFSET))
[ "${d#-}" -le "$TOLERANCE" ] ||
	fail "downstream ptp4l: expected the median of its offsets within $TOLERANCE ns of" \
		"-$GM_OFFSET ns (the grandmaster's time through the BC's MASTER port), got" \
		"$(echo $offsets)"
echo "ok: downstream of the boundary clock ptp4l measures the grandmaster's timescale:" \
	"offsets $(echo $offsets) ns, median $median (expected -$GM_OFFSET +- $TOLERANCE)"
