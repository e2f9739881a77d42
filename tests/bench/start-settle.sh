#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Settling after the start: what is left of the start-up where the integration tests judge a
# slave. RUNS start-ups of `phcd-port -m --clock virtual --every-sample --true-error`, each a
# slave of a fresh ptp4l grandmaster (Debian's 3.1.1 and linuxptp 4.2 in turn, Sync 1/s, software
# timestamps) over its own veth pair, SECONDS long. The virtual clock views CLOCK_REALTIME, which
# ptp4l (--free_running 1) runs on too: "true error" is the slave's real error, read at each
# sample. Per start-up, over samples 9-13 after UNCALIBRATED to SLAVE (port_slave_stats' window,
# tests/lib/port-helpers.sh): the median offset (what test-transport-specific and
# test-port-slave-of-ptp4l bound by 5 us) and the median true error. Reported: p50, p90 and max of
# each |median| over the start-ups, and how many exceed 5 us.
#
# A late message among the first samples is what leaves the most (tests/unit/test-port-start.c);
# a quiet host rarely delays one, so run this beside a load (the integration suite, say). LOOPS
# start-ups run at a time; with BASE set, a second build's phcd-port in turn with this one's (the
# same grandmasters' start-ups, interleaved), reported apart.
#
# usage: BUILD=build-dir [BASE=build-dir] tests/bench/start-settle.sh [RUNS [LOOPS [SECONDS]]]
#        (root; default 40 3 24). KEEP=dir keeps the logs. Not a pass/fail test and not in any
#        meson suite. Results: docs/performance.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
SRC=${SRC:-$(cd "$here/../.." && pwd)}
BUILD=${BUILD:-$SRC/build}
RUNS=${1:-40}
LOOPS=${2:-3}
SECS=${3:-24}
. "$SRC/tests/lib/net-helpers.sh"
. "$SRC/tests/lib/port-helpers.sh"

# phcd-port runs phcd-port-cli beside it (-m): both must be built
for b in "$BUILD" ${BASE:+"$BASE"}; do
	[ -x "$b/worker/phcd-port" ] && [ -x "$b/worker/phcd-port-cli" ] ||
		fail "no $b/worker/phcd-port and phcd-port-cli: build first (ninja -C $b)"
done
command -v python3 >/dev/null || fail "python3 is needed to summarize"
tmp=$(mktemp -d)
chmod 755 "$tmp"
logs=${KEEP:-$tmp/logs}
mkdir -p "$logs"
# the loops' namespaces are their own (subshells): remove what an interrupted one left too
trap 'net_cleanup; ip netns list | awk "/^sts[ab]$$-/ { print \$1 }" | xargs -r -n1 ip netns del;
	rm -rf "$tmp"' EXIT
reference_linuxptp

# loop L: its start-ups, one after the other; with BASE each one alternates the builds.
loop() {
	local l=$1 k v b A B log pg pp builds=("$BUILD")
	[ -z "${BASE-}" ] || builds+=("$BASE")
	for ((k = 0; k < RUNS; k++)); do
		v=$(((k / ${#builds[@]}) % 2))
		b=$((k % ${#builds[@]}))
		A=stsa$$-$l-$k B=stsb$$-$l-$k
		netns_pair "$A" "$B" "ss${l}a$k" "ss${l}b$k"
		log=$logs/l$l-r$k-b$b-v$v
		PTP4L_DIR=${REF_DIRS[$v]} ptp4l_start "$A" "ss${l}a$k" "$log-ptp4l" --priority1 100
		pg=$LAST_PID
		BUILD=${builds[$b]} phcd_port_start "$B" "ss${l}b$k" "$log-phcd" --clock virtual \
			--every-sample --true-error
		pp=$LAST_PID
		sleep "$SECS" # the start-up's length: nothing to wait for
		kill "$pg" "$pp" 2>/dev/null || true
		wait "$pg" "$pp" 2>/dev/null || true
		ip netns del "$A" 2>/dev/null || true
		ip netns del "$B" 2>/dev/null || true
	done
}

echo "start-settle: $RUNS start-ups in each of $LOOPS loops, $SECS s each${BASE:+, BASE=$BASE in turn}"
pids=()
for ((l = 0; l < LOOPS; l++)); do
	loop "$l" &
	pids+=($!)
done
wait "${pids[@]}"

python3 - "$logs" "${BASE:+base}" <<'EOF'
import glob, re, statistics, sys
logs, base = sys.argv[1], sys.argv[2]
names = {'0': 'this build', '1': 'BASE'}
for b in (['0', '1'] if base else ['0']):
    med, tru, lost = [], [], 0
    for f in sorted(glob.glob(f'{logs}/l*-r*-b{b}-v*-phcd')):
        lines = open(f).read().splitlines()
        at = next((i for i, l in enumerate(lines) if 'UNCALIBRATED to SLAVE' in l), None)
        s2 = [l for l in lines[at + 1:] if re.search(r'master offset .* s2 ', l)] if at is not None else []
        if len(s2) < 13:
            lost += 1
            continue
        w = s2[8:13]
        med.append(statistics.median(int(re.search(r'master offset\s+(-?\d+)', l).group(1)) for l in w))
        tru.append(statistics.median(int(re.search(r'true error\s+(-?\d+)', l).group(1)) for l in w))
    if not med:
        print(f'{names[b]}: no start-up reached 13 samples after SLAVE ({lost})')
        continue
    for what, v in (('offset', med), ('true error', tru)):
        a = sorted(abs(x) for x in v)
        print(f'{names[b]}: {len(a)} start-ups, window |median {what}| ns: p50 {a[len(a) // 2]:.0f} '
              f'p90 {a[len(a) * 9 // 10]:.0f} max {a[-1]:.0f}; over 5 us: {sum(x > 5000 for x in a)}')
    if lost:
        print(f'{names[b]}: {lost} start-ups without 13 samples after SLAVE')
EOF
