#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The integration suite against ASan+UBSan builds of phcd, phcd-port, phcctl and the test tools
# (scripts/test.sh with PHCD_TEST_ASAN_BINARIES=1). Every sanitizer report of every process,
# workers included, goes to a file (log_path) as well as failing that process: the run fails if
# a test fails or if any report was written, leaks included (LeakSanitizer runs at each exit).
# Workers killed with SIGKILL by a test cannot report, by nature.
#
# usage: tests/integration/run-asan.sh [BUILD_DIR [meson test args...]]   (root; default
#   build-asan as scripts/test.sh sets it up: -Db_sanitize=address,undefined)
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(realpath "${1:-$src/build-asan}")
shift $(($# > 0 ? 1 : 0))
[ "$(id -u)" = 0 ] || { echo "integration (ASan): NOT RUN: needs root" >&2; exit 1; }
san=$(meson introspect --buildoptions "$build" | jq -r '.[] | select(.name == "b_sanitize") | .value')
[[ "$san" == *address* ]] || { echo "integration (ASan): $build is not an ASan build ($san)" >&2; exit 1; }
ninja -C "$build" >/dev/null
logs=$(mktemp -d /tmp/phcd-asan.XXXXXX)
# Workers run unprivileged: they must be able to write their reports here too.
chmod 1777 "$logs"
rc=0
ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:log_exe_name=1:log_path=$logs/asan" \
	UBSAN_OPTIONS="print_stacktrace=1:log_exe_name=1:log_path=$logs/ubsan" \
	meson test -C "$build" --suite integration --num-processes 1 --print-errorlogs "$@" || rc=$?
reports=$(find "$logs" -type f | sort)
if [ -n "$reports" ]; then
	echo "integration (ASan): sanitizer reports:" >&2
	for f in $reports; do
		echo "--- $f" >&2
		head -n 40 "$f" >&2
	done
	echo "integration (ASan): reports kept in $logs" >&2
	exit 1
fi
rm -rf "$logs"
[ "$rc" = 0 ] && echo "integration (ASan): every test passed, no sanitizer report from any process"
exit $rc
