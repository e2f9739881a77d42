#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Each kind of configuration error: `phcd --check-config` and `phcd` itself exit non-zero and name
# file:line (drop-ins included); a valid file passes the check.
set -euo pipefail
: "${BUILD:?BUILD must name the build directory}" "${SRC:?SRC must name the source directory}"
. "$SRC/tests/lib/net-helpers.sh"

PHCD=$BUILD/daemon/phcd
tmp=$(mktemp -d)
NS=phcf$$
trap 'net_cleanup; rm -rf "$tmp"' EXIT
netns_add "$NS"

# case NAME LINE CONTENT: a file whose error is on LINE.
n=0
check() {
	local name=$1 line=$2 content=$3 f out rc
	f=$tmp/$name.conf
	printf '%b' "$content" >"$f"
	for mode in --check-config run; do
		if [ "$mode" = run ]; then
			# Run phcd in a namespace of its own: if it started anyway it would touch nothing.
			out=$(ip netns exec "$NS" capsh --drop=cap_sys_time -- -c \
				"exec timeout 5 $PHCD -f $f" 2>&1) && rc=0 || rc=$?
		else
			out=$("$PHCD" --check-config -f "$f" 2>&1) && rc=0 || rc=$?
		fi
		[ "$rc" != 0 ] && [ "$rc" != 124 ] ||
			fail "$name ($mode): expected a non-zero exit (not a timeout), got $rc: $out"
		grep -q "^$f:$line: " <<<"$out" || fail "$name ($mode): expected '$f:$line: ...', got: $out"
	done
	n=$((n + 1))
	echo "ok: $name -> $(grep "^$f:$line: " <<<"$out" | head -n 1 | sed "s|$tmp/||")"
}

check unknown-key 2 '[global]\nfoo = 1\n'
check out-of-range 3 '[global]\n\npriority1 = 300\n'
check bad-integer 3 '[instance a]\ninterfaces = x\ndomainNumber = abc\n'
check bad-enum 2 '[global]\ndelay_mechanism = XYZ\n'
check unknown-section 1 '[bogus]\nx = 1\n'
check wrong-section 2 '[instance a]\nrestart_limit_burst = 3\n'
check outside-section 1 'priority1 = 3\n'
check broken-header 1 '[instance a\n'

# A drop-in's error names the drop-in.
mkdir -p "$tmp/good.conf.d"
printf '[global]\npriority1 = 100\n' >"$tmp/good.conf"
out=$("$PHCD" --check-config -f "$tmp/good.conf" 2>&1) || fail "valid file: check failed: $out"
echo "ok: valid file passes: $out" | sed "s|$tmp/||"
printf '[global]\nlogSyncInterval = 99\n' >"$tmp/good.conf.d/10-bad.conf"
out=$("$PHCD" --check-config -f "$tmp/good.conf" 2>&1) && fail "bad drop-in: expected failure: $out"
grep -q "10-bad.conf:2: " <<<"$out" || fail "bad drop-in: expected '10-bad.conf:2: ...', got: $out"
echo "ok: drop-in error -> $(sed "s|$tmp/||" <<<"$out" | head -n 1)"
# A missing file given with -f is an error too.
out=$("$PHCD" -f "$tmp/missing.conf" 2>&1) && fail "missing file: expected failure: $out"
grep -q "missing.conf" <<<"$out" || fail "missing file: expected the file named, got: $out"
echo "ok: missing file refused; $n error kinds checked"
