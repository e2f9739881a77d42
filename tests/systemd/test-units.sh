#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The built units pass `systemd-analyze verify`, and the services' exposure is at most 2.3.
#
# verify checks that ExecStart= binaries exist, so each unit is verified as a copy whose
# ExecStart points at the binary in $BUILD (the installed path does not exist on a build host).
# A unit whose binary is not built yet makes the test SKIP, saying which.
set -euo pipefail
: "${BUILD:?set BUILD to the meson build directory}"
BUILD=$(realpath "$BUILD")
max_exposure=2.3

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
verify=()
missing=()

bindir=$(sed -n 's|^ExecStart=\(/.*\)/phcd$|\1|p' "$BUILD/units/phcd.service")
for unit in phcd.service phcd-wait-sync.service phcd-exporter.service; do
	src=$BUILD/units/$unit
	cp "$src" "$tmp/$unit"
	for exe in $(sed -n "s|^ExecStart=$bindir/\([^ ]*\).*|\1|p" "$src"); do
		built=$(find "$BUILD" -maxdepth 3 -type f -name "$exe" -perm -u+x | head -n 1)
		if [ -z "$built" ]; then
			missing+=("$unit (needs $exe)")
			continue 2
		fi
		sed -i "s|^ExecStart=$bindir/$exe|ExecStart=$built|" "$tmp/$unit"
	done
	verify+=("$unit")
done
# The exporter's socket unit is installed as it is (no ExecStart of its own).
: "${SRC:?set SRC to the source directory}"
cp "$SRC/units/phcd-exporter.socket" "$tmp/"
verify+=(phcd-exporter.socket)

if ! out=$(cd "$tmp" && systemd-analyze verify --man=no "${verify[@]}" 2>&1) || [ -n "$out" ]; then
	echo "FAIL: systemd-analyze verify: expected no output and rc 0, got:"
	echo "$out"
	fail=1
else
	echo "ok: systemd-analyze verify --man=no ${verify[*]}: clean"
fi

for unit in phcd.service phcd-wait-sync.service phcd-exporter.service; do
	line=$(systemd-analyze security --offline=true "$tmp/$unit" 2>&1 | grep 'Overall exposure')
	exposure=$(echo "$line" | sed -n 's/.*: \([0-9.]*\) .*/\1/p')
	echo "$unit: $line"
	if [ -z "$exposure" ] ||
		! awk -v e="$exposure" -v m="$max_exposure" 'BEGIN { exit !(e <= m) }'; then
		echo "FAIL: $unit exposure: expected <= $max_exposure, got '${exposure:-none}'"
		fail=1
	fi
done

# The activation file must name the unit alias that phcd.service declares.
alias=$(sed -n 's/^Alias=//p' "$BUILD/units/phcd.service")
want=$(sed -n 's/^SystemdService=//p' "$BUILD/units/org.phcd1.service")
if [ "$alias" != "$want" ]; then
	echo "FAIL: org.phcd1.service SystemdService=$want, expected phcd.service's Alias=$alias"
	fail=1
fi
[ "$fail" = 0 ] || exit 1
if [ ${#missing[@]} -gt 0 ]; then
	# A unit whose binary is not built yet cannot be verified: skip (77), never pass.
	echo "SKIP: not verified, binary not built under $BUILD: ${missing[*]}"
	exit 77
fi
