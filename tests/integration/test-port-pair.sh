#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Two phcd-ports on virtual clocks: the master's clock starts 0.5 s ahead and 100 ppm fast; the
# slave steps once (s1), locks (s2), and 30 s after locking its offset RMS is a few microseconds.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin port

A=pppa$$
B=pppb$$
netns_pair "$A" "$B" ppa ppb

phcd_port_start "$A" ppa "$tmp/master" --priority1 100 --clock virtual \
	--virtual-offset 500000000 --virtual-freq 100000
phcd_port_start "$B" ppb "$tmp/slave" --clock virtual
mid=$(phcd_port_id "$tmp/master")

wait_for "$tmp/slave" "selected best master clock $mid" 20
wait_for "$tmp/slave" 'master offset +-?[0-9]+ s1 ' 40
step=$(grep -Em1 'master offset +-?[0-9]+ s1 ' "$tmp/slave" | awk '{ print $4 }')
# The slave is 0.5 s behind when it steps (less what its frequency estimate ran meanwhile).
[ "${step#-}" -gt 400000000 ] && [ "${step#-}" -lt 600000000 ] ||
	fail "expected the step from an offset of about -0.5 s, got $step ns"
echo "ok: the slave stepped from an offset of $step ns"
wait_for "$tmp/slave" 'UNCALIBRATED to SLAVE on MASTER_CLOCK_SELECTED' 10
locked=$(line_no "$tmp/slave" 'UNCALIBRATED to SLAVE')
wait_lines "$tmp/slave" 'master offset .* s2 ' 1 5 "$locked"
freq=$(tail -n +"$locked" "$tmp/slave" | sed -nE 's/.*master offset .* s2 freq +([-+][0-9]+) .*/\1/p' |
	head -n1 || true)
[ "${freq#+}" -gt 90000 ] && [ "${freq#+}" -lt 110000 ] ||
	fail "expected a frequency of about +100000 ppb to follow the master, got $freq"
echo "ok: locked at $freq ppb"

# 30 s after locking, 15 samples.
wait_lines "$tmp/slave" 'master offset .* s2 ' 45 70 "$locked"
skip=$(tail -n +"$locked" "$tmp/slave" | grep -En 'master offset .* s2 ' | sed -n 30p | cut -d: -f1 ||
	true)
stats=$(offset_stats "$tmp/slave" $((locked + skip)) 15)
read -r mean rms delay n median _ <<<"$stats"
[ "$rms" -le 5000 ] || fail "offset RMS $rms ns 30 s after locking, expected <= 5000 ns"
check_stats "phcd-port slave of phcd-port, 30 s after locking" "$stats" 5000 20000
if tail -n +"$locked" "$tmp/slave" | grep -q 'SLAVE to UNCALIBRATED'; then
	fail "the slave lost lock: $(grep 'to UNCALIBRATED' "$tmp/slave")"
fi
