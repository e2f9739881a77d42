#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# phcctl -H: phcd's API read from another host over ssh, as systemctl -H does. The "server"
# namespace runs an sshd whose sessions are systemd-stdio-bridge on a private system bus served
# by tool-bus-fake; phcctl in the "client" namespace, with no bus of its own, reaches it as
# root@10.x over a veth pair with a key made for this test (host key checked, no password).
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin dbus

PHCCTL=$BUILD/phcctl/phcctl
SSHD=/usr/sbin/sshd
[ -x "$SSHD" ] || { echo "SKIP: no $SSHD (openssh-server, scripts/deps.sh)"; exit 77; }
command -v systemd-stdio-bridge >/dev/null || { echo "SKIP: no systemd-stdio-bridge"; exit 77; }

made_privsep=
test_on_exit '[ -n "$made_privsep" ] && rmdir /run/sshd 2>/dev/null || true'
test_on_exit '[ -s "$tmp/sshd.pid" ] && kill "$(cat "$tmp/sshd.pid")" 2>/dev/null || true'

srv=phcsrv$$
cli=phccli$$
netns_pair "$srv" "$cli" "vs$$" "vc$$"
ip -n "$srv" addr add 10.77.18.1/24 dev "vs$$"
ip -n "$cli" addr add 10.77.18.2/24 dev "vc$$"

# The server's bus, with the stand-in of phcd on it.
dbus_start "$tmp/bus"
bus=$DBUS_SYSTEM_BUS_ADDRESS
bus_fake_start "$tmp"
fake instance remote
fake port veth0 remote
fake state veth0 MASTER
fake grandmaster remote 1

# Keys made here: the server's host key and the client's key, nothing of the machine's.
ssh-keygen -q -t ed25519 -N '' -f "$tmp/host_key" -C phcd-test-host
ssh-keygen -q -t ed25519 -N '' -f "$tmp/id" -C phcd-test-client
cp "$tmp/id.pub" "$tmp/authorized_keys"
echo "10.77.18.1 $(cut -d' ' -f1,2 "$tmp/host_key.pub")" >"$tmp/known_hosts"
# sd-bus runs `ssh -xT root@HOST systemd-stdio-bridge`; the server makes every session the
# bridge to its private bus (the machine's bus would be /run/dbus/system_bus_socket).
cat >"$tmp/sshd_config" <<CONF
ListenAddress 10.77.18.1
HostKey $tmp/host_key
PidFile $tmp/sshd.pid
AuthorizedKeysFile $tmp/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
ForceCommand /usr/bin/systemd-stdio-bridge --bus-path=$bus
CONF
cat >"$tmp/ssh_config" <<CONF
Host *
	IdentityFile $tmp/id
	IdentitiesOnly yes
	UserKnownHostsFile $tmp/known_hosts
	GlobalKnownHostsFile /dev/null
	StrictHostKeyChecking yes
	BatchMode yes
	ConnectTimeout 10
CONF
# The ssh that sd-bus runs (found on PATH) with this test's configuration.
mkdir "$tmp/bin"
printf '#!/bin/sh\nexec /usr/bin/ssh -F %s "$@"\n' "$tmp/ssh_config" >"$tmp/bin/ssh"
chmod 755 "$tmp/bin/ssh"
# sshd's privilege separation directory, as its unit's RuntimeDirectory would make it.
if [ ! -d /run/sshd ]; then
	mkdir -m 755 /run/sshd
	made_privsep=1
fi
ip netns exec "$srv" "$SSHD" -D -e -f "$tmp/sshd_config" 2>"$tmp/sshd.log" &
BG_PIDS+=($!)
deadline=$((SECONDS + 10))
until ip netns exec "$srv" ss -Htln 'sport = :22' | grep -q 10.77.18.1; do
	[ "$SECONDS" -lt "$deadline" ] || fail "sshd did not listen on 10.77.18.1:22: $(cat "$tmp/sshd.log")"
	sleep 0.05
done

# remote ARGS...: phcctl in the client namespace, without the server's bus in its environment.
remote() {
	env -u DBUS_SYSTEM_BUS_ADDRESS PATH="$tmp/bin:$PATH" ip netns exec "$cli" "$PHCCTL" "$@"
}
expect() {
	local want=$1 what=$2 rc=0
	shift 2
	remote "$@" >"$tmp/o" 2>"$tmp/e" || rc=$?
	[ "$rc" = "$want" ] ||
		fail "phcctl $*: expected exit $want, got $rc; stdout: $(head -c 300 "$tmp/o"); stderr: $(cat "$tmp/e"); sshd: $(tail -n 5 "$tmp/sshd.log")"
	if [ -n "$what" ] && ! grep -Eq -- "$what" "$tmp/o" "$tmp/e"; then
		fail "phcctl $*: expected '$what', got stdout: $(head -c 300 "$tmp/o"); stderr: $(cat "$tmp/e")"
	fi
}

expect 0 '^Instance remote: domain ' -H root@10.77.18.1 status
grep -Eq '^  veth0 +MASTER ' "$tmp/o" || fail "status over ssh: expected port veth0 MASTER: $(cat "$tmp/o")"
grep -q 'Accepted publickey for root from 10.77.18.2' "$tmp/sshd.log" ||
	fail "status over ssh: sshd did not log the client's key login: $(cat "$tmp/sshd.log")"
echo "ok: phcctl -H root@10.77.18.1 status from the other namespace, over ssh (key login seen by sshd)"
expect 0 '' -H root@10.77.18.1 status --json
jq -e '.Instances[0].Name == "remote" and .Ports[0].Interface == "veth0" and .Ports[0].State == "MASTER"' \
	"$tmp/o" >/dev/null || fail "status --json over ssh: $(head -c 500 "$tmp/o")"
expect 0 '' --host=root@10.77.18.1 ports --json
jq -e 'length == 1 and .[0].Interface == "veth0"' "$tmp/o" >/dev/null || fail "ports --json over ssh: $(cat "$tmp/o")"
expect 0 '' -H root@10.77.18.1 wait-sync --timeout 10 --json
jq -e '.Ready and .Instances[0].Name == "remote" and .Instances[0].IsGrandmaster' "$tmp/o" >/dev/null ||
	fail "wait-sync --json over ssh: $(cat "$tmp/o")"
echo "ok: status --json, ports --json and wait-sync --json over ssh"

# Signals travel too: monitor over ssh sees a state change made on the server.
remote -H root@10.77.18.1 monitor --json >"$tmp/mon" 2>"$tmp/mon.err" &
BG_PIDS+=($!)
wait_for "$tmp/mon.err" '^Monitoring' 20
fake state veth0 LISTENING
wait_for "$tmp/mon" '"path":"/org/phcd1/port/veth0".*"State":"LISTENING"' 10
echo "ok: monitor --json over ssh sees a port's state change"

# A mutating call over ssh is made as root on the server.
from=$(wc -l <"$tmp/out")
expect 0 '' -H root@10.77.18.1 --no-ask-password restart veth0
wait_for "$tmp/out" 'restart veth0' 10 "$from"
echo "ok: restart over ssh reached the server's phcd"

# Nobody listening, and a host whose key is not the known one: exit 6, saying which host.
expect 6 '^phcctl: .*' -H root@10.77.18.2 status
grep -q '10.77.18.2' "$tmp/e" || fail "unreachable host: the message does not name it: $(cat "$tmp/e")"
echo "ok: -H to a host without sshd: exit 6, $(head -n 1 "$tmp/e")"
ssh-keygen -q -t ed25519 -N '' -f "$tmp/other_key"
echo "10.77.18.1 $(cut -d' ' -f1,2 "$tmp/other_key.pub")" >"$tmp/known_hosts"
expect 6 '10.77.18.1' -H root@10.77.18.1 status
echo "ok: -H to a host with another host key: exit 6, refused"
echo PASS
