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
