# SPDX-License-Identifier: GPL-2.0-or-later
# The preamble and the cleanup of every integration script, written once. A test begins
#   set -euo pipefail
#   . "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
#   test_begin [LIB...]
# and registers what it starts that net_cleanup does not end with test_on_exit.

# test_begin [LIB...]: check $BUILD, source net-helpers.sh and LIB-helpers.sh for each LIB
# (dbus, ptp, phcd, port, gptp, udp), make $tmp (/tmp/phcd-NAME.XXXXXX for test-NAME.sh, mode
# 755 so that the unprivileged callers and daemons of a test reach it) and install the one EXIT
# trap: the commands of test_on_exit, the last registered first, then net_cleanup (background
# processes, namespaces), dbus_cleanup when dbus is a LIB, and the removal of $tmp (kept if
# KEEP_TMP is set).
test_begin() {
	local name lib
	name=$(basename "$0" .sh)
	: "${BUILD:?BUILD must name the build directory}"
	. "$SRC/tests/lib/net-helpers.sh"
	for lib in "$@"; do
		. "$SRC/tests/lib/$lib-helpers.sh"
	done
	tmp=$(mktemp -d "/tmp/phcd-${name#test-}.XXXXXX")
	chmod 755 "$tmp"
	TEST_ON_EXIT=('[ -n "${KEEP_TMP-}" ] || rm -rf "$tmp"')
	[[ " $* " != *" dbus "* ]] || TEST_ON_EXIT+=(dbus_cleanup)
	TEST_ON_EXIT+=(net_cleanup)
	trap test_exit EXIT
}

# test_on_exit CMD: run the shell command CMD (evaluated then, so it sees the variables' values
# at exit) when the test exits, before everything registered earlier.
test_on_exit() {
	TEST_ON_EXIT+=("$1")
}

# test_exit: the EXIT trap of test_begin. Each command runs whatever the one before it did; the
# script's exit status is kept.
test_exit() {
	local i
	for ((i = ${#TEST_ON_EXIT[@]} - 1; i >= 0; i--)); do
		eval "${TEST_ON_EXIT[$i]}" || true
	done
}

# test_stop PID...: SIGTERM to each PID that is still running, and wait for it (when it is a child
# of this shell).
test_stop() {
	local p
	for p in "$@"; do
		if [ -n "$p" ] && kill -0 "$p" 2>/dev/null; then
			kill -TERM "$p" 2>/dev/null || true
			wait "$p" 2>/dev/null || true
		fi
	done
}

# test_duration SECONDS WHY: let SECONDS pass on purpose (a flood that lasts, a quiet period in
# which nothing may happen): a duration the test measures over, not a wait for something (those
# poll with a deadline: wait_for, wait_status, wait_prop, wait_bus_name).
test_duration() {
	sleep "$1"
}
