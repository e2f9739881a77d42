#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Opt-in closed-loop tier (PHCD_TEST_VM_QEMUFIX=1): the hardware tier's guest on a QEMU with the
# igb PTP bugs fixed (tests/vm/qemu-fixed.sh, built once and cached), no workaround in the guest,
# clock_backend phc: the slave's PHC itself must learn the +50 ppm imposed on the master's PHC
# within 0.5 ppm, and no event message may miss its hardware timestamp.
# Usage: tests/vm/closed-loop.sh [WORKDIR] (default build-vm/).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(realpath -m "${1:-$top/build-vm}")
qemu=$("$top/tests/vm/qemu-fixed.sh" "$work/qemu-fixed") || {
	echo "closed-loop tier: NOT RUN: tests/vm/qemu-fixed.sh could not build QEMU" >&2
	exit 1
}
PHCD_VM_QEMU=$qemu PHCD_VM_CLOSED_LOOP=1 "$top/tests/vm/hw.sh" "$work"
# The boundary clock across NICs, each with its own PHC (tests/vm/bc.sh: 4 igb on two hubs).
exec "$top/tests/vm/bc.sh" "$work"
