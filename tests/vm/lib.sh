# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by the VM tiers (tests/vm/*.sh): build the guest's binaries, pack an initramfs, boot it.

# vm_fixed_qemu WORKDIR: root, the QEMU with the igb PTP fixes (tests/vm/qemu-fixed.sh, built once
# and cached in $PHCD_VM_QEMU_CACHE, default WORKDIR/qemu-fixed) and the guest kernel
# (tests/vm/setup.sh); prints that QEMU's path, or calls the caller's not_run. Use as
# qemu=$(vm_fixed_qemu DIR) || exit 1.
vm_fixed_qemu() {
	[ "$(id -u)" -eq 0 ] || not_run "needs root (apt-get for QEMU 10 from bookworm-backports)"
	"$top/tests/vm/qemu-fixed.sh" "${PHCD_VM_QEMU_CACHE:-$1/qemu-fixed}" || not_run "no fixed QEMU"
	"$top/tests/vm/setup.sh" "$1" >/dev/null || not_run "tests/vm/setup.sh could not provide a kernel"
}

# vm_build WORKDIR TARGET...: our own build in WORKDIR/build (plain, no sanitizers).
vm_build() {
	local work=$1
	shift
	if [ -d "$work/build" ]; then
		meson setup --reconfigure "$work/build" "$top" >/dev/null
	else
		meson setup "$work/build" "$top" >/dev/null
	fi
	ninja -C "$work/build" "$@" >/dev/null
}

# vm_initramfs WORKDIR DIR BINARY...: busybox, igb and its dependencies, the binaries in /opt/bin
# with their libraries, tests/vm/guest-lib.sh as /guest-lib.sh. The caller adds /init.
vm_initramfs() {
	local work=$1 ird=$2 kdir f m b lib
	shift 2
	kdir=$(ls -d "$work"/kernel/root/lib/modules/*)
	rm -rf "$ird"
	mkdir -p "$ird"/{bin,mods,opt/bin,proc,sys,dev,tmp,run,etc}
	cp /bin/busybox "$ird/bin/busybox"
	for m in dca i2c-algo-bit igb; do
		f=$(find "$kdir" -name "$m.ko*" | head -n 1)
		[ -n "$f" ] || fail "kernel module $m not found under $kdir"
		case $f in
		*.xz) xz -dc "$f" >"$ird/mods/$m.ko" ;;
		*) cp "$f" "$ird/mods/$m.ko" ;;
		esac
	done
	for b in "$@"; do
		cp "$b" "$ird/opt/bin/"
		for lib in $(ldd "$b" | grep -o '/[^ ]*'); do
			mkdir -p "$ird$(dirname "$lib")"
			cp -L "$lib" "$ird$lib"
		done
	done
	cp "$top/tests/vm/guest-lib.sh" "$ird/guest-lib.sh"
	echo 'root:x:0:0:root:/:/bin/sh' >"$ird/etc/passwd"
	echo 'root:x:0:' >"$ird/etc/group"
	echo 0123456789abcdef0123456789abcdef >"$ird/etc/machine-id"
}

# vm_dbus_config DIR: a system bus for the guest at /run/dbus/system_bus_socket, phcd's policy.
vm_dbus_config() {
	local ird=$1
	mkdir -p "$ird/dbus/system.d" "$ird/var/lib/dbus"
	cp "$top/units/org.phcd1.conf" "$ird/dbus/system.d/"
	cp "$ird/etc/machine-id" "$ird/var/lib/dbus/machine-id"
	cat >"$ird/dbus/system.conf" <<'CONF'
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=/run/dbus/system_bus_socket</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow send_destination="*"/>
    <allow receive_type="*"/>
  </policy>
  <includedir>/dbus/system.d</includedir>
</busconfig>
CONF
}

# vm_boot DIR LOG TIMEOUT_S NICS [KERNEL_ARGS [HUBS]]: pack DIR, boot it with NICS igb NICs, serial
# console into LOG. HUBS: the hub of each NIC in order ("0 0 0 1 1"); default two NICs a hub.
# QEMU: $PHCD_VM_QEMU or qemu-system-x86_64.
vm_boot() {
	local ird=$1 log=$2 timeout=$3 nics=$4 args=${5:-} qemu=${PHCD_VM_QEMU:-qemu-system-x86_64}
	local -a net=() extra=() hubs=()
	read -r -a hubs <<<"${6:-}"
	chmod +x "$ird/init"
	(cd "$ird" && find . | cpio -o -H newc --quiet | gzip -1) >"$ird.gz"
	# igb VFs take slot + 16: PFs two slots apart.
	for ((k = 0; k < nics; k++)); do
		net+=(-netdev "hubport,id=p$k,hubid=${hubs[k]:-$((k / 2))}"
			-device "igb,netdev=p$k,addr=0x$(printf %x $((2 + 2 * k)))")
	done
	# A QEMU of our own build finds its firmware in the packaged QEMU's directory.
	[ -z "${PHCD_VM_QEMU:-}" ] || extra=(-L /usr/share/qemu -L /usr/share/seabios -L /usr/lib/ipxe/qemu)
	timeout "$timeout" "$qemu" "${extra[@]}" -accel tcg -machine q35 -cpu max -smp 2 -m 512 \
		-nodefaults -display none -serial "file:$log" -no-reboot \
		-kernel "$work/kernel/vmlinuz" -initrd "$ird.gz" \
		-append "console=ttyS0 panic=-1 quiet $args" "${net[@]}" ||
		fail "qemu exited with $? (timeout or crash); serial log: $log"
}
