#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Attack: a compromised worker asks the supervisor for unicast sockets it may not have (the
# unicast broker, hybrid_e2e over UDP). phcd runs tool-peer-asker instead of phcd-port on a UDPv4
# and a UDPv6 port (unicast_peers_max = 4); it asks for a multicast group, the limited and the
# subnet's broadcast address, loopback, unspecified and IPv4-mapped addresses, an address of the
# other family, a link-local address of another interface, a peer twice, a fifth peer while
# holding four, then floods 300 requests for new peers.
# Expected: each forbidden request refused for its reason and counted on D-Bus (Port.Counters
# peer_refused_*), the flood cut by the rate limit, what is allowed granted with two sockets
# connected to the peer's 319 and 320 on the port's interface, a released slot taken again;
# refusals logged once per burst (not once each), and the worker never ended: the port keeps
# running. On BASE no PEER_REQUEST exists (IPC 25): the worker could not ask at all.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin dbus ptp phcd

ASKER=${ASKER:-$BUILD/tests/integration/tool-peer-asker}
S=pha17-s$$ M=pha17-m$$ D=pha17-d$$
for ns in $S $M $D; do netns_add "$ns"; done
veth_add "$S" s1 "$M" m1
veth_add "$S" s2 "$D" d2
ip -n "$S" addr add 192.0.2.1/24 dev s1
ip -n "$M" addr add 192.0.2.2/24 dev m1
udp_wait_ll6() { # NS IF: a link-local IPv6 address past DAD within 10 s
	local deadline=$((SECONDS + 10))
	until ip -n "$1" -6 addr show dev "$2" scope link | grep -q inet6 &&
		! ip -n "$1" -6 addr show dev "$2" tentative | grep -q inet6; do
		[ "$SECONDS" -lt "$deadline" ] || fail "$2: no IPv6 link-local address past DAD in 10 s"
		sleep 0.1
	done
}
udp_wait_ll6 "$S" s2

# The worker runs as nobody: what it reads and writes is theirs.
out=$tmp/out
mkdir -m 777 "$out"
chmod 755 "$tmp"
cat >"$out/s1.script" <<'EOF2'
req 224.0.1.129
req 255.255.255.255
req 192.0.2.255
req 127.0.0.1
req 0.0.0.0
req 2001:db8::1
req 192.0.2.2
req 192.0.2.2
req 192.0.2.3
req 192.0.2.4
req 192.0.2.5
req 192.0.2.6
rel 192.0.2.3
req 192.0.2.6
rel 192.0.2.2
rel 192.0.2.4
rel 192.0.2.5
rel 192.0.2.6
flood 300 10.9
EOF2
# Another interface's link-local address: s1's, a real interface of phcd's namespace.
s1_index=$(ip -n "$S" -o link show s1 | cut -d: -f1)
cat >"$out/s2.script" <<EOF2
req ff02::1
req ff0e::181
req ::1
req ::
req ::ffff:192.0.2.2
req 192.0.2.2
req fe80::1 $s1_index
req fe80::2
req fe80::3 +0
EOF2
chmod 644 "$out"/*.script
# phcd passes a worker its arguments only: the wrapper feeds the asker its port's script.
cat >"$tmp/worker" <<EOF2
#!/bin/bash
for a; do
	case "\$a" in s1|s2) exec "$ASKER" "\$@" <"$out/\$a.script" >"$out/\$a.out" 2>&1 ;; esac
done
exit 1
EOF2
chmod 755 "$tmp/worker"

cat >"$tmp/phcd.conf" <<'EOF2'
[global]
time_stamping = software
hybrid_e2e = 1
unicast_peers_max = 4

[instance v4]
interfaces = s1
network_transport = UDPv4

[instance v6]
interfaces = s2
network_transport = UDPv6
EOF2
dbus_start "$tmp/bus"
STATUS=$tmp/status
phcd_start "$S" "$tmp/phcd.conf" "$tmp/phcd.log" --port-binary "$tmp/worker" \
	--status-file "$STATUS"
wait_bus_name org.phcd1 10
wait_for "$out/s1.out" '^done$' 30
wait_for "$out/s2.out" '^done$' 10

expect_line() { # PORT LINE: the asker's answers on PORT hold LINE
	grep -qxF -- "$2" "$out/$1.out" ||
		fail "$1: expected the answer '$2', the asker got: $(cat "$out/$1.out")"
}
expect_line s1 "224.0.1.129 multicast"
expect_line s1 "255.255.255.255 broadcast"
expect_line s1 "192.0.2.255 broadcast"
expect_line s1 "127.0.0.1 loopback"
expect_line s1 "0.0.0.0 unspecified"
expect_line s1 "2001:db8::1 family"
expect_line s1 "192.0.2.6 limit"
expect_line s1 "fds 2 peer 192.0.2.2:319,192.0.2.2:320 dev s1"
[ "$(grep -c '^192.0.2.2 ' "$out/s1.out")" = 2 ] && grep -qx '192.0.2.2 duplicate' "$out/s1.out" ||
	fail "s1: expected 192.0.2.2 granted then refused as a duplicate: $(grep '^192.0.2.2 ' "$out/s1.out")"
[ "$(grep -c '^192.0.2.6 granted$' "$out/s1.out")" = 1 ] ||
	fail "s1: expected 192.0.2.6 granted once a slot was released: $(grep '^192.0.2.6' "$out/s1.out")"
echo "ok: UDPv4 port: multicast, broadcast (both), loopback, unspecified and IPv6 refused, the fifth peer refused until one was released, 192.0.2.2 granted once with sockets to its 319 and 320 on s1"
flood=$(grep '^flood ' "$out/s1.out")
read -r _ n _ ms _ granted _ _ rate <<<"$flood"
# The burst (64) less the six tokens taken before (five pairs granted, and 192.0.2.255, which
# passed the policy and was refused by connect(): EACCES); then 2 a second while it lasts.
most=$((58 + (2 * ms + 999) / 1000 + 1))
[ "$n" = 300 ] && [ "$granted" -ge 58 ] && [ "$granted" -le "$most" ] &&
	[ "$flood" = "flood 300 ms $ms granted $granted refused rate $((300 - granted))" ] ||
	fail "s1: expected a flood of 300 cut by the rate limit (58-$most granted in $ms ms, the rest refused as rate), got '$flood'"
echo "ok: UDPv4 port: $flood"
expect_line s2 "ff02::1 multicast"
expect_line s2 "ff0e::181 multicast"
expect_line s2 "::1 loopback"
expect_line s2 ":: unspecified"
expect_line s2 "::ffff:192.0.2.2 family"
expect_line s2 "192.0.2.2 family"
expect_line s2 "fe80::1 scope"
expect_line s2 "fe80::2 granted"
expect_line s2 "fe80::3 granted"
expect_line s2 "fds 2 peer fe80::2:319,fe80::2:320 dev s2"
echo "ok: UDPv6 port: multicast (2), loopback, unspecified, IPv4-mapped, IPv4 and another interface's link-local refused; link-local peers of its own link granted, sockets on s2"

counters() { # PORT: Counters as KEY VALUE lines
	busctl --system --json=short get-property org.phcd1 "/org/phcd1/port/$1" org.phcd1.Port \
		Counters | jq -r '.data | to_entries[] | "\(.key) \(.value)"'
}
expect_counter() { # PORT KEY VALUE ("ge N": at least N)
	local got
	got=$(counters "$1" | awk -v k="$2" '$1 == k { print $2 }')
	if [ "$3" = ge ]; then
		[ -n "$got" ] && [ "$got" -ge "$4" ] || fail "$1: Counters $2: expected at least $4, got '$got'"
	else
		[ "$got" = "$3" ] || fail "$1: Counters $2: expected $3, got '$got'"
	fi
}
expect_counter s1 peer_refused_multicast 1
expect_counter s1 peer_refused_broadcast 2
expect_counter s1 peer_refused_loopback 1
expect_counter s1 peer_refused_unspecified 1
expect_counter s1 peer_refused_family 1
expect_counter s1 peer_refused_duplicate 1
expect_counter s1 peer_refused_limit 1
expect_counter s1 peer_refused_rate "$((300 - granted))"
expect_counter s1 peer_sockets_granted "$((5 + granted))"
expect_counter s1 peer_sockets_released "$((5 + granted))"
expect_counter s2 peer_refused_multicast 2
expect_counter s2 peer_refused_family 2
expect_counter s2 peer_refused_scope 1
expect_counter s2 peer_sockets_granted 2
echo "ok: D-Bus Port.Counters count every refusal by reason and every pair granted and released"

# Logged once per burst: the whole script is one burst per port.
for p in s1 s2; do
	lines=$(grep -c "$p: refused the worker unicast sockets" "$tmp/phcd.log" || true)
	[ "$lines" = 1 ] ||
		fail "$p: expected the refusals logged once (one burst), got $lines lines: $(grep "$p: refused" "$tmp/phcd.log" | head -n 3)"
done
echo "ok: refusals logged once per port: $(grep -m1 -o 's1: refused the worker unicast sockets.*' "$tmp/phcd.log")"

# The port keeps running: one worker each, never ended, still LISTENING.
for p in s1 s2; do
	starts=$(grep -cE "$p: worker [0-9]+ started" "$tmp/phcd.log" || true)
	[ "$starts" = 1 ] || fail "$p: expected its worker started once and kept, started $starts times: $(grep "$p: worker" "$tmp/phcd.log")"
	wait_status port "$p" state LISTENING 5
done
! grep -E "s[12]: worker .*(exited|killed|sent)" "$tmp/phcd.log" ||
	fail "a worker was ended for asking (above)"
echo "ok: both workers kept running (one start each, LISTENING)"
