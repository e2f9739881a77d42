#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# masterOnly (notSlave with ROLE_KEY=notSlave: test-not-slave.sh) in a boundary clock: phcd's
# instance bc follows a ptp4l grandmaster (priority1 100)
# on s1, while a better ptp4l clock (priority1 50) is heard only on s2, a masterOnly port. The
# better clock never becomes the instance's parent: for 10 s the instance names the grandmaster
# of s1, s1 stays SLAVE and s2 MASTER, and every Announce phcd sends on s2 names that grandmaster.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin dbus ptp phcd

PHCCTL=$BUILD/phcctl/phcctl
S=phmo-s$$ G=phmo-g$$ B=phmo-b$$
dbus_start "$tmp/bus"
netns_pair "$S" "$G" s1 g1
netns_add "$B"
veth_add "$S" s2 "$B" b2

ptp4l_gm "$G" g1 "$tmp/gm.uds" "$tmp/gm.log"
ip netns exec "$B" capsh --drop=cap_sys_time -- -c "exec ptp4l -i b2 -2 -S -m --free_running 1 \
	--priority1 50 $PTP4L_FAST --uds_address $tmp/better.uds" >"$tmp/better.log" 2>&1 &
BG_PIDS+=($!)
{
	phcd_fast_global
	cat <<CONF

[instance bc]
interfaces = s1, s2
clock_backend = virtual

[interface s2]
${ROLE_KEY:-masterOnly} = 1
CONF
} >"$tmp/phcd.conf"
phcd_start "$S" "$tmp/phcd.conf" "$tmp/phcd.log"
wait_bus_name org.phcd1 10

gm=$(eui64 g1 "$G" | sed 's/^\(......\)\(....\)\(......\)$/\1.\2.\3/')
better=$(eui64 b2 "$B" | sed 's/^\(......\)\(....\)\(......\)$/\1.\2.\3/')
I=/org/phcd1/instance/bc
deadline=$((SECONDS + 20))
until [ "$(prop /org/phcd1/port/s1 Port State)" = SLAVE ] &&
	[ "$(prop /org/phcd1/port/s2 Port State)" = MASTER ] &&
	[ "$(prop $I Instance GrandmasterIdentity)" = "$gm" ]; do
	[ "$SECONDS" -lt "$deadline" ] ||
		fail "expected s1 SLAVE, s2 MASTER, grandmaster $gm within 20 s; got s1 $(prop /org/phcd1/port/s1 Port State), s2 $(prop /org/phcd1/port/s2 Port State), grandmaster $(prop $I Instance GrandmasterIdentity); phcd: $(tail -n 10 "$tmp/phcd.log")"
	sleep 0.1
done
echo "ok: instance bc follows $gm on s1; s2 (masterOnly) MASTER while $better (priority1 50) is heard there"

# 10 s of the better clock's Announces on s2: nothing may move, and phcd's Announces on s2
# (captured in the better clock's namespace) name the grandmaster of s1.
capture_start "$B" b2 "$tmp/cap.pcapng"
end=$((SECONDS + 10))
while [ "$SECONDS" -lt "$end" ]; do
	g=$(prop $I Instance GrandmasterIdentity)
	s1=$(prop /org/phcd1/port/s1 Port State)
	s2=$(prop /org/phcd1/port/s2 Port State)
	[ "$g" = "$gm" ] && [ "$s1" = SLAVE ] && [ "$s2" = MASTER ] ||
		fail "with $better heard on the masterOnly port: grandmaster $g, s1 $s1, s2 $s2; expected $gm, SLAVE, MASTER"
	sleep 0.2
done
capture_stop
clock=$(prop $I Instance ClockIdentity | tr -d '.')
tshark -r "$tmp/cap.pcapng" -Y 'ptp.v2.messagetype == 0xb' -T fields -E separator=' ' \
	-e ptp.v2.clockidentity -e ptp.v2.an.grandmasterclockidentity 2>/dev/null |
	tr -d ':' | sed 's/0x//g' >"$tmp/announces"
ours=$(awk -v c="$clock" '$1 == c' "$tmp/announces" | wc -l)
bad=$(awk -v c="$clock" -v g="$(tr -d '.' <<<"$gm")" '$1 == c && $2 != g' "$tmp/announces" | sort | uniq -c)
[ "$ours" -gt 10 ] || fail "only $ours Announces from phcd on s2 in 10 s"
[ -z "$bad" ] || fail "phcd's Announces on s2 naming another grandmaster than $gm: $bad"
echo "ok: 10 s: grandmaster $gm, s1 SLAVE, s2 MASTER throughout; $ours Announces of phcd on s2 all name $gm"
echo PASS
