#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Attack finding 12/4 (issue 17): the management sockets are made with their final mode (bind()
# under a umask, no chmod() by name that a swapped symlink could redirect), and SET on the
# read-write socket is taken only from root or phcd's own uid (SCM_CREDENTIALS): a user that can
# connect (here: the workers' uid, with the socket opened to everyone) gets
# MANAGEMENT_ERROR_STATUS and priority1 stays; root's SET is applied.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin

PHCD=$BUILD/daemon/phcd
PORT=$BUILD/worker/phcd-port
mkdir -m 0777 "$tmp/cl" # pmc's client sockets, for root and the unprivileged caller
S=pha12-s$$ P=pha12-p$$
PHCD_PID=
# phcd runs under strace: end phcd itself (strace then exits with it).
test_on_exit 'test_stop "$PHCD_PID"'
netns_pair "$S" "$P" s1 p1
cat >"$tmp/phcd.conf" <<CONF
[global]
time_stamping = software

[instance lab]
interfaces = s1
priority1 = 200
clock_backend = free_running
CONF
RW=$tmp/ptp RO=$tmp/ptp-ro
# strace (the supervisor only): every chmod-like call it makes.
ip netns exec "$S" capsh --drop=cap_sys_time -- -c "exec strace -qq -e trace=chmod,fchmod,fchmodat \
	-o $tmp/chmod.trace $PHCD -f $tmp/phcd.conf --port-binary $PORT --uds $RW --uds-ro $RO" \
	>"$tmp/phcd.log" 2>&1 &
STRACE_PID=$!
BG_PIDS+=($STRACE_PID)
deadline=$((SECONDS + 10))
until [ -S "$RW" ] && [ -S "$RO" ]; do
	[ "$SECONDS" -lt "$deadline" ] || fail "expected sockets $RW and $RO within 10 s: $(tail -n 20 "$tmp/phcd.log")"
	sleep 0.05
done

PHCD_PID=$(pgrep -P "$STRACE_PID" -x phcd || true)
[ -n "$PHCD_PID" ] || fail "expected phcd as strace's child"

# 1. Their modes, made at bind(), and no chmod of them.
[ "$(stat -c %a "$RW")" = 660 ] || fail "read-write socket: expected mode 660, got $(stat -c %a "$RW")"
[ "$(stat -c %a "$RO")" = 666 ] || fail "read-only socket: expected mode 666, got $(stat -c %a "$RO")"
if grep -E "chmod.*\"$tmp/ptp" "$tmp/chmod.trace"; then
	fail "expected no chmod of the sockets by name (a symlink race), got: $(grep ptp "$tmp/chmod.trace")"
fi
echo "ok: sockets made 0660 and 0666 at bind(), no chmod by name ($(grep -c . "$tmp/chmod.trace" || true) chmod calls in all)"

n=0
pmc_as() { # UID COMMAND: pmc on the read-write socket as UID
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		ip netns exec "$S" pmc -u -b 0 -s "$RW" -i "$tmp/cl/pmc.$n" "$2"
	else
		ip netns exec "$S" setpriv --reuid="$1" --regid="$1" --clear-groups \
			pmc -u -b 0 -s "$RW" -i "$tmp/cl/pmc.$n" "$2"
	fi
}
prio() { pmc_as 0 'GET PRIORITY1' | awk '$1 == "priority1" { print $2 }'; }
deadline=$((SECONDS + 10))
until [ "$(prio)" = 200 ]; do
	[ "$SECONDS" -lt "$deadline" ] || fail "expected priority1 200 from the read-write socket, got '$(prio)'"
	sleep 0.2
done

# 2. Someone who can connect but is not root nor phcd: the workers' user, with the socket opened
#    to everyone (a mode an administrator might set, or a group the user is in).
wuid=$(id -u phcd-worker 2>/dev/null || echo 65534)
chmod 666 "$RW"
out=$(pmc_as "$wuid" 'SET PRIORITY1 10')
grep -q 'RESPONSE MANAGEMENT_ERROR_STATUS' <<<"$out" ||
	fail "SET PRIORITY1 as uid $wuid: expected MANAGEMENT_ERROR_STATUS, got: $out"
[ "$(prio)" = 200 ] || fail "SET PRIORITY1 as uid $wuid: expected priority1 to stay 200, got $(prio)"
out=$(pmc_as "$wuid" 'GET PRIORITY1')
grep -q 'priority1 *200' <<<"$out" || fail "GET as uid $wuid: expected priority1 200, got: $out"
echo "ok: uid $wuid may GET but its SET PRIORITY1 is refused (MANAGEMENT_ERROR_STATUS), priority1 stays 200"

# 3. Root's SET is applied.
out=$(pmc_as 0 'SET PRIORITY1 10')
grep -q 'priority1 *10' <<<"$out" || fail "SET PRIORITY1 as root: expected priority1 10 in the answer, got: $out"
[ "$(prio)" = 10 ] || fail "SET PRIORITY1 as root: expected priority1 10, got $(prio)"
echo "ok: root's SET PRIORITY1 10 applied"
