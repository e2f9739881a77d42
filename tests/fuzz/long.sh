#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Longer fuzzing than the default suite's bounded run, with the corpus kept: each harness runs
# SECONDS from tests/fuzz/corpus/NAME/, then the inputs that add coverage are merged back into
# that directory (libFuzzer -merge=1: the seeds already there stay, new ones are named by their
# SHA-1), so the next run, and the default suite's, start from where this one stopped.
# Prints, per harness: executions, coverage (cov: edges, ft: features) before and after, and the
# corpus size before and after. A crash, leak or sanitizer report fails the run, its reproducer
# kept in the printed directory. Commit the grown corpus (git add tests/fuzz/corpus).
#
# usage: tests/fuzz/long.sh [SECONDS [BUILD_DIR [NAME...]]]
#   (default 600 s per harness, build-fuzz-long set up here with clang, every harness)
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:-600}
build=${2:-$src/build-fuzz-long}
shift $(($# > 2 ? 2 : $#))
if [ ! -d "$build" ]; then
	CC=clang meson setup "$build" "$src" -Dfuzz=true -Db_sanitize=address,undefined \
		-Db_lundef=false -Dc_args='-fsanitize=fuzzer-no-link -fno-sanitize-recover=all' >/dev/null
fi
ninja -C "$build" >/dev/null
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
	for h in "$build"/tests/fuzz/fuzz-*; do
		n=$(basename "$h")
		[ -f "$h" ] && [ -x "$h" ] && names+=("${n#fuzz-}")
	done
fi
work=$(mktemp -d /tmp/phcd-fuzz-long.$$.XXXX)
keep=0
trap '[ $keep = 1 ] || rm -rf "$work"' EXIT
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1
opts=(-timeout=10 -rss_limit_mb=2048)

# cov DIR...: "cov: N ft: M" of a pass over the inputs (no fuzzing).
cov() { "$h" "${opts[@]}" -runs=0 "$@" 2>&1 | grep -Eo 'cov: [0-9]+ ft: [0-9]+' | tail -n 1; }

echo "# fuzz-long: ${secs}s per harness, $(clang --version | head -n 1), $(nproc) CPUs"
echo "# harness execs exec/s | before: inputs cov ft | after: inputs cov ft"
failed=0
for name in "${names[@]}"; do
	h=$build/tests/fuzz/fuzz-$name
	kept=$src/tests/fuzz/corpus/$name
	mkdir -p "$kept" "$work/$name" "$work/$name-artifacts"
	n0=$(find "$kept" -type f | wc -l)
	c0=$(cov "$kept")
	if ! "$h" "${opts[@]}" -max_total_time="$secs" -print_final_stats=1 \
		-artifact_prefix="$work/$name-artifacts/" "$work/$name" "$kept" >"$work/$name.log" 2>&1; then
		echo "fuzz-long: $name FAILED; last lines of its log:" >&2
		tail -n 40 "$work/$name.log" >&2
		echo "fuzz-long: reproducer and log kept in $work" >&2
		failed=1
		keep=1
		continue
	fi
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$name.log")
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/$name.log")
	# New inputs (written to the scratch directory) that add coverage join the kept corpus.
	"$h" "${opts[@]}" -merge=1 "$kept" "$work/$name" >"$work/$name.merge" 2>&1 ||
		{ tail -n 20 "$work/$name.merge" >&2; failed=1; continue; }
	n1=$(find "$kept" -type f | wc -l)
	c1=$(cov "$kept")
	printf '%-7s %10s %7s | %4d %-18s | %4d %s\n' "$name" "$execs" "$rate" "$n0" "$c0" "$n1" "$c1"
done
exit $failed
