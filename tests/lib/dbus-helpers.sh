# SPDX-License-Identifier: GPL-2.0-or-later
# Shell helpers for D-Bus tests: a private system bus with the project's policy, removed on exit.
# Source it after net-helpers.sh; dbus_start DIR starts a bus and exports
# DBUS_SYSTEM_BUS_ADDRESS (sd_bus_open_system, busctl --system, gdbus --system follow it).
# Several buses may run (one per simulated machine); dbus_cleanup stops them all.

DBUS_PIDS=()

dbus_cleanup() {
	local p
	for p in "${DBUS_PIDS[@]}"; do
		kill "$p" 2>/dev/null || true
	done
	DBUS_PIDS=()
}

# dbus_start DIR: a system-type dbus-daemon listening in DIR, with the stock default policy,
# `allow user="*"` (else non-root cannot connect), Monitoring for root, and units/org.phcd1.conf.
dbus_start() {
	local dir=$1
	mkdir -p "$dir/system.d"
	cp "$SRC/units/org.phcd1.conf" "$dir/system.d/"
	cat >"$dir/system.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$dir/system_bus_socket</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <deny own="*"/>
    <deny send_type="method_call"/>
    <allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
    <allow receive_type="signal"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Introspectable"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Properties"/>
    <deny send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus" send_member="UpdateActivationEnvironment"/>
  </policy>
  <policy user="root">
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Monitoring"/>
  </policy>
  <includedir>$dir/system.d</includedir>
</busconfig>
CONF
	# The socket's directory must be reachable for the unprivileged caller of the tests.
	chmod 755 "$dir"
	dbus-daemon --config-file="$dir/system.conf" --fork --nopidfile --print-pid=3 \
		--print-address=4 3>"$dir/pid" 4>"$dir/address" 2>"$dir/daemon.log" ||
		fail "dbus-daemon did not start: $(cat "$dir/daemon.log")"
	DBUS_PIDS+=("$(cat "$dir/pid")")
	export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$dir/system_bus_socket"
}

# wait_bus_name NAME SECONDS: poll until NAME has an owner on the system bus.
wait_bus_name() {
	local name=$1 secs=$2
	local deadline=$((SECONDS + secs))
	until busctl --system status "$name" >/dev/null 2>&1; do
		[ "$SECONDS" -lt "$deadline" ] || fail "expected $name on the bus within ${secs}s"
		sleep 0.02
	done
}

# prop PATH IFACE NAME: a property of phcd's object PATH (IFACE without "org.phcd1."), the value
# alone (strings without their quotes).
prop() {
	busctl --system get-property org.phcd1 "$1" "org.phcd1.$2" "$3" | cut -d' ' -f2- | tr -d '"'
}

# wait_prop PATH IFACE NAME VALUE SECONDS: poll until the property is VALUE, or fail saying what
# it was (and the end of phcd's log, $PHCD_LOG of phcd_start, when there is one).
wait_prop() {
	local deadline=$((SECONDS + $5)) v
	while v=$(prop "$1" "$2" "$3"); [ "$v" != "$4" ]; do
		[ "$SECONDS" -lt "$deadline" ] ||
			fail "$1 $3: expected '$4' within $5 s, got '$v'${PHCD_LOG:+; phcd: $(tail -n 20 "$PHCD_LOG")}"
		sleep 0.05
	done
}

# bus_fake_start DIR: tests/integration/tool-bus-fake (phcd's dbus/ code over a scripted
# stand-in of the supervisor) on the bus of dbus_start, reading its commands from fd 5 (the FIFO
# DIR/in), its output in DIR/out; returns once it serves org.phcd1, or fails. Its PID is in
# FAKE_PID and BG_PIDS; fd 5 is closed at exit (test_on_exit of tests/lib/test-lib.sh).
bus_fake_start() {
	mkfifo "$1/in"
	FAKE_OUT=$1/out
	"$BUILD/tests/integration/tool-bus-fake" <"$1/in" >"$FAKE_OUT" 2>&1 &
	FAKE_PID=$!
	BG_PIDS+=("$FAKE_PID")
	exec 5>"$1/in"
	test_on_exit 'exec 5>&- 2>/dev/null || true'
	wait_for "$FAKE_OUT" '^ready$' 30
	wait_bus_name org.phcd1 10
}

# fake CMD [ARG...]: one command to the tool-bus-fake of bus_fake_start; waits (10 s at most)
# for its "ok CMD", or fails, also when it answers an error.
fake() {
	local from
	from=$(wc -l <"$FAKE_OUT")
	echo "$*" >&5
	wait_for "$FAKE_OUT" "^(ok $1|error: .*)\$" 10 "$from"
	if tail -n +$((from + 1)) "$FAKE_OUT" | grep -q '^error:'; then
		fail "tool-bus-fake refused '$*': $(tail -n 1 "$FAKE_OUT")"
	fi
}

# bus_fake_ports LAYOUT PORTS PREFIX OUT ERR: make the tests/integration/tool-bus-fake that reads
# fd 5 (its answers in OUT, its stderr in ERR) serve PORTS ports PREFIX1, PREFIX2, ..., each in an
# instance of its own iK (LAYOUT instances) or all in instance bc (LAYOUT bc); return once it
# has answered every command, or fail after 30 s saying what came.
bus_fake_ports() {
	local layout=$1 n=$2 prefix=$3 out=$4 err=$5 k want
	local deadline=$((SECONDS + 30))
	case $layout in
	instances)
		for k in $(seq "$n"); do
			printf 'instance i%d\nport %s%d i%d\n' "$k" "$prefix" "$k" "$k"
		done >&5
		want=$((2 * n))
		;;
	bc)
		echo "instance bc" >&5
		for k in $(seq "$n"); do
			echo "port $prefix$k bc"
		done >&5
		want=$((n + 1))
		;;
	*) fail "LAYOUT must be instances or bc, not $layout" ;;
	esac
	until [ "$(grep -c '^ok' "$out" || true)" -ge "$want" ]; do
		[ "$SECONDS" -lt "$deadline" ] ||
			fail "tool-bus-fake: expected $want ok answers within 30 s, got $(grep -c '^ok' "$out"): $(tail -n 3 "$out" "$err")"
		sleep 0.1
	done
}

# dbus_capture_reply PCAP REPLY CMD...: run CMD (one call) on the system bus under
# `dbus-monitor --pcap` into PCAP, again until a message of 1000 bytes or more has been seen (at
# most 100 times); REPLY gets the largest message captured, as it went over the bus (the reply a
# stand-in such as tests/bench/dbus-canned.py then sends back).
dbus_capture_reply() {
	local pcap=$1 reply=$2 mon
	shift 2
	dbus-monitor --system --pcap >"$pcap" 2>/dev/null &
	mon=$!
	for _ in $(seq 100); do
		"$@" >/dev/null
		python3 -c 'import struct, sys
d = open(sys.argv[1], "rb").read()
o, big = 24, b""
while o + 16 <= len(d):
	n = struct.unpack_from("<I", d, o + 8)[0]
	big, o = max(big, d[o + 16:o + 16 + n], key=len), o + 16 + n
open(sys.argv[2], "wb").write(big)
sys.exit(len(big) < 1000)' "$pcap" "$reply" && break
		sleep 0.1
	done
	kill "$mon"
	wait "$mon" 2>/dev/null || true
}

# as USER CMD...: CMD as USER (and USER's group), no other groups: a client polkit judges.
as() {
	local u=$1
	shift
	setpriv --reuid="$u" --regid="$(id -g "$u")" --clear-groups "$@"
}

# polkit_start BUS DIR SYS_RESULT: polkitd on the private bus of dbus_start BUS, with phcd's action
# and a rule that grants org.phcd1.manage to user nobody at once, and answers user sys with
# SYS_RESULT (YES or NO) only once DIR/gate/open exists (8 s at most): polkit slow to decide.
# Each decision for sys appends "deciding" to DIR/gate/log. The bind mounts exist only in
# polkitd's private mount namespace, gone when it exits; its pid joins BG_PIDS.
polkit_start() {
	local bus=$1 dir=$2 sys_result=$3 polkitd=/usr/lib/polkit-1/polkitd
	[ -x "$polkitd" ] || fail "no $polkitd (apt-get install polkitd)"
	# polkitd's own bus policy (it owns org.freedesktop.PolicyKit1 as user polkitd).
	cp /usr/share/dbus-1/system.d/org.freedesktop.PolicyKit1.conf "$bus/system.d/"
	busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus \
		ReloadConfig
	mkdir -p "$dir/actions" "$dir/rules"
	cp /usr/share/polkit-1/actions/* "$dir/actions/" 2>/dev/null || true
	cp "$SRC/units/org.phcd1.policy" "$dir/actions/"
	mkdir -m 777 "$dir/gate"
	cat >"$dir/rules/50-phcd-test.rules" <<EOF2
polkit.addRule(function(action, subject) {
	if (action.id == "org.phcd1.manage" && subject.user == "nobody") {
		return polkit.Result.YES;
	}
	if (action.id == "org.phcd1.manage" && subject.user == "sys") {
		polkit.spawn(["/bin/sh", "-c", "echo deciding >>$dir/gate/log; " +
			"end=\$((\$(date +%s) + 8)); " +
			"until [ -e $dir/gate/open ] || [ \$(date +%s) -ge \$end ]; do sleep 0.02; done"]);
		return polkit.Result.$sys_result;
	}
});
EOF2
	chmod -R a+rX "$dir/actions" "$dir/rules"
	unshare -m --propagation private sh -c "mount --bind $dir/actions /usr/share/polkit-1/actions &&
		mount --bind $dir/rules /etc/polkit-1/rules.d && exec $polkitd --no-debug" \
		>"$dir/polkit.log" 2>&1 &
	BG_PIDS+=($!)
	wait_bus_name org.freedesktop.PolicyKit1 10
}
