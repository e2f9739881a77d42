#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# phcctl survives every shape of state, with a clear message and its documented exit code: no
# instances, an instance without ports (the default on a machine without a PHC), phcd absent,
# no system bus, and phcd going away while a command waits for its answer. Served by
# tool-bus-fake on a private bus.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin dbus

PHCCTL=$BUILD/phcctl/phcctl
dbus_start "$tmp/bus"

# expect RC WHAT CMD...: run phcctl CMD..., expect exit RC (139 is a crash) and, when WHAT is not
# empty, a line matching WHAT on stderr or stdout.
expect() {
	local want=$1 what=$2 rc=0
	shift 2
	"$PHCCTL" "$@" >"$tmp/o" 2>"$tmp/e" || rc=$?
	[ "$rc" = "$want" ] ||
		fail "phcctl $*: expected exit $want, got $rc; stdout: $(head -c 300 "$tmp/o"); stderr: $(cat "$tmp/e")"
	if [ -n "$what" ] && ! grep -Eq -- "$what" "$tmp/o" "$tmp/e"; then
		fail "phcctl $*: expected '$what', got stdout: $(head -c 300 "$tmp/o"); stderr: $(cat "$tmp/e")"
	fi
}

# --- phcd absent (the bus is there), then no bus at all: exit 6 and a sentence saying so
for cmd in status ports "port eth0" "instance default" reload "disable eth0" "status --json" \
	"ports --json" "instance default --json"; do
	# shellcheck disable=SC2086
	expect 6 '^phcctl: .*phcd is not running \(no org.phcd1 on the system bus\)$' $cmd
done
expect 5 'timed out after 0.3 s: phcd is not running' wait-sync --timeout 0.3
DBUS_SYSTEM_BUS_ADDRESS=unix:path=$tmp/nonexistent expect 6 '^phcctl: cannot connect to the system bus: ' status
# -M of a container that does not exist: exit 6 naming it (a running one: the nspawn tier).
expect 6 "^phcctl: cannot connect to the system bus of nosuch-$$: " -M "nosuch-$$" status
echo "ok: phcd absent: status, ports, port, instance, reload, disable (and --json) exit 6 saying so; no bus: exit 6"

# --- phcd activatable but stopped (systemctl stop phcd): reads never start it; a command that
# changes something may, and a failed activation (no unit, disabled: "Unit dbus-org.phcd1.service
# not found") is "not running", exit 6. A second bus whose launch helper only records the call.
mkdir -p "$tmp/act/system.d" "$tmp/act/services"
cat >"$tmp/act/helper" <<HELPER
#!/bin/sh
echo "\$1" >>"$tmp/act/activated"
exit 1
HELPER
chmod 755 "$tmp/act/helper"
cat >"$tmp/act/system.d/activation.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <servicedir>$tmp/act/services</servicedir>
  <servicehelper>$tmp/act/helper</servicehelper>
</busconfig>
CONF
printf '[D-BUS Service]\nName=org.phcd1\nExec=/bin/false\nUser=root\nSystemdService=dbus-org.phcd1.service\n' \
	>"$tmp/act/services/org.phcd1.service"
main_bus=$DBUS_SYSTEM_BUS_ADDRESS
dbus_start "$tmp/act"
for cmd in status ports "port eth0" "instance default" "status --json" "check-config /dev/null"; do
	# shellcheck disable=SC2086
	expect 6 '^phcctl: .*phcd is not running \(no org.phcd1 on the system bus\)$' $cmd
	[ ! -e "$tmp/act/activated" ] || fail "phcctl $cmd started phcd by D-Bus activation: $(cat "$tmp/act/activated")"
done
expect 5 'timed out after 0.3 s: phcd is not running' wait-sync --timeout 0.3
[ ! -e "$tmp/act/activated" ] || fail "phcctl wait-sync started phcd by D-Bus activation"
expect 6 '^phcctl: reload: phcd is not running and could not be started \(' reload
grep -qx org.phcd1 "$tmp/act/activated" || fail "phcctl reload: expected a D-Bus activation of org.phcd1, got: $(cat "$tmp/act/activated" 2>/dev/null)"
export DBUS_SYSTEM_BUS_ADDRESS=$main_bus
echo "ok: phcd activatable and stopped: status, ports, port, instance, check-config, wait-sync start nothing (exit 6, 5); reload tries and a failed activation exits 6"

bus_fake_start "$tmp"

# --- no instances at all
expect 0 '^No instances\.$' status
expect 0 '"Instances":\[\]' status --json
expect 0 'INTERFACE' ports
expect 0 '^\[\]$' ports --json
echo "ok: no instances: status says so, ports lists none, both also as JSON"

# --- an instance without ports: the state of any machine without a PHC
fake instance lonely
expect 0 '^  Ports: none$' status
expect 0 '^  Ports: none$' instance lonely
expect 0 '"Ports":\[\]' instance lonely --json
expect 0 '"Ports":\[\]' status --json
expect 0 '^\[\]$' ports --json
fake port veth0 lonely
fake instance empty
expect 0 '^  veth0 ' status
grep -q '^  Ports: none$' "$tmp/o" || fail "status: the instance without ports lacks 'Ports: none': $(cat "$tmp/o")"
echo "ok: an instance without ports: status, instance, ports (text and JSON) exit 0 with 'Ports: none'"

# --- wait-sync a boot can rely on: instances without ports do not block, a grandmaster of its
# domain is ready, a listening or unlocked instance is not; --json says per instance why.
fake rm-instance empty
fake rm-instance lonely
fake instance lonely
expect 0 '^lonely: no ports, nothing to synchronize \(does not block\)$' wait-sync --timeout 5
expect 0 '' wait-sync --timeout 5 --json
jq -e '.Ready and (.Instances | length == 1) and .Instances[0].Name == "lonely" and
	.Instances[0].Ports == 0 and .Instances[0].Ready and (.Instances[0].Reason | startswith("no ports"))' \
	"$tmp/o" >/dev/null || fail "wait-sync --json, instance without ports: $(cat "$tmp/o")"
fake instance gm
fake port veth0 gm
fake state veth0 LISTENING
expect 5 'instance gm: not synchronized \(servo unlocked\)' wait-sync --timeout 0.5 --json
jq -e '(.Ready | not) and .Reason == "instance gm: not synchronized (servo unlocked)" and
	([.Instances[] | select(.Name == "gm") | .Ready] == [false]) and
	([.Instances[] | select(.Name == "lonely") | .Ready] == [true])' "$tmp/o" >/dev/null ||
	fail "wait-sync --json, listening instance: $(cat "$tmp/o")"
"$PHCCTL" wait-sync --timeout 10 >"$tmp/ws" 2>&1 &
ws=$!
fake state veth0 MASTER
fake grandmaster gm 1
wait "$ws" || fail "wait-sync after the instance became grandmaster: $(cat "$tmp/ws")"
grep -q '^gm: grandmaster of domain 1: no better master heard within the announce receipt timeout and the qualification window$' "$tmp/ws" ||
	fail "wait-sync output for a grandmaster: $(cat "$tmp/ws")"
# phcd steers the system clock through instance gm, which is the grandmaster: nothing steers
# CLOCK_REALTIME, it is the reference; ready. Through an instance that follows a master: not.
fake system-clock gm
expect 0 '^system clock: not steered: system_clock_instance gm is the grandmaster' wait-sync --timeout 5
fake grandmaster gm 0
fake state veth0 SLAVE
expect 5 'the system clock is not locked yet \(system_clock_instance gm\)' wait-sync --timeout 0.5 --json
jq -e '(.Ready | not) and .SystemClock.Instance == "gm" and (.SystemClock.Ready | not)' "$tmp/o" \
	>/dev/null || fail "wait-sync --json with an unlocked system clock: $(cat "$tmp/o")"
fake system-clock none
# An instance whose interfaces name one that is not there yet: not ready, even as grandmaster
# on the ports it has, until the interface is a port (it counted as "no ports" before).
fake instance early
fake interfaces early eth9
expect 5 'instance early: waiting for eth9: named in its interfaces, not present yet' wait-sync --instance early --timeout 0.5 --json
jq -e '.Instances[] | select(.Name == "early") | (.Ready | not) and .MissingInterfaces == ["eth9"]' \
	"$tmp/o" >/dev/null || fail "wait-sync --json, missing interface: $(cat "$tmp/o")"
fake port eth9 early
fake state eth9 MASTER
fake grandmaster early 1
expect 0 '^early: grandmaster of domain' wait-sync --instance early --timeout 5
# Its port eth9 goes with it (the stand-in answered "rm-port eth9" after it with an error).
fake rm-instance early
echo "ok: wait-sync: an instance waiting for a configured interface is not ready, --json names it"
fake rm-instance gm
fake port veth0 lonely
echo "ok: wait-sync: no ports -> ready, listening -> exit 5 with the reason, grandmaster -> ready, --json per instance; system clock through a grandmaster -> ready"

# --- status says what is wrong and why, and whose quality is whose: Health with its reasons,
# no zeros before the first sample, the grandmaster's quality apart from the local clock's, and
# "why not synchronized" per instance and port in plain words (issue 30, items 2 and 6).
fake instance why
fake interfaces why eth-typo veth7
fake health why degraded interface-missing "interface eth-typo is named in the instance's interfaces but not present"
fake health manager degraded clock-conflict "phcd refuses to steer the system clock: chronyd (pid 9) steers it"
fake port veth7 why
fake state veth7 LISTENING
fake as-capable veth7 0
expect 0 '' instance why
for re in '^  Health +: degraded$' \
	"^ +interface eth-typo is named in the instance's interfaces but not present \(interface-missing\)$" \
	'^  Offset from master +: no sample yet$' '^ +not asCapable: 802.1AS carries no time over this link' \
	'^  Not synchronized +: eth-typo named in its interfaces, not a port \(see Health\)$'; do
	grep -Eq -- "$re" "$tmp/o" || fail "phcctl instance why: expected a line matching '$re', got: $(cat "$tmp/o")"
done
grep -q 'Offset from master *: +0 ns' "$tmp/o" && fail "phcctl instance why: an offset of 0 ns before any sample: $(cat "$tmp/o")"
expect 0 '' status
grep -Eq '^Health +: degraded$' "$tmp/o" && grep -Eq '^ +phcd refuses to steer the system clock: chronyd \(pid 9\) steers it \(clock-conflict\)$' "$tmp/o" ||
	fail "phcctl status: expected phcd's Health and its reason, got: $(cat "$tmp/o")"
fake interfaces why veth7
fake gm why 001122.3344.556677
fake gm-quality why 100 120 6
fake time-source why 0x20
expect 0 '' instance why
for re in '^  Grandmaster +: 001122\.3344\.556677, steps removed 1$' \
	'^  Grandmaster quality +: priority1 100, priority2 120, class 6, accuracy WITHIN_100NS, variance 0x4e5d, time source GNSS$' \
	'^  Local priority1/2 +: 128 / 128, class 248, accuracy UNKNOWN$' \
	'^  Not synchronized +: no port follows a master: veth7: not asCapable: 802\.1AS'; do
	grep -Eq -- "$re" "$tmp/o" || fail "phcctl instance why: expected a line matching '$re', got: $(cat "$tmp/o")"
done
fake as-capable veth7 1
fake state veth7 SLAVE
fake sample-time why 1764547201000000 13345678
fake sample why 12 345 1.5
expect 0 '^  Offset from master +: \+12 ns$' instance why
grep -Eq '^  Not synchronized +: following a master, servo unlocked: the offset has not met the lock threshold yet$' "$tmp/o" ||
	fail "phcctl instance why, SLAVE and unlocked: expected the threshold not met, got: $(cat "$tmp/o")"
fake servo why LOCKED
expect 0 '^  Synchronized +: yes$' instance why
grep -q 'Not synchronized' "$tmp/o" && fail "phcctl instance why, synchronized: still says why not: $(cat "$tmp/o")"
fake link veth7 down
fake servo why UNLOCKED
fake state veth7 FAULTY
expect 0 '^  Not synchronized +: no port follows a master: veth7: link down$' instance why
fake rm-instance why
fake health manager ok
echo "ok: status and instance: Health with reasons, no offset before a sample, grandmaster quality apart from the local clock, why not synchronized (missing interface, asCapable, threshold, link)"

# --- wait-sync of an instance phcd does not have: exit 3 at once, not a wait for the timeout
t0=$SECONDS
expect 3 "No instance 'nosuch' in the running configuration" wait-sync --instance nosuch --timeout 20
[ $((SECONDS - t0)) -lt 10 ] || fail "wait-sync --instance nosuch took $((SECONDS - t0)) s, expected an exit at once"
echo "ok: wait-sync --instance of an unknown name: exit 3 at once"

# --- set-grandmaster-settings (linuxptp's GRANDMASTER_SETTINGS_NP keys) and check-config
expect 0 '' set-grandmaster-settings lonely clockClass 6 clockAccuracy 0x21 offsetScaledLogVariance 0x4e5d \
	currentUtcOffset 37 leap61 0 leap59 0 currentUtcOffsetValid 1 timeTraceable 1 frequencyTraceable 1 timeSource 0x20
wait_for "$FAKE_OUT" '^call set-grandmaster-settings lonely 6$' 5
expect 2 "unknown key 'clockclass'" set-grandmaster-settings lonely clockclass 6 clockAccuracy 0x21 \
	offsetScaledLogVariance 0x4e5d currentUtcOffset 37 leap61 0 leap59 0 currentUtcOffsetValid 1 timeTraceable 1 \
	frequencyTraceable 1 timeSource 0x20
expect 2 'takes NAME and 10 KEY VALUE pairs' set-grandmaster-settings lonely clockClass 6
expect 3 "No instance 'nosuch'" set-grandmaster-settings nosuch clockClass 6 clockAccuracy 0x21 \
	offsetScaledLogVariance 0x4e5d currentUtcOffset 37 leap61 0 leap59 0 currentUtcOffsetValid 1 timeTraceable 1 \
	frequencyTraceable 1 timeSource 0x20
printf '[instance a]\ninterfaces = eth0\npriority1 = 300\n' >"$tmp/bad.conf"
expect 1 '^<text>:3: .*priority1' check-config "$tmp/bad.conf"
printf '[instance a]\ninterfaces = eth0\n' >"$tmp/good.conf"
expect 0 '^<text>: OK, 1 file\(s\), 1 instance\(s\)$' check-config - <"$tmp/good.conf"
grep -q '^call reload' "$FAKE_OUT" && fail "check-config reloaded phcd: $(cat "$FAKE_OUT")"
expect 0 'until a reload that changes this instance' --help
echo "ok: set-grandmaster-settings calls SetGrandmasterSettings (usage errors exit 2, unknown instance 3); check-config: exit 1 with file:line, 0 with the summary, nothing applied"

# --- one-line usage errors (exit 2), as systemctl: never the whole help on a typo
expect 2 '^phcctl: unknown option --x; see phcctl --help$' --x status
expect 2 '^phcctl: unknown option -Q; see phcctl --help$' -Q status
expect 2 '^phcctl: option --json=1 takes no argument; see phcctl --help$' --json=1 status
expect 2 '^phcctl: option --timeout needs an argument; see phcctl --help$' wait-sync --timeout
expect 2 '^phcctl: unknown command .frob.; see phcctl --help$' frob
expect 2 '^phcctl: no command given; see phcctl --help$'
expect 2 '^phcctl: port takes 1 argument, not 0; see phcctl --help$' port
expect 2 '^phcctl: --host and --machine exclude each other; see phcctl --help$' -H a -M b status
for args in "--x status" "frob" "port" "--timeout"; do
	# shellcheck disable=SC2086
	n=$("$PHCCTL" $args 2>&1 | wc -l) || true
	[ "$n" = 1 ] || fail "phcctl $args: expected one line of usage error, got $n"
done
echo "ok: usage errors are one line each, exit 2"

# --- the pager: on a terminal (script(1) gives phcctl one) the output goes through $PAGER,
# never with --no-pager, nor into a pipe
PAGER="sed s/^/PAGED:/" script -qec "$PHCCTL status" /dev/null >"$tmp/tty" 2>&1 || true
grep -q '^PAGED:Instance lonely' "$tmp/tty" || fail "status on a terminal: expected it through \$PAGER, got: $(cat "$tmp/tty")"
PAGER="sed s/^/PAGED:/" script -qec "$PHCCTL --no-pager status" /dev/null >"$tmp/tty" 2>&1 || true
grep -q '^Instance lonely' "$tmp/tty" && ! grep -q PAGED "$tmp/tty" ||
	fail "status --no-pager on a terminal: expected no pager, got: $(cat "$tmp/tty")"
PAGER="sed s/^/PAGED:/" expect 0 '^Instance lonely' status
grep -q PAGED "$tmp/o" && fail "status into a file went through the pager: $(cat "$tmp/o")"
echo "ok: pager on a terminal, not with --no-pager, not into a file"

# --- polkit may ask only someone at a terminal, and never with --no-ask-password: the flag
# ALLOW_INTERACTIVE_AUTHORIZATION (4) of the method call, as busctl monitor shows it
busctl --system monitor org.phcd1 >"$tmp/flags" 2>&1 &
mon=$!
BG_PIDS+=($mon)
wait_for "$tmp/flags" 'Monitoring bus message stream' 10
for how in tty tty-no-ask pipe; do
	from=$(wc -l <"$tmp/flags")
	case $how in
	tty) script -qec "$PHCCTL restart veth0" /dev/null >/dev/null 2>&1 || true ;;
	tty-no-ask) script -qec "$PHCCTL --no-ask-password restart veth0" /dev/null >/dev/null 2>&1 || true ;;
	pipe) "$PHCCTL" restart veth0 </dev/null >/dev/null 2>&1 || true ;;
	esac
	wait_for "$tmp/flags" 'Member=Restart' 10 "$from"
	flags=$(tail -n +$((from + 1)) "$tmp/flags" | grep -B 12 'Member=Restart' |
		sed -n 's/.*Type=method_call .*Flags=\([0-9]*\).*/\1/p' | tail -n 1)
	case $how in
	tty) [ $((flags & 4)) = 4 ] || fail "restart on a terminal: expected flag 4 (interactive authorization) in Flags=$flags" ;;
	*) [ $((flags & 4)) = 0 ] || fail "restart ($how): expected no interactive authorization, Flags=$flags" ;;
	esac
done
kill "$mon"
echo "ok: interactive authorization on a terminal only, never with --no-ask-password"

# --- bash completion: commands, options, and the ports and instances phcd has now
complete_words() {
	PATH=$BUILD/phcctl:$PATH bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1));
		_phcctl; printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " " | sed "s/ $//"' _ "$SRC/phcctl/phcctl.bash-completion" "$@"
}
[ "$(complete_words phcctl po)" = "port ports" ] || fail "completion of 'po': $(complete_words phcctl po)"
[ "$(complete_words phcctl --no-p)" = "--no-pager" ] || fail "completion of '--no-p': $(complete_words phcctl --no-p)"
[ "$(complete_words phcctl restart v)" = "veth0" ] || fail "completion of 'restart v': $(complete_words phcctl restart v)"
[ "$(complete_words phcctl --json instance l)" = "lonely" ] || fail "completion of 'instance l': $(complete_words phcctl --json instance l)"
[ "$(complete_words phcctl wait-sync --instance "")" = "lonely" ] || fail "completion of '--instance': $(complete_words phcctl wait-sync --instance "")"
echo "ok: bash completion of commands, options, ports and instances"

# --- phcd goes away while phcctl waits for its answer: the stand-in is stopped, phcctl's call
# is seen on the bus, then the stand-in is killed; the bus answers NoReply.
dbus-monitor --system "type='method_call',destination='org.phcd1'" >"$tmp/calls" 2>&1 &
BG_PIDS+=($!)
wait_for "$tmp/calls" 'NameAcquired|signal' 10
"$PHCCTL" monitor >"$tmp/mon" 2>"$tmp/mon.err" &
BG_PIDS+=($!)
"$PHCCTL" monitor --json >"$tmp/monj" 2>"$tmp/monj.err" &
BG_PIDS+=($!)
wait_for "$tmp/mon.err" '^Monitoring' 10
wait_for "$tmp/monj.err" '^Monitoring' 10
kill -STOP "$FAKE_PID"
from=$(wc -l <"$tmp/calls")
"$PHCCTL" status >"$tmp/o" 2>"$tmp/e" &
ctl=$!
wait_for "$tmp/calls" 'member=GetAll' 10 "$from"
kill -KILL "$FAKE_PID"
rc=0
wait "$ctl" || rc=$?
[ "$rc" = 6 ] && grep -q '^phcctl: .*phcd went away before it answered (org.freedesktop.DBus.Error.NoReply)$' "$tmp/e" ||
	fail "phcd killed mid-command: expected exit 6 saying phcd went away, got $rc: $(cat "$tmp/e")"
echo "ok: phcd killed while status waited for it: exit 6, $(cat "$tmp/e")"
# phcctl monitor notices phcd leaving the bus (it keeps watching for its return).
wait_for "$tmp/mon" '^[0-9:.]+ phcd exited \(left the bus\)$' 10
wait_for "$tmp/monj" '"signal":"NameOwnerChanged".*"phcd":"exited"' 10
echo "ok: phcctl monitor: $(tail -n 1 "$tmp/mon")"
echo PASS
