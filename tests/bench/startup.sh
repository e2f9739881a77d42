#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Start-up: from exec to READY=1 (sd_notify) and to SLAVE, for phcd with N one-port instances
# against ptp4l grandmasters; ptp4l beside it, from exec to UNCALIBRATED (ptp4l -s
# --free_running 1 never reaches SLAVE; phcd's UNCALIBRATED is the same moment: a master
# chosen, the first Sync awaited).
#
# A small launcher (python3) binds a NOTIFY_SOCKET, takes the time, starts the daemon with
# subprocess.Popen (fork + exec, under `ip netns exec` and capsh, which the launcher itself runs
# under, so they are not counted) and records when READY=1 arrives and when a line matching a
# regular expression first shows in the status file or log (polled every millisecond). RUNS
# runs, phcd and ptp4l interleaved; the grandmasters run throughout (Announce 4/s, Sync 8/s).
#
# usage: BUILD=build-dir tests/bench/startup.sh [RUNS [PORTS]]   (root; default 10 1)
# Not a pass/fail test and not in any meson suite. Results: docs/performance.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
SRC=${SRC:-$(cd "$here/../.." && pwd)}
BUILD=${BUILD:-$SRC/build}
RUNS=${1:-10}
N=${2:-1}
. "$SRC/tests/lib/net-helpers.sh"
. "$SRC/tests/lib/dbus-helpers.sh"
. "$SRC/tests/lib/ptp-helpers.sh"

PHCD=$BUILD/daemon/phcd
[ -x "$PHCD" ] || fail "no $PHCD: build first (ninja -C $BUILD)"
tmp=$(mktemp -d)
S=phup-s$$ P=phup-p$$
trap 'net_cleanup; dbus_cleanup; rm -rf "$tmp"' EXIT
# READY=1 comes after org.phcd1 is on the bus: a private system bus, as deployed.
chmod 755 "$tmp"
dbus_start "$tmp/bus"
netns_add "$S"
netns_add "$P"
for i in $(seq 1 "$N"); do
	veth_add "$S" "s$i" "$P" "p$i"
	ptp4l_gm "$P" "p$i" "$tmp/gm$i.uds" "$tmp/gm$i.log"
done
phcd_fast_global >"$tmp/phcd.conf"
for i in $(seq 1 "$N"); do
	printf '\n[instance i%d]\ninterfaces = s%d\nclock_backend = virtual\n' "$i" "$i"
done >>"$tmp/phcd.conf"

cat >"$tmp/launch.py" <<'PY'
# launch.py SOCKET TIMEOUT NAME:FILE:COUNT:REGEX... -- CMD...: times from exec to READY=1 and
# to COUNT lines of FILE matching REGEX, in ms ("-" if it never came).
import os, re, select, socket, subprocess, sys, time
sock_path, timeout = sys.argv[1], float(sys.argv[2])
sep = sys.argv.index("--")
marks = [m.split(":", 3) for m in sys.argv[3:sep]]
cmd = sys.argv[sep + 1:]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sock_path)
env = dict(os.environ, NOTIFY_SOCKET=sock_path)
log = open(os.path.join(os.path.dirname(sock_path), "daemon.log"), "w")
t0 = time.monotonic()
p = subprocess.Popen(cmd, env=env, stdout=log, stderr=log)
got = {}
# Done when every mark came (READY=1 counts only if it came by then: ptp4l sends none).
while time.monotonic() - t0 < timeout and not all(m[0] in got for m in marks):
    if select.select([s], [], [], 0.001)[0]:
        if b"READY=1" in s.recv(4096) and "ready" not in got:
            got["ready"] = time.monotonic() - t0
    for name, path, count, rx in marks:
        if name in got:
            continue
        try:
            with open(path) as f:
                if len(re.findall(rx, f.read(), re.M)) >= int(count):
                    got[name] = time.monotonic() - t0
        except FileNotFoundError:
            pass
p.terminate()
p.wait()
print(" ".join(f"{n}={got[n] * 1000:.1f}" if n in got else f"{n}=-"
               for n in ["ready"] + [m[0] for m in marks]))
PY

run_one() { # NAME CMD...: one launch in S, its marks appended to results
	local name=$1 dir=$tmp/run
	shift
	rm -rf "$dir"
	mkdir "$dir"
	ip netns exec "$S" capsh --drop=cap_sys_time -- -c "exec python3 $tmp/launch.py $dir/notify 30 $*" |
		sed "s/^/$name /" >>"$tmp/results"
}

echo "# startup: $RUNS runs, $N port(s), $(uname -r), $(nproc) CPUs, $(ptp4l -v 2>&1 | head -n 1) ptp4l"
echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
for run in $(seq 1 "$RUNS"); do
	run_one phcd "uncal:$tmp/run/status:$N:'state (UNCALIBRATED|SLAVE) '" \
		"slave:$tmp/run/status:$N:'state SLAVE '" -- "$PHCD" -f "$tmp/phcd.conf" \
		--status-file "$tmp/run/status"
	# ptp4l: one process per port, as it would be run; N > 1 is launched as N launches.
	run_one ptp4l "uncal:$tmp/run/daemon.log:1:'to UNCALIBRATED'" -- ptp4l -i s1 -2 -S -m -s \
		--free_running 1 $PTP4L_FAST --uds_address "$tmp/run/uds"
	tail -n 2 "$tmp/results"
done
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "# daemon mark n mean sd min median max (ms from exec)"
for d in phcd ptp4l; do
	for m in ready uncal slave; do
		awk -v d="$d" -v m="$m" '$1 == d { for (i = 2; i <= NF; i++) { split($i, kv, "=");
			if (kv[1] == m && kv[2] != "-") print kv[2] } }' "$tmp/results" | sort -n |
			awk -v d="$d" -v m="$m" '{ v[NR] = $1; s += $1; q += $1 * $1 }
			END { if (!NR) exit; mean = s / NR; sd = NR > 1 ? sqrt((q - NR * mean * mean) / (NR - 1)) : 0
				printf "%-5s %-5s %3d %8.1f %7.1f %8.1f %8.1f %8.1f\n", d, m, NR, mean, sd,
					v[1], v[int((NR + 1) / 2)], v[NR] }'
	done
done
