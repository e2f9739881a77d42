#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Time to Synchronized from start with hardware timestamps: QEMU's igb on the QEMU with the igb
# PTP bugs fixed (tests/vm/qemu-fixed.sh, built once and cached, as the closed-loop tier), so
# that a servo can steer a PHC. In one guest (tests/bench/sync-time-vm-guest.sh): a ptp4l -H
# grandmaster on eth0 (PHC 0 50 ppm fast), and on eth1, one after the other in a rotating order,
# phcd with clock_servo pi, phcd with linreg (clock_backend phc, `phcctl wait-sync`) and ptp4l -H
# -s (its hardware defaults) to its first s2; PHC 1 1 ms off and at its own rate before each
# start; default intervals. Seconds from start; mean and sd per contender. Not a pass/fail test.
#
# usage: tests/bench/sync-time-vm.sh [RUNS [WORKDIR]]   (root; 6, build-vm/)
# Results: docs/performance.md.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
RUNS=${1:-6}
work=$(realpath -m "${2:-$top/build-vm}")
fail() {
	echo "FAIL: $*" >&2
	exit 1
}
not_run() { fail "$@"; }
. "$top/tests/vm/lib.sh"
qemu=$(vm_fixed_qemu "$work") || exit 1

vm_build "$work" daemon/phcd worker/phcd-port phcctl/phcctl
ird=$work/initramfs-st
vm_initramfs "$work" "$ird" "$work/build/daemon/phcd" "$work/build/worker/phcd-port" \
	"$work/build/phcctl/phcctl" "$(command -v ptp4l)" "$(command -v phc_ctl)" \
	"$(command -v dbus-daemon)"
vm_dbus_config "$ird"
cp "$top/tests/bench/sync-time-vm-guest.sh" "$ird/init"
cat >"$ird/st.env" <<EOF
RUNS=$RUNS
LIMIT_S=${PHCD_VM_LIMIT_S:-60}
TX_TIMEOUT_MS=${PHCD_VM_TX_TIMEOUT_MS:-400}
EOF
log=$work/serial-st.log
load0=$(cut -d' ' -f1-3 /proc/loadavg)
started=$(date +%s)
PHCD_VM_QEMU=$qemu vm_boot "$ird" "$log" $((300 + RUNS * 240)) 2 "iomem=relaxed" "0 0"
echo "# guest ran $(($(date +%s) - started)) s; host load average before $load0, after" \
	"$(cut -d' ' -f1-3 /proc/loadavg); commit $(git -C "$top" rev-parse --short HEAD)"
tr -d '\r' <"$log" | grep '^VMTEST: ' | sed 's/^VMTEST: /# /'
tr -d '\r' <"$log" | grep -q '^VMTEST-DONE' || fail "the guest did not finish (see $log)"
echo "# run who seconds"
tr -d '\r' <"$log" | sed -n 's/^VMTEST-T //p'
tr -d '\r' <"$log" | sed -n 's/^VMTEST-T //p' |
	awk '$3 != "none" { n[$2]++; s[$2] += $3; q[$2] += $3 * $3 }
	     $3 == "none" { miss[$2]++ }
	     END { for (w in n) { m = s[w] / n[w]; v = q[w] / n[w] - m * m
			printf "# %s: mean %.2f s, sd %.2f s, n %d, not within the limit %d\n", w, m,
				sqrt(v > 0 ? v : 0), n[w], miss[w] } }'
