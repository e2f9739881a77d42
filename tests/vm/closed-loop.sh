#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Opt-in closed-loop tier (PHCD_TEST_VM_QEMUFIX=1): the hardware tier's guest on a QEMU with the
# igb PTP bugs fixed (tests/vm/qemu-fixed.sh, built once and cached), no workaround in the guest,
# clock_backend phc: the slave's PHC, read against the master's in the guest, must run at the
# master's rate (+50 ppm imposed) within 0.5 ppm, no event message of A or B may miss its hardware
# timestamp, and in C phcd's PHC must stay as close to the grandmaster's as ptp4l's on each seat.
# Then D and E (tests/vm/chrony-guest.sh): chronyd steering the guest's CLOCK_REALTIME from
# phcd's samples (refclock SOCK, software timestamps) and from the PHC phcd steers (refclock PHC,
# hardware ones), judged against the grandmaster's PHC beside phcd steering it alone (A). Then T
# (tests/vm/ts-guest.sh): phcd a grandmaster with time_source = system, its PHC kept on the
# guest's CLOCK_REALTIME, its class following the guest kernel's STA_UNSYNC. U (after B): A and B
# over UDP/IPv4 (ptp4l -4 -H), every UDP event message stamped both ways (QEMU bug (d) fixed).
# Usage: tests/vm/closed-loop.sh [WORKDIR] (default build-vm/). The QEMU is cached in
# $PHCD_VM_QEMU_CACHE (default WORKDIR/qemu-fixed), which worktrees may share.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(realpath -m "${1:-$top/build-vm}")
qemu=$("$top/tests/vm/qemu-fixed.sh" "${PHCD_VM_QEMU_CACHE:-$work/qemu-fixed}") || {
	echo "closed-loop tier: NOT RUN: tests/vm/qemu-fixed.sh could not build QEMU" >&2
	exit 1
}
PHCD_VM_QEMU=$qemu PHCD_VM_CLOSED_LOOP=1 "$top/tests/vm/hw.sh" "$work"
# The boundary clock across NICs, each with its own PHC (tests/vm/bc.sh: 4 igb on two hubs).
exec "$top/tests/vm/bc.sh" "$work"
