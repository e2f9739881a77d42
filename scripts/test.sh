#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Install what is needed, build, and run the whole default test suite (README's second command).
#
# Tiers: format check, -Werror build + unit tests, ASan+UBSan unit tests, bounded libFuzzer run,
# integration tests in network namespaces (needs root), the hardware tier (tests/vm/hw.sh: a QEMU
# guest with igb NICs and their PHCs, hardware timestamps, build-vm/). docs/testing.md says what
# each proves. Opt-in switches (environment):
#   PHCD_FUZZ_SECONDS=N   seconds per fuzzer (default 30; 0 skips the fuzz tier, reported loudly)
#   PHCD_TEST_SLOW=1      also run the slow integration tests (suite "slow")
#   PHCD_TEST_ASAN_BINARIES=1  also run the integration suite against the ASan+UBSan build
#   PHCD_TEST_SYSTEMD=1   also run the systemd tier (tests/systemd/run.sh: nspawn, build-systemd/)
#   PHCD_TEST_VM=1        also run the VM tier (tests/vm/run.sh: QEMU igb PHCs, build-vm/)
#   PHCD_TEST_VM_QEMUFIX=1  also run the closed-loop tier (tests/vm/closed-loop.sh: QEMU with its
#                         igb PTP bugs fixed, built once into build-vm/qemu-fixed/)
set -euo pipefail
# Debian's tools first: a python3 or other shim earlier on the caller's PATH (pyenv's took 3-4 s
# per start on a loaded machine) is not what the tests were written against.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
cd "$(dirname "$0")/.."
top=$PWD

scripts/deps.sh

declare -a results=()
failed=0
run_tier() {
	local name=$1
	shift
	echo
	echo "=== tier: $name"
	if "$@"; then
		results+=("PASS  $name")
	else
		results+=("FAIL  $name")
		failed=1
	fi
}

# meson setup, quiet unless it fails: then its output says why.
setup() {
	local dir=$1 out
	shift
	if [ -d "$dir" ]; then
		set -- --reconfigure "$dir" "$@"
	else
		set -- "$dir" "$@"
	fi
	if ! out=$(meson setup "$@" 2>&1); then
		echo "$out" >&2
		return 1
	fi
}

tier_format() {
	scripts/check-format.sh
}

tier_unit() {
	setup build-ci -Dwerror=true &&
		ninja -C build-ci &&
		meson test -C build-ci --suite unit --print-errorlogs
}

tier_asan() {
	setup build-asan -Dwerror=true -Db_sanitize=address,undefined -Db_lundef=false \
		-Dc_args=-fno-sanitize-recover=all &&
		ninja -C build-asan &&
		ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
			meson test -C build-asan --suite unit --print-errorlogs
}

tier_fuzz() {
	local secs=${PHCD_FUZZ_SECONDS:-30}
	CC=clang setup build-fuzz -Dfuzz=true -Dwerror=true -Db_sanitize=address,undefined \
		-Db_lundef=false -Dc_args='-fsanitize=fuzzer-no-link -fno-sanitize-recover=all' &&
		ninja -C build-fuzz &&
		tests/fuzz/run.sh "$top/build-fuzz" "$secs"
}

tier_integration() {
	if [ "$(id -u)" -ne 0 ]; then
		echo "integration: NOT RUN: needs root for network namespaces" >&2
		return 1
	fi
	local suites=(--suite integration)
	if [ "${PHCD_TEST_SLOW:-0}" = 1 ]; then
		suites+=(--suite slow)
	fi
	meson test -C build-ci "${suites[@]}" --num-processes 2 --print-errorlogs
}

run_tier format tier_format
run_tier "unit (-Werror)" tier_unit
run_tier "unit (ASan+UBSan)" tier_asan
if [ "${PHCD_FUZZ_SECONDS:-30}" = 0 ]; then
	results+=("NOT RUN  fuzz (PHCD_FUZZ_SECONDS=0)")
else
	run_tier "fuzz (${PHCD_FUZZ_SECONDS:-30}s per harness)" tier_fuzz
fi
run_tier integration tier_integration
run_tier "hardware (QEMU igb, hardware timestamps)" tests/vm/hw.sh
opt_in_tier() { # VARIABLE NAME SCRIPT
	if [ "${!1:-0}" = 1 ]; then
		run_tier "$2" "$3"
	else
		results+=("NOT RUN  $2 (opt-in: $1=1)")
	fi
}
opt_in_tier PHCD_TEST_ASAN_BINARIES "integration (ASan+UBSan binaries)" tests/integration/run-asan.sh
opt_in_tier PHCD_TEST_SYSTEMD "systemd tier (nspawn)" tests/systemd/run.sh
opt_in_tier PHCD_TEST_VM "VM tier (QEMU igb)" tests/vm/run.sh
opt_in_tier PHCD_TEST_VM_QEMUFIX "closed-loop tier (fixed QEMU igb)" tests/vm/closed-loop.sh

echo
echo "=== summary"
printf '%s\n' "${results[@]}"
exit $failed
