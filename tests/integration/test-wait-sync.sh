#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The real phcd as grandmaster of its domain (one port, nobody else on the link) plus an instance
# without ports: `phcctl wait-sync` (what phcd-wait-sync.service runs before time-sync.target)
# returns 0 once the port is MASTER and its boot gate passed (announce receipt timeout plus the
# qualification window, phcd(8) READINESS), and --json says why for
# each instance. Until 22a8b42 such a host waited out the whole timeout at every boot.
# An instance whose `interfaces` names an interface that is not there yet (a NIC that appears
# late at boot) is not ready until it is, and --json names it (it counted as "no ports" before).
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin dbus ptp phcd

PHCCTL=$BUILD/phcctl/phcctl
S=phws-s$$ P=phws-p$$
dbus_start "$tmp/bus"
netns_pair "$S" "$P" s1 p1
{
	phcd_fast_global # boot gate (3 + 4) x 2^-2 s = 1.75 s
	cat <<CONF

[instance gm]
interfaces = s1
clock_backend = virtual

[instance nohw]
domainNumber = 7
interfaces = auto
CONF
} >"$tmp/phcd.conf"
phcd_start "$S" "$tmp/phcd.conf" "$tmp/phcd.log"
wait_bus_name org.phcd1 10
t0=${EPOCHREALTIME//[.,]/}
rc=0
"$PHCCTL" wait-sync --timeout 30 --json >"$tmp/ws.json" 2>"$tmp/ws.err" || rc=$?
t1=${EPOCHREALTIME//[.,]/}
ms=$(((t1 - t0) / 1000))
[ "$rc" = 0 ] || fail "wait-sync of a grandmaster-only phcd: exit $rc after ${ms} ms: $(cat "$tmp/ws.err") $(cat "$tmp/ws.json"); phcd: $(tail -n 20 "$tmp/phcd.log")"
jq -e '.Ready and .SystemClock == null and
	(.Instances[] | select(.Name == "gm") | .Ready and .IsGrandmaster and .Ports == 1 and
		(.Reason | startswith("grandmaster of domain 0"))) and
	(.Instances[] | select(.Name == "nohw") | .Ready and .Ports == 0)' "$tmp/ws.json" >/dev/null ||
	fail "wait-sync --json: $(cat "$tmp/ws.json")"
# The boot gate is 1.75 s; a loaded test machine gets 4 s more (the nspawn tier holds
# phcd-wait-sync to the gate plus 1 s).
[ "$ms" -lt 5750 ] || fail "wait-sync took ${ms} ms, expected the boot gate (1750 ms) plus at most 4 s"
got=$(busctl --system get-property org.phcd1 /org/phcd1/port/s1 org.phcd1.Port State)
[ "$got" = 's "MASTER"' ] || fail "s1: expected MASTER, got $got"
echo "ok: grandmaster-only phcd: wait-sync ready after ${ms} ms (phcd on the bus -> exit 0): $(jq -c '[.Instances[] | {Name, Reason}]' "$tmp/ws.json")"

# An instance for s2, which does not exist yet: not ready, and --json names what it waits for.
cat >>"$tmp/phcd.conf" <<CONF

[instance late]
domainNumber = 9
interfaces = s2
clock_backend = virtual
CONF
"$PHCCTL" reload || fail "reload adding instance late: $(tail -n 5 "$tmp/phcd.log")"
rc=0
"$PHCCTL" wait-sync --timeout 2 --json >"$tmp/ws.json" 2>"$tmp/ws.err" || rc=$?
[ "$rc" = 5 ] || fail "wait-sync with s2 absent: expected exit 5 (not ready), got $rc: $(cat "$tmp/ws.json")"
jq -e '(.Ready | not) and (.Instances[] | select(.Name == "late") | (.Ready | not) and
		.Ports == 0 and .MissingInterfaces == ["s2"] and
		.Reason == "waiting for s2: named in its interfaces, not present yet") and
	(.Instances[] | select(.Name == "gm") | .Ready)' "$tmp/ws.json" >/dev/null ||
	fail "wait-sync --json with s2 absent: $(cat "$tmp/ws.json")"
got=$(busctl --system get-property org.phcd1 /org/phcd1/instance/late org.phcd1.Instance MissingInterfaces)
[ "$got" = 'as 1 "s2"' ] || fail "instance late: expected MissingInterfaces [s2], got $got"
got=$(busctl --system --json=short get-property org.phcd1 /org/phcd1/instance/late org.phcd1.Instance HealthReasons)
jq -e '.data == [["interface-missing", "interface s2 is named in the instance'"'"'s interfaces but not present"]]' <<<"$got" >/dev/null ||
	fail "instance late: expected HealthReasons interface-missing s2, got $got"
echo "ok: interface s2 not present: wait-sync exit 5, $(jq -c '.Instances[] | select(.Name == "late") | {MissingInterfaces, Reason}' "$tmp/ws.json")"
"$PHCCTL" wait-sync --timeout 30 --json >"$tmp/ws.json" 2>"$tmp/ws.err" &
ws=$!
veth_add "$P" p2 "$S" s2
rc=0
wait "$ws" || rc=$?
[ "$rc" = 0 ] || fail "wait-sync after s2 appeared: exit $rc: $(cat "$tmp/ws.err") $(cat "$tmp/ws.json")"
jq -e '.Instances[] | select(.Name == "late") | .Ready and .MissingInterfaces == [] and .IsGrandmaster' \
	"$tmp/ws.json" >/dev/null || fail "wait-sync --json after s2 appeared: $(cat "$tmp/ws.json")"
got=$(busctl --system --json=short get-property org.phcd1 /org/phcd1/instance/late org.phcd1.Instance HealthReasons)
jq -e '[.data[][0]] | index("interface-missing") == null' <<<"$got" >/dev/null ||
	fail "instance late after s2 appeared: expected no interface-missing, got $got"
echo "ok: s2 appeared: wait-sync ready once its port is grandmaster, no interface-missing"

# ConfiguredGrandmaster, what the alert "not synchronized and not the configured grandmaster"
# reads (docs/prometheus): gm (clockClass 248, may become slave) is not; late with masterOnly
# on its only port is, at the same clockClass.
got=$(busctl --system get-property org.phcd1 /org/phcd1/instance/gm org.phcd1.Instance ConfiguredGrandmaster)
[ "$got" = 'b false' ] || fail "instance gm (clockClass 248): expected ConfiguredGrandmaster false, got $got"
sed -i '/^interfaces = s2$/a masterOnly = 1' "$tmp/phcd.conf"
"$PHCCTL" reload || fail "reload with masterOnly on s2: $(tail -n 5 "$tmp/phcd.log")"
wait_prop /org/phcd1/instance/late Instance ConfiguredGrandmaster true 5
echo "ok: ConfiguredGrandmaster false for gm, true for late once masterOnly is on its only port"
echo PASS
