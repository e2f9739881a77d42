#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Attack finding 4/13 (issue 17): a worker is sandboxed by the supervisor before exec. phcd runs
# as root (under capsh --drop=cap_sys_time); the worker binary is a wrapper that reports what it
# got at exec, then becomes phcd-port. Proves: what the exec'd binary gets (a substituted binary
# too) is its own uid and gid (not 0), no capability in any set, no_new_privs, a fixed
# environment, stdin/stdout on /dev/null and no fd but the IPC socket; the running worker's
# /proc/PID/status says the same, with the seccomp filter on (Seccomp 2); and under that filter
# bind(), socket(), ptrace(), kill() of another process and open() for writing fail
# (tool-sandbox-probe loads the worker's own filter). And from inside the real worker
# (worker-escape-shim.so, LD_PRELOADed by the wrapper): it cannot send out of s2, an interface of
# phcd's namespace that is no port (sendmsg/sendmmsg/sendto naming it refused, nothing captured on
# its peer), rebind its sockets or make new ones; its sockets are bound to s1. The same worker on
# a UDPv4 port (six UDP sockets, IEEE 1588-2019 Annex C): on each socket a datagram addressed to
# q2's address (sendto, sendmsg), connect() there and setsockopt() are refused, nothing reaches
# q2, and what is left is sending with no address through its four connected sockets, to
# 224.0.1.129 and 224.0.0.107 on ports 319 and 320 only.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin ptp phcd

PORT=$BUILD/worker/phcd-port
# The wrapper runs as the workers' user: it must reach it ($tmp is 755, test_begin).
S=pha4-s$$ P=pha4-p$$
netns_pair "$S" "$P" s1 p1
# A second interface of phcd's namespace that is no port of its: a worker must not reach it.
ip link add s2 netns "$S" type veth peer name q2 netns "$P" || fail "veth s2/q2"
ip -n "$S" link set s2 up
ip -n "$P" link set q2 up
S2_INDEX=$(ip netns exec "$S" cat /sys/class/net/s2/ifindex)
S1_INDEX=$(ip netns exec "$S" cat /sys/class/net/s1/ifindex)
SHIM=$BUILD/tests/integration/worker-escape-shim.so
[ -r "$SHIM" ] || fail "no $SHIM"
# Everything q2 receives: a frame the worker sent out of s2 would be here.
ip netns exec "$P" dumpcap -q -i q2 -w "$tmp/q2.pcapng" >"$tmp/q2.log" 2>&1 &
CAP_PID=$!
BG_PIDS+=($CAP_PID)
deadline=$((SECONDS + 30))
until [ -s "$tmp/q2.pcapng" ]; do
	[ "$SECONDS" -lt "$deadline" ] || fail "dumpcap did not start: $(cat "$tmp/q2.log")"
	sleep 0.05
done

cat >"$tmp/phcd.conf" <<CONF
[global]
time_stamping = software
logAnnounceInterval = -2
announceReceiptTimeout = 3
logSyncInterval = -3

[instance lab]
interfaces = s1
clock_backend = free_running
CONF
# What the binary phcd execs finds: one line on stderr (phcd's log), then the real worker.
cat >"$tmp/port-wrapper" <<WRAP
#!/bin/sh
echo "WRAPPER uid=\$(id -u) gid=\$(id -g) groups=\$(id -G)" \$(grep -E '^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs):' /proc/self/status | tr -d '\t ') "env=\$(env | tr '\n' ' ')" "fds=\$(for f in /proc/\$\$/fd/*; do printf '%s=%s ' "\${f##*/}" "\$(readlink "\$f")"; done)" "stdin=\$(readlink /proc/\$\$/fd/0)" "stdout=\$(readlink /proc/\$\$/fd/1)" >&2
# The escape shim (worker-escape-shim.c) plays a compromised worker from inside this one.
export LD_PRELOAD=$SHIM PHCD_ESCAPE_IFINDEX=$S2_INDEX PHCD_ESCAPE_ADDR=198.51.100.2
export ASAN_OPTIONS="\${ASAN_OPTIONS:+\$ASAN_OPTIONS:}verify_asan_link_order=0"
exec $PORT "\$@"
WRAP
chmod 755 "$tmp/port-wrapper"

STATUS=$tmp/status
# A variable of ours that must not reach the worker.
phcd_start "$S" "$tmp/phcd.conf" "$tmp/phcd.log" SECRET_TOKEN=leak \
	--port-binary "$tmp/port-wrapper" --status-file "$STATUS" --uds "" --uds-ro ""

field() { status_field "$STATUS" "$@"; }
wait_for "$tmp/phcd.log" '^WRAPPER ' 10
deadline=$((SECONDS + 10))
pid=
while :; do
	pid=$(field port s1 pid)
	state=$(field port s1 state)
	[[ "$pid" =~ ^[1-9][0-9]*$ ]] && [[ "$state" =~ ^(LISTENING|MASTER|PRE_MASTER)$ ]] &&
		[ "$(readlink /proc/"$pid"/exe 2>/dev/null)" = "$(realpath "$PORT")" ] && break
	[ "$SECONDS" -lt "$deadline" ] ||
		fail "expected a running phcd-port for s1, got pid '$pid' state '$state': $(tail -n 20 "$tmp/phcd.log")"
	sleep 0.05
done

# 1. What the exec'd binary got, before any code of phcd-port ran.
line=$(grep -m1 '^WRAPPER ' "$tmp/phcd.log")
echo "exec'd binary: $line"
wuid=$(sed -E 's/.* uid=([0-9]+) .*/\1/' <<<"$line")
wgid=$(sed -E 's/.* gid=([0-9]+) .*/\1/' <<<"$line")
exp_uid=$(id -u phcd-worker 2>/dev/null || echo 65534)
[ "$wuid" = "$exp_uid" ] && [ "$wuid" != 0 ] && [ "$wgid" != 0 ] ||
	fail "exec'd binary: expected uid $exp_uid (phcd-worker or nobody) and a gid not 0, got uid $wuid gid $wgid"
grep -q "groups=$wgid " <<<"$line" || fail "exec'd binary: expected no supplementary group, got: $line"
for c in CapInh CapPrm CapEff CapBnd CapAmb; do
	grep -q "$c:0000000000000000" <<<"$line" || fail "exec'd binary: expected $c 0, got: $line"
done
grep -q "NoNewPrivs:1" <<<"$line" || fail "exec'd binary: expected NoNewPrivs 1, got: $line"
env=$(sed -E 's/.*env=([^"]*) fds=.*/\1/' <<<"$line")
[[ "$env" != *SECRET_TOKEN* && "$env" != *PATH=*:* && "$env" == *GLIBC_TUNABLES=* ]] ||
	fail "exec'd binary: expected GLIBC_TUNABLES and nothing of phcd's environment, got: $env"
fds=$(sed -E 's/.*fds=(.*) stdin=.*/\1/' <<<"$line")
# Besides 0-3, only what the shell opened itself: its script, a command substitution's pipe, and
# an fd that was gone by the time readlink looked at it (the shell's own, closed while it listed:
# seen once with the sanitizer build's slower phcd).
for fd in $fds; do
	case "$fd" in
	0=/dev/null | 1=/dev/null | 2="$tmp/phcd.log" | 3=socket:*) ;;
	*="$tmp/port-wrapper" | *=pipe:* | [0-9]*=) ;;
	*) fail "exec'd binary: expected fds 0-3 only, got $fd (all: $fds)" ;;
	esac
done
grep -q 'stdin=/dev/null stdout=/dev/null' <<<"$line" ||
	fail "exec'd binary: expected stdin and stdout on /dev/null, got: $line"
echo "ok: the exec'd binary: uid $wuid gid $wgid, every capability set 0, NoNewPrivs 1, env '$env', fds $fds"

# 2. The running worker.
st=/proc/$pid/status
get() { awk -v k="$1:" '$1 == k { print $2 }' "$st"; }
uids=$(awk '$1 == "Uid:" { print $2, $3, $4, $5 }' "$st")
[ "$uids" = "$exp_uid $exp_uid $exp_uid $exp_uid" ] || fail "worker $pid: expected Uid $exp_uid x4, got $uids"
for c in CapInh CapPrm CapEff CapBnd CapAmb; do
	[ "$(get $c)" = 0000000000000000 ] || fail "worker $pid: expected $c 0, got $(get $c)"
done
[ "$(get NoNewPrivs)" = 1 ] || fail "worker $pid: expected NoNewPrivs 1, got $(get NoNewPrivs)"
[ "$(get Seccomp)" = 2 ] || fail "worker $pid: expected Seccomp 2 (a filter), got $(get Seccomp)"
# Nothing of the supervisor's open files: no regular file, no directory, no netlink socket.
for f in /proc/"$pid"/fd/*; do
	t=$(readlink "$f")
	case "$t" in
	socket:* | anon_inode:* | /dev/null | pipe:* | /memfd:* | /dev/pts/*) ;;
	"$tmp/phcd.log") ;; # stderr: the log channel phcd gave it
	*) fail "worker $pid: unexpected fd $f -> $t" ;;
	esac
done
echo "ok: worker $pid: Uid $uids, CapInh/Prm/Eff/Bnd/Amb 0, NoNewPrivs 1, Seccomp 2, fds: $(ls /proc/"$pid"/fd | tr '\n' ' ')"

# 3. The worker's filter (worker/sandbox.c, loaded by the probe as the worker loads it), as the
#    workers' user with no_new_privs: the file it tries to write is writable by that user, so
#    only the filter can refuse.
mkdir -m 0777 "$tmp/ctl"
victim=$tmp/ctl/victim
echo original >"$victim"
chmod 0666 "$victim"
setpriv --reuid="$exp_uid" --regid="$exp_uid" --clear-groups test -w "$victim" ||
	fail "control: uid $exp_uid should be able to write $victim without the filter"
setpriv --reuid="$exp_uid" --regid="$exp_uid" --clear-groups --no-new-privs \
	"$BUILD/tests/integration/tool-sandbox-probe" "$victim" >"$tmp/probe.out" 2>"$tmp/probe.err" ||
	fail "tool-sandbox-probe failed: $(cat "$tmp/probe.err")"
sanitized=$(meson introspect --buildoptions "$BUILD" 2>/dev/null |
	jq -r '.[] | select(.name == "b_sanitize") | .value' 2>/dev/null || echo none)
expect() { # PROBE REGEX
	local got
	got=$(awk -v p="$1" '$1 == p { $1 = ""; print substr($0, 2) }' "$tmp/probe.out")
	[[ "$got" =~ ^($2)$ ]] || fail "probe $1: expected '$2', got '$got' (all: $(tr '\n' ';' <"$tmp/probe.out"))"
}
expect bind 'refused EPERM'
expect socket 'refused EPERM'
expect setsockopt 'refused EPERM'
expect kill-parent 'refused EPERM'
expect mmap-exec 'refused EPERM'
expect open-rdonly allowed
expect kill-self allowed
if [ "$sanitized" = none ] || [ -z "$sanitized" ]; then
	expect ptrace 'refused EPERM'
	expect open-wronly 'refused EPERM'
	expect open-creat 'refused EPERM'
	expect chdir-unlisted 'killed SYS'
	grep -q 'seccomp: system call 80 is not on the worker.s allow-list' "$tmp/probe.err" ||
		fail "expected the SIGSYS line naming system call 80 (chdir), got: $(cat "$tmp/probe.err")"
	[ "$(cat "$victim")" = original ] || fail "the probe changed $victim: $(cat "$victim")"
else
	echo "SKIP: ptrace, open for writing and unlisted calls pass in a sanitizer build ($sanitized)"
fi
echo "ok: under the worker's filter: $(tr '\n' ';' <"$tmp/probe.out")"

# 4. A compromised worker inside the real one (the escape shim, once its filter is on): it may
#    send only through its own port's sockets, with no address; nothing goes out of s2, and no
#    socket can be made or rebound.
wait_for "$tmp/phcd.log" '^ESCAPE done' 20
grep '^ESCAPE ' "$tmp/phcd.log" >"$tmp/escape.out"
echo "inside the worker: $(tr '\n' ';' <"$tmp/escape.out")"
grep -q '^ESCAPE packet-fd ' "$tmp/escape.out" || fail "the shim found no packet socket in the worker"
while read -r _ _ fd _ ifindex _ proto; do
	[ "$ifindex" = "$S1_INDEX" ] ||
		fail "worker packet fd $fd: expected bound to s1 (ifindex $S1_INDEX), got ifindex $ifindex"
	[[ "$proto" =~ ^0x(88f7|0000)$ ]] ||
		fail "worker packet fd $fd: expected protocol 0x88f7 (or 0, no reception), got $proto"
done < <(grep '^ESCAPE packet-fd ' "$tmp/escape.out")
escape_expect() { # NAME REGEX: every line of NAME matches
	local lines
	lines=$(awk -v n="$1" '$2 == n' "$tmp/escape.out")
	[ -n "$lines" ] || fail "escape: no line for $1"
	while read -r line; do
		[[ "$line" =~ ^ESCAPE\ $1(\ fd\ [0-9]+)?\ ($2)$ ]] ||
			fail "escape $1: expected '$2', got '$line'"
	done <<<"$lines"
}
escape_expect sendmsg-other-if 'refused EPERM'
escape_expect sendmmsg-other-if 'refused EPERM'
escape_expect sendto-other-if 'refused EPERM'
escape_expect bind-other-if 'refused EPERM'
escape_expect socket-packet 'refused EPERM'
escape_expect socket-inet 'refused EPERM'
escape_expect send-own-if allowed
# The port still works through the same sockets: Announces keep coming on p1 after the attempt.
wait_for "$STATUS" '^port s1 .* state (MASTER|PRE_MASTER|LISTENING)' 5
kill "$CAP_PID" 2>/dev/null || true
wait "$CAP_PID" 2>/dev/null || true
leaked=$(tshark -r "$tmp/q2.pcapng" -Y 'eth.type == 0x88b5 || eth.src == 02:00:00:e5:ca:be' \
	-T fields -e frame.number 2>/dev/null | wc -l)
[ "$leaked" = 0 ] || fail "expected no frame of the worker out of s2, $leaked captured on q2"
echo "ok: a compromised worker cannot send out of another interface (0 frames on q2) nor make or rebind a socket"

# 5. The same on a UDPv4 port: the compromised worker's UDP sockets. q2 has an address on s2's
#    link (TEST-NET-2, this veth only) that the shim aims at.
kill "$PHCD_PID"
wait "$PHCD_PID" 2>/dev/null || true
ip -n "$S" addr add 192.0.2.1/24 dev s1 || fail "address on s1"
ip -n "$P" addr add 192.0.2.2/24 dev p1 || fail "address on p1"
ip -n "$S" addr add 198.51.100.1/24 dev s2 || fail "address on s2"
ip -n "$P" addr add 198.51.100.2/24 dev q2 || fail "address on q2"
ip netns exec "$P" dumpcap -q -i q2 -f udp -w "$tmp/q2-udp.pcapng" >"$tmp/q2-udp.log" 2>&1 &
CAP_PID=$!
BG_PIDS+=($CAP_PID)
deadline=$((SECONDS + 30))
until [ -s "$tmp/q2-udp.pcapng" ]; do
	[ "$SECONDS" -lt "$deadline" ] || fail "dumpcap did not start: $(cat "$tmp/q2-udp.log")"
	sleep 0.05
done
sed 's/^\[instance lab\]$/network_transport = UDPv4\n\n[instance lab]/' "$tmp/phcd.conf" >"$tmp/phcd-udp.conf"
phcd_start "$S" "$tmp/phcd-udp.conf" "$tmp/phcd-udp.log" --port-binary "$tmp/port-wrapper" \
	--status-file "$STATUS" --uds "" --uds-ro ""
wait_for "$tmp/phcd-udp.log" '^ESCAPE done' 20
grep '^ESCAPE ' "$tmp/phcd-udp.log" >"$tmp/escape.out"
echo "inside the UDP worker: $(tr '\n' ';' <"$tmp/escape.out")"
n=$(grep -c '^ESCAPE udp-fd ' "$tmp/escape.out" || true)
[ "$n" = 6 ] || fail "the UDP worker: expected its six UDP sockets, the shim found $n: $(cat "$tmp/escape.out")"
[ "$(grep -Ec '^ESCAPE udp-fd [0-9]+ port 319$' "$tmp/escape.out")" = 3 ] &&
	[ "$(grep -Ec '^ESCAPE udp-fd [0-9]+ port 320$' "$tmp/escape.out")" = 3 ] ||
	fail "the UDP worker: expected three sockets on port 319 and three on 320: $(grep udp-fd "$tmp/escape.out")"
escape_expect udp-sendto-addr 'refused EPERM'
escape_expect udp-sendmsg-addr 'refused EPERM'
escape_expect udp-connect-other 'refused EPERM'
escape_expect udp-setsockopt 'refused EPERM'
escape_expect udp-send-own 'allowed|failed EDESTADDRREQ'
[ "$(grep -c '^ESCAPE udp-send-own .* allowed$' "$tmp/escape.out")" = 4 ] ||
	fail "the UDP worker: expected sends with no address through its four connected sockets only: $(grep udp-send-own "$tmp/escape.out")"
wait_for "$STATUS" '^port s1 .* state (MASTER|PRE_MASTER|LISTENING)' 5
kill "$CAP_PID" 2>/dev/null || true
wait "$CAP_PID" 2>/dev/null || true
leaked=$(tshark -r "$tmp/q2-udp.pcapng" -Y 'frame contains "PHCD-ESCAPE"' -T fields -e frame.number \
	2>/dev/null | wc -l)
[ "$leaked" = 0 ] || fail "expected no datagram of the UDP worker on q2, $leaked captured"
echo "ok: a compromised UDP worker cannot send to another address (0 datagrams on q2), connect or reconfigure its sockets; it sends only to the groups it was connected to"
