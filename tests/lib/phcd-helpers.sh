# SPDX-License-Identifier: GPL-2.0-or-later
# Shell helpers for the tests that run the full phcd (supervisor and workers): start it in a
# namespace without CAP_SYS_TIME, poll its status file with a deadline, read a port's D-Bus
# Counters, learn a ptp4l grandmaster's portIdentity. Source it after net-helpers.sh and
# ptp-helpers.sh (status_field); needs $BUILD.

# phcd_virtual_conf INSTANCE IF [LINE...]: a phcd.conf with the fast rates of phcd_fast_global
# (and each LINE after them in [global]) and one instance INSTANCE on IF with a virtual clock.
phcd_virtual_conf() {
	local inst=$1 ifn=$2
	shift 2
	phcd_fast_global
	[ $# -eq 0 ] || printf '%s\n' "$@"
	printf '\n[instance %s]\ninterfaces = %s\nclock_backend = virtual\n' "$inst" "$ifn"
}

# phcd_start NS CONF LOG [VAR=VALUE...] [phcd options...]: phcd -f CONF in NS under
# capsh --drop=cap_sys_time (it can never set the clock), its output in LOG; leading VAR=VALUE
# words go into its environment (LD_PRELOAD of the clock shim, for instance). $PHCD if set, else
# the build's. Each word reaches phcd as given (quoted here). The PID is in PHCD_PID and BG_PIDS,
# LOG in PHCD_LOG.
phcd_start() {
	local ns=$1 conf=$2 env=
	PHCD_LOG=$3
	shift 3
	while [ $# -gt 0 ] && [[ "$1" =~ ^[A-Za-z_][A-Za-z0-9_]*= ]]; do
		env+="$(printf %q "$1") "
		shift
	done
	ip netns exec "$ns" capsh --drop=cap_sys_time -- -c \
		"${env}exec $(printf '%q ' "${PHCD:-$BUILD/daemon/phcd}" -f "$conf" "$@")" \
		>"$PHCD_LOG" 2>&1 &
	PHCD_PID=$!
	BG_PIDS+=("$PHCD_PID")
}

# phcd_start_shimmed NS CONF LOG SHIM_LOG [phcd options...]: phcd_start under the clock shim
# ($SHIM if set, else the build's tests/doubles/libphcd-clock-shim.so), which logs every clock
# write into SHIM_LOG (emptied first) and performs none.
phcd_start_shimmed() {
	local ns=$1 conf=$2 log=$3 shim_log=$4
	shift 4
	: >"$shim_log"
	phcd_start "$ns" "$conf" "$log" PHCD_CLOCK_SHIM_LOG="$shim_log" \
		LD_PRELOAD="${SHIM:-$BUILD/tests/doubles/libphcd-clock-shim.so}" \
		ASAN_OPTIONS=verify_asan_link_order=0 "$@"
}

# wait_status KIND NAME KEY VALUE SECONDS [NOT [WHAT]]: poll phcd's status file ($STATUS) until
# KEY of KIND NAME matches VALUE (an extended regex, the whole value) and is not NOT, or fail
# saying what came (WHAT first, when given), with the status file and the end of $PHCD_LOG.
wait_status() {
	local deadline=$((SECONDS + $5)) v
	while :; do
		v=$(status_field "$STATUS" "$1" "$2" "$3")
		[[ "$v" =~ ^($4)$ ]] && [ "$v" != "${6-}" ] && return 0
		if [ "$SECONDS" -ge "$deadline" ]; then
			echo "--- status:" >&2
			cat "$STATUS" >&2 || true
			echo "--- ${PHCD_LOG:-phcd log}:" >&2
			tail -n 30 "${PHCD_LOG:-/dev/null}" >&2 || true
			fail "${7:+$7: }$1 $2: expected $3 '$4'${6:+ (not $6)} within $5 s, got '$v'"
		fi
		sleep 0.05
	done
}

# port_counter PORT NAME: one of the D-Bus Counters of phcd's port PORT (0 when absent).
port_counter() {
	busctl --system get-property org.phcd1 "/org/phcd1/port/$1" org.phcd1.Port Counters \
		--json=short | python3 -c "import json, sys; print(json.load(sys.stdin)['data'].get('$2', 0))"
}

# gm_port_identity NS UDS: the portIdentity of the ptp4l in NS listening on UDS, as tool-forge
# takes it (CLOCKID:PORT, 16 hex digits and the port number), or fail.
gm_port_identity() {
	local pds gm
	pds=$(ip netns exec "$1" pmc -u -b 0 -s "$2" -i "$2.pmc-id" 'GET PORT_DATA_SET')
	gm=$(awk '$1 == "portIdentity" { print $2 }' <<<"$pds")
	[ -n "$gm" ] || fail "pmc gave no portIdentity for the grandmaster: $pds"
	gm=${gm//./}
	echo "${gm%-*}:${gm#*-}"
}

# shim_no_step SHIM_LOG FROM WHEN: the clock shim (tests/doubles/clock-shim.c, which logs every
# clock write and performs none) logged no step (step_ns, clock_settime, settimeofday) after line
# FROM of SHIM_LOG, or fail saying what it logged; WHEN ("after lock") says when in the message.
shim_no_step() {
	if tail -n +$(($2 + 1)) "$1" | grep -E 'step_ns|clock_settime|settimeofday' >"$1.steps"; then
		fail "expected no step $3, the shim logged: $(head -n 3 "$1.steps")"
	fi
}

# shim_steady SHIM_LOG FROM MAX_PPB WHEN: shim_no_step, and frequency writes after line FROM, at
# least one, each within +-MAX_PPB; or fail saying what the shim logged.
shim_steady() {
	local after worst
	shim_no_step "$1" "$2" "$4"
	after=$(tail -n +$(($2 + 1)) "$1")
	worst=$(grep -oE 'freq_ppb=-?[0-9.]+' <<<"$after" | cut -d= -f2 | tr -d - | sort -g | tail -n1)
	[ -n "$worst" ] || fail "expected the system clock's frequency written $4, none was"
	awk -v w="$worst" -v m="$3" 'BEGIN { exit !(w <= m) }' ||
		fail "expected |frequency| <= $3 ppb $4, the shim logged $worst"
	echo "ok: $4 no step and |frequency| <= $worst ppb ($(wc -l <<<"$after") writes)"
}

# host_clock_state: the host's adjtimex frequency and status (adjtimex with modes 0 only reads;
# the kernel-grown maxerror aside), to compare before and after a test: no process touched them.
host_clock_state() {
	busybox adjtimex | awk '$2 == "freq.adjust:" || $1 == "status:" { print $NF, $0 }' |
		awk '{ $1 = ""; print }' | tr -s ' ' | tr '\n' ';'
}
