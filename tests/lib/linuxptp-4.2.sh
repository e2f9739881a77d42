#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# linuxptp 4.2, the second reference peer: built once from Debian trixie's source package (the
# upstream orig tarball), cached, never installed.
#
#   tests/lib/linuxptp-4.2.sh CACHE_DIR    build (if not cached) and print the directory holding
#                                          ptp4l, pmc, phc2sys and configs/
#   . tests/lib/linuxptp-4.2.sh; linuxptp42_dir CACHE_DIR   the same from a test
#
# How: a private apt configuration (its own sources.list with a deb-src trixie entry, its own
# lists and cache under CACHE_DIR; the system's apt setup is not touched) reads trixie's Sources
# index, which apt checks against the signed InRelease; `apt-get source --download-only` fetches
# the orig tarball (the mirror may lack the .dsc and Debian tarball: then apt-get complains and
# the tarball is there all the same); the tarball's SHA-256 must equal the one that Sources
# lists; it is unpacked and built with `make` (no install). A lock serialises concurrent callers.
# Any failure prints why and returns non-zero: the tests that use it fail, they never skip.

LINUXPTP42_VERSION=4.2
LINUXPTP42_SUITE=trixie
LINUXPTP42_MIRROR=${PHCD_DEBIAN_MIRROR:-http://deb.debian.org/debian}

linuxptp42_apt() { # CACHE_DIR apt-get|apt-cache ARGS...
	local c=$1 tool=$2
	shift 2
	"$tool" -q -o Dir::Etc::SourceList="$c/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null \
		-o Dir::State::Lists="$c/apt/lists" -o Dir::Cache="$c/apt/cache" \
		-o Dir::State::status="$c/apt/status" -o Debug::NoLocking=1 \
		-o APT::Sandbox::User=root "$@"
}

linuxptp42_build() { # CACHE_DIR: build into CACHE_DIR/linuxptp-4.2 unless already there
	local c=$1 src=$1/linuxptp-$LINUXPTP42_VERSION tarball want have
	[ -x "$src/ptp4l" ] && [ -x "$src/pmc" ] && [ -f "$src/.phcd-built" ] && return 0
	mkdir -p "$c/apt/lists/partial" "$c/apt/cache/archives/partial" "$c/dl" || return 1
	: >"$c/apt/status"
	echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]" \
		"$LINUXPTP42_MIRROR $LINUXPTP42_SUITE main" >"$c/apt/sources.list"
	if ! linuxptp42_apt "$c" apt-get update >"$c/apt-update.log" 2>&1; then
		echo "linuxptp 4.2: apt-get update of $LINUXPTP42_SUITE's Sources failed:" >&2
		tail -n 5 "$c/apt-update.log" >&2
		return 1
	fi
	want=$(linuxptp42_apt "$c" apt-cache showsrc linuxptp 2>/dev/null |
		awk -v f="linuxptp_$LINUXPTP42_VERSION.orig.tar.gz" '
			/^Checksums-Sha256:/ { in_sha = 1; next }
			/^[^ ]/ { in_sha = 0 }
			in_sha && $3 == f { print $1; exit }')
	if [ -z "$want" ]; then
		echo "linuxptp 4.2: $LINUXPTP42_SUITE's Sources lists no linuxptp $LINUXPTP42_VERSION-1" \
			"orig tarball" >&2
		return 1
	fi
	tarball=$c/dl/linuxptp_$LINUXPTP42_VERSION.orig.tar.gz
	if [ ! -f "$tarball" ]; then
		# Exits non-zero when the .dsc or the Debian tarball is missing on the mirror; what
		# counts is the orig tarball and its checksum below.
		(cd "$c/dl" && linuxptp42_apt "$c" apt-get source --download-only \
			"linuxptp=$LINUXPTP42_VERSION-1") >"$c/apt-source.log" 2>&1 || true
	fi
	if [ ! -f "$tarball" ]; then
		echo "linuxptp 4.2: could not fetch linuxptp_$LINUXPTP42_VERSION.orig.tar.gz:" >&2
		tail -n 5 "$c/apt-source.log" >&2
		return 1
	fi
	have=$(sha256sum "$tarball" | cut -d' ' -f1)
	if [ "$have" != "$want" ]; then
		echo "linuxptp 4.2: $tarball has SHA-256 $have, $LINUXPTP42_SUITE's Sources says $want" >&2
		rm -f "$tarball"
		return 1
	fi
	rm -rf "$src"
	tar -xzf "$tarball" -C "$c" || return 1
	if ! make -C "$src" -j2 >"$c/make.log" 2>&1; then
		echo "linuxptp 4.2: make failed ($c/make.log):" >&2
		tail -n 10 "$c/make.log" >&2
		return 1
	fi
	if [ "$("$src/ptp4l" -v)" != "$LINUXPTP42_VERSION" ]; then
		echo "linuxptp 4.2: the built ptp4l says version $("$src/ptp4l" -v)" >&2
		return 1
	fi
	echo "$want" >"$src/.phcd-built"
}

# linuxptp42_dir CACHE_DIR: print the directory of the built tools, building them first if
# needed (under a lock); non-zero with the reason on stderr when that cannot be done.
linuxptp42_dir() {
	local c=$1 r lk
	mkdir -p "$c" || return 1
	exec {lk}>"$c/.lock" || return 1
	flock "$lk"
	linuxptp42_build "$c"
	r=$?
	flock -u "$lk"
	exec {lk}>&-
	[ "$r" -eq 0 ] || return "$r"
	echo "$c/linuxptp-$LINUXPTP42_VERSION"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -uo pipefail
	[ $# -eq 1 ] || {
		echo "usage: $0 CACHE_DIR" >&2
		exit 2
	}
	linuxptp42_dir "$1"
fi
