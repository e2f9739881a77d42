#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Run every fuzz harness of a fuzz build for a bounded time, seeded from the kept corpus.
#
# Usage: tests/fuzz/run.sh BUILD_DIR SECONDS
# Each BUILD_DIR/tests/fuzz/fuzz-NAME runs for SECONDS over a scratch copy of
# tests/fuzz/corpus/NAME/ (new inputs stay out of the tree). A crash, leak, sanitizer report or
# timeout fails the run; the reproducer is kept in the printed directory.
set -euo pipefail
build=$(realpath "$1")
secs=$2
src=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/phcd-fuzz.$$.XXXX)
keep=0
cleanup() {
	if [ $keep = 0 ]; then
		rm -rf "$work"
	fi
}
trap cleanup EXIT

shopt -s nullglob
harnesses=()
for h in "$build"/tests/fuzz/fuzz-*; do
	if [ -f "$h" ] && [ -x "$h" ]; then
		harnesses+=("$h")
	fi
done
if [ ${#harnesses[@]} -eq 0 ]; then
	echo "fuzz: no harness in $build/tests/fuzz (was it set up with -Dfuzz=true?)" >&2
	exit 1
fi

# fuzz_one HARNESS: one harness for SECONDS; its lines in $work/NAME.out, its verdict the status.
fuzz_one() {
	local h=$1 name corpus seeds runs cov
	name=$(basename "$h")
	name=${name#fuzz-}
	corpus="$work/$name"
	mkdir -p "$corpus" "$work/$name-artifacts"
	seeds=0
	if [ -d "$src/corpus/$name" ]; then
		cp -r "$src/corpus/$name/." "$corpus/"
		seeds=$(find "$src/corpus/$name" -type f | wc -l)
	fi
	echo "fuzz: $name for ${secs}s from $seeds seeds"
	if ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
		"$h" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$work/$name-artifacts/" "$corpus" >"$work/$name.log" 2>&1; then
		runs=$(grep -o 'Done [0-9]* runs in [0-9]* second' "$work/$name.log" || true)
		cov=$(grep -Eo 'cov: [0-9]+ ft: [0-9]+' "$work/$name.log" | tail -1 || true)
		echo "fuzz: $name ok: ${runs:-?}(s), $cov, corpus $(find "$corpus" -type f | wc -l) inputs"
	else
		echo "fuzz: $name FAILED; last lines of its log:"
		tail -40 "$work/$name.log"
		echo "fuzz: reproducer and log kept in $work"
		return 1
	fi
}

# As many harnesses at once as there are CPUs (each is one process), so that the tier's time
# does not grow by SECONDS with each new harness; their lines are printed in order.
jobs=$(nproc)
pids=()
for i in "${!harnesses[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
		wait -n || true
	done
	fuzz_one "${harnesses[$i]}" >"$work/job$i.out" 2>&1 &
	pids[i]=$!
done
failed=0
for i in "${!harnesses[@]}"; do
	if ! wait "${pids[$i]}"; then
		failed=1
		keep=1
	fi
	cat "$work/job$i.out"
done
exit $failed
