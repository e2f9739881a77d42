#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Attack (issue 17, finding 5): forged Sync/Follow_Up pairs. phcd (system_clock_instance = auto,
# clock_backend system: its worker runs no servo and no gate) locks CLOCK_REALTIME to a ptp4l
# grandmaster; then tool-forge-sync sends, as that grandmaster, two pairs a second whose
# preciseOriginTimestamp is +-50 ms off (ptp4l sends 8 Syncs a second: a fifth of the offsets
# the worker measures are forged). phcd runs under capsh --drop=cap_sys_time and the clock shim,
# which logs every clock write and performs none. The policy: max_frequency 100 ppm, no step
# after lock (step_threshold 0). Expected: no step after lock and no frequency beyond the
# policy; the follower's own gate keeps the forged offsets from its servo (the shim's figures are
# those of an open loop: the clock is never really steered, so they say nothing of accuracy).
# Forgeries at the master's own rate (one per Sync) cannot be told from the master without
# authentication (IEEE 1588-2019 16.14); against them the bound is the policy.
# On 493a4b8 (its phcd and phcd-port, this test) the system clock ignored max_frequency and a
# forged offset drove it to 500 ppm.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin ptp phcd

PHCD=${PHCD:-$BUILD/daemon/phcd}
PORT=${PORT:-$BUILD/worker/phcd-port}
SHIM=${SHIM:-$BUILD/tests/doubles/libphcd-clock-shim.so}
FORGE=$BUILD/tests/integration/tool-forge-sync
MAX_FREQ_PPB=100000
S=pha5-s$$ G=pha5-g$$
netns_pair "$S" "$G" s1 g1
GM_ID=$(eui64 g1 "$G")
ptp4l_gm "$G" g1 "$tmp/gm.uds" "$tmp/gm.log"
{
	phcd_fast_global
	cat <<EOF2
system_clock_instance = auto

[instance lab]
interfaces = s1
clock_backend = system
slaveOnly = 1
max_frequency = $MAX_FREQ_PPB
EOF2
} >"$tmp/phcd.conf"
phcd_start_shimmed "$S" "$tmp/phcd.conf" "$tmp/phcd.log" "$tmp/shim.log" --port-binary "$PORT"
wait_for "$tmp/phcd.log" 'system clock LOCKED \(instance lab' 60
test_duration 3 "the servo runs locked before the baseline: only the locked regime is measured"
locked_at=$(wc -l <"$tmp/shim.log")
echo "ok: system clock locked to ptp4l ($locked_at clock writes so far)"

ip netns exec "$G" "$FORGE" g1 "$GM_ID" 1 2 20 50000000 >"$tmp/forge.out" 2>&1 ||
	fail "tool-forge-sync: $(cat "$tmp/forge.out")"
echo "ok: forged $(cat "$tmp/forge.out") Sync/Follow_Up pairs at +-50 ms in 20 s"
shim_steady "$tmp/shim.log" "$locked_at" "$MAX_FREQ_PPB" "under forged offsets"
