# SPDX-License-Identifier: GPL-2.0-or-later
# Shell helpers for the 802.1AS tests of the whole daemon against ptp4l with gPTP.cfg. Source after
# net-helpers.sh, port-helpers.sh and phcd-helpers.sh; needs a $tmp directory, and $log (the
# test's log prefix: phcd writes $log-phcd) for the messages of wait_as_capable.

# (gptp_cfg, this linuxptp's gPTP.cfg with a threshold veth can meet, is in port-helpers.sh.)

# as_capable IF: phcd's Port.AsCapable of IF on D-Bus ("true"/"false", "" when unknown).
as_capable() {
	busctl --system get-property org.phcd1 "/org/phcd1/port/$1" org.phcd1.Port AsCapable \
		2>/dev/null | awk '{ print $2 }'
}

wait_as_capable() { # IF VALUE SECONDS
	local deadline=$((SECONDS + $3)) v
	until v=$(as_capable "$1") && [ "$v" = "$2" ]; do
		[ "$SECONDS" -lt "$deadline" ] ||
			fail "phcd's $1: expected Port.AsCapable $2 within $3 s, got '$v'; phcd: $(tail -n 15 "$log-phcd")"
		sleep 0.2
	done
}

# ptp4l_as_capable NS IF: 1 when ptp4l's PORT_DATA_SET_NP says asCapable 1.
ptp4l_as_capable() {
	ip netns exec "$1" "$(ptp4l_bin pmc)" -u -b 0 -t 1 -s "$tmp/uds-$2-$$" -i "$tmp/pmc-$2" \
		'GET PORT_DATA_SET_NP' 2>/dev/null | grep -Eq 'asCapable +1'
}

# wait_ptp4l_as_capable NS IF SECONDS WHAT
wait_ptp4l_as_capable() {
	local deadline=$((SECONDS + $3))
	until ptp4l_as_capable "$1" "$2"; do
		[ "$SECONDS" -lt "$deadline" ] || fail "$4: its port to phcd not asCapable within $3 s"
		sleep 0.5
	done
}

# gptp_phcd_start NS CONF: phcd -f CONF in NS without CAP_SYS_TIME (phcd_start of
# phcd-helpers.sh), its status in $log.status, its log in $log-phcd, no management sockets; pid
# in $LAST_PID.
gptp_phcd_start() {
	phcd_start "$1" "$2" "$log-phcd" --status-file "$log.status" --uds "" --uds-ro ""
	LAST_PID=$PHCD_PID
}

# gptp_phcd_slave_offsets IF WHAT: phcd's port IF goes SLAVE, and 10 of its offsets after the servo
# settled (GPTP_PHCD_SAMPLES of them if set) are near zero (median within 5 us; mean path delay
# within 20 us).
gptp_phcd_slave_offsets() {
	local from stats n=${GPTP_PHCD_SAMPLES:-10}
	wait_for "$log-phcd" "$1: .*-> SLAVE" 60
	from=$(line_no "$log-phcd" "$1: .*-> SLAVE")
	# The first 10 offsets after SLAVE (1.25 s at 8 Sync/s) are the servo settling.
	from=$(nth_line "$log-phcd" 'master offset .* s2 ' 10 40 "$from")
	wait_lines "$log-phcd" 'master offset .* s2 ' "$n" 40 "$from"
	stats=$(offset_stats "$log-phcd" "$from" "$n")
	check_stats "$2" "$stats" 5000 20000
}

# gptp_ptp4l_from: the line of ptp4l's ($log-ptp4l) RS_SLAVE its offsets count from: the first,
# or the last once ptp4l faulted on a "rogue peer delay response". ptp4l 3.1.1 drops its
# outstanding Pdelay_Req when it goes UNCALIBRATED (flush_peer_delay), so phcd's Pdelay_Resp to
# it, if in flight at that moment (more likely on a loaded machine), faults ptp4l's port for
# 2^fault_reset_interval s (16 s with gPTP.cfg): phcd answered what was asked.
gptp_ptp4l_from() {
	grep -En ' to (UNCALIBRATED|SLAVE) on RS_SLAVE' "$log-ptp4l" | {
		if grep -q 'rogue peer delay response' "$log-ptp4l"; then tail -n 1; else head -n 1; fi
	} | cut -d: -f1
}

# gptp_ptp4l_slave_offsets CLOCK_ID WHAT: ptp4l ($log-ptp4l) selects CLOCK_ID and its offsets are
# near zero (median within 10 us; mean path delay within 20 us), counted from gptp_ptp4l_from.
# 40 s for 10 offsets, and 24 s more for the fault's 16 s and a new qualification.
gptp_ptp4l_slave_offsets() {
	local from
	wait_for "$log-ptp4l" "selected best master clock $1" 30
	wait_for "$log-ptp4l" 'to (UNCALIBRATED|SLAVE) on RS_SLAVE' 40
	wait_lines "$log-ptp4l" 'master offset' 10 64 @gptp_ptp4l_from
	from=$(gptp_ptp4l_from)
	if grep -q 'rogue peer delay response' "$log-ptp4l"; then
		echo "note: ptp4l faulted on a Pdelay_Resp in flight as it went UNCALIBRATED" \
			"(its own flush, see gptp-helpers.sh): offsets counted from its RS_SLAVE at line $from"
	fi
	# Sync at 8/s over veth: a positive bias of 1-2 us at a ptp4l master as at phcd (see
	# test-gptp.sh); 10 us on the median.
	check_stats "$2" "$(offset_stats "$log-ptp4l" "$from" 10)" 10000 20000
}
