#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The second reference peer: linuxptp 4.2 built from Debian trixie's orig tarball (checksum from
# trixie's Sources index), cached for the tests after this one. Fails, saying why, when it cannot
# be fetched, verified or built.
set -euo pipefail
: "${BUILD:?BUILD must name the build directory}" "${SRC:?SRC must name the source directory}"
. "$SRC/tests/lib/net-helpers.sh"
. "$SRC/tests/lib/port-helpers.sh"

reference_linuxptp
[ "${REF_VERSIONS[1]}" = 4.2 ] || fail "expected ptp4l 4.2, the build says ${REF_VERSIONS[1]}"
for t in ptp4l pmc phc2sys; do
	[ -x "${REF_DIRS[1]}/$t" ] || fail "no $t in ${REF_DIRS[1]}"
done
for c in default gPTP G.8275.1 automotive-master automotive-slave; do
	[ -f "${REF_DIRS[1]}/configs/$c.cfg" ] || fail "no configs/$c.cfg in ${REF_DIRS[1]}"
done
echo "ok: linuxptp ${REF_VERSIONS[1]} in ${REF_DIRS[1]} (orig tarball SHA-256" \
	"$(cat "${REF_DIRS[1]}/.phcd-built")); Debian's ptp4l ${REF_VERSIONS[0]}"
