#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Install everything phcd needs to build, demo and test, from Debian 12's own packages.
set -euo pipefail

packages=(
	# build
	meson ninja-build pkg-config gcc clang libclang-rt-14-dev clang-format
	libsystemd-dev libnl-3-dev libnl-route-3-dev libnl-genl-3-dev libinih-dev libcmocka-dev
	libseccomp-dev # the workers' seccomp allow-list
	lowdown man-db # man pages from docs/*.md, and man to read them
	libmicrohttpd-dev # phcd-exporter's HTTP server
	# run and demo
	dbus iproute2 ethtool libcap2-bin util-linux procps
	# reference peers, oracles and test tools
	linuxptp tshark iperf3 python3 jq systemd
	chrony # phcd as chronyd's reference clock (test-refclock.sh): run with -x only, never as a service
	gpsd # time_source = gnss (test-gpsd.sh): started by the test in its namespace, never as a service
	make debian-archive-keyring # linuxptp 4.2 built from trixie's orig tarball (tests/lib/linuxptp-4.2.sh)
	libglib2.0-bin python3-dbus python3-gi polkitd # D-Bus clients (gdbus, python) and polkit tests
	openssh-server # phcctl -H: an sshd in a test namespace (test-phcctl-remote.sh)
	systemd-container debootstrap busybox-static cpio xz-utils # systemd (nspawn) and VM tiers
	prometheus curl # the exporter's tests: a real Prometheus server and promtool
	cockpit-ws cockpit-bridge chromium chromium-driver python3-selenium # the Cockpit page's test
	dpkg-dev debhelper fakeroot lintian # the Debian packages (debian/, dpkg-buildpackage -b; systemd tier)
)

if [ "$(id -u)" -ne 0 ]; then
	echo "deps: run as root (apt-get install)" >&2
	exit 1
fi

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi
export DEBIAN_FRONTEND=noninteractive
# tshark asks whether non-root users may capture; answer no without a prompt.
echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections
# Start no service while installing (prometheus' package would start a server on port 9090):
# the tests start their own, in their namespaces. A policy-rc.d already there is left alone.
if [ ! -e /usr/sbin/policy-rc.d ]; then
	printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
	chmod 755 /usr/sbin/policy-rc.d
	trap 'rm -f /usr/sbin/policy-rc.d' EXIT
fi
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
# gpsd's package enables gpsd.socket, and its udev rule starts gpsd for a USB receiver: the tests
# start their own gpsd, so one installed here never starts as a service (masked). A gpsd that was
# installed before is left as it was.
if [[ " ${missing[*]} " == *" gpsd "* ]]; then
	systemctl mask gpsd.socket gpsd.service gpsdctl@.service
fi
