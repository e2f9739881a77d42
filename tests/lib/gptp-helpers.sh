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
# settled are near zero (median within 5 us; mean path delay within 20 us).
gptp_phcd_slave_offsets() {
	local from stats
	wait_for "$log-phcd" "$1: .*-> SLAVE" 60
	from=$(line_no "$log-phcd" "$1: .*-> SLAVE")
	# The first 10 offsets after SLAVE (1.25 s at 8 Sync/s) are the servo settling.
	from=$(nth_line "$log-phcd" 'master offset .* s2 ' 10 40 "$from")
	wait_lines "$log-phcd" 'master offset .* s2 ' 10 40 "$from"
	stats=$(offset_stats "$log-phcd" "$from" 10)
	check_stats "$2" "$stats" 5000 20000
}

# gptp_ptp4l_slave_offsets CLOCK_ID WHAT: ptp4l ($log-ptp4l) selects CLOCK_ID and its offsets are
# near zero (median within 10 us; mean path delay within 20 us).
gptp_ptp4l_slave_offsets() {
	local stats
	wait_for "$log-ptp4l" "selected best master clock $1" 30
	stats=$(ptp4l_slave_stats "$log-ptp4l" 10 40)
	# Sync at 8/s over veth: a positive bias of 1-2 us at a ptp4l master as at phcd (see
	# test-gptp.sh); 10 us on the median.
	check_stats "$2" "$stats" 10000 20000
}
