#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every Announce phcd sends names the grandmaster its supervisor decided, from a worker's first
# Announce on: phcd is grandmaster for a ptp4l peer (priority1 250, --free_running 1); its worker
# is killed three times and restarted by the supervisor. A capture on the peer's side (dumpcap)
# shows no Announce from phcd naming any other grandmaster (before the fix: an all-zero one,
# priority1 0, after each restart), and ptp4l never selects another master. PARENT_DATA_SET of the
# grandmaster instance is the same over the management socket and over L2 (pmc -u, pmc -2), and
# a slave-only instance that hears nobody names itself there (gmPresent false), not zeros. Then
# MASTER -> SLAVE -> MASTER: a better ptp4l (priority1 50) joins the segment and leaves again;
# after it left, phcd's Announces never name it and the peer selects only phcd.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin dbus ptp phcd

PHCCTL=$BUILD/phcctl/phcctl
RESTARTS=3
S=phan-s$$ P=phan-p$$ Q=phan-q$$ B=phan-b$$ X=phan-x$$
dbus_start "$tmp/bus"
# One segment (a bridge): phcd's s1, the peer's p1, and later the better clock's x1.
lan_bridge "$B"
netns_add "$S"
netns_add "$P"
lan_station "$B" "$S" s1
lan_station "$B" "$P" p1
# s2 faces a namespace with nothing but pmc: instance quiet (slave-only, domain 5) hears nobody.
netns_add "$Q"
veth_add "$S" s2 "$Q" q2

# The capture runs from before phcd's first frame to the end.
capture_start "$P" p1 "$tmp/cap.pcapng"

ip netns exec "$P" capsh --drop=cap_sys_time -- -c "exec ptp4l -i p1 -2 -S -m --free_running 1 \
	--priority1 250 $PTP4L_FAST --uds_address $tmp/peer.uds" >"$tmp/peer.log" 2>&1 &
BG_PIDS+=($!)
{
	phcd_fast_global
	cat <<CONF

[instance lab]
interfaces = s1
clock_backend = free_running

[instance quiet]
interfaces = s2
domainNumber = 5
slaveOnly = 1
clock_backend = free_running
CONF
} >"$tmp/phcd.conf"
RW=$tmp/ptp
phcd_start "$S" "$tmp/phcd.conf" "$tmp/phcd.log" --uds "$RW" --uds-ro "$tmp/ptp-ro"
wait_bus_name org.phcd1 10

clock=$(busctl --system get-property org.phcd1 /org/phcd1/instance/lab org.phcd1.Instance \
	ClockIdentity | cut -d' ' -f2 | tr -d '"')
# wait_peer_parent SECONDS: until the ptp4l peer's parent is phcd.
wait_peer_parent() {
	local deadline=$((SECONDS + $1)) gm
	while :; do
		gm=$(ip netns exec "$P" pmc -u -b 0 -s "$tmp/peer.uds" -i "$tmp/pmc.peer" \
			'GET PARENT_DATA_SET' | awk '$1 == "grandmasterIdentity" { print $2 }')
		[ "$gm" != "$clock" ] || return 0
		[ "$SECONDS" -lt "$deadline" ] ||
			fail "ptp4l peer: expected grandmaster $clock within $1 s, got '$gm'; phcd: $(tail -n 5 "$tmp/phcd.log")"
		sleep 0.2
	done
}
worker_pid() { "$PHCCTL" port s1 --json | jq -r '.WorkerPID'; }
wait_peer_parent 20
echo "ok: phcd ($clock) is the ptp4l peer's grandmaster"

# PARENT_DATA_SET of a grandmaster instance, over the socket and over L2 (the worker of s1).
pds() { grep -v ' seq ' <<<"$1" | grep -E '^[[:space:]]+[a-zA-Z]' | sed 's/^[[:space:]]*//'; }
uds=$(pds "$(ip netns exec "$S" pmc -u -b 0 -s "$RW" -i "$tmp/pmc.u" 'GET PARENT_DATA_SET')")
l2=$(pds "$(ip netns exec "$P" pmc -2 -i p1 -b 0 'GET PARENT_DATA_SET')")
[ -n "$uds" ] && [ "$uds" = "$l2" ] ||
	fail "PARENT_DATA_SET: over the socket
$uds
over L2
$l2"
grep -q "observedParentOffsetScaledLogVariance 0xffff" <<<"$uds" ||
	fail "PARENT_DATA_SET: expected observedParentOffsetScaledLogVariance 0xffff: $uds"
echo "ok: PARENT_DATA_SET identical over pmc -u and pmc -2 ($(wc -l <<<"$uds") fields, grandmaster $clock)"

# The slave-only instance: LISTENING, nobody heard; over both paths it is its own grandmaster.
quiet=$(busctl --system get-property org.phcd1 /org/phcd1/instance/quiet org.phcd1.Instance \
	ClockIdentity | cut -d' ' -f2 | tr -d '"')
deadline=$((SECONDS + 10))
until [ "$("$PHCCTL" port s2 --json | jq -r '.State')" = LISTENING ]; do
	[ "$SECONDS" -lt "$deadline" ] || fail "s2 (slave-only) not LISTENING within 10 s"
	sleep 0.05
done
for how in socket l2; do
	if [ $how = socket ]; then
		out=$(ip netns exec "$S" pmc -u -b 0 -d 5 -s "$RW" -i "$tmp/pmc.q" 'GET TIME_STATUS_NP' 'GET PARENT_DATA_SET')
	else
		out=$(ip netns exec "$Q" pmc -2 -i q2 -b 0 -d 5 'GET TIME_STATUS_NP' 'GET PARENT_DATA_SET')
	fi
	gm=$(awk '$1 == "gmIdentity" { print $2; exit }' <<<"$out")
	present=$(awk '$1 == "gmPresent" { print $2; exit }' <<<"$out")
	pgm=$(awk '$1 == "grandmasterIdentity" { print $2; exit }' <<<"$out")
	[ "$gm" = "$quiet" ] && [ "$pgm" = "$quiet" ] && [ "$present" = false ] ||
		fail "slave-only instance over $how: expected gmIdentity and grandmasterIdentity $quiet, gmPresent false; got: $out"
done
echo "ok: slave-only instance hearing nobody: gmIdentity $quiet, gmPresent false over the socket and over L2"

for k in $(seq 1 $RESTARTS); do
	old=$(worker_pid)
	[ "$old" -gt 0 ] || fail "restart $k: no worker on s1"
	kill -KILL "$old"
	deadline=$((SECONDS + 15))
	while new=$(worker_pid); [ "$new" = "$old" ] || [ "$new" = 0 ]; do
		[ "$SECONDS" -lt "$deadline" ] || fail "restart $k: no new worker within 15 s (was $old)"
		sleep 0.05
	done
	# The new worker's state decision, then its Announces (peer's receipt timeout: 0.75 s).
	"$PHCCTL" port s1 --json >/dev/null
	deadline=$((SECONDS + 20))
	until [ "$("$PHCCTL" port s1 --json | jq -r '.State')" = MASTER ]; do
		[ "$SECONDS" -lt "$deadline" ] || fail "restart $k: s1 not MASTER again within 20 s"
		sleep 0.05
	done
	wait_peer_parent 20
	test_duration 2 "the peer follows phcd: its Announces captured, its choices logged"
	echo "ok: restart $k: worker $old killed, $new took over, s1 MASTER, the peer follows $clock"
done
restart_lines=$(wc -l <"$tmp/peer.log")

# MASTER -> SLAVE -> MASTER: the better clock comes and goes.
lan_station "$B" "$X" x1
ip netns exec "$X" capsh --drop=cap_sys_time -- -c "exec ptp4l -i x1 -2 -S -m --free_running 1 \
	--priority1 50 $PTP4L_FAST --uds_address $tmp/better.uds" >"$tmp/better.log" 2>&1 &
BETTER_PID=$!
BG_PIDS+=($BETTER_PID)
better=$(eui64 x1 "$X" | sed 's/^\(......\)\(....\)\(......\)$/\1.\2.\3/')
deadline=$((SECONDS + 20))
until [ "$("$PHCCTL" port s1 --json | jq -r '.State')" = SLAVE ]; do
	[ "$SECONDS" -lt "$deadline" ] || fail "s1 not SLAVE of $better within 20 s"
	sleep 0.05
done
kill "$BETTER_PID"
wait "$BETTER_PID" 2>/dev/null || true
gone_lines=$(wc -l <"$tmp/peer.log")
deadline=$((SECONDS + 20))
until [ "$("$PHCCTL" port s1 --json | jq -r '.State')" = MASTER ]; do
	[ "$SECONDS" -lt "$deadline" ] || fail "s1 not MASTER again within 20 s of $better leaving"
	sleep 0.05
done
wait_peer_parent 20
test_duration 2 "the peer follows phcd: its Announces captured, its choices logged"
echo "ok: MASTER -> SLAVE of $better -> MASTER again once it left; the peer follows $clock"
test_duration 1 "a last second of Announces in the capture"
capture_stop

# Every Announce from phcd's clock names phcd as grandmaster, with its priority1 (128).
tshark -r "$tmp/cap.pcapng" -Y 'ptp.v2.messagetype == 0xb' -T fields -E separator=' ' \
	-e ptp.v2.clockidentity -e ptp.v2.an.grandmasterclockidentity -e ptp.v2.an.priority1 \
	2>/dev/null | tr -d ':' | sed 's/0x//g' >"$tmp/announces"
want=$(tr -d '.' <<<"$clock")
ours=$(awk -v c="$want" '$1 == c' "$tmp/announces" | wc -l)
bad=$(awk -v c="$want" '$1 == c && ($2 != c || $3 != 128)' "$tmp/announces" | sort | uniq -c)
[ "$ours" -gt 20 ] || fail "only $ours Announces from phcd ($want) in the capture: $(head -n 5 "$tmp/announces")"
[ -z "$bad" ] || fail "Announces from phcd naming another grandmaster or priority1 (count source gm priority1):
$bad"
echo "ok: capture: $ours Announces from phcd over $RESTARTS worker restarts and MASTER -> SLAVE -> MASTER, every one names $clock, priority1 128"

# ptp4l selected no master but phcd (its own clock while phcd's port was gone is not a master)
# during the restarts, and none but phcd after the better clock left.
others=$( (head -n "$restart_lines" "$tmp/peer.log"; tail -n +$((gone_lines + 1)) "$tmp/peer.log") |
	grep -o 'selected best master clock [0-9a-f.]*' | awk '{ print $5 }' |
	grep -v -x "$clock" | sort | uniq -c || true)
[ -z "$others" ] || fail "ptp4l selected another best master: $others"
echo "ok: ptp4l selected only $clock as best master during the restarts and after $better left"
echo PASS
