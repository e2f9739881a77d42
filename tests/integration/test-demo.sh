#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# README's first command, unattended: scripts/demo.sh --once must bring both phcd slaves to
# synchronized against the ptp4l grandmaster, and its `phcctl status --json` must parse and say so.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin

# --help: the usage comment, and nothing of the script after it (it printed a line of shell).
"$SRC/scripts/demo.sh" --help >"$tmp/help" || fail "demo.sh --help exited non-zero"
[ "$(tail -n 1 "$tmp/help")" = "  --build DIR   use this meson build directory (default: build-demo, set up and built here)" ] ||
	fail "demo.sh --help: expected the usage to end with --build, got: $(tail -n 2 "$tmp/help")"
grep -q '^usage: scripts/demo.sh ' "$tmp/help" || fail "demo.sh --help: no usage line: $(cat "$tmp/help")"
echo "ok: demo.sh --help prints its usage and nothing else"
ip netns list | grep -o '^phdemo-[^ ]*' | sort >"$tmp/ns.before" || true
rc=0
timeout 120 "$SRC/scripts/demo.sh" --once --build "$BUILD" >"$tmp/out" 2>&1 || rc=$?
[ "$rc" = 0 ] || fail "demo.sh --once exited $rc: $(tail -n 30 "$tmp/out")"
for s in slave-a slave-b; do
	grep -A1 "^=== $s: phcctl status --json" "$tmp/out" | tail -n 1 >"$tmp/$s.json"
	jq -e '(.Instances[0].Synchronized == true) and (.Instances[0].ServoState == "locked") and
		(.Ports[0].State == "SLAVE") and (.Instances[0].StepsRemoved == 1)' "$tmp/$s.json" \
		>/dev/null || fail "$s: expected synchronized, locked, SLAVE, 1 step: $(cat "$tmp/$s.json")"
	echo "ok: $s: $(jq -r '.Instances[0] | "offset \(.OffsetFromMaster) ns, delay \(.MeanPathDelay) ns, grandmaster \(.GrandmasterIdentity)"' "$tmp/$s.json")"
done
a=$(jq -r '.Instances[0].GrandmasterIdentity' "$tmp/slave-a.json")
b=$(jq -r '.Instances[0].GrandmasterIdentity' "$tmp/slave-b.json")
[ "$a" = "$b" ] || fail "the slaves follow different grandmasters: $a and $b"
grep -q '^  Synchronized        : yes$' "$tmp/out" || fail "the text status lacks 'Synchronized : yes'"
# The demo removed what it made (other demos may run at the same time: compare with before).
ip netns list | grep -o '^phdemo-[^ ]*' | sort >"$tmp/ns.after" || true
new=$(comm -13 "$tmp/ns.before" "$tmp/ns.after")
[ -z "$new" ] || fail "demo.sh left namespaces behind: $new"
echo "ok: both slaves follow grandmaster $a; demo cleaned up"
echo PASS
