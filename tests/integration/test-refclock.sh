#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# phcd as chronyd's reference clock (clock_servo refclock_sock), with NTP as the fallback:
# Debian's chronyd -x (it never touches a clock) in phcd's namespace reads phcd's samples through
# `refclock SOCK PATH refid PHCD` and has a second chronyd -x (`local stratum 1`) in another
# namespace as its NTP server. PHCD selected (#*) within a minute with samples within 100 us
# (the ptp4l grandmaster runs on this host's clock too); the grandmaster killed: chronyd drops
# PHCD and selects the NTP server; the grandmaster back: PHCD selected again. D-Bus says where
# the samples go and when the last was accepted; a socket that is missing, or that nobody reads
# (chronyd killed), is a health reason, logged once, retried. Every process runs without
# CAP_SYS_TIME; the host's adjtimex state is the same after as before.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin ptp phcd dbus

S=phrc-s$$ M=phrc-m$$ N=phrc-n$$

before=$(host_clock_state)

# S: phcd and the chronyd it feeds; M: the PTP grandmaster (s1-m1); N: the NTP server (n1-n2).
netns_pair "$S" "$M" s1 m1
netns_add "$N"
veth_add "$S" n1 "$N" n2
ip -n "$S" addr add 192.0.2.1/24 dev n1
ip -n "$N" addr add 192.0.2.2/24 dev n2

gm_start() { ptp4l_gm "$M" m1 "$tmp/uds" "$tmp/ptp4l.log"; }

# chronyd -x (never steers a clock), as root (-u root: no drop to _chrony), in the foreground,
# its config, pid file, command socket and everything else under $tmp.
chronyd_start() { # NS NAME CONFIG-LINES...
	local ns=$1 name=$2
	shift 2
	mkdir -p "$tmp/$name"
	chmod 700 "$tmp/$name"
	{
		printf '%s\n' "$@"
		printf 'pidfile %s\nbindcmdaddress %s\ncmdport 0\ndriftfile %s\n' \
			"$tmp/$name/chronyd.pid" "$tmp/$name/chronyd.sock" "$tmp/$name/drift"
		printf 'dumpdir %s\nlogdir %s\n' "$tmp/$name" "$tmp/$name"
	} >"$tmp/$name/chrony.conf"
	ip netns exec "$ns" capsh --drop=cap_sys_time -- -c \
		"exec chronyd -x -d -u root -f $tmp/$name/chrony.conf" >"$tmp/$name/chronyd.log" 2>&1 &
	BG_PIDS+=($!)
}
chronyc_s() { chronyc -n -h "$tmp/client/chronyd.sock" "$@"; }

gm_start
chronyd_start "$N" server 'local stratum 1' 'allow 192.0.2.0/24' 'port 123'

dbus_start "$tmp/bus"
# system_clock_instance auto: with only an instance that feeds chronyd, phcd steers nothing, and
# neither Health nor wait-sync may say it is waiting for the system clock.
{
	phcd_fast_global
	printf 'system_clock_instance = auto\n'
	printf '\n[instance lab]\ninterfaces = s1\nclock_backend = system\nslaveOnly = 1\n'
	printf 'clock_servo = refclock_sock\nrefclock_sock_address = %s\n' "$tmp/phcd.sock"
} >"$tmp/phcd.conf"
phcd_start "$S" "$tmp/phcd.conf" "$tmp/phcd.log" --status-file "$tmp/status"
wait_bus_name org.phcd1 30

prop() { busctl --system get-property org.phcd1 /org/phcd1/instance/lab org.phcd1.Instance "$1"; }
# wait_prop NAME VALUE SECONDS: the instance's property NAME reads VALUE (busctl's form), or fail.
wait_prop() {
	local deadline=$((SECONDS + $3)) v=
	while [ "$SECONDS" -lt "$deadline" ]; do
		v=$(prop "$1" 2>/dev/null || true)
		[ "$v" = "$2" ] && return 0
		sleep 0.2
	done
	tail -n 20 "$tmp/phcd.log" >&2
	fail "$1: expected $2 within $3 s, got '${v}'"
}

chronyd_client() {
	chronyd_start "$S" client \
		"refclock SOCK $tmp/phcd.sock refid PHCD poll 1 precision 1e-7 prefer" \
		'server 192.0.2.2 iburst minpoll -1 maxpoll -1 maxsamples 8'
}
# refused_then_sending ERRNO WORDS: no chronyd reads the socket: RefclockState refused with
# RefclockError ERRNO and a health reason saying the socket WORDS, still refused over 3 s of
# samples; then chronyd started: the samples go without anything else done, the reason is gone,
# and WORDS were logged once in all, however many samples were refused.
refused_then_sending() {
	local deadline n
	wait_prop RefclockState 's "refused"' 30
	wait_prop RefclockError "i $1" 1
	prop HealthReasons | grep -q "\"refclock-refused\" \"chronyd.*s refclock socket $tmp/phcd.sock $2" ||
		fail "HealthReasons: expected refclock-refused ($2), got $(prop HealthReasons)"
	deadline=$((SECONDS + 3))
	while [ "$SECONDS" -lt "$deadline" ]; do
		[ "$(prop RefclockState)" = 's "refused"' ] || fail "RefclockState left refused without chronyd"
		sleep 0.5
	done
	chronyd_client
	wait_prop RefclockState 's "sending"' 30
	n=$(grep -c "refclock socket $tmp/phcd.sock $2" "$tmp/phcd.log" || true)
	[ "$n" = 1 ] || fail "expected the socket that $2 logged once over 3 s of refused samples, got $n lines"
	wait_prop HealthReasons 'a(ss) 0' 5
}

# Before chronyd: the socket is missing.
refused_then_sending -2 "is missing"
echo "ok: no chronyd yet: RefclockState refused (ENOENT), health reason refclock-refused, logged once;" \
	"chronyd started: RefclockState sending without a restart of phcd"

# source_line REFID: chronyc's line for the source with that name (refclock refid or address).
source_line() { chronyc_s sources 2>/dev/null | awk -v n="$1" '$2 == n' || true; }
# wait_selected NAME SECONDS: chronyd's selected source (#* or ^*) is NAME, or fail.
wait_selected() {
	local name=$1 secs=$2 deadline=$((SECONDS + $2)) line=
	while [ "$SECONDS" -lt "$deadline" ]; do
		line=$(source_line "$name")
		case "$line" in
		'#* '* | '^* '*) return 0 ;;
		esac
		sleep 0.5
	done
	echo "chronyc sources:" >&2
	chronyc_s sources >&2 || true
	tail -n 20 "$tmp/phcd.log" >&2
	fail "expected $name selected (#* or ^*) within ${secs}s, got '${line:-no such source}'"
}

t0=$SECONDS
wait_selected PHCD 60
echo "ok: PHCD selected by chronyd after $((SECONDS - t0)) s: $(source_line PHCD)"
# The last sample of the refclock, in chronyc's units: within 100 us of the host's own clock.
chronyc_s sourcestats
off=$(chronyc_s -c sourcestats | awk -F, '$1 == "PHCD" { print $7 }')
[ -n "$off" ] || fail "no sourcestats line for PHCD"
awk -v o="$off" 'BEGIN { exit !(o <= 100e-6 && o >= -100e-6) }' ||
	fail "PHCD's offset: expected within 100 us, got $off s"
echo "ok: PHCD's offset estimate $off s"

state=$(prop RefclockState)
addr=$(prop RefclockAddress)
last=$(prop RefclockLastAccepted | awk '{ print $2 }')
now=$(date +%s%6N)
[ "$state" = 's "sending"' ] || fail "RefclockState: expected \"sending\", got $state"
[ "$addr" = "s \"$tmp/phcd.sock\"" ] || fail "RefclockAddress: expected $tmp/phcd.sock, got $addr"
[ $((now - last)) -lt 3000000 ] || fail "RefclockLastAccepted: expected within 3 s, got $(((now - last) / 1000)) ms ago"
echo "ok: D-Bus: RefclockState sending, RefclockAddress $addr, last accepted $(((now - last) / 1000)) ms ago"

# phcctl: the instance's line, and wait-sync ready with chronyd named as the one to ask.
"$BUILD/phcctl/phcctl" status >"$tmp/status.txt"
grep -q "Refclock *: sending, samples to chronyd at $tmp/phcd.sock, last accepted" "$tmp/status.txt" ||
	fail "phcctl status: expected a Refclock line, got: $(cat "$tmp/status.txt")"
# never Synchronized (phcd runs no servo here), and phcctl says why rather than blame a lock
# threshold, in the daemon's words (its Health ok, its ReadyReason), not a rule of its own
why='^  Not synchronized +: phcd runs no servo for it: feeds chronyd at .*phcd\.sock '
grep -Eq "${why}\(clock_servo refclock_sock\); whether the system clock is synchronized is chronyd's to say" "$tmp/status.txt" ||
	fail "phcctl status: expected chronyd named as the servo, got: $(grep 'Not synchronized' "$tmp/status.txt")"
"$BUILD/phcctl/phcctl" wait-sync --instance lab --timeout 5 >"$tmp/wait.txt" ||
	fail "phcctl wait-sync --instance lab: expected ready, got: $(cat "$tmp/wait.txt")"
grep -q "^lab: feeds chronyd at $tmp/phcd.sock (clock_servo refclock_sock).*chronyc waitsync" "$tmp/wait.txt" ||
	fail "phcctl wait-sync --instance lab: expected lab feeding chronyd, got: $(cat "$tmp/wait.txt")"
"$BUILD/phcctl/phcctl" wait-sync --timeout 5 >"$tmp/wait-sys.txt" ||
	fail "phcctl wait-sync: expected ready, got: $(cat "$tmp/wait-sys.txt")"
grep -q "^system clock: not steered by phcd: its instances feed chronyd" "$tmp/wait-sys.txt" ||
	fail "phcctl wait-sync: expected the system clock left to chronyd, got: $(cat "$tmp/wait-sys.txt")"
# phcd runs no servo here (software timestamps: chronyd is the servo), so its instance is never
# Synchronized; while chronyd takes its samples that is no health reason ("not synchronized yet
# (servo UNLOCKED)" stood for ever before), for the instance or the daemon.
wait_prop HealthReasons 'a(ss) 0' 5
wait_prop Health 's "ok"' 1
health=$(busctl --system get-property org.phcd1 /org/phcd1 org.phcd1.Manager HealthReasons)
[ "$health" = 'a(ss) 0' ] ||
	fail "Manager HealthReasons: expected none while chronyd takes the samples, got $health"
echo "ok: phcctl status: $(grep -E 'Refclock|Not synchronized' "$tmp/status.txt" | tr -s ' ')"
echo "ok: phcctl wait-sync --instance lab: $(cat "$tmp/wait.txt")"
echo "ok: phcctl wait-sync: $(cat "$tmp/wait-sys.txt"); Manager HealthReasons: $health"
# No conflict beside chronyd. This chronyd runs with -x and is never a rival: that a chronyd which
# steers the clock is none for an instance that feeds it, test_follow_refclock_rival shows
# (tests/unit/test-manager.c).
conflict=$(busctl --system get-property org.phcd1 /org/phcd1 org.phcd1.Manager SystemClockConflict)
[ "$conflict" = 's ""' ] || fail "SystemClockConflict: expected \"\", got $conflict"
echo "ok: SystemClockConflict empty beside chronyd"

kill "$GM_PID"
wait "$GM_PID" 2>/dev/null || true
t0=$SECONDS
wait_selected 192.0.2.2 30
echo "ok: grandmaster gone: chronyd selected the NTP server after $((SECONDS - t0)) s: $(source_line 192.0.2.2)"
echo "    PHCD: $(source_line PHCD)"
wait_prop RefclockState 's "idle"' 10
echo "ok: RefclockState idle: $(prop RefclockReason)"
prop HealthReasons | grep -q '"no-grandmaster"' ||
	fail "HealthReasons: expected no-grandmaster with the grandmaster gone, got $(prop HealthReasons)"
echo "ok: HealthReasons: $(prop HealthReasons)"

gm_start
t0=$SECONDS
wait_selected PHCD 60
echo "ok: grandmaster back: PHCD selected again after $((SECONDS - t0)) s: $(source_line PHCD)"

# chronyd killed outright leaves its socket file behind, which nobody reads (ECONNREFUSED).
kill -KILL "$(cat "$tmp/client/chronyd.pid")"
[ -S "$tmp/phcd.sock" ] || fail "expected chronyd's socket file left behind by SIGKILL"
refused_then_sending -111 "refuses (Connection refused)"
echo "ok: chronyd killed: RefclockState refused (ECONNREFUSED), health reason, logged once;" \
	"chronyd restarted: sending"
t0=$SECONDS
wait_selected PHCD 60
echo "ok: chronyd restarted: PHCD selected after $((SECONDS - t0)) s"

# Under phcd.service phcd is user phcd, and chronyd's socket is root's, mode 0755: the
# chrony.service drop-in phcd ships gives it to phcd. Its ExecStartPost= as systemd would run it
# (${VAR} from Environment=, $$ as $), for nobody here: refused before, accepted after.
mkdir -p "$tmp/sd/chrony.service.d"
cp /lib/systemd/system/chrony.service "$tmp/sd/"
cp "$BUILD/units/chrony-refclock.conf" "$tmp/sd/chrony.service.d/"
out=$(cd "$tmp/sd" && systemd-analyze verify --man=no chrony.service 2>&1) && [ -z "$out" ] ||
	fail "systemd-analyze verify chrony.service with chrony-refclock.conf: $out"
nobody_send() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups /usr/bin/python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
try:
    s.sendto(bytes(8), sys.argv[1])
    print("accepted")
except OSError as e:
    print(e.strerror)' "$tmp/phcd.sock"
}
chmod 711 "$tmp"
[ "$(nobody_send)" = "Permission denied" ] ||
	fail "a non-root sender before the drop-in: expected Permission denied, got $(nobody_send)"
cmd=$(sed -n 's/^ExecStartPost=-!//p' "$tmp/sd/chrony.service.d/chrony-refclock.conf")
cmd=${cmd//'${PHCD_REFCLOCK_SOCK}'/$tmp/phcd.sock}
cmd=${cmd//'${PHCD_REFCLOCK_USER}'/nobody}
cmd=${cmd//'$$'/'$'}
eval "$cmd" || fail "chrony-refclock.conf's ExecStartPost failed: $cmd"
[ "$(nobody_send)" = accepted ] ||
	fail "a non-root sender after the drop-in: expected accepted, got $(nobody_send)"
echo "ok: chrony-refclock.conf verifies; its ExecStartPost gives the socket to the sender (EACCES before)"

after=$(host_clock_state)
[ "$before" = "$after" ] || fail "host adjtimex state: expected unchanged '$before', got '$after'"
echo "ok: host adjtimex frequency and status unchanged: $after"
