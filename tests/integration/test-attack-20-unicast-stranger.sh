#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Attack: a stranger on the segment of a unicast grantee. phcd (linuxptp's UNICAST-SLAVE.cfg, its
# table naming ptp4l 3.1.1 at 192.0.2.1, UNICAST-MASTER.cfg) is SLAVE by negotiated grants. Then,
# for 5 s at 8 rounds a second, unicast-forge.py sends phcd unicast Announce of a better
# grandmaster (priority1 0, clockClass 6), two-step Sync with a Follow_Up 1000 s ahead, and
# Delay_Resp, as three strangers: from 192.0.2.66 under a clockIdentity of its own, from
# 192.0.2.66 under ptp4l's portIdentity, and from ptp4l's own address (spoofed) under its own
# clockIdentity.
# Expected: phcd takes none of them (IEEE 1588-2019 16.1: Announce only from the masters of its
# table, Sync, Follow_Up and Delay_Resp only from the address and portIdentity that granted
# them): it stays SLAVE of ptp4l (no state change, ParentPortIdentity unchanged), its offsets
# during and after the attack within the UDP tests' bounds, and Counters unicast_not_granted
# grows by at least every message sent.
# On BASE (0e9333f) phcd takes the Sync sent under ptp4l's portIdentity from another address:
# its offsets go to -1000 s and the port leaves SLAVE (SLAVE -> UNCALIBRATED, then FAULTY).
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin dbus ptp port phcd gptp udp unicast

FORGE=$SRC/tests/integration/unicast-forge.py
reference_linuxptp
dbus_start "$tmp/bus"
uc_grantee_start s "before the stranger: phcd grantee of ptp4l"

master=$(eui64 "$ia" "$A")
parent() {
	busctl --system --json=short get-property org.phcd1 /org/phcd1/instance/default \
		org.phcd1.Instance ParentPortIdentity | jq -r .data
}
parent_before=$(parent)
[ "${parent_before//./}" = "$master-1" ] ||
	fail "expected phcd's ParentPortIdentity ptp4l's $master-1 before the attack, got '$parent_before'"
dropped_before=$(uc_counter_or_0 unicast_not_granted)
from=$(wc -l <"$log-phcd")

# Three strangers at once, 40 rounds each of Announce, Sync + Follow_Up and Delay_Resp.
kinds=(announce sync delay_resp)
ip netns exec "$A" python3 "$FORGE" 192.0.2.66 192.0.2.2 0af100fffe000042 1 40 8 "${kinds[@]}" \
	>"$log.forge1" &
f1=$!
ip netns exec "$A" python3 "$FORGE" 192.0.2.66 192.0.2.2 "$master" 1 40 8 "${kinds[@]}" \
	>"$log.forge2" &
f2=$!
ip netns exec "$A" python3 "$FORGE" 192.0.2.1 192.0.2.2 0af100fffe000043 1 40 8 "${kinds[@]}" \
	>"$log.forge3" &
f3=$!
BG_PIDS+=("$f1" "$f2" "$f3")
wait "$f1" "$f2" "$f3" || fail "unicast-forge.py failed: $(cat "$log".forge*)"
sent=$(($(cat "$log.forge1") + $(cat "$log.forge2") + $(cat "$log.forge3")))
[ "$sent" = 480 ] || fail "the strangers sent $sent messages, expected 480"

! tail -n +$((from + 1)) "$log-phcd" | grep -Eq "$ib: [A-Z_]+ -> " ||
	fail "phcd's port changed state under the stranger: $(tail -n +$((from + 1)) "$log-phcd" | grep -E "$ib: [A-Z_]+ -> " | head -n 3)"
parent_after=$(parent)
[ "$parent_after" = "$parent_before" ] ||
	fail "phcd's ParentPortIdentity went from $parent_before to $parent_after (the stranger's)"
# 48 offsets from the attack's start on (6 s at 8 a second: the attack and a second after).
wait_lines "$log-phcd" 'master offset .* s2 ' 48 20 "$from"
check_stats "a stranger's better Announce and Sync 1000 s off: phcd grantee of ptp4l" \
	"$(offset_stats "$log-phcd" "$from" 48)" 5000 20000
far=$(tail -n +$((from + 1)) "$log-phcd" | grep -E 'master offset' |
	awk '{ for (i = 1; i < NF; i++) if ($i == "offset" && ($(i + 1) > 100000 || $(i + 1) < -100000)) print }' | head -n 3)
[ -z "$far" ] || fail "expected every offset of phcd within 100 us during the attack, got: $far"
# The worker's counters reach D-Bus within a second or so: polled for 5 s.
deadline=$((SECONDS + 5))
uc_counter unicast_not_granted >/dev/null
while dropped=$(($(uc_counter unicast_not_granted) - dropped_before)) && [ "$dropped" -lt "$sent" ]; do
	[ "$SECONDS" -lt "$deadline" ] ||
		fail "Counters unicast_not_granted grew by $dropped within 5 s, expected at least the $sent messages the strangers sent; Counters: $(busctl --system --json=short get-property org.phcd1 "/org/phcd1/port/$ib" org.phcd1.Port Counters | jq -c '.data | with_entries(select(.value != 0))')"
	sleep 0.2
done
echo "ok: $sent messages of three strangers: phcd stayed SLAVE of $parent_after, unicast_not_granted +$dropped"
