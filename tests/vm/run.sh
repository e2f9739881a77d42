#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# VM tier (PHCD_TEST_VM=1): a QEMU (TCG) guest with two emulated igb NICs on one hub. In it, phcd
# discovers both PHCs over netlink, a PHC is steered in frequency and by a step through the
# clock-phc back end, and the guest's CLOCK_REALTIME follows a PHC through daemon/sysclock.c
# within BOUND_NS, with adjtimex reporting synchronized, then unsynchronized after holdover.
#
# The only place where a real CLOCK_REALTIME is steered: the guest's own. Usage:
# tests/vm/run.sh [WORKDIR] (default build-vm/). PHCD_VM_BOUND_NS (default 100000) is the bound.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(realpath -m "${1:-$top/build-vm}")
BOUND_NS=${PHCD_VM_BOUND_NS:-100000}
FOLLOW_S=${PHCD_VM_FOLLOW_S:-30}

not_run() {
	echo "VM tier: NOT RUN: $*" >&2
	exit 1
}
fail() {
	echo "FAIL: $*" >&2
	exit 1
}

[ "$(id -u)" -eq 0 ] || not_run "needs root (apt-get for QEMU 10 from bookworm-backports)"
"$top/tests/vm/setup.sh" "$work" || not_run "tests/vm/setup.sh could not provide QEMU 10 + kernel"

# 1. The binaries the guest runs, from a build of our own.
if [ -d "$work/build" ]; then
	meson setup --reconfigure "$work/build" "$top" >/dev/null
else
	meson setup "$work/build" "$top" >/dev/null
fi
ninja -C "$work/build" daemon/phcd worker/phcd-port tests/vm/tool-vm-clock >/dev/null
command -v ptp4l >/dev/null || not_run "ptp4l missing (linuxptp, scripts/deps.sh)"

# 2. The initramfs: busybox, igb and its dependencies, the binaries and their libraries.
kdir=$(ls -d "$work"/kernel/root/lib/modules/*)
ird=$work/initramfs
rm -rf "$ird"
mkdir -p "$ird"/{bin,mods,opt/bin,proc,sys,dev,tmp,run}
cp /bin/busybox "$ird/bin/busybox"
for m in dca i2c-algo-bit igb; do
	f=$(find "$kdir" -name "$m.ko*" | head -n 1)
	[ -n "$f" ] || fail "kernel module $m not found under $kdir"
	case $f in
	*.xz) xz -dc "$f" >"$ird/mods/$m.ko" ;;
	*) cp "$f" "$ird/mods/$m.ko" ;;
	esac
done
for b in "$work/build/daemon/phcd" "$work/build/worker/phcd-port" \
	"$work/build/tests/vm/tool-vm-clock" "$(command -v ptp4l)"; do
	cp "$b" "$ird/opt/bin/"
	for lib in $(ldd "$b" | grep -o '/[^ ]*'); do
		mkdir -p "$ird$(dirname "$lib")"
		cp -L "$lib" "$ird$lib"
	done
done
# phcd end to end: the two igb ports share one hub, so a ptp4l master on eth1 and phcd on eth0
# (software timestamps, clock_backend system) talk across it. Both stamp with the guest's one
# CLOCK_REALTIME, so the offset is only the stamping asymmetry and steering cannot remove it:
# this shows the path config -> worker offsets -> sysclock-follow -> adjtimex (STA_UNSYNC
# cleared), not convergence (the integrator drifts on that bias; convergence is tool-vm-clock's).
cat >"$ird/phcd.conf" <<'EOF'
[global]
time_stamping = software
logAnnounceInterval = -2
announceReceiptTimeout = 3
logSyncInterval = -3
system_clock_instance = lab

[instance lab]
interfaces = eth0
clock_backend = system
slaveOnly = 1
EOF
cat >"$ird/init" <<EOF
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/opt/bin:/bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
for m in dca i2c-algo-bit igb; do insmod /mods/\$m.ko; done
# Poll for both PHCs (igb probes asynchronously).
i=0; while [ ! -e /dev/ptp1 ] && [ \$i -lt 100 ]; do sleep 0.1; i=\$((i + 1)); done
for n in \$(ls /sys/class/net); do ip link set \$n up; done
echo "VMTEST: list-interfaces"
phcd --list-interfaces --json > /tmp/li.json; echo "VMTEST-RC list \$?"
phcd --list-interfaces | sed 's/^/VMTEST: /'
echo "VMTEST-JSON \$(cat /tmp/li.json)"
tool-vm-clock phc /dev/ptp0 > /tmp/phc.log; echo "VMTEST-RC phc \$?"
sed 's/^/VMTEST: /' /tmp/phc.log
tool-vm-clock follow /dev/ptp1 $FOLLOW_S $BOUND_NS > /tmp/follow.log; echo "VMTEST-RC follow \$?"
sed 's/^/VMTEST: /' /tmp/follow.log
adjtimex | sed 's/^/VMTEST: adjtimex after holdover: /'
ptp4l -i eth1 -2 -S -m --free_running 1 --masterOnly 1 --logAnnounceInterval -2 \\
	--announceReceiptTimeout 3 --logSyncInterval -3 --uds_address /run/ptp4l > /tmp/ptp4l.log 2>&1 &
phcd -f /phcd.conf --port-binary /opt/bin/phcd-port --uds '' --uds-ro '' > /tmp/phcd.log 2>&1 &
end=\$((\$(cut -d. -f1 /proc/uptime) + 150))
while ! grep -q 'system clock LOCKED' /tmp/phcd.log && [ \$(cut -d. -f1 /proc/uptime) -lt \$end ]; do sleep 0.2; done
grep -q 'system clock LOCKED' /tmp/phcd.log || { tail -n 15 /tmp/ptp4l.log; tail -n 30 /tmp/phcd.log; } | sed 's/^/VMTEST: log: /'
grep -E 'SLAVE|system clock|steer' /tmp/phcd.log | sed 's/^/VMTEST: phcd: /'
adjtimex | sed 's/^/VMTEST-ADJ: /'
echo "VMTEST-DONE"
poweroff -f
EOF
chmod +x "$ird/init"
(cd "$ird" && find . | cpio -o -H newc --quiet | gzip -1) >"$work/initrd.gz"

# 3. Boot: two igb NICs on one hub (addr 2 slots apart: igb VFs take slot + 16).
log=$work/serial.log
timeout $((FOLLOW_S * 4 + 400)) qemu-system-x86_64 -accel tcg -machine q35 -cpu max -smp 2 \
	-m 512 -nodefaults -display none -serial "file:$log" -no-reboot \
	-kernel "$work/kernel/vmlinuz" -initrd "$work/initrd.gz" \
	-append "console=ttyS0 panic=-1 quiet" \
	-netdev hubport,id=p0,hubid=0 -device igb,netdev=p0,addr=0x2 \
	-netdev hubport,id=p1,hubid=0 -device igb,netdev=p1,addr=0x4 ||
	fail "qemu exited with $? (timeout or crash); serial log: $log"
tr -d '\r' <"$log" | grep '^VMTEST' | sed 's/^VMTEST: //'
grep -q '^VMTEST-DONE' "$log" || fail "the guest did not finish its script (see $log)"

# 4. Verdicts.
rc() { tr -d '\r' <"$log" | sed -n "s/^VMTEST-RC $1 //p"; }
json=$(tr -d '\r' <"$log" | sed -n 's/^VMTEST-JSON //p')
phcs=$(jq -r '[.[] | select(.phc_index >= 0) | .phc_index] | sort | join(",")' <<<"$json")
[ "$(rc list)" = 0 ] && [ "$phcs" = "0,1" ] ||
	fail "phcd --list-interfaces in the guest: expected rc 0 and PHCs 0,1, got rc $(rc list), PHCs '$phcs'"
echo "ok: phcd --list-interfaces (netlink) finds both igb PHCs: $phcs"
[ "$(rc phc)" = 0 ] || fail "PHC steering (frequency and step): expected 0 failures, got $(rc phc)"
echo "ok: a PHC steered in frequency and by a step through clock-phc"
[ "$(rc follow)" = 0 ] ||
	fail "system clock following the PHC: expected 0 failures, got $(rc follow)"
echo "ok: guest CLOCK_REALTIME followed the PHC within $BOUND_NS ns, adjtimex synchronized," \
	"then STA_UNSYNC after holdover"
adj=$(tr -d '\r' <"$log" | sed -n 's/^VMTEST-ADJ: //p')
grep -q 'system clock LOCKED (instance lab, worker offsets)' "$log" &&
	grep -q 'return value: 0' <<<"$adj" && ! grep -q 'status:.*UNSYNC' <<<"$adj" ||
	fail "phcd with system_clock_instance: expected 'system clock LOCKED' and adjtimex TIME_OK" \
		"without UNSYNC, got: $(grep -E 'status|return' <<<"$adj" | tr '\n' ' ')"
echo "ok: phcd (ptp4l master across the hub, software timestamps) cleared STA_UNSYNC:" \
	"$(grep -E 'status:' <<<"$adj" | tr -s ' ')"
echo "VM tier: PASS"
