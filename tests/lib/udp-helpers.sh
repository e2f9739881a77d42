# SPDX-License-Identifier: GPL-2.0-or-later
# Shell helpers for the tests of PTP over UDP (IEEE 1588-2019 Annexes C, D) against ptp4l run with
# linuxptp's own default.cfg. Source after net-helpers.sh, port-helpers.sh, ptp-helpers.sh,
# phcd-helpers.sh and gptp-helpers.sh; needs a $tmp directory and $log (the run's log prefix).

# udp_pair NS_A NS_B IF_A IF_B 4|6: netns_pair, with 192.0.2.1/24 and .2 (TEST-NET-1, on this
# veth only) for UDPv4; for UDPv6 the link-local addresses, once past duplicate address detection
# (a tentative address cannot be sent from).
udp_pair() {
	netns_pair "$1" "$2" "$3" "$4"
	if [ "$5" = 4 ]; then
		ip -n "$1" addr add 192.0.2.1/24 dev "$3" || fail "address on $3"
		ip -n "$2" addr add 192.0.2.2/24 dev "$4" || fail "address on $4"
		return
	fi
	udp_wait_ll6 "$1" "$3"
	udp_wait_ll6 "$2" "$4"
}

udp_wait_ll6() { # NS IF: a link-local IPv6 address past DAD within 10 s
	local deadline=$((SECONDS + 10))
	until ip -n "$1" -6 addr show dev "$2" scope link | grep -q inet6 &&
		! ip -n "$1" -6 addr show dev "$2" tentative | grep -q inet6; do
		[ "$SECONDS" -lt "$deadline" ] ||
			fail "$2 in $1: no IPv6 link-local address past DAD within 10 s: $(ip -n "$1" -6 addr show dev "$2")"
		sleep 0.1
	done
}

# udp_ptp4l_start NS IF LOG CFG [ptp4l options...]: ptp4l -f CFG (the file as it is) that can never
# touch a clock (software timestamps, free running), Announce every second and Sync 8 times a
# second from the command line (as phcd.conf says for phcd), one offset line per Sync, its UDS beside the others; pid in
# $LAST_PID.
udp_ptp4l_start() {
	local ns=$1 ifname=$2 log=$3 cfg=$4
	local PORT_TEST_PTP4L_OPTS=(-f "$cfg" -S -m --free_running 1 --logAnnounceInterval 0
		--logSyncInterval -3 --summary_interval -3)
	shift 4
	ptp4l_start "$ns" "$ifname" "$log" "$@"
}

# udp_version INDEX: the reference linuxptp INDEX of reference_linuxptp (port-helpers.sh) for the
# runs that follow: PTP4L_DIR, VER, UDP_TAG, and CFG its default.cfg as shipped, copied to $tmp
# under a name of the (sub)shell's own: two runs of udp_parallel copying the same version's file
# to one name at once made cp fail ("File exists") in test-udp-hybrid.
udp_version() {
	local dir
	PTP4L_DIR=${REF_DIRS[$1]}
	VER=${REF_VERSIONS[$1]}
	UDP_TAG=$1
	dir=${PTP4L_DIR:+$PTP4L_DIR/configs}
	CFG=$tmp/$VER-$BASHPID-default.cfg
	cp "${dir:-/usr/share/doc/linuxptp/configs}/default.cfg" "$CFG" || fail "no default.cfg of $VER"
}

# udp_phcd_conf CFG IF master|slave [LINE...]: a phcd.conf that reads CFG through ptp4l_config and
# adds only what the test needs: the port, software timestamps on a virtual clock, the rates of
# udp_ptp4l_start, ptp4l's PI gains for software timestamps, and the role by priority1.
udp_phcd_conf() {
	local cfg=$1 ifn=$2 role=$3
	shift 3
	echo '[global]'
	echo 'logging_level = 7'
	echo "ptp4l_config = $cfg"
	echo "interfaces = $ifn"
	echo 'time_stamping = software'
	echo 'clock_backend = virtual'
	echo 'logAnnounceInterval = 0'
	echo 'logSyncInterval = -3'
	echo 'pi_proportional_const = 0.7'
	echo 'pi_integral_const = 0.3'
	if [ "$role" = master ]; then echo 'priority1 = 100'; else echo 'priority1 = 250'; fi
	[ $# -eq 0 ] || printf '%s\n' "$@"
}

# udp_phcd_sockets NS IF: phcd's worker on IF holds UDP sockets on ports 319 and 320 (ss), and IF
# is a member of GROUP (ip maddr); fail otherwise.
udp_phcd_sockets() { # NS IF GROUP
	local ss
	ss=$(ip netns exec "$1" ss -uanp)
	grep -Eq "[:*]319 .*phcd-port" <<<"$ss" && grep -Eq "[:*]320 .*phcd-port" <<<"$ss" ||
		fail "phcd-port on $2: expected UDP sockets on ports 319 and 320, ss says: $ss"
	ip -n "$1" maddr show dev "$2" | grep -Eqi "inet6? +$3( |\$)" ||
		fail "$2: expected a member of $3, ip maddr says: $(ip -n "$1" maddr show dev "$2")"
}

# udp_run ROLE FAMILY CFG WHAT [phcd.conf LINE...] (names made unique by $UDP_TAG, one digit,
# where several run at once; more ptp4l options in $UDP_PTP4L_OPTS): ptp4l in NS A with CFG (from $PTP4L_DIR) on
# one end of a veth, phcd in NS B with the same CFG through ptp4l_config on the other; phcd is
# master or slave (ROLE) and the other side's offsets are judged as the L2 tests judge them
# (gptp-helpers.sh: median within 5 us as slave, 10 us at ptp4l, path delay within 20 us).
udp_run() {
	local role=$1 fam=$2 cfg=$3 what=$4 v A B ia ib ptp4l_pid phcd_pid group flag
	shift 4
	v=$fam${role:0:1}${UDP_TAG:-}$((RANDOM % 100))
	A=pua$$$v B=pub$$$v ia=pu${v}a ib=pu${v}b log=$tmp/$v
	flag=-$fam
	group=224.0.1.129
	[ "$fam" = 6 ] && group=ff0e::181
	udp_pair "$A" "$B" "$ia" "$ib" "$fam"
	udp_phcd_conf "$cfg" "$ib" "$role" "$@" >"$log.phcd.conf"
	"$BUILD/daemon/phcd" --check-config -f "$log.phcd.conf" >"$log.check" 2>&1 ||
		fail "phcd --check-config with $cfg refused it: $(grep -m3 "error" "$log.check")"
	! grep -q "not honoured (error" "$log.check" ||
		fail "phcd --check-config: a key of $cfg refused: $(grep 'not honoured (error' "$log.check")"
	if [ "$role" = master ]; then
		udp_ptp4l_start "$A" "$ia" "$log-ptp4l" "$cfg" "$flag" ${UDP_PTP4L_OPTS:-}
	else
		udp_ptp4l_start "$A" "$ia" "$log-ptp4l" "$cfg" "$flag" ${UDP_PTP4L_OPTS:-} --priority1 100
	fi
	ptp4l_pid=$LAST_PID
	gptp_phcd_start "$B" "$log.phcd.conf"
	phcd_pid=$LAST_PID
	udp_offsets "$role" "$ib" "phcd (ptp4l_config, UDPv$fam) as slave of ptp4l: $what" \
		"ptp4l as slave of phcd (ptp4l_config, UDPv$fam): $what"
	udp_phcd_sockets "$B" "$ib" "$group"
	if [[ " ${UDP_PTP4L_OPTS:-} " == *" -P "* ]]; then
		[ "$fam" = 4 ] && group=224.0.0.107 || group=ff02::6b
		udp_phcd_sockets "$B" "$ib" "$group"
	fi
	UDP_LAST_NS=$B UDP_LAST_IF=$ib UDP_LAST_PEER_NS=$A UDP_LAST_PEER_IF=$ia
	UDP_LAST_PIDS=("$phcd_pid" "$ptp4l_pid")
	UDP_LAST_FAM=$fam
}

# udp_offsets ROLE IF SLAVE_WHAT MASTER_WHAT: phcd (on IF, $log-phcd) as ROLE: as slave its
# offsets (SLAVE_WHAT), as master those of ptp4l ($log-ptp4l) once it selects phcd (MASTER_WHAT),
# judged as the L2 tests judge them (gptp-helpers.sh).
udp_offsets() {
	local id
	if [ "$1" = slave ]; then
		gptp_phcd_slave_offsets "$2" "$3"
	else
		wait_for "$log.status" "^instance default .* clock [0-9a-f.]+ " 10
		id=$(status_field "$log.status" instance default clock)
		gptp_ptp4l_slave_offsets "$id" "$4"
	fi
}

# udp_stop: end the last udp_run's phcd and ptp4l.
udp_stop() {
	kill "${UDP_LAST_PIDS[@]}" 2>/dev/null || true
	wait "${UDP_LAST_PIDS[@]}" 2>/dev/null || true
}

# udp_pmc COMMAND...: the last udp_run's peer namespace asks phcd over UDP with pmc -4 or -6 (the
# version's pmc, boundary hops 0); its answers on stdout.
udp_pmc() {
	ip netns exec "$UDP_LAST_PEER_NS" "$(ptp4l_bin pmc)" "-$UDP_LAST_FAM" -i "$UDP_LAST_PEER_IF" \
		-b 0 "$@"
}

# udp_parallel FUNCTION ARG...: FUNCTION ARG in a subshell of its own for each ARG, all at once
# (so that a test of several runs stays within a minute); their output in order, and fail if one
# failed. FUNCTION sets its own EXIT trap (net_cleanup): a subshell does not inherit it.
udp_parallel() {
	local fn=$1 pids=() i rc=0 args
	shift
	args=("$@")
	for i in "${!args[@]}"; do
		"$fn" "${args[$i]}" >"$tmp/parallel-$i" 2>&1 &
		pids+=($!)
	done
	for i in "${!pids[@]}"; do
		wait "${pids[$i]}" || rc=1
		cat "$tmp/parallel-$i"
	done
	[ "$rc" = 0 ] || fail "a run failed (above)"
}
