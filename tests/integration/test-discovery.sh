#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Discovery in a namespace: link monitor events for add/rename/up/down/remove within a deadline,
# ethtool TSINFO on veth (software, no PHC) and on a missing device (-ENODEV), TSCONFIG
# fallback, and `phcd --list-interfaces --json` parsing with jq.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin

T=$BUILD/tests/integration/tool-netlink
PHCD=$BUILD/daemon/phcd
NS=phdi$$
netns_add "$NS"

ip netns exec "$NS" "$T" monitor >"$tmp/ev" 2>&1 &
BG_PIDS+=($!)
wait_for "$tmp/ev" '^ready$' 5
grep -q '^link ifindex=1 name=lo admin=up' "$tmp/ev" || fail "initial enumeration lacks lo: $(cat "$tmp/ev")"
echo "ok: initial enumeration: $(grep -c '^link ' "$tmp/ev") link(s)"

# step DESCRIPTION REGEX COMMAND...: run the command; a new event must match within 3 s.
step() {
	local what=$1 re=$2 from
	shift 2
	from=$(wc -l <"$tmp/ev")
	"$@" || fail "$what: command failed: $*"
	wait_for "$tmp/ev" "$re" 3 "$from"
	echo "ok: $what -> $(tail -n +$((from + 1)) "$tmp/ev" | grep -E -- "$re" | tail -n 1)"
}

step "create veth" '^event added ifindex=[0-9]+ name=dva ' ip -n "$NS" link add dva type veth peer name dvb
wait_for "$tmp/ev" '^event added ifindex=[0-9]+ name=dvb ' 3
step "rename" '^event renamed ifindex=[0-9]+ name=dvr .* old=dva$' ip -n "$NS" link set dva name dvr
step "admin up" '^event admin-up ifindex=[0-9]+ name=dvr admin=up' ip -n "$NS" link set dvr up
step "carrier on (peer up)" '^event carrier-on ifindex=[0-9]+ name=dvr admin=up carrier=on' \
	ip -n "$NS" link set dvb up
step "carrier off (peer down)" '^event carrier-off ifindex=[0-9]+ name=dvr admin=up carrier=off' \
	ip -n "$NS" link set dvb down
step "admin down" '^event admin-down ifindex=[0-9]+ name=dvr admin=down' ip -n "$NS" link set dvr down
step "admin up again" '^event admin-up ifindex=[0-9]+ name=dvr admin=up' ip -n "$NS" link set dvr up

# TSINFO while the pair exists.
ip netns exec "$NS" "$T" tsinfo dvb >"$tmp/ts" 2>&1 || fail "tsinfo dvb: $(cat "$tmp/ts")"
grep -q '^ifindex=[0-9]* name=dvb phc_index=-1$' "$tmp/ts" || fail "expected no PHC on veth: $(cat "$tmp/ts")"
grep -q '^timestamping: software-transmit software-receive software-system-clock$' "$tmp/ts" ||
	fail "expected software timestamping on veth: $(grep timestamping "$tmp/ts")"
grep -q '^tx-types:$' "$tmp/ts" || fail "expected no hardware TX types on veth"
echo "ok: TSINFO dvb: $(tr '\n' ';' <"$tmp/ts")"

rc=0
ip netns exec "$NS" "$T" tsinfo nosuchdev0 >"$tmp/nodev" 2>&1 || rc=$?
grep -q '^error -19 (No such device)$' "$tmp/nodev" || fail "expected -ENODEV, got: $(cat "$tmp/nodev")"
[ "$rc" != 0 ] || fail "tsinfo on a missing device must fail"
echo "ok: TSINFO nosuchdev0: $(cat "$tmp/nodev")"

rc=0
ip netns exec "$NS" "$T" tsconfig dvb >"$tmp/tc" 2>&1 || rc=$?
grep -q '^error -95 (Operation not supported)$' "$tmp/tc" ||
	fail "expected TSCONFIG on veth to say EOPNOTSUPP, got: $(cat "$tmp/tc")"
echo "ok: TSCONFIG dvb: $(cat "$tmp/tc") (caller falls back)"

ip netns exec "$NS" "$PHCD" --list-interfaces --json >"$tmp/json" || fail "phcd --list-interfaces --json"
jq -e . "$tmp/json" >/dev/null || fail "JSON does not parse: $(head -c 300 "$tmp/json")"
got=$(jq -r '.[] | select(.ifname == "dvb") | "\(.phc_index) \(.mode) \(.timestamping | join(","))"' "$tmp/json")
[ "$got" = "-1 software software-transmit,software-receive,software-system-clock" ] ||
	fail "expected dvb with no PHC in software mode, got '$got'"
n=$(jq length "$tmp/json")
[ "$n" = 3 ] || fail "expected 3 interfaces (lo, dvr, dvb), got $n"
ip netns exec "$NS" "$PHCD" --list-interfaces >"$tmp/text" || fail "phcd --list-interfaces"
grep -q 'PTP Hardware Clock: none' "$tmp/text" || fail "text listing lacks the PHC line"
echo "ok: phcd --list-interfaces --json parses: $n interfaces, dvb: $got"

step "remove" '^event removed ifindex=[0-9]+ name=dvr ' ip -n "$NS" link del dvr
wait_for "$tmp/ev" '^event removed ifindex=[0-9]+ name=dvb ' 3
echo "PASS"
