#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# phcd with two instances and three ports against ptp4l peers in namespaces: states, boundary
# clock (pmc on the downstream ptp4l), unprivileged workers, kill -9, garbage IPC, reload,
# link down/up, veth delete/recreate, and a clean SIGTERM.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin ptp phcd

PORT=$BUILD/worker/phcd-port
# Workers run as their own user: the wrapper below must be reachable by it ($tmp is 755,
# test_begin), and the flags it removes (ctl/) writable.
mkdir -m 0777 "$tmp/ctl"
S=phsu-s$$ P1=phsu-a$$ P2=phsu-b$$ P3=phsu-c$$
PHCD_PID=
test_on_exit 'test_stop "$PHCD_PID"'

for ns in $S $P1 $P2 $P3; do netns_add "$ns"; done
# s1 faces the grandmaster (domain 0), s2 a downstream slave (domain 0), s3 a slave in domain 24.
veth_add "$S" s1 "$P1" p1
veth_add "$S" s2 "$P2" p2
veth_add "$S" s3 "$P3" p3

# Fast intervals so every state is reached in seconds; fixed PI constants lock at once.
PTP_FAST="--logAnnounceInterval -2 --announceReceiptTimeout 3 --logSyncInterval -3"
ptp4l_in() { # NS IF UDS LOG ARGS...
	local ns=$1 ifn=$2 uds=$3 log=$4
	shift 4
	ip netns exec "$ns" capsh --drop=cap_sys_time -- -c \
		"exec ptp4l -i $ifn -2 -S -m --free_running 1 $PTP_FAST --uds_address $uds $*" \
		>"$log" 2>&1 &
	BG_PIDS+=($!)
}
ptp4l_in "$P1" p1 "$tmp/uds1" "$tmp/gm.log" --priority1 100
ptp4l_in "$P2" p2 "$tmp/uds2" "$tmp/down.log" -s
ptp4l_in "$P3" p3 "$tmp/uds3" "$tmp/dom24.log" -s --domainNumber 24

cat >"$tmp/phcd.conf" <<EOF
[global]
logging_level = 7
time_stamping = software
logAnnounceInterval = -2
announceReceiptTimeout = 3
logSyncInterval = -3
pi_proportional_const = 0.7
pi_integral_const = 0.3
restart_backoff_initial_ms = 100

[instance bc]
interfaces = s1, s2
domainNumber = 0
clock_backend = virtual

[instance lab]
interfaces = s3
domainNumber = 24
priority1 = 200
clock_backend = virtual
EOF

# The worker binary is a wrapper: it becomes phcd-port, except once when asked to send garbage.
cat >"$tmp/port-wrapper" <<EOF
#!/bin/sh
case " \$* " in
*" -i s3 "*)
	if [ -e "$tmp/ctl/garbage" ]; then
		rm -f "$tmp/ctl/garbage"
		printf 'this is not an IPC message' >&3
		exec sleep 30
	fi
	[ -e "$tmp/ctl/crash" ] && exit 3 ;;
esac
exec "$PORT" "\$@"
EOF
chmod +x "$tmp/port-wrapper"

# sd_notify: a datagram socket that logs what phcd sends, one line per datagram.
python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
print("listening", flush=True)
while True:
    print(s.recv(4096).decode().replace("\n", " "), flush=True)
' "$tmp/notify" >"$tmp/notify.log" &
BG_PIDS+=($!)
wait_for "$tmp/notify.log" '^listening$' 30

STATUS=$tmp/status
phcd_start "$S" "$tmp/phcd.conf" "$tmp/phcd.log" NOTIFY_SOCKET="$tmp/notify" \
	--port-binary "$tmp/port-wrapper" --status-file "$STATUS"

field() { status_field "$STATUS" "$@"; }
alive() { kill -0 "$PHCD_PID" 2>/dev/null || fail "phcd exited: $(tail -n 20 "$tmp/phcd.log")"; }

# 1. Every port reaches its state: a boundary clock (s1 SLAVE of the grandmaster, s2 MASTER
#    of the downstream ptp4l) and a second instance in domain 24 (s3 MASTER).
wait_status port s1 state SLAVE 20
wait_status port s2 state MASTER 10
wait_status port s3 state MASTER 10
echo "ok: two instances, three ports: s1 SLAVE, s2 MASTER (instance bc), s3 MASTER (instance lab)"
# logging_level 7: the SLAVE port's worker logs every servo sample, as ptp4l -m does.
wait_for "$tmp/phcd.log" '^<7>phcd-port\[[0-9]+\.[0-9]{3}\]: s1: master offset +-?[0-9]+ s[0-3] freq +[-+][0-9]+ path delay +-?[0-9]+$' 5
echo "ok: logging_level 7: s1's worker logs its samples: $(grep -m1 ': s1: master offset' "$tmp/phcd.log")"
wait_for "$tmp/notify.log" '^READY=1 STATUS=2 instance\(s\), 3 port\(s\)' 1
echo "ok: sd_notify: $(grep -m1 '^READY=1' "$tmp/notify.log")"
# STATUS= only when its text changes, not once per worker status (each port sends one a second).
dups=$(awk 'prev == $0 { d++ } { prev = $0 } END { print d + 0 }' "$tmp/notify.log")
[ "$dups" = 0 ] || fail "sd_notify: expected no datagram repeating the one before, got $dups: $(tail -n 3 "$tmp/notify.log")"

# 2. Boundary clock: the downstream ptp4l follows the upstream grandmaster, two steps away.
gm=$(ip netns exec "$P1" pmc -u -b 0 -s "$tmp/uds1" 'GET DEFAULT_DATA_SET' |
	awk '$1 == "clockIdentity" { print $2 }')
[ -n "$gm" ] || fail "pmc gave no clockIdentity of the grandmaster"
deadline=$((SECONDS + 10))
while :; do
	pds=$(ip netns exec "$P2" pmc -u -b 0 -s "$tmp/uds2" 'GET PARENT_DATA_SET' || true)
	cds=$(ip netns exec "$P2" pmc -u -b 0 -s "$tmp/uds2" 'GET CURRENT_DATA_SET' || true)
	dgm=$(awk '$1 == "grandmasterIdentity" { print $2 }' <<<"$pds")
	steps=$(awk '$1 == "stepsRemoved" { print $2 }' <<<"$cds")
	[ "$dgm" = "$gm" ] && [ "$steps" = 2 ] && break
	[ "$SECONDS" -lt "$deadline" ] ||
		fail "downstream ptp4l: expected grandmaster $gm at stepsRemoved 2, got '$dgm' at '$steps'"
	sleep 0.2
done
[ "$(field instance bc gm)" = "$gm" ] || fail "instance bc: expected gm $gm, got $(field instance bc gm)"
[ "$(field instance bc steps)" = 1 ] || fail "instance bc: expected steps 1, got $(field instance bc steps)"
echo "ok: boundary clock: downstream ptp4l sees grandmaster $gm with stepsRemoved 2"

# 3. Every worker runs without capabilities and with no_new_privs.
for ifn in s1 s2 s3; do
	pid=$(field port $ifn pid)
	eff=$(awk '$1 == "CapEff:" { print $2 }' /proc/"$pid"/status)
	bnd=$(awk '$1 == "CapBnd:" { print $2 }' /proc/"$pid"/status)
	nnp=$(awk '$1 == "NoNewPrivs:" { print $2 }' /proc/"$pid"/status)
	[ "$eff" = 0000000000000000 ] && [ "$bnd" = 0000000000000000 ] && [ "$nnp" = 1 ] ||
		fail "worker $pid ($ifn): expected CapEff 0, CapBnd 0, NoNewPrivs 1; got $eff, $bnd, $nnp"
done
echo "ok: workers of s1 s2 s3: CapEff 0, CapBnd 0, NoNewPrivs 1"

snapshot() { for ifn in "$@"; do echo "$ifn $(field port $ifn pid) $(field port $ifn state)"; done; }
expect_same() { # SNAPSHOT WHAT IF...
	local before=$1 what=$2
	shift 2
	[ "$(snapshot "$@")" = "$before" ] ||
		fail "$what: expected the other ports unchanged: before '$before', after '$(snapshot "$@")'"
}

# 4. kill -9 of one worker: back within 2 s, the others keep their PIDs and states.
others=$(snapshot s1 s2)
old=$(field port s3 pid)
restarts=$(field port s3 restarts)
kill -9 "$old"
t0=$SECONDS
wait_status port s3 pid "[1-9][0-9]*" 2 "$old"
new=$(field port s3 pid)
wait_status port s3 state MASTER 3
[ "$(field port s3 restarts)" = $((restarts + 1)) ] ||
	fail "kill -9: expected restarts $((restarts + 1)), got $(field port s3 restarts)"
expect_same "$others" "kill -9" s1 s2
echo "ok: kill -9 of worker $old: worker $new back (restarts $((restarts + 1))), s1/s2 untouched"

# 5. A worker that sends garbage is dropped and restarted; the supervisor carries on.
touch "$tmp/ctl/garbage"
old=$(field port s3 pid)
kill -9 "$old"
wait_for "$STATUS" '^port s3 .* error "worker sent a malformed message"' 5
wait_status port s3 state MASTER 5
[ ! -e "$tmp/ctl/garbage" ] || fail "garbage: the wrapper never ran"
alive
expect_same "$others" "garbage" s1 s2
echo "ok: garbage on the IPC socket: worker dropped (malformed message), restarted, phcd alive"

# 6. SIGHUP after changing one instance's priority1: applied in place (IPC_SET_PRIORITY), no
#    worker restarts. s3's own worker says so on the wire (pmc -2 from the peer: its defaultDS,
#    and the grandmaster priority its Announces carry).
all=$(snapshot s1 s2 s3)
sed -i 's/^priority1 = 200$/priority1 = 190/' "$tmp/phcd.conf"
kill -HUP "$PHCD_PID"
wait_status instance lab priority1 190 5
deadline=$((SECONDS + 5))
while :; do
	out=$(ip netns exec "$P3" pmc -2 -i p3 -b 0 -d 24 'GET DEFAULT_DATA_SET' 'GET PARENT_DATA_SET' || true)
	[ "$(awk '$1 == "priority1" || $1 == "grandmasterPriority1" { print $2 }' <<<"$out" | sort -u)" = 190 ] && break
	[ "$SECONDS" -lt "$deadline" ] ||
		fail "lab priority1 190: expected s3's worker to answer priority1 and grandmasterPriority1 190, got: $out"
	sleep 0.2
done
expect_same "$all" "reload of lab's priority1 (in place)" s1 s2 s3
echo "ok: SIGHUP with lab's priority1 190: s3's worker $(field port s3 pid) answers 190 (defaultDS, parentDS), s1/s2/s3 kept"

# 6b. The BMCA turns round in place: bc's priority1 50 beats the grandmaster's 100 (s1 SLAVE ->
#     MASTER), and back: the same workers throughout.
pids=$(for ifn in s1 s2 s3; do field port $ifn pid; done)
sed -i 's/^\[instance bc\]$/&\npriority1 = 50/' "$tmp/phcd.conf"
kill -HUP "$PHCD_PID"
wait_status instance bc priority1 50 5
wait_status port s1 state MASTER 10
wait_status port s2 state MASTER 5
[ "$(field instance bc gm)" = "$(field instance bc clock)" ] ||
	fail "bc priority1 50: expected bc its own grandmaster ($(field instance bc clock)), got $(field instance bc gm)"
sed -i '/^priority1 = 50$/d' "$tmp/phcd.conf"
kill -HUP "$PHCD_PID"
wait_status instance bc priority1 128 5
wait_status port s1 state SLAVE 20
[ "$(for ifn in s1 s2 s3; do field port $ifn pid; done)" = "$pids" ] ||
	fail "bc priority1 50 and back: expected the workers $(echo $pids), got $(for ifn in s1 s2 s3; do field port $ifn pid; done)"
echo "ok: SIGHUP with bc's priority1 50: s1 SLAVE -> MASTER, back to 128: SLAVE again, workers $(echo $pids) kept"

# 7. An invalid reload is refused with file:line, the old configuration keeps running.
all=$(snapshot s1 s2 s3)
cp "$tmp/phcd.conf" "$tmp/phcd.conf.good"
printf 'priority1 = 999\n' >>"$tmp/phcd.conf"
lines=$(wc -l <"$tmp/phcd.conf")
from=$(wc -l <"$tmp/phcd.log")
kill -HUP "$PHCD_PID"
wait_for "$tmp/phcd.log" "phcd.conf:$lines: priority1 = 999 is out of range" 5 "$from"
wait_for "$tmp/phcd.log" "reload refused" 5 "$from"
alive
expect_same "$all" "invalid reload" s1 s2 s3
cp "$tmp/phcd.conf.good" "$tmp/phcd.conf"
echo "ok: invalid reload refused ($(basename "$tmp")/phcd.conf:$lines), every worker kept"

# 8. Link down takes the port to FAULTY, link up brings it back.
others=$(snapshot s1 s2)
ip -n "$S" link set s3 down
wait_status port s3 state FAULTY 3
wait_status port s3 pid 0 3
ip -n "$S" link set s3 up
wait_status port s3 state MASTER 5
expect_same "$others" "link down/up" s1 s2
echo "ok: link down -> FAULTY (no worker), link up -> MASTER (worker $(field port s3 pid))"

# 9. Deleting the veth removes the port and its worker; recreating it brings both back.
old=$(field port s3 pid)
ip -n "$S" link del s3
deadline=$((SECONDS + 3))
while grep -q '^port s3 ' "$STATUS"; do
	[ "$SECONDS" -lt "$deadline" ] || fail "veth deleted: expected port s3 gone, status: $(cat "$STATUS")"
	sleep 0.05
done
! kill -0 "$old" 2>/dev/null || fail "veth deleted: worker $old still running"
veth_add "$S" s3 "$P3" p3
wait_status port s3 state MASTER 5
expect_same "$others" "veth delete/recreate" s1 s2
echo "ok: veth deleted -> port and worker $old gone; recreated -> port back (worker $(field port s3 pid))"

# 10. A worker that keeps dying is restarted with backoff, then left FAULTY with the reason.
touch "$tmp/ctl/crash"
t0=$SECONDS
kill -9 "$(field port s3 pid)"
wait_status port s3 restarts "[0-9]+" 1
wait_for "$STATUS" '^port s3 .*state FAULTY pid 0 restarts [0-9]+ .*giving up' 10
echo "ok: crash loop: FAULTY after $((SECONDS - t0)) s: $(grep -o 'error ".*"' "$STATUS" | grep giving)"
rm -f "$tmp/ctl/crash"
ip -n "$S" link set s3 down
wait_status port s3 state FAULTY 3
ip -n "$S" link set s3 up
wait_status port s3 state MASTER 5
echo "ok: link down/up after the crash loop: s3 MASTER again (worker $(field port s3 pid))"

# 11. SIGTERM stops everything and leaves nothing behind.
pids=$(awk '$1 == "port" { for (i = 3; i < NF; i++) if ($i == "pid") print $(i + 1) }' "$STATUS")
kill -TERM "$PHCD_PID"
deadline=$((SECONDS + 5))
while kill -0 "$PHCD_PID" 2>/dev/null; do
	[ "$SECONDS" -lt "$deadline" ] || fail "SIGTERM: phcd still running after 5 s"
	sleep 0.05
done
wait "$PHCD_PID" && rc=0 || rc=$?
PHCD_PID=
[ "$rc" = 0 ] || fail "SIGTERM: expected exit status 0, got $rc"
for pid in $pids; do
	! kill -0 "$pid" 2>/dev/null || fail "SIGTERM: worker $pid still running"
done
[ ! -e "$STATUS" ] || fail "SIGTERM: status file left behind"
echo "ok: SIGTERM: phcd exited 0, workers $(echo $pids) gone"
