#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# VM tier prerequisites: QEMU 10 from bookworm-backports (igb with a ticking PHC) on the host, and
# a Debian kernel unpacked (not installed) into WORKDIR/kernel. Idempotent; prints what it did.
set -euo pipefail
work=${1:?usage: setup.sh WORKDIR}
MIRROR=${PHCD_DEBIAN_MIRROR:-http://deb.debian.org/debian}
mkdir -p "$work"
export DEBIAN_FRONTEND=noninteractive

# QEMU 7.2 (bookworm) has no igb and its e1000e PHC does not tick: take 10.x from backports.
qemu_major() {
	qemu-system-x86_64 --version 2>/dev/null | sed -n 's/^QEMU emulator version \([0-9]*\).*/\1/p'
}
if [ "$(qemu_major || true)" -lt 10 ] 2>/dev/null || ! command -v qemu-system-x86_64 >/dev/null; then
	src=/etc/apt/sources.list.d/phcd-bookworm-backports.sources
	if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
		cat >"$src" <<EOT
Types: deb
URIs: $MIRROR
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOT
		echo "vm setup: added $src"
	fi
	apt-get update -q >/dev/null
	apt-get install -y -q -o DPkg::Lock::Timeout=900 --no-install-recommends -t bookworm-backports qemu-system-x86 >/dev/null
fi
echo "vm setup: $(qemu-system-x86_64 --version | head -n 1)"
qemu-system-x86_64 -device help 2>/dev/null | grep -q '"igb"' || {
	echo "vm setup: this QEMU has no igb device" >&2
	exit 1
}
for p in busybox-static cpio xz-utils; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		apt-get install -y -q -o DPkg::Lock::Timeout=900 --no-install-recommends "$p" >/dev/null
done

# The guest kernel: bookworm's, unpacked from its .deb (the host's kernel stays as it is).
if [ ! -e "$work/kernel/vmlinuz" ]; then
	pkg=$(apt-cache depends linux-image-amd64 | sed -n 's/^ *Depends: \(linux-image-[0-9].*\)/\1/p' |
		head -n 1)
	[ -n "$pkg" ] || {
		echo "vm setup: cannot resolve linux-image-amd64 to a kernel package" >&2
		exit 1
	}
	rm -rf "$work/kernel" "$work/deb"
	mkdir -p "$work/deb" "$work/kernel"
	(cd "$work/deb" && apt-get download -q "$pkg" >/dev/null)
	dpkg-deb -x "$work"/deb/*.deb "$work/kernel/root"
	ln -sf "$(ls "$work"/kernel/root/boot/vmlinuz-*)" "$work/kernel/vmlinuz"
	echo "vm setup: guest kernel $pkg"
fi
