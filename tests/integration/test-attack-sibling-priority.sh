#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Attack (issue 31, finding 2, its last flood): one compromised worker sends PRIORITY_REQUEST
# (what management_network = read-write lets a worker ask for), and its honest siblings pay. phcd
# is a boundary clock (virtual back end) on s1, s2 and s3, management_network = read-write; s2 is
# the SLAVE of a ptp4l grandmaster (priority1 100), s3 faces nobody (MASTER); the worker of s1 is
# tool-lying-worker --priority-flood: priority1 10 and 200 in turn, each applied to the instance
# and pushed to every port, so s2 goes MASTER and SLAVE again with each.
#   1. 15 a second for 10 s: more than an honest worker sends (10), less than the supervisor's
#      budget for one (twice that);
#   2. 100 a second for 10 s after each start: a flood no honest worker could send (the value it
#      left when it was ended stays: root sets priority1 200 again after it).
# On c73b1b8 each request was pushed to every worker at once, each push made a STATUS, and the
# supervisor killed the honest siblings as flooders (more than 50 STATUS a second) until their
# ports stayed FAULTY. Expected now: s2 and s3 keep their first workers throughout and are never
# called liars, s2 is SLAVE again after each phase; in 1 the requester is not ended (within its
# budget), in 2 it is ended as a flooder of PRIORITY_REQUEST and restarted.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin dbus ptp phcd

LIAR=$BUILD/tests/integration/tool-lying-worker
PORT=$BUILD/worker/phcd-port
S=phasp-s$$ M=phasp-m$$ D=phasp-d$$
dbus_start "$tmp/bus"
for ns in $S $M $D; do netns_add "$ns"; done
veth_add "$S" s1 "$D" d1
veth_add "$S" s2 "$M" m2
veth_add "$S" s3 "$D" d3
STATUS=$tmp/status

# phcd passes a worker its arguments only: the wrapper picks the requester for s1, and each start
# takes the flood the test last wrote.
echo 15:10 >"$tmp/flood"
cat >"$tmp/worker" <<EOF
#!/bin/bash
for a; do [ "\$a" != s1 ] || exec "$LIAR" "\$@" --priority-flood "\$(cat "$tmp/flood")"; done
exec "$PORT" "\$@"
EOF
chmod 755 "$tmp/worker"
{
	phcd_fast_global
	printf '\n[instance bc]\ninterfaces = s1, s2, s3\nclock_backend = virtual\n'
	echo 'management_network = read-write'
} >"$tmp/phcd.conf"

ptp4l_gm "$M" m2 "$tmp/gm-uds" "$tmp/gm.log"
phcd_start "$S" "$tmp/phcd.conf" "$tmp/phcd.log" --port-binary "$tmp/worker" \
	--status-file "$STATUS" --uds "" --uds-ro ""
wait_bus_name org.phcd1 10
wait_status port s2 state SLAVE 30
wait_status port s3 state MASTER 15
prop() { busctl --system get-property org.phcd1 "$1" "org.phcd1.$2" "$3" | cut -d' ' -f2-; }
w2=$(prop /org/phcd1/port/s2 Port WorkerPID)
w3=$(prop /org/phcd1/port/s3 Port WorkerPID)
echo "ok: s2 SLAVE (worker $w2), s3 MASTER (worker $w3), s1 requesting"

# siblings WHAT SECONDS DONE...: until the command DONE succeeds (within SECONDS), s2 and s3 keep
# their workers; then neither was called a liar, and once the instance's priority1 is 200 (worse
# than the grandmaster's; root sets it again if RESET is 1) s2 is SLAVE again.
siblings() {
	local what=$1 end=$((SECONDS + $2)) n2 n3
	shift 2
	until "$@"; do
		n2=$(prop /org/phcd1/port/s2 Port WorkerPID)
		n3=$(prop /org/phcd1/port/s3 Port WorkerPID)
		[ "$n2" = "$w2" ] && [ "$n3" = "$w3" ] ||
			fail "$what: expected the siblings' workers $w2 and $w3 throughout, now $n2 and $n3: $(grep -m4 -E 's[23]: worker' "$tmp/phcd.log")"
		[ "$SECONDS" -lt "$end" ] || fail "$what: the flood did not end within $2 s"
		sleep 0.2
	done
	if grep -E 's[23]: worker .*(flooded|sent|claimed|reported)' "$tmp/phcd.log"; then
		fail "$what: phcd called an honest sibling a liar"
	fi
	[ "$RESET" = 0 ] || [ "$(prop /org/phcd1/instance/bc Instance Priority1)" = 200 ] ||
		busctl --system call org.phcd1 /org/phcd1/instance/bc org.phcd1.Instance SetPriority1 y 200
	wait_status port s2 state SLAVE 20 "" "$what: after the flood"
	echo "ok: $what: s2 and s3 kept workers $w2 and $w3, s2 SLAVE again"
}
# The flood is over: the requester said it sent all (1), or phcd gave it up after
# restart_limit_burst ends (2).
sent_all() { grep -q 'sent=150$' "$tmp/phcd.log"; }
given_up() { grep -q '^port s1 .*state FAULTY.*giving up' "$STATUS"; }

# 1. Within the requester's budget: it and its siblings stay.
wait_for "$tmp/phcd.log" 's1: worker [0-9]+ started' 10
RESET=0 siblings "PRIORITY_REQUEST 10/200 at 15/s" 30 sent_all
starts=$(grep -cE 's1: worker [0-9]+ started' "$tmp/phcd.log" || true)
[ "$starts" -eq 1 ] && ! grep -q 's1: worker .*flooded' "$tmp/phcd.log" ||
	fail "expected the requester within its budget never ended, it started $starts times: $(grep -m3 's1: worker' "$tmp/phcd.log")"
p=$(prop /org/phcd1/instance/bc Instance Priority1)
[ "$p" = 200 ] || fail "expected the last request's priority1 200 to win, D-Bus Priority1 is $p"
echo "ok: the requester not ended (one start), Priority1 $p (the last request's)"

# 2. A flood: the requester ended as such, again after each restart; its siblings stay.
echo 100:10 >"$tmp/flood"
kill -9 "$(prop /org/phcd1/port/s1 Port WorkerPID)"
RESET=1 siblings "PRIORITY_REQUEST 10/200 at 100/s" 90 given_up
floods=$(grep -c 's1: worker flooded the supervisor with PRIORITY_REQUEST messages' "$tmp/phcd.log" || true)
[ "$floods" -ge 1 ] ||
	fail "expected the requester at 100/s ended as a flooder, phcd logged: $(grep 's1: worker' "$tmp/phcd.log" | tail -n 4)"
echo "ok: the requester ended as a flooder $floods times: $(grep -m1 -o 's1: worker flooded.*' "$tmp/phcd.log")"
