#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The Quick start demo: a ptp4l grandmaster and two phcd slaves, each slave in its own network
# namespace with its own private system bus (as two machines would have), and `phcctl status`
# of both refreshing on screen. Ctrl-C removes everything. Nothing touches this machine's clock:
# ptp4l runs --free_running, phcd steers virtual clocks, and all run without CAP_SYS_TIME.
#
# usage: scripts/demo.sh [--once | --duration S] [--build DIR]
#   --once        wait until both slaves are synchronized, print their status once, exit 0
#                 (exit 1 if they are not synchronized within 60 s)
#   --duration S  refresh for S seconds, then exit (default: until Ctrl-C)
#   --build DIR   use this meson build directory (default: build-demo, set up and built here)
set -euo pipefail
cd "$(dirname "$0")/.."
SRC=$PWD

once=0 duration= build=
while [ $# -gt 0 ]; do
	case $1 in
	--once) once=1 ;;
	--duration) duration=$2; shift ;;
	--build) build=$2; shift ;;
	-h | --help) awk 'NR >= 3 && /^#/ { sub(/^# ?/, ""); print; next } NR >= 3 { exit }' "$0"; exit 0 ;;
	*) echo "demo: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
	shift
done
if [ "$(id -u)" -ne 0 ]; then
	echo "demo: run as root (network namespaces)" >&2
	exit 1
fi
if [ -z "$build" ]; then
	scripts/deps.sh
	build=build-demo
	[ -d "$build" ] || meson setup "$build" >/dev/null
	ninja -C "$build" >/dev/null
fi
BUILD=$(cd "$build" && pwd)
PHCD=$BUILD/daemon/phcd
PHCCTL=$BUILD/phcctl/phcctl
. "$SRC/tests/lib/net-helpers.sh"
. "$SRC/tests/lib/dbus-helpers.sh"
. "$SRC/tests/lib/ptp-helpers.sh"

tmp=$(mktemp -d /tmp/phcd-demo.XXXXXX)
chmod 755 "$tmp"
GM=phdemo-gm$$ A=phdemo-a$$ B=phdemo-b$$
cleanup() {
	net_cleanup
	dbus_cleanup
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

netns_add "$GM"
netns_add "$A"
netns_add "$B"
ip link add gm-a netns "$GM" type veth peer name eth-a netns "$A"
ip link add gm-b netns "$GM" type veth peer name eth-b netns "$B"
for l in "$GM gm-a" "$GM gm-b" "$A eth-a" "$B eth-b"; do ip -n ${l% *} link set ${l#* } up; done

# The grandmaster: ptp4l with one port towards each slave, never touching a clock.
ptp4l_gm "$GM" "gm-a -i gm-b" "$tmp/gm.uds" "$tmp/gm.log"

slave_start() { # NAME NETNS IFNAME
	# A private system bus for each slave, as each machine has its own.
	dbus_start "$tmp/bus-$1"
	{
		phcd_fast_global
		cat <<CONF

[instance $1]
interfaces = $3
domainNumber = 0
slaveOnly = 1
clock_backend = virtual
CONF
	} >"$tmp/$1.conf"
	ip netns exec "$2" \
		capsh --drop=cap_sys_time -- -c "exec $PHCD -f $tmp/$1.conf" >"$tmp/$1.log" 2>&1 &
	BG_PIDS+=($!)
}
slave_start slave-a "$A" eth-a
slave_start slave-b "$B" eth-b

ctl() { # NAME ARGS...: phcctl on that slave's bus
	local name=$1
	shift
	DBUS_SYSTEM_BUS_ADDRESS=unix:path=$tmp/bus-$name/system_bus_socket "$PHCCTL" "$@"
}
screen() {
	for s in slave-a slave-b; do
		echo "=== $s: phcctl status"
		ctl "$s" status 2>&1 || true
		echo
	done
}

if [ "$once" = 1 ]; then
	for s in slave-a slave-b; do
		if ! ctl "$s" wait-sync --timeout 60 --max-offset 100000 >/dev/null; then
			screen
			echo "demo: $s did not synchronize within 60 s; its log:" >&2
			tail -n 20 "$tmp/$s.log" >&2
			exit 1
		fi
	done
	screen
	for s in slave-a slave-b; do
		echo "=== $s: phcctl status --json"
		ctl "$s" status --json
	done
	exit 0
fi

end=$((SECONDS + ${duration:-999999999}))
while [ "$SECONDS" -lt "$end" ]; do
	out=$(screen)
	clear 2>/dev/null || printf '\033[H\033[2J'
	echo "phcd demo: ptp4l grandmaster -> two phcd slaves in namespaces. Ctrl-C to stop."
	echo
	echo "$out"
	sleep 1
done
