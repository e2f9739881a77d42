#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# QEMU 10.0.2 with the igb PTP fixes of tests/vm/qemu/igb-ptp.patch, for the opt-in closed-loop
# tier (PHCD_TEST_VM_QEMUFIX=1): source from the orig tarball of bookworm-backports' qemu
# package, checked against that suite's Sources index, x86_64 system emulator only (TCG).
# Cached: built once into CACHE (default build-vm/qemu-fixed/), keyed by the patch's SHA-256;
# prints the path of the binary. Takes 5-7 minutes of both cores here (nice 10).
# Build-only tools come as Debian packages: meson 1.7 and python3-pycotap from
# bookworm-backports, unpacked into the cache (the system's meson 1.0 is left as it is).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cache=$(realpath -m "${1:-$top/build-vm/qemu-fixed}")
MIRROR=${PHCD_DEBIAN_MIRROR:-http://deb.debian.org/debian}
VERSION=10.0.2
patch=$top/tests/vm/qemu/igb-ptp.patch
key=$(sha256sum "$patch" | cut -c1-16)
bin=$cache/$key/qemu-system-x86_64
log() { echo "qemu-fixed: $*" >&2; }

if [ -x "$bin" ]; then
	echo "$bin"
	exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -q -o DPkg::Lock::Timeout=900 --no-install-recommends \
	libglib2.0-dev libpixman-1-dev flex bison python3-venv bzip2 curl >/dev/null
mkdir -p "$cache/apt/lists/partial" "$cache/apt/cache/archives/partial" "$cache/tools"
echo "deb-src $MIRROR bookworm-backports main" >"$cache/apt/sources.list"
echo "deb $MIRROR bookworm-backports main" >>"$cache/apt/sources.list"
apt_priv=(-o "Dir::Etc::SourceList=$cache/apt/sources.list" -o Dir::Etc::SourceParts=/nonexistent
	-o "Dir::State::Lists=$cache/apt/lists" -o "Dir::Cache=$cache/apt/cache"
	-o Debug::NoLocking=1)
apt-get "${apt_priv[@]}" update -q >/dev/null

# The orig tarball, verified against the Sources index (the .dsc and Debian tarball may 404).
tarball=qemu_$VERSION+ds.orig.tar.xz
if [ ! -e "$cache/$tarball" ]; then
	uri=$(apt-get "${apt_priv[@]}" source --print-uris -q "qemu/bookworm-backports" 2>/dev/null |
		grep -F "$tarball" | head -n 1)
	[ -n "$uri" ] || {
		log "no $tarball in bookworm-backports' Sources"
		exit 1
	}
	url=$(cut -d"'" -f2 <<<"$uri")
	sha=$(sed -n 's/.*SHA256:\([0-9a-f]*\).*/\1/p' <<<"$uri")
	curl -fsSL -o "$cache/$tarball.part" "$url"
	echo "$sha  $cache/$tarball.part" | sha256sum -c --quiet - || {
		log "$tarball: SHA-256 differs from the Sources index"
		exit 1
	}
	mv "$cache/$tarball.part" "$cache/$tarball"
fi
# meson >= 1.5 and pycotap, which QEMU 10's configure wants, unpacked from their .debs.
tools=$cache/tools/usr/lib/python3/dist-packages
if [ ! -d "$tools/mesonbuild" ]; then
	(cd "$cache/tools" && apt-get "${apt_priv[@]}" download -q meson/bookworm-backports \
		python3-pycotap/bookworm-backports >/dev/null 2>&1)
	for d in "$cache"/tools/*.deb; do dpkg-deb -x "$d" "$cache/tools"; done
fi

src=$cache/src-$key
rm -rf "$src" "$cache/build-$key"
mkdir -p "$src" "$cache/build-$key"
tar -xf "$cache/$tarball" -C "$src" --strip-components=1
patch -d "$src" -p1 -s <"$patch"
# The +ds tarball carries no firmware blobs: do not try to unpack the EDK2 images (the guest
# boots with the packaged QEMU's SeaBIOS, -L /usr/share/qemu).
sed -i "s/^edk2_targets = .*/edk2_targets = []/" "$src/meson.build"
log "building QEMU $VERSION with $(basename "$patch") into $cache/build-$key"
(
	cd "$cache/build-$key"
	export PYTHONPATH=$tools
	nice -n 10 "$src/configure" --python=/usr/bin/python3 --target-list=x86_64-softmmu \
		--without-default-features --enable-tcg --disable-docs --disable-werror \
		--disable-download --disable-install-blobs >configure.log 2>&1 ||
		{ tail -n 20 configure.log >&2; exit 1; }
	nice -n 10 ninja -j2 qemu-system-x86_64 >ninja.log 2>&1 || { tail -n 20 ninja.log >&2; exit 1; }
)
mkdir -p "$cache/$key"
cp "$cache/build-$key/qemu-system-x86_64" "$bin"
rm -rf "$src" "$cache/build-$key"
echo "$bin"
