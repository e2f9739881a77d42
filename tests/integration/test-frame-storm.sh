#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A storm of hostile PTP frames (tool-frame-storm: random bytes, garbage bodies, truncated frames,
# bad TLV lengths, forged sequenceIds and port identities, other domains and versions) on a LAN
# (a bridge) at two synchronised slaves of one ptp4l grandmaster: phcd-port run by hand (whose exit line prints
# every engine counter) and the full phcd (supervisor + worker). Expected: neither crashes nor
# restarts, both stay SLAVE, the offsets during and after the storm stay within
# max(10 x the quiet RMS, 20 us) with no sample beyond 200 us, and the counters of each add up to
# exactly the frames that reached its socket (a separate counting socket on the same interface),
# less those the kernel dropped on its socket: phcd-port's as it prints them at exit, phcd's as
# its port's D-Bus Counters (rx_* and ignored_*, on a private system bus) show them.
#
# PHCD_STORM_FRAMES (default 100000, each slave receives all of them) and PHCD_STORM_RATE
# (frames/s, default 25000) make longer storms.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin ptp dbus phcd

PORT=$BUILD/worker/phcd-port
STORM=$BUILD/tests/integration/tool-frame-storm
FRAMES=${PHCD_STORM_FRAMES:-100000}
RATE=${PHCD_STORM_RATE:-25000}
# One LAN (a bridge in L): the grandmaster in M, the attacker in X, phcd-port in A, phcd in B.
# M and X are isolated from each other: the storm is aimed at the slaves, not at ptp4l (which
# sees frames sent on its own interface and goes FAULTY on a rogue Pdelay_Resp).
L=phfs-l$$ M=phfs-m$$ X=phfs-x$$ A=phfs-a$$ B=phfs-b$$
# A private system bus (never the machine's own) for phcd's Counters.
dbus_start "$tmp/bus"
lan_bridge "$L"
lan_station "$L" "$M" m0 isolated
lan_station "$L" "$X" x0 isolated
lan_station "$L" "$A" a1
lan_station "$L" "$B" b1

# phcd-port by hand takes [global] alone; phcd adds an instance.
phcd_fast_global >"$tmp/port.conf"
phcd_virtual_conf storm b1 >"$tmp/phcd.conf"

# The counting sockets first, then phcd-port and phcd: every frame a port's socket can see, the
# counting socket on its interface sees too. The grandmaster starts only once all are open, and
# stops before they do.
ip netns exec "$A" "$STORM" count a1 >"$tmp/count.log" 2>&1 &
COUNT_PID=$!
BG_PIDS+=($COUNT_PID)
ip netns exec "$B" "$STORM" count b1 >"$tmp/count-b.log" 2>&1 &
COUNT_B_PID=$!
BG_PIDS+=($COUNT_B_PID)
wait_for "$tmp/count.log" '^counting$' 5
wait_for "$tmp/count-b.log" '^counting$' 5
ip netns exec "$A" capsh --drop=cap_sys_time -- -c \
	"exec $PORT -i a1 -f $tmp/port.conf -s -m --clock virtual" \
	>"$tmp/port.log" 2>&1 &
PORT_PID=$!
BG_PIDS+=($PORT_PID)
wait_for "$tmp/port.log" 'INITIALIZING to LISTENING' 5
STATUS=$tmp/status
phcd_start "$B" "$tmp/phcd.conf" "$tmp/phcd.log" --status-file "$STATUS"
wait_bus_name org.phcd1 10
ptp4l_gm "$M" m0 "$tmp/gm.uds" "$tmp/gm.log"

field() { status_field "$STATUS" "$@"; }
wait_for "$tmp/port.log" 'to SLAVE' 20
wait_status port b1 state SLAVE 20 "" phcd
# Let both servos lock and settle (three locked summaries) before the quiet baseline.
deadline=$((SECONDS + 20))
until [ "$(grep -c 'master offset .* s2 ' "$tmp/port.log")" -ge 3 ]; do
	[ "$SECONDS" -lt "$deadline" ] || fail "phcd-port: servo not locked for 3 s within 20 s"
	sleep 0.1
done
worker=$(field port b1 pid)
restarts=$(field port b1 restarts)
echo "ok: phcd-port (a1) and phcd (b1, worker $worker) SLAVE of ptp4l"

# Identities: the grandmaster's port (forged Follow_Up/Delay_Resp) and each target's own.
parent=$(gm_port_identity "$M" "$tmp/gm.uds")

# offsets FROM_LINE: phcd-port's per-second offsets logged after line FROM_LINE.
offsets() { tail -n +$(($1 + 1)) "$tmp/port.log" | awk '/master offset/ { print $4 }'; }
# sample_phcd SECONDS FILE: phcd's instance offset once a second, checking b1 stays SLAVE
# with the same worker.
sample_phcd() {
	local end=$((SECONDS + $1)) st
	while [ "$SECONDS" -lt "$end" ]; do
		st=$(field port b1 state)
		[ "$st" = SLAVE ] || fail "phcd: b1 left SLAVE ($st): $(tail -n 20 "$tmp/phcd.log")"
		[ "$(field port b1 pid)" = "$worker" ] || fail "phcd: worker $worker of b1 replaced"
		field instance storm offset >>"$2"
		sleep 1
	done
}
stats() { # name: mean rms max|x| n of the numbers on stdin
	awk -v n="$1" '{ s += $1; ss += $1 * $1; a = $1 < 0 ? -$1 : $1; if (a > m) m = a; c++ }
		END { if (!c) { print n " no samples"; exit 1 }
			printf "%s %.0f %.0f %d %d\n", n, s / c, sqrt(ss / c), m, c }'
}

from=$(wc -l <"$tmp/port.log")
sample_phcd 6 "$tmp/phcd.quiet"
read -r _ _ q_rms_a _ _ < <(offsets "$from" | stats quiet-a)
read -r _ _ q_rms_b _ _ < <(stats quiet-b <"$tmp/phcd.quiet")
echo "quiet: phcd-port $(offsets "$from" | stats 'mean/rms/max/n') phcd $(stats 'mean/rms/max/n' <"$tmp/phcd.quiet")"

from=$(wc -l <"$tmp/port.log")
ip netns exec "$X" "$STORM" send x0 "$FRAMES" "$RATE" 1 --parent "$parent" \
	--self "$(eui64 a1 "$A")" --self "$(eui64 b1 "$B")" >"$tmp/storm.log" 2>&1 &
sa=$!
: >"$tmp/phcd.storm"
while kill -0 "$sa" 2>/dev/null; do
	sample_phcd 1 "$tmp/phcd.storm"
done
wait "$sa" || fail "storm: $(cat "$tmp/storm.log")"
# And a few seconds after: the servos must not have been dragged away.
sample_phcd 4 "$tmp/phcd.storm"
echo "storm at a1 and b1: $(cat "$tmp/storm.log")"
kill -0 "$PORT_PID" 2>/dev/null || fail "phcd-port died: $(tail -n 20 "$tmp/port.log")"
kill -0 "$PHCD_PID" 2>/dev/null || fail "phcd died: $(tail -n 20 "$tmp/phcd.log")"
! grep -q 'SLAVE to\|FAULTY' "$tmp/port.log" || fail "phcd-port left SLAVE: $(grep 'SLAVE to\|FAULTY' "$tmp/port.log")"
[ "$(field port b1 restarts)" = "$restarts" ] || fail "phcd: b1 restarted during the storm"
echo "ok: no crash, no restart, both SLAVE throughout"

# bounded NAME QUIET_RMS: the storm's offsets within max(10 x quiet RMS, 20 us), none > 200 us.
bounded() {
	local name=$1 q=$2 mean rms max n lim
	read -r _ mean rms max n
	lim=$((10 * q > 20000 ? 10 * q : 20000))
	echo "storm: $name offset mean $mean rms $rms max|x| $max ns over $n s (quiet rms $q; limit rms $lim, max 200000)"
	[ "$rms" -le "$lim" ] && [ "$max" -le 200000 ] ||
		fail "$name: expected offset rms <= $lim ns and max <= 200000 ns during the storm, got rms $rms max $max"
}
offsets "$from" | stats a | bounded phcd-port "$q_rms_a"
stats b <"$tmp/phcd.storm" | bounded phcd "$q_rms_b"

# Accounting: stop the grandmaster and take a1 off the bridge first, so that nothing more reaches
# a1 (phcd's worker on b1 still sends Delay_Req until its announce timeout: one arriving after
# phcd-port exited but before the counting socket did was counted by one and not by the other,
# the off-by-one this test failed on about one run in two). Then phcd-port's socket drops once it
# has read all that was queued, then its counters at exit; with a1 cut off and the storm over
# nothing more reaches b1 either (the counting sockets ignore outgoing frames): phcd's worker
# socket drops, then the counting sockets' totals.
kill "$GM_PID"
wait "$GM_PID" 2>/dev/null || true
ip -n "$L" link set b-a1 nomaster || fail "could not take a1 off the bridge"
# sock_state NS PID: "DROPS QUEUED" over the packet sockets PID holds (a worker has two, event and
# general): the kernel's drop count (skmem d) and the bytes waiting to be read (skmem r).
sock_state() {
	ip netns exec "$1" ss -0 -e -m -p | awk -v p="pid=$2," '
		index($0, p) { f = 1; next }
		f && /skmem:/ { match($0, /skmem:\(r[0-9]+/); r += substr($0, RSTART + 7, RLENGTH - 7)
			match($0, /,d[0-9]+\)/); d += substr($0, RSTART + 2, RLENGTH - 3); n++; f = 0 }
		END { if (n) print d, r }'
}
# settled_drops NS PID WHAT: the drop count once PID has read every frame queued on its sockets
# (the grandmaster's last frames may still wait there: read neither counted nor dropped).
settled_drops() {
	local deadline=$((SECONDS + 5)) d q
	while :; do
		read -r d q < <(sock_state "$1" "$2") ||
			fail "no socket of $3 ($2) in ss: $(ip netns exec "$1" ss -0 -e -m -p)"
		[ "$q" = 0 ] && break
		[ "$SECONDS" -lt "$deadline" ] || fail "$3 ($2) left $q bytes unread on its sockets for 5 s"
		sleep 0.1
	done
	echo "$d"
}
skd=$(settled_drops "$A" "$PORT_PID" phcd-port)
kill -TERM "$PORT_PID"
wait "$PORT_PID" 2>/dev/null || true
skd_b=$(settled_drops "$B" "$worker" "phcd's worker")
kill -TERM "$COUNT_PID" "$COUNT_B_PID"
wait "$COUNT_PID" 2>/dev/null || true
wait "$COUNT_B_PID" 2>/dev/null || true
counters=$(grep '^phcd-port: counters:' "$tmp/port.log") || fail "phcd-port printed no counters"
read -r seen cdrops < <(sed -n 's/^count=\([0-9]*\) drops=\([0-9]*\)$/\1 \2/p' "$tmp/count.log")
[ "$cdrops" = 0 ] || fail "the counting socket dropped $cdrops frames: no exact account possible"
# Each received frame lands in exactly one of these: dispatched by type (rx_*), or refused before
# (malformed, other_domain, own_frame, no_timestamp, unsupported, not_as_capable: 0 here, the
# port runs no 802.1AS). The counters of frames refused
# after dispatch (not_from_parent, stale_sequence, ...) are parts of rx_*.
sum=$(tr ' ' '\n' <<<"$counters" | awk -F= '
	$1 ~ /^rx_/ || $1 == "malformed" || $1 == "other_domain" || $1 == "own_frame" ||
	$1 == "no_timestamp" || $1 == "unsupported" || $1 == "not_as_capable" { s += $2 }
	END { print s + 0 }')
echo "counters: $counters"
echo "frames at a1: $seen; phcd-port counted $sum, its socket dropped $skd"
[ $((sum + skd)) = "$seen" ] ||
	fail "counters do not account for the frames: expected counted + dropped = $seen, got $sum + $skd"
echo "ok: counters account for every frame ($sum counted + $skd dropped by the kernel = $seen seen)"

# phcd: the same sum over its port's D-Bus Counters (rx_* here includes rx_management: the
# worker answers Management itself). The worker sends STATUS at least once a second, so poll
# until the counters reach the total, at most 5 s.
read -r seen_b cdrops_b < <(sed -n 's/^count=\([0-9]*\) drops=\([0-9]*\)$/\1 \2/p' "$tmp/count-b.log")
[ "$cdrops_b" = 0 ] || fail "the counting socket at b1 dropped $cdrops_b frames: no exact account possible"
[ "$(field port b1 pid)" = "$worker" ] || fail "phcd: worker $worker of b1 replaced before the account"
bus_counters() {
	busctl --system get-property org.phcd1 /org/phcd1/port/b1 org.phcd1.Port Counters --json=short
}
bus_sum() {
	python3 -c 'import json, sys
c = json.load(sys.stdin)["data"]
pre = ("ignored_malformed", "ignored_other_domain", "ignored_own_frame", "ignored_no_timestamp",
       "ignored_unsupported", "ignored_not_as_capable")
print(sum(v for k, v in c.items() if k.startswith("rx_") or k in pre))'
}
deadline=$((SECONDS + 5))
while :; do
	bc=$(bus_counters) || fail "busctl get-property Counters of b1 failed"
	sum_b=$(bus_sum <<<"$bc")
	[ $((sum_b + skd_b)) -lt "$seen_b" ] && [ "$SECONDS" -lt "$deadline" ] || break
	sleep 0.2
done
echo "phcd Counters (non-zero): $(python3 -c 'import json, sys
print(" ".join(f"{k}={v}" for k, v in sorted(json.load(sys.stdin)["data"].items()) if v))' <<<"$bc")"
echo "frames at b1: $seen_b; phcd counted $sum_b, its worker's socket dropped $skd_b"
[ $((sum_b + skd_b)) = "$seen_b" ] ||
	fail "phcd's Counters do not account for the frames: expected counted + dropped = $seen_b, got $sum_b + $skd_b"
for k in ignored_malformed ignored_other_domain; do
	v=$(python3 -c "import json, sys; print(json.load(sys.stdin)['data']['$k'])" <<<"$bc")
	[ "$v" -gt 0 ] || fail "phcd Counters: expected $k > 0 after the storm, got $v"
done
echo "ok: phcd's D-Bus Counters account for every frame ($sum_b counted + $skd_b dropped by the kernel = $seen_b seen)"
