# SPDX-License-Identifier: GPL-2.0-or-later
# Shell helpers for the phcd-port tests: start ptp4l and phcd-port without CAP_SYS_TIME, read
# their "master offset" lines. Source after net-helpers.sh; needs $BUILD and a $tmp directory.

# Announce every second (ptp4l's default is 2 s) so the tests settle sooner; both sides agree.
PORT_TEST_PTP4L_OPTS=(-2 -S -m --free_running 1 --logAnnounceInterval 0 --announceReceiptTimeout 3)

# The reference ptp4l and pmc: Debian's (3.1.1) unless PTP4L_DIR names another build's directory
# (reference_linuxptp below sets it for linuxptp 4.2).
PTP4L_DIR=${PTP4L_DIR:-}
ptp4l_bin() { echo "${PTP4L_DIR:+$PTP4L_DIR/}$1"; }

# reference_linuxptp: set REF_VERSIONS and REF_DIRS to the reference linuxptp builds the tests
# run against: Debian's 3.1.1 (dir "": from PATH) and 4.2 built from trixie's orig tarball
# (tests/lib/linuxptp-4.2.sh, cached in $PHCD_LINUXPTP_CACHE or the build dir). A 4.2 that cannot
# be built fails the test, loudly: it never shrinks to a 3.1.1-only run.
reference_linuxptp() {
	local d
	. "$SRC/tests/lib/linuxptp-4.2.sh"
	d=$(linuxptp42_dir "${PHCD_LINUXPTP_CACHE:-$BUILD/linuxptp-cache}") ||
		fail "linuxptp 4.2 could not be built (see above); the test needs it"
	REF_VERSIONS=("$(ptp4l -v)" "$("$d/ptp4l" -v)")
	REF_DIRS=("" "$d")
}

# gptp_cfg DIR: the gPTP.cfg the linuxptp build in DIR ships (Debian's when DIR is empty), with
# a neighborPropDelayThresh that veth's software path delay (1-2 us) can meet.
gptp_cfg() {
	local cfg=${1:+$1/configs/gPTP.cfg}
	cfg=${cfg:-/usr/share/doc/linuxptp/configs/gPTP.cfg}
	[ -f "$cfg" ] || fail "no gPTP.cfg at $cfg"
	grep -q '^neighborPropDelayThresh' "$cfg" || fail "$cfg has no neighborPropDelayThresh"
	sed 's/^neighborPropDelayThresh.*/neighborPropDelayThresh\t100000/' "$cfg"
}

# ptp4l_start NS IF LOG [ptp4l options...]: ptp4l that can never touch a clock; pid in $LAST_PID.
ptp4l_start() {
	local ns=$1 ifname=$2 log=$3
	shift 3
	ip netns exec "$ns" capsh --drop=cap_sys_time -- -c \
		"exec $(ptp4l_bin ptp4l) -i $ifname ${PORT_TEST_PTP4L_OPTS[*]} --uds_address $tmp/uds-$ifname-$$ $*" \
		>"$log" 2>&1 &
	LAST_PID=$!
	BG_PIDS+=("$LAST_PID")
}

# phcd_port_conf FILE: the announce timing above, for phcd-port -f.
phcd_port_conf() {
	printf '[global]\nlogAnnounceInterval = 0\nannounceReceiptTimeout = 3\n' >"$1"
}

# phcd_port_start NS IF LOG [phcd-port options...]: phcd-port -m without CAP_SYS_TIME.
phcd_port_start() {
	local ns=$1 ifname=$2 log=$3
	shift 3
	[ -f "$tmp/phcd-port.conf" ] || phcd_port_conf "$tmp/phcd-port.conf"
	ip netns exec "$ns" capsh --drop=cap_sys_time -- -c \
		"exec $BUILD/worker/phcd-port -i $ifname -m -f $tmp/phcd-port.conf $*" \
		>"$log" 2>&1 &
	LAST_PID=$!
	BG_PIDS+=("$LAST_PID")
}

# line_no FILE REGEX: the number of the first line matching (0 if none).
line_no() {
	local n
	n=$(grep -En -m1 -- "$2" "$1" | cut -d: -f1)
	echo "${n:-0}"
}

# nth_line FILE REGEX K SECONDS [FROM]: the line number of the K-th line after line FROM that
# matches REGEX, once there (SECONDS at most, or fail). Judging a servo from there leaves out its
# settling: the first samples after a step say how it converges, not how well it holds.
nth_line() {
	wait_lines "$1" "$2" "$3" "$4" "${5:-0}"
	echo $((${5:-0} + $(tail -n +$((${5:-0} + 1)) "$1" | grep -En -m "$3" -- "$2" | tail -n 1 | cut -d: -f1)))
}

# wait_lines FILE REGEX COUNT SECONDS [FROM]: wait for COUNT lines after line FROM to match; FROM
# "@FUNC": the line FUNC prints, asked again at each poll (the start may move while waiting).
wait_lines() {
	local file=$1 re=$2 count=$3 secs=$4 from_arg=${5:-0} from have
	local deadline=$((SECONDS + secs))
	while :; do
		from=$from_arg
		if [ "${from_arg#@}" != "$from_arg" ]; then
			from=$(${from_arg#@})
		fi
		have=$(tail -n +$((from + 1)) "$file" | grep -Ec -- "$re" || true)
		[ "$have" -ge "$count" ] && return 0
		if [ "$SECONDS" -ge "$deadline" ]; then
			echo "--- $file:" >&2
			tail -n 20 "$file" >&2
			fail "expected $count lines matching '$re' in $file after line $from within ${secs}s, got $have"
		fi
		sleep 0.1
	done
}

# offset_stats FILE FROM COUNT: "mean_offset rms_offset mean_delay n median_offset" over the first
# COUNT "master offset" lines after line FROM (ptp4l and phcd-port print the same format).
offset_stats() {
	tail -n +$(($2 + 1)) "$1" | grep -E 'master offset +-?[0-9]+ s[0-9]' | head -n "$3" |
		awk '{ for (i = 1; i < NF; i++) {
				if ($i == "offset") o = $(i + 1)
				if ($i == "delay") d = $(i + 1)
			}
			v[n++] = o + 0; so += o; so2 += o * o; sd += d }
		END { if (!n) { print "0 0 0 0 0"; exit }
			for (i = 1; i < n; i++)
				for (j = i; j > 0 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
			m = n % 2 ? v[(n - 1) / 2] : (v[n / 2 - 1] + v[n / 2]) / 2
			printf "%.0f %.0f %.0f %d %.0f", so / n, sqrt(so2 / n), sd / n, n, m }'
	# where they came from, for check_stats to show when they fail
	echo " $1 $2"
}

# ptp4l_slave_stats LOG N SECONDS: once the ptp4l logging to LOG goes UNCALIBRATED or SLAVE on
# RS_SLAVE (a free-running ptp4l never claims SLAVE), the offset_stats of its next N "master
# offset" lines; each wait SECONDS at most, or fail.
ptp4l_slave_stats() {
	local from
	wait_for "$1" 'to (UNCALIBRATED|SLAVE) on RS_SLAVE' "$3"
	from=$(line_no "$1" 'on RS_SLAVE')
	wait_lines "$1" 'master offset' "$2" "$3" "$from"
	offset_stats "$1" "$from" "$2"
}

# port_slave_stats LOG N SECONDS: once the phcd-port logging to LOG goes from UNCALIBRATED to
# SLAVE (60 s at most), the offset_stats of N locked (s2) samples after PORT_SETTLE more
# (SECONDS at most each). The settling is left out: on a loaded host (two tests at a time in CI)
# a preemption spike among the first samples after the step can move the young frequency
# estimate by ppm, and the offsets take some seconds to come back (seen twice in CI with ptp4l
# 4.2 as master: medians of 15 and 20 us over the first 5-15 samples; docs/performance.md).
PORT_SETTLE=8
port_slave_stats() {
	local from
	wait_for "$1" 'UNCALIBRATED to SLAVE on MASTER_CLOCK_SELECTED' 60
	from=$(line_no "$1" 'UNCALIBRATED to SLAVE')
	from=$(nth_line "$1" 'master offset .* s2 ' "$PORT_SETTLE" "$3" "$from")
	wait_lines "$1" 'master offset .* s2 ' "$2" "$3" "$from"
	offset_stats "$1" "$from" "$2"
}

# stats_log LOG FROM N: on stderr, what led to a failing window of N samples after line FROM of
# LOG: its state changes and offsets from the start (CI keeps no log: this is all a failure shows).
stats_log() {
	[ -f "$1" ] || return 0
	echo "--- $1, its states and offsets up to the window's end (it starts after line $2):" >&2
	grep -nE ' to [A-Z_]+ on |master offset' "$1" | awk -F: -v to="$2" -v n="$3" \
		'$1 > to && /master offset/ { if (++k > n) exit } { print }' | tail -n 60 >&2
}

# check_stats LABEL "mean rms delay n median [log from]" MAX_ABS_MEDIAN MAX_DELAY: fail unless
# plausible for veth (showing the log, stats_log, when offset_stats named it). The bias is judged on the median offset: software timestamps on a loaded machine see a
# preemption spike of tens of us now and then, at either end, with ptp4l as master as much as with
# phcd (tests/integration/test-port-master-of-ptp4l.sh's history); one spike in eight samples
# moves the mean by several us but the median by little.
check_stats() {
	local label=$1 mean rms delay n median log from
	read -r mean rms delay n median log from <<<"$2"
	[ "$n" -gt 0 ] || fail "$label: no offset samples"
	if [ "${median#-}" -gt "$3" ]; then
		stats_log "$log" "$from" "$n"
		fail "$label: |median offset| ${median#-} ns (mean $mean, rms $rms over $n), expected <= $3 ns"
	fi
	if ! [ "$delay" -gt 0 ] || ! [ "$delay" -le "$4" ]; then
		stats_log "$log" "$from" "$n"
		fail "$label: mean path delay $delay ns, expected in (0, $4] ns"
	fi
	echo "ok: $label: $n samples, median offset $median ns, mean $mean ns, rms $rms ns, mean path delay $delay ns"
}

# phcd_port_id LOG: the clock identity phcd-port printed at start ("port ID-1 on IF").
phcd_port_id() {
	wait_for "$1" '^phcd-port\[[0-9.]+\]: port [0-9a-f.]+-[0-9]+ on ' 5
	sed -nE 's/^phcd-port\[[0-9.]+\]: port ([0-9a-f.]+)-[0-9]+ on .*/\1/p' "$1" | head -n1
}
