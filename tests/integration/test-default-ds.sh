#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# One defaultDS (ptp/options.c options_default_ds): for a clock that is not grandmaster-capable
# (`profile = gPTP`, `gmCapable = 0`, priority1 200 in the file) the management socket (Debian's
# pmc -u), the wire (pmc -2 answered by the port's worker) and the BMCA agree on priority1 255
# (802.1AS-2020 8.6.2.1), before and after a SET PRIORITY1 100 and a D-Bus SetPriority1 90:
#   - BMCA: a ptp4l peer (gPTP.cfg, priority1 250) is taken as grandmaster: with 200 phcd's own
#     clock would win (decision M1, LISTENING); the supervisor's PARENT_DATA_SET, once the peer is
#     gone, names phcd's own clock with grandmasterPriority1 255;
#   - the UDS and the L2 answers of DEFAULT_DATA_SET and PRIORITY1 say 255;
#   - SET PRIORITY1 100 (read-write socket) and SetPriority1 90 (D-Bus) are taken (D-Bus Priority1
#     shows them) and change none of it.
# Before options_default_ds, the socket answered the configured 200 (and then 100), and a worker
# took the SET as given: pmc -2 said 100 while the BMCA used 255.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin dbus ptp port phcd

S=phdd-s$$ P=phdd-p$$ Q=phdd-q$$
dbus_start "$tmp/bus"
netns_add "$S"
netns_add "$P"
netns_add "$Q"
# s1 faces a ptp4l peer; s2 faces a namespace with nothing but pmc (its L2 requests).
veth_add "$S" s1 "$P" p1
veth_add "$S" s2 "$Q" q2

gptp_cfg "" | sed 's/^priority1.*/priority1\t\t250/' >"$tmp/peer.cfg"
grep -Eq '^priority1[[:space:]]+250$' "$tmp/peer.cfg" || fail "gPTP.cfg: no priority1 line to set"
ptp4l_start "$P" p1 "$tmp/peer.log" -f "$tmp/peer.cfg"
peer=$LAST_PID
cat >"$tmp/phcd.conf" <<CONF
[global]
time_stamping = software

[instance gp]
interfaces = s1, s2
profile = gPTP
gmCapable = 0
priority1 = 200
clock_backend = virtual
neighborPropDelayThresh = 100000
CONF
RW=$tmp/ptp
phcd_start "$S" "$tmp/phcd.conf" "$tmp/phcd.log" --uds "$RW" --uds-ro ""
wait_bus_name org.phcd1 10

I=/org/phcd1/instance/gp
n=0
pmc_uds() { # COMMAND...: pmc's answers on the read-write socket (gPTP: transportSpecific 1)
	n=$((n + 1))
	ip netns exec "$S" pmc -u -b 0 -t 1 -s "$RW" -i "$tmp/pmc.$n" "$@"
}
pmc_l2() { # COMMAND...: pmc's answers over L2 from Q (s2's worker answers)
	ip netns exec "$Q" pmc -2 -t 1 -i q2 -b 0 "$@"
}
get() { # OUTPUT KEY: the first value of KEY in pmc's answers
	awk -v k="$2" '$1 == k { print $2; exit }' <<<"$1"
}
expect() { # WHAT GOT WANT
	[ "$2" = "$3" ] || fail "$1: expected '$3', got '$2'"
}
# agree WHEN: the socket and the wire both answer priority1 255 in DEFAULT_DATA_SET and PRIORITY1.
agree() {
	local how out
	for how in uds l2; do
		out=$("pmc_$how" 'GET DEFAULT_DATA_SET' 'GET PRIORITY1')
		[ "$(grep -c ' RESPONSE MANAGEMENT ' <<<"$out")" = 2 ] ||
			fail "$1: pmc ($how) expected 2 answers, got: $out"
		expect "$1: pmc ($how) DEFAULT_DATA_SET priority1" \
			"$(awk '/DEFAULT_DATA_SET/ { d = 1 } d && $1 == "priority1" { print $2; exit }' <<<"$out")" 255
		expect "$1: pmc ($how) PRIORITY1" \
			"$(awk '/ PRIORITY1$/ { d = 1 } d && $1 == "priority1" { print $2; exit }' <<<"$out")" 255
	done
	echo "ok: $1: priority1 255 from the socket (pmc -u) and the wire (pmc -2)"
}

# BMCA: with priority1 200 phcd's clock beats the peer's 250 and s1 would stay LISTENING (M1).
wait_prop /org/phcd1/port/s1 Port State SLAVE 30
own=$(prop $I Instance ClockIdentity)
[ "$(prop $I Instance GrandmasterIdentity)" != "$own" ] ||
	fail "s1 SLAVE but the grandmaster (D-Bus) is phcd's own clock $own"
echo "ok: BMCA: the peer (priority1 250) is grandmaster; phcd's clock counts 255, not 200"
agree "gmCapable 0, priority1 200 in the file"

out=$(pmc_uds 'SET PRIORITY1 100')
expect "SET PRIORITY1 100: the answer (the value in effect)" "$(get "$out" priority1)" 255
wait_prop $I Instance Priority1 100 5
echo "ok: SET PRIORITY1 100 taken (D-Bus Priority1 100), answered with the 255 in effect"
agree "after SET PRIORITY1 100"
busctl --system call org.phcd1 $I org.phcd1.Instance SetPriority1 y 90 ||
	fail "D-Bus SetPriority1 90 refused"
wait_prop $I Instance Priority1 90 5
agree "after D-Bus SetPriority1 90"

# The peer gone, the supervisor's BMCA makes phcd's clock its own parent: with D0's priority1.
kill "$peer"
wait_prop $I Instance GrandmasterIdentity "$own" 30
out=$(pmc_uds 'GET PARENT_DATA_SET')
expect "PARENT_DATA_SET grandmasterIdentity (own clock)" "$(get "$out" grandmasterIdentity)" "$own"
expect "PARENT_DATA_SET grandmasterPriority1 (the BMCA's D0)" "$(get "$out" grandmasterPriority1)" 255
agree "own parent after SetPriority1 90"
echo "PASS: test-default-ds"
