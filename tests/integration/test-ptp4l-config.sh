#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# linuxptp's own configuration files in phcd (ptp4l_config, phcd.conf(5)):
#   - `phcd --check-config --ptp4l-config FILE` on default.cfg, gPTP.cfg, G.8275.1.cfg,
#     automotive-master.cfg and automotive-slave.cfg of Debian's linuxptp 3.1.1 and of 4.2: every
#     key line of each file is listed as FILE:LINE with a verdict (honoured, or not honoured with
#     a reason), and some verdicts by name: gPTP.cfg's transportSpecific 0x1 honoured,
#     default.cfg's network_transport UDPv4 and its UDP keys honoured (the file loads: phcd runs it
#     over UDP, test-udp-default-cfg.sh), 4.2's clientOnly/serverOnly as slaveOnly/masterOnly;
#   - UNICAST-SLAVE.cfg, UNICAST-MASTER.cfg, G.8265.1.cfg and G.8275.2.cfg (both versions): every
#     line listed with a verdict, tables included; they load, UNICAST-SLAVE.cfg's [eth1] over L2
#     with its L2 table too (test-l2-unicast.sh runs it);
#   - phcd started with 4.2's default.cfg as it is logs each ignored key with file:line;
#   - phcd (supervisor and worker, software timestamps, a virtual clock) with `ptp4l_config =
#     gPTP.cfg` and nothing of 802.1AS in phcd.conf but a neighborPropDelayThresh veth can meet
#     (phcd.conf overrides the file, which --check-config says): D-Bus shows the file's keys
#     (Priority2 248, DelayMechanism P2P, LogSyncInterval -3, SyncReceiptTimeout 3, the file in
#     ConfigFiles), logs no key as not honoured, both sides are asCapable (802.1AS rules, majorSdoId 1), and it runs the
#     profile with ptp4l gPTP.cfg: as slave of ptp4l 3.1.1 (offsets near zero), as grandmaster
#     of ptp4l 4.2 (ptp4l's offsets near zero, phcd's Follow_Up carrying the 802.1AS TLV).
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin dbus ptp port phcd gptp

PHCD=$BUILD/daemon/phcd
PCAP=$SRC/tests/integration/ptp-pcap.py

# check_file FILE EXPECTED_RC: every key line of FILE has a verdict in phcd's report.
check_file() {
	local f=$1 out=$tmp/check.out rc=0 n lines=0
	"$PHCD" --check-config --ptp4l-config "$f" >"$out" 2>&1 || rc=$?
	[ "$rc" = "$2" ] || fail "phcd --check-config --ptp4l-config $f: expected exit $2, got $rc: $(tail -n 5 "$out")"
	# Key lines: not blank, not only a comment, not a [section].
	for n in $(awk '{ sub(/#.*/, ""); if ($0 ~ /[^ \t]/ && $1 !~ /^\[/) print NR }' "$f"); do
		grep -Eq "^$f:$n: [^ ]+ .*: (honoured \(|not honoured \((warning|error)[^)]*\): .)" "$out" ||
			fail "$f:$n ($(sed -n "${n}p" "$f")): no verdict in phcd's report: $(head -n 5 "$out")"
		lines=$((lines + 1))
	done
	[ "$lines" -gt 0 ] || fail "$f: no key lines found"
	echo "ok: $f: all $lines key lines listed with a verdict (exit $rc)"
}

# verdict FILE REGEX: phcd's report on FILE (the last check_file) has a line matching.
verdict() {
	grep -Eq "^$1:[0-9]+: $2" "$tmp/check.out" ||
		fail "$1: expected a verdict matching '$2', got: $(grep -E "^$1:" "$tmp/check.out" | head -n 40)"
}

at_line() { # FILE REGEX: the line number of REGEX in FILE
	grep -En -m1 -- "$2" "$1" | cut -d: -f1
}

# --ptp4l-config checks only: phcd runs from a phcd.conf (ptp4l_config), never from a bare file.
rc=0
"$PHCD" --ptp4l-config /usr/share/doc/linuxptp/configs/gPTP.cfg >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "phcd --ptp4l-config without --check-config: expected exit 2 (usage), got $rc"

reference_linuxptp
for i in "${!REF_VERSIONS[@]}"; do
	dir=${REF_DIRS[$i]:+${REF_DIRS[$i]}/configs}
	dir=${dir:-/usr/share/doc/linuxptp/configs}
	for c in default.cfg gPTP.cfg G.8275.1.cfg automotive-master.cfg automotive-slave.cfg; do
		[ -f "$dir/$c" ] || fail "linuxptp ${REF_VERSIONS[$i]}: no $dir/$c"
		cp "$dir/$c" "$tmp/${REF_VERSIONS[$i]}-$c"
	done
	d=$tmp/${REF_VERSIONS[$i]}
	check_file "$d-default.cfg" 0
	n=$(at_line "$d-default.cfg" '^network_transport[[:space:]]+UDPv4')
	grep -q "^$d-default.cfg:$n: network_transport UDPv4: honoured (as phcd key network_transport = UDPv4)" \
		"$tmp/check.out" || fail "default.cfg:$n: expected network_transport UDPv4 honoured"
	! grep -q "not honoured (error" "$tmp/check.out" ||
		fail "default.cfg: expected no key refused, got $(grep -m1 'not honoured (error' "$tmp/check.out")"
	verdict "$d-default.cfg" "dscp_event 0: honoured \(as phcd key dscp_event = 0\)"
	verdict "$d-default.cfg" "udp_ttl 1: honoured \(as phcd key udp_ttl = 1\)"
	verdict "$d-default.cfg" "udp6_scope 0x0E: honoured \(as phcd key udp6_scope = 0x0E\)"
	verdict "$d-default.cfg" "clock_servo pi: honoured \(as phcd key clock_servo = pi\)"
	if [ "${REF_VERSIONS[$i]}" = 4.2 ]; then
		verdict "$d-default.cfg" "clientOnly 0: honoured \(as phcd key slaveOnly = 0\)"
		verdict "$d-default.cfg" "tx_timestamp_timeout 10: honoured \(as phcd key tx_timestamp_timeout = 10\)"
	fi
	echo "ok: linuxptp ${REF_VERSIONS[$i]} default.cfg loads, network_transport UDPv4 honoured at line $n"
	check_file "$d-gPTP.cfg" 0
	verdict "$d-gPTP.cfg" "transportSpecific 0x1: honoured \(as phcd key transportSpecific = 0x1\)"
	verdict "$d-gPTP.cfg" "follow_up_info 1: honoured \(as phcd key follow_up_info = 1\)"
	check_file "$d-G.8275.1.cfg" 0
	verdict "$d-G.8275.1.cfg" "dataset_comparison G.8275.x: honoured"
	if [ "${REF_VERSIONS[$i]}" = 4.2 ]; then
		verdict "$d-G.8275.1.cfg" "domainNumber 24: honoured"
		grep -q "instance default: domainNumber 24," "$tmp/check.out" ||
			fail "G.8275.1.cfg of 4.2: expected the instance in domain 24: $(tail -n 2 "$tmp/check.out")"
	fi
	check_file "$d-automotive-master.cfg" 0
	verdict "$d-automotive-master.cfg" "BMCA noop: honoured \(as phcd key BMCA = noop\)"
	verdict "$d-automotive-master.cfg" "(masterOnly|serverOnly) 1: honoured \(as phcd key masterOnly = 1\)"
	check_file "$d-automotive-slave.cfg" 0
	verdict "$d-automotive-slave.cfg" "(slaveOnly|clientOnly) 1: honoured \(as phcd key slaveOnly = 1\)"
	# The unicast files: every line read and checked (each [unicast_master_table] line has its
	# verdict). They load (phcd runs unicast negotiation over UDP and L2 with E2E,
	# test-udp-unicast.sh, test-l2-unicast.sh), UNICAST-SLAVE.cfg's second port, [eth1] over L2,
	# included. No error.
	for c in UNICAST-SLAVE.cfg UNICAST-MASTER.cfg G.8265.1.cfg G.8275.2.cfg; do
		[ -f "$dir/$c" ] || fail "linuxptp ${REF_VERSIONS[$i]}: no $dir/$c"
		cp "$dir/$c" "$d-$c"
		check_file "$d-$c" 0
		other=$(grep -Ev ": honoured |: not honoured \((warning|error)|: no network_transport: |: hybrid_e2e 1: not honoured: " \
			"$tmp/check.out" | grep -v "^$d-$c: \|^  instance " || true)
		[ -z "$other" ] || fail "$c: expected no error, got: $other"
		if grep -q "not honoured (error" "$tmp/check.out" &&
			! grep "not honoured (error" "$tmp/check.out" | grep -q ": hybrid_e2e 1: "; then
			fail "$c: a key refused other than hybrid_e2e: $(grep -m1 'not honoured (error' "$tmp/check.out")"
		fi
		if [ "$c" = UNICAST-SLAVE.cfg ]; then
			verdict "$d-$c" "UDPv4 192.168.3.33: honoured \(a master of unicast master table 1, entry 3\)"
			verdict "$d-$c" "peer_address 192.168.4.44: honoured \(the P2P peer of table 3\)"
			verdict "$d-$c" "L2 00:11:22:33:44:55: honoured \(a master of unicast master table 2, entry 1\)"
			verdict "$d-$c" "network_transport L2: honoured \(as phcd key network_transport = L2\)"
			verdict "$d-$c" "unicast_master_table 2: honoured \(as phcd key unicast_master_table = 2\)"
		fi
	done
	echo "ok: linuxptp ${REF_VERSIONS[$i]} UNICAST-SLAVE, UNICAST-MASTER, G.8265.1, G.8275.2: read in full, load (UNICAST-SLAVE.cfg's L2 port included)"
done

dbus_start "$tmp/bus"

# dbus_prop OBJECT INTERFACE PROPERTY: the value as busctl prints it (without the type).
dbus_prop() {
	busctl --system get-property org.phcd1 "$1" "org.phcd1.$2" "$3" | cut -d' ' -f2-
}

expect_prop() { # OBJECT INTERFACE PROPERTY VALUE
	local v
	v=$(dbus_prop "$1" "$2" "$3")
	[ "$v" = "$4" ] || fail "D-Bus $2.$3 of $1: expected $4 (from gPTP.cfg), got $v"
}

run() { # VERSION ROLE(slave|master)
	local v=${1//./}${2:0:1} A B ia ib from stats ptp4l_pid phcd_pid id mac
	A=p4ca$$$v B=p4cb$$$v ia=pc${v}a ib=pc${v}b log=$tmp/$v
	gptp_cfg "$PTP4L_DIR" >"$log.cfg"
	# phcd's own gPTP.cfg as it is: phcd.conf raises its neighborPropDelayThresh.
	{
		echo '[global]'
		echo 'logging_level = 7'
		echo "[instance gp]"
		echo "ptp4l_config = $tmp/$1-gPTP.cfg"
		echo "interfaces = $ib"
		echo 'time_stamping = software'
		echo 'clock_backend = virtual'
		echo 'neighborPropDelayThresh = 100000'
		echo 'pi_proportional_const = 0.7'
		echo 'pi_integral_const = 0.3'
		if [ "$2" = master ]; then echo 'priority1 = 100'; else echo 'priority1 = 250'; fi
	} >"$log.phcd.conf"
	"$PHCD" --check-config -f "$log.phcd.conf" >"$log.check" 2>&1 ||
		fail "phcd --check-config: $(cat "$log.check")"
	grep -Eq "gPTP.cfg:[0-9]+: phcd key neighborPropDelayThresh: overridden by $log.phcd.conf:[0-9]+" \
		"$log.check" || fail "--check-config: expected gPTP.cfg's neighborPropDelayThresh overridden by phcd.conf: $(cat "$log.check")"
	netns_pair "$A" "$B" "$ia" "$ib"
	ptp4l_start "$A" "$ia" "$log-ptp4l" -f "$log.cfg" --summary_interval -3
	ptp4l_pid=$LAST_PID
	gptp_phcd_start "$B" "$log.phcd.conf"
	phcd_pid=$LAST_PID
	wait_bus_name org.phcd1 10
	expect_prop /org/phcd1/instance/gp Instance Priority2 248
	expect_prop /org/phcd1/port/"$ib" Port DelayMechanism '"P2P"'
	expect_prop /org/phcd1/port/"$ib" Port LogSyncInterval -3
	expect_prop /org/phcd1/port/"$ib" Port SyncReceiptTimeout 3
	dbus_prop /org/phcd1 Manager ConfigFiles | grep -q "\"$tmp/$1-gPTP.cfg\"" ||
		fail "D-Bus Manager.ConfigFiles: expected $tmp/$1-gPTP.cfg in $(dbus_prop /org/phcd1 Manager ConfigFiles)"
	wait_as_capable "$ib" true 30
	wait_ptp4l_as_capable "$A" "$ia" 30 "ptp4l $1"
	! grep -q "not honoured" "$log-phcd" ||
		fail "phcd from gPTP.cfg: expected every key honoured, got $(grep -m1 'not honoured' "$log-phcd")"
	echo "ok: phcd from gPTP.cfg ($1's): D-Bus shows its keys, both sides asCapable"
	if [ "$2" = slave ]; then
		gptp_phcd_slave_offsets "$ib" "phcd (ptp4l_config gPTP.cfg) as slave of ptp4l $1"
	else
		id=$(status_field "$log.status" instance gp clock)
		gptp_ptp4l_slave_offsets "$id" "ptp4l $1 (gPTP.cfg) as slave of phcd (ptp4l_config gPTP.cfg)"
		capture_for "$A" "$ia" 3 "$log.pcap"
		"$PCAP" "$log.pcap" >"$log.frames"
		mac=$(ip -n "$B" -j link show "$ib" | jq -r '.[0].address')
		grep -Eq "^$mac FOLLOW_UP .* sdo 1 csro 0$" "$log.frames" ||
			fail "phcd's Follow_Up: no Follow_Up information TLV (majorSdoId 1) captured"
		echo "ok: phcd's Follow_Up carries majorSdoId 1 and the 802.1AS TLV"
	fi
	kill "$phcd_pid" "$ptp4l_pid" 2>/dev/null || true
	wait "$phcd_pid" "$ptp4l_pid" 2>/dev/null || true
}

# The daemon logs each ignored key of its linuxptp file, with file:line, when it starts: 4.2's
# default.cfg as it is, in a namespace without ports.
log=$tmp/warn
printf '[global]\nptp4l_config = %s\n' "$tmp/4.2-default.cfg" >"$log.phcd.conf"
netns_add "p4cw$$"
gptp_phcd_start "p4cw$$" "$log.phcd.conf"
n=$(at_line "$tmp/4.2-default.cfg" '^freq_est_interval')
wait_for "$log-phcd" "$tmp/4.2-default.cfg:$n: freq_est_interval 1: not honoured \(warning, the key is ignored\): " 10
grep -q "4.2-default.cfg:[0-9]*: .*honoured (as" "$log-phcd" &&
	fail "phcd logged an honoured key as a warning: $(grep -m1 'honoured (as' "$log-phcd")"
echo "ok: phcd logs default.cfg's ignored keys at start ($(grep -c 'not honoured (warning' "$log-phcd") lines, freq_est_interval at line $n)"
kill "$LAST_PID"
wait "$LAST_PID" 2>/dev/null || true

# Short: one role against each version.
PTP4L_DIR=${REF_DIRS[0]}
run "${REF_VERSIONS[0]}" slave
PTP4L_DIR=${REF_DIRS[1]}
run "${REF_VERSIONS[1]}" master
