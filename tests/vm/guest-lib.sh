# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by every guest's /init (tests/vm/*-guest.sh, tests/bench/sync-time-vm-guest.sh), which
# vm_initramfs (tests/vm/lib.sh) packs as /guest-lib.sh. Lines for the host start with VMTEST.
# Tools by full path ($B): busybox's sh prefers its own applets.

# guest_boot LAST_PHC: busybox's applets, /proc, /sys and /dev, igb loaded, every NIC up once
# /dev/ptpLAST_PHC is there (10 s at most).
guest_boot() {
	local i=0 m n
	/bin/busybox --install -s /bin
	export PATH=/opt/bin:/bin
	mount -t proc proc /proc
	mount -t sysfs sys /sys
	mount -t devtmpfs dev /dev
	mkdir -p /run /tmp /var/run
	for m in dca i2c-algo-bit igb; do insmod /mods/$m.ko; done
	while [ ! -e /dev/ptp$1 ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	for n in /sys/class/net/eth*; do ip link set ${n##*/} up; done
}
B=/opt/bin
up() { cut -d' ' -f1 /proc/uptime; }
say() { echo "VMTEST: $*"; }
# guest_dbus: the system bus (tests/vm/lib.sh vm_dbus_config), its address exported.
guest_dbus() {
	mkdir -p /run/dbus
	$B/dbus-daemon --config-file=/dbus/system.conf --fork --nopidfile
	export DBUS_SYSTEM_BUS_ADDRESS=unix:path=/run/dbus/system_bus_socket
}
