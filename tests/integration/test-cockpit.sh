#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# phcd's Cockpit page in a real browser: the real phcd, slave of a ptp4l grandmaster, on a private
# system bus; cockpit-ws with a local session (no login) bridging to that bus, once as nobody and
# once as root, on the loopback of the namespace; headless Chromium driven by Selenium
# (cockpit-page.py) sees the port SLAVE and a changing offset, a grandmaster by configuration and
# a chronyd refclock's state as phcd has them on the bus; Disable from the page is refused
# for nobody; as root Disable, Enable, Restart, SetPriority1 and Reload work. The screenshot is
# left in the build directory (PHCD_TEST_COCKPIT_SHOT_SAMPLES=N: taken once the chart has N
# offsets, default 8).
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin dbus ptp phcd

S=phck-s$$ G=phck-g$$
dbus_start "$tmp/bus"
netns_pair "$S" "$G" s1 g1
veth_add "$S" s2 "$G" g2
veth_add "$S" s3 "$G" g3

ptp4l_gm "$G" g1 "$tmp/gm.uds" "$tmp/gm.log"
# Beside the slave lab: gm, the grandmaster by configuration (masterOnly on its only port), and
# rc, chronyd's reference clock at a socket nobody binds (its port has no master: idle).
{
	phcd_virtual_conf lab s1
	printf '\n[instance gm]\ninterfaces = s2\nclock_backend = virtual\nmasterOnly = 1\n'
	printf '\n[instance rc]\ninterfaces = s3\nclock_backend = system\nslaveOnly = 1\n'
	printf 'clock_servo = refclock_sock\nrefclock_sock_address = %s\n' "$tmp/chrony.sock"
} >"$tmp/phcd.conf"
phcd_start "$S" "$tmp/phcd.conf" "$tmp/phcd.log"
wait_bus_name org.phcd1 10

# The page from the source tree, as meson installs it (DATADIR/cockpit/phcd), found by the
# bridge through XDG_DATA_DIRS.
mkdir -p "$tmp/share/cockpit" "$tmp/home-nobody" "$tmp/home-root"
cp -r "$SRC/cockpit" "$tmp/share/cockpit/phcd"
chown nobody "$tmp/home-nobody"
# cockpit_ws PORT USER: cockpit-ws with a local session (its bridge runs as USER, on the private
# bus) on the namespace's loopback. No session bus: without an address the bridge autolaunched
# one (dbus-launch) per run, and both outlived the test.
cockpit_ws() {
	ip netns exec "$S" setpriv --reuid="$2" --regid="$(id -g "$2")" --clear-groups \
		env HOME="$tmp/home-$2" XDG_DATA_DIRS="$tmp/share:/usr/share" \
		DBUS_SYSTEM_BUS_ADDRESS="$DBUS_SYSTEM_BUS_ADDRESS" \
		DBUS_SESSION_BUS_ADDRESS="unix:path=$tmp/no-session-bus" \
		/usr/lib/cockpit/cockpit-ws --local-session=cockpit-bridge --address 127.0.0.1 \
		--port "$1" >"$tmp/ws-$2.log" 2>&1 &
	BG_PIDS+=($!)
}
cockpit_ws 9091 nobody
cockpit_ws 9092 root
for port in 9091 9092; do
	deadline=$((SECONDS + 20))
	until ip netns exec "$S" curl -sf -o /dev/null "http://127.0.0.1:$port/cockpit/@localhost/phcd/index.html"; do
		[ "$SECONDS" -lt "$deadline" ] ||
			fail "cockpit-ws on $port: the page not served within 20 s: $(tail -n 5 "$tmp"/ws-*.log)"
		sleep 0.2
	done
done
echo "ok: cockpit-ws (local sessions of nobody and root) serve the page"

# The browser in the namespace: it has no route off the machine. Debian's python3, whose
# python3-selenium drives Debian's chromedriver (another python3 may come first in PATH).
shot=$BUILD/cockpit-phcd.png
rm -f "$shot"
ip netns exec "$S" env HOME="$tmp/home-root" DBUS_SYSTEM_BUS_ADDRESS="$DBUS_SYSTEM_BUS_ADDRESS" \
	/usr/bin/python3 "$SRC/tests/integration/cockpit-page.py" \
	"http://127.0.0.1:9091/cockpit/@localhost/phcd/index.html" \
	"http://127.0.0.1:9092/cockpit/@localhost/phcd/index.html" s1 lab "$shot" \
	"${PHCD_TEST_COCKPIT_SHOT_SAMPLES:-8}" ||
	fail "the page in Chromium (phcd: $(tail -n 3 "$tmp/phcd.log" | tr '\n' ' '))"
[ -s "$shot" ] || fail "no screenshot at $shot"
echo PASS
