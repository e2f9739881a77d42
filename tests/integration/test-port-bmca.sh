#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# BMCA with three clocks on one segment (a Linux bridge in its own namespace joining three
# veths): ptp4l (priority1 100) and two phcd-ports (110, 120) agree that ptp4l is the best
# master; when ptp4l goes away, the phcd-port with 110 takes over and the other follows it,
# within the announce receipt timeout plus qualification (9.2.6.12, 9.3.2.5).
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin ptp port

BR=ppbr$$
lan_bridge "$BR"
for n in 1 2 3; do
	lan_station "$BR" "ppb$n$$" "pb$n"
done

ptp4l_start "ppb1$$" pb1 "$tmp/ptp4l" --priority1 100
ptp4l_pid=$LAST_PID
phcd_port_start "ppb2$$" pb2 "$tmp/a" --priority1 110
phcd_port_start "ppb3$$" pb3 "$tmp/b" --priority1 120
b_pid=$LAST_PID
a_id=$(phcd_port_id "$tmp/a")
b_id=$(phcd_port_id "$tmp/b")

# 1. All three agree: ptp4l is the grandmaster, both phcd-ports follow it and lock.
wait_for "$tmp/ptp4l" 'assuming the grand master role' 20
gm=$(sed -nE 's/.*selected local clock ([0-9a-f.]+) as best master.*/\1/p' "$tmp/ptp4l" | tail -n1)
for x in a b; do
	wait_for "$tmp/$x" "selected best master clock $gm" 20
	wait_for "$tmp/$x" 'MASTER to UNCALIBRATED on RS_SLAVE|LISTENING to UNCALIBRATED' 20
done
for x in a b; do
	wait_for "$tmp/$x" 'UNCALIBRATED to SLAVE' 40
done
# ptp4l heard both, and stayed master. Its "selected best master clock X" names only the best
# foreign record (a phcd-port that was MASTER for a few Announces before ptp4l spoke, as under
# load); whether ptp4l followed it is its port state, so: never UNCALIBRATED, SLAVE or PASSIVE.
wait_for "$tmp/ptp4l" "new foreign master $a_id-1" 10
wait_for "$tmp/ptp4l" "new foreign master $b_id-1" 10
! grep -Eq ' to (UNCALIBRATED|SLAVE|PASSIVE) on ' "$tmp/ptp4l" || fail "ptp4l followed someone: $(
	grep -E 'selected best master clock| to (UNCALIBRATED|SLAVE|PASSIVE) on ' "$tmp/ptp4l")"
echo "ok: ptp4l ($gm) is the grandmaster of all three"

# 2. ptp4l goes away: the next best takes over, the third follows it.
a_from=$(wc -l <"$tmp/a")
b_from=$(wc -l <"$tmp/b")
kill "$ptp4l_pid"
start=$SECONDS
# 3 announce intervals of 1 s to notice, 2 Announces to qualify the new master, 1 s of slack.
limit=6
wait_for "$tmp/a" "selected local clock $a_id as best master" $((limit + 2)) "$a_from"
wait_for "$tmp/b" "selected best master clock $a_id" $((limit + 2)) "$b_from"
took=$((SECONDS - start))
[ "$took" -le "$limit" ] || fail "the takeover took ${took}s, expected <= ${limit}s"
tail -n +"$((a_from + 1))" "$tmp/a" | grep -Eq ' to MASTER on ' || fail "phcd-port A is not MASTER"
wait_for "$tmp/b" 'to UNCALIBRATED on RS_SLAVE' 5 "$b_from"
echo "ok: after ptp4l left, phcd-port $a_id took over in about ${took}s and $b_id follows it"

# 3. And it stays that way: B locks onto A.
wait_for "$tmp/b" 'UNCALIBRATED to SLAVE' 40 "$b_from"
echo "ok: $b_id is SLAVE of $a_id"

# 4. On a shared segment a slave sees the other slave's Delay_Req and the Delay_Resps meant for
# it: counted and ignored (printed at exit), never acted on.
kill "$b_pid"
wait_for "$tmp/b" '^phcd-port: counters:' 5
counters=$(grep '^phcd-port: counters:' "$tmp/b")
for c in delay_resp_other_port wrong_state; do
	[[ "$counters" =~ \ $c=[1-9] ]] || fail "expected $c > 0 in: $counters"
done
for c in malformed own_frame other_domain tx_error; do
	[[ ! "$counters" =~ \ $c= ]] || fail "expected no $c in: $counters"
done
echo "ok: ignored traffic counted: ${counters#phcd-port: counters: }"
