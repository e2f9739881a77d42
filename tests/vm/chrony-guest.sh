# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by tests/vm/hw-guest.sh in the closed-loop tier, after A, B and C: chronyd (Debian's,
# packed into the initramfs by tests/vm/hw.sh) steering the guest's CLOCK_REALTIME from phcd,
# the two ways docs/phcd.conf.5.md ("phcd with chrony") documents. In the guest chronyd runs
# without -x: the guest's clocks are its own. One ptp4l -H grandmaster on eth1 (PHC 1, +50 ppm
# since the start of hw-guest.sh), phcd a slave on eth0:
#  S: phcd alone with software timestamps (system_clock_instance): D's baseline, as A is E's;
#  D: phcd with software timestamps and clock_servo refclock_sock, chronyd's refclock SOCK;
#  E: phcd with hardware timestamps steering PHC 0 (clock_backend phc, no system clock of its
#     own), chronyd's refclock PHC /dev/ptp0 (tai, leap seconds from right/UTC).
# D and E: chronyc sources must show "#* PHCD" (S: phcd's system clock LOCKED); then, after
# CHRONY_SETTLE_S, the guest's CLOCK_REALTIME + 37 s (the UTC offset ptp4l announces) is read
# against the grandmaster's PHC 1 over WINDOW_S, as A reads it while phcd steers the clock
# alone. The host judges (tests/vm/hw.sh).

# chronyd_start NAME CONFIG-LINE...: chronyd in the foreground (-d), as root, steering the guest's
# clock; its command socket /run/chrony-NAME/chronyd.sock, nothing on the network.
chronyd_start() {
	local name=$1 dir=/run/chrony-$1
	shift
	mkdir -p $dir
	chmod 700 $dir
	{
		printf '%s\n' "$@"
		# Without A before (PHCD_VM_ONLY), the guest's clock is 37 s off: step then.
		printf 'makestep 0.1 3\npidfile %s/pid\nbindcmdaddress %s/chronyd.sock\n' $dir $dir
		printf 'cmdport 0\nport 0\ndriftfile %s/drift\n' $dir
	} >/chrony-$name.conf
	$B/chronyd -d -u root -f /chrony-$name.conf >/tmp/chronyd-$name.log 2>&1 &
	echo $! >/tmp/chronyd.pid
}
since() { awk -v a="$(up)" -v b="$1" 'BEGIN { printf "%.1f", a - b }'; } # seconds since START
chronyc_n() { # NAME ARGS...
	local name=$1
	shift
	$B/chronyc -n -h /run/chrony-$name/chronyd.sock "$@" 2>&1
}
# chrony_selected NAME SECONDS: chronyc sources shows "#* PHCD" within SECONDS.
chrony_selected() {
	local end=$(($(cut -d. -f1 /proc/uptime) + $2))
	while ! chronyc_n $1 sources | grep -q '^#\* PHCD '; do
		[ "$(cut -d. -f1 /proc/uptime)" -lt $end ] || return 1
		sleep 0.5
	done
}
# chrony_phase X NAME START: selected (the time since START), settle, read CLOCK_REALTIME against PHC 1 (and, with hardware
# timestamps, phcd's PHC 0 against PHC 1 beside it), chronyd's view, phcd's refclock state.
chrony_phase() {
	local x=$1 name=$2 start=$3 tp=
	if chrony_selected $name $CHRONY_SELECT_S; then
		echo "VMTEST-$x-SELECTED $(since $start)"
		say "$x: PHCD selected by chronyd at $(up)s; settling ${CHRONY_SETTLE_S}s, then ${WINDOW_S}s read"
		sleep $CHRONY_SETTLE_S
		[ $x = E ] && { $B/tool-vm-igb track /dev/ptp0 /dev/ptp1 $WINDOW_S >/tmp/phctrack-$x & tp=$!; }
		echo "VMTEST-$x-TRACK $($B/tool-vm-igb track CLOCK_REALTIME /dev/ptp1 $WINDOW_S 37)"
		[ -z "$tp" ] || { wait $tp; echo "VMTEST-$x-PHCTRACK $(cat /tmp/phctrack-$x)"; }
	fi
	echo "VMTEST-$x-SOURCES $(chronyc_n $name sources | grep ' PHCD ')"
	chronyc_n $name sources | sed "s/^/VMTEST: $x: chronyc sources: /"
	chronyc_n $name sourcestats | sed "s/^/VMTEST: $x: chronyc sourcestats: /"
	chronyc_n $name tracking | sed "s/^/VMTEST: $x: chronyc tracking: /"
	echo "VMTEST-$x-LOAD $(cut -d' ' -f1-3 /proc/loadavg)"
}
chrony_gm() { # X
	$B/ptp4l -i eth1 $PTP4L_OPTS --masterOnly 1 --uds_address /run/ptp4l-$1 >/tmp/ptp4l-$1.log 2>&1 &
	echo $! >/tmp/ptp4l.pid
}
chrony_phcd_conf() { # NAME TIME_STAMPING GLOBAL-LINE INSTANCE-LINES...
	local name=$1 ts=$2 global=$3
	shift 3
	{
		printf '[global]\n%s\ntime_stamping = %s\n' "$global" $ts
		printf 'tx_timestamp_timeout = %s\n' $TX_TIMEOUT_MS
		printf 'logAnnounceInterval = -2\nannounceReceiptTimeout = 3\n'
		printf 'logSyncInterval = -3\nlogMinDelayReqInterval = -3\n\n[instance %s]\n' $name
		printf 'interfaces = eth0\nslaveOnly = 1\n'
		printf '%s\n' "$@"
	} >/$name.conf
}
chrony_tails() { # X NAME
	grep -Ei 'refclock|error|fault' /tmp/$2.log | head -n 8 | sed "s/^/VMTEST: $1: phcd log: /"
	tail -n 12 /tmp/chronyd-$2.log | sed "s/^/VMTEST: $1: chronyd log: /"
}

# --- S: phcd alone steering CLOCK_REALTIME from software timestamps: D's baseline, as A is E's ---
if want S; then
	chrony_gm s
	chrony_phcd_conf sws software "system_clock_instance = sws" "clock_backend = system"
	start=$(up)
	start_phcd sws
	if wait_for /tmp/sws.log 'system clock LOCKED' $SLAVE_WAIT_S; then
		echo "VMTEST-S-LOCKED $(since $start)"
		say "S: phcd's system clock LOCKED at $(up)s; settling ${CHRONY_SETTLE_S}s, then ${WINDOW_S}s read"
		sleep $CHRONY_SETTLE_S
		echo "VMTEST-S-TRACK $($B/tool-vm-igb track CLOCK_REALTIME /dev/ptp1 $WINDOW_S 37)"
	fi
	echo "VMTEST-S-LOAD $(cut -d' ' -f1-3 /proc/loadavg)"
	stop_all
	grep 'system clock' /tmp/sws.log | head -n 4 | sed 's/^/VMTEST: S: phcd: /'
fi

# --- D: phcd (software timestamps) -> refclock SOCK -> chronyd steering CLOCK_REALTIME ---
if want D; then
	chrony_gm d
	chrony_phcd_conf sw software "" "clock_backend = system" "clock_servo = refclock_sock" \
		"refclock_sock_address = /run/phcd-refclock.sock"
	start=$(up)
	start_phcd sw
	# The lines docs/phcd.conf.5.md ("phcd with chrony") gives, with refid PHCD.
	chronyd_start sw "refclock SOCK /run/phcd-refclock.sock refid PHCD poll 2 precision 1e-7 prefer"
	chrony_phase D sw $start
	echo "VMTEST-D-REFCLOCK $($B/busctl --system get-property org.phcd1 /org/phcd1/instance/sw \
		org.phcd1.Instance RefclockState 2>&1)"
	stop_all
	chrony_tails D sw
fi

# --- E: phcd (hardware timestamps) steering PHC 0 -> refclock PHC -> chronyd ---
if want E; then
	chrony_gm e
	chrony_phcd_conf hw hardware "" "clock_backend = phc"
	start=$(up)
	start_phcd hw
	# chronyd reads the PHC once phcd has locked it: a PHC still being stepped reads as a good
	# clock too (the reason the SOCK refclock is preferred; docs/phcd.conf.5.md).
	wait_for_sync() {
		local end=$(($(cut -d. -f1 /proc/uptime) + $SLAVE_WAIT_S))
		while [ "$($B/busctl --system get-property org.phcd1 /org/phcd1/instance/hw \
			org.phcd1.Instance Synchronized 2>&1)" != "b true" ]; do
			[ "$(cut -d. -f1 /proc/uptime)" -lt $end ] || return 1
			sleep 0.5
		done
	}
	if wait_for_sync; then
		echo "VMTEST-E-SYNC $(since $start)"
		chronyd_start hw "refclock PHC /dev/ptp0 refid PHCD poll 0 dpoll -2 tai prefer" \
			"leapsectz right/UTC"
		chrony_phase E hw $start
	fi
	stop_all
	chrony_tails E hw
fi
