#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Each kind of configuration error: `phcd --check-config` and `phcd` itself exit non-zero and name
# file:line (drop-ins included); a valid file passes the check.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin

PHCD=$BUILD/daemon/phcd
NS=phcf$$
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
# Combinations that cannot work (each key valid alone).
check system-backend-hardware 3 '[instance a]\ninterfaces = x\nclock_backend = system\n'
check slave-and-master-only 4 '[instance a]\ninterfaces = x\nslaveOnly = 1\nmasterOnly = 1\n'
check interface-in-no-instance 3 '[instance a]\ninterfaces = x\n[interface y]\nlogSyncInterval = 1\n'
check duplicate-in-one-file 3 '[instance a]\ninterfaces = x\n[instance a]\n'

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
rm "$tmp/good.conf.d/10-bad.conf"

# A directory given as the file: refused (it passed as an empty file before).
out=$("$PHCD" --check-config -f "$tmp" 2>&1) && fail "directory as the file: expected failure: $out"
grep -q "^$tmp:0: cannot open: is a directory" <<<"$out" || fail "directory as the file: got: $out"
echo "ok: a directory as the file -> $(sed "s|$tmp|TMP|" <<<"$out")"
# The default file missing is fine for --check-config, as for the daemon (a scratch prefix:
# the built phcd's default path may exist on this machine, so only when it does not).
if [ ! -e "$("$PHCD" --help | sed -n 's/.*(default \(.*phcd\.conf\)).*/\1/p')" ]; then
	out=$("$PHCD" --check-config 2>&1) || fail "--check-config without the default file: $out"
	grep -q "not present, the built-in defaults apply" <<<"$out" || fail "--check-config without the default file: got: $out"
	echo "ok: --check-config without the default file: $(head -n 1 <<<"$out")"
fi
# A drop-in amends one key of an instance of the main file (it was "duplicate [instance lab]").
printf '[instance lab]\ninterfaces = x\npriority1 = 100\npriority2 = 7\n' >"$tmp/good.conf"
printf '[instance lab]\npriority1 = 90\n' >"$tmp/good.conf.d/20-lab.conf"
out=$("$PHCD" --check-config -f "$tmp/good.conf" 2>&1) || fail "drop-in amending [instance lab]: $out"
grep -q "instance lab: domainNumber 0, priority1 90," <<<"$out" || fail "drop-in amending [instance lab]: expected priority1 90, got: $out"
echo "ok: a drop-in amends [instance lab]: $(grep 'instance lab' <<<"$out")"
