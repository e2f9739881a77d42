#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Footprint and scale: memory and CPU of phcd (supervisor and each worker) with N ports, against
# N ptp4l processes doing the same job, for N = 1 2 4 ... MAX.
#
# N veth pairs join namespace S (the slaves) to namespace P, where N ptp4l grandmasters (one per
# link, priority1 100, fast rates: Sync 8/s, Announce 4/s) run throughout. In S, in turn:
#   phcd     one supervisor, N one-port instances (ordinary clocks, clock_backend =
#            free_running), so N workers, each SLAVE of its link's grandmaster; it serves
#            org.phcd1 on a private system bus (nobody queries it during the window);
#   ptp4l    N `ptp4l -s --free_running 1` processes, one per link, same rates.
# Both measure offsets and never adjust a clock, with the same messages on the wire. Each holder
# is measured once its ports are SLAVE (phcd) or UNCALIBRATED (ptp4l --free_running 1 stays
# there) and WINDOW seconds have passed: then over WINDOW seconds, CPU = ns on a CPU from
# /proc/PID/schedstat (first field; every process here is single-threaded), memory = RssAnon and
# VmRSS from /proc/PID/status, Pss from smaps_rollup (shared pages split between the processes
# that map them, so it adds up). Sizes run in increasing order, RUNS times; each size measures
# phcd and ptp4l back to back (and phcd-base between them with BASE set).
#
# usage: BUILD=build-dir tests/bench/footprint.sh [MAX [WINDOW [RUNS]]]   (root; default 64 10 2)
#   SIZES="64"       the sizes to run instead of 1 2 4 ... MAX
#   BASE=build-dir   also a second phcd build (holder phcd-base), e.g. main before a change,
#                    measured in the same runs
#   STRACE=S         in run 1, after the window, `strace -c` one worker, then the supervisor
#                    (and one ptp4l) for S seconds each: the syscalls per second of each
#                    (printed at the end)
#   SMAPS=1          in run 1, after the window: Pss, Rss and anonymous kB per mapping (file
#                    name, [heap], [stack], [anon]) of the supervisor, one worker and one ptp4l
#                    from /proc/PID/smaps (printed at the end)
#   OWN=1            after each window, each holder's Pss counted among its own processes only
#                    (tests/bench/pss-own.py: a page other processes also map is not split with
#                    them), which other benches or daemons on the machine do not lower; libc
#                    counts whole there, shared with nothing (printed at the end)
# Not a pass/fail test and not in any meson suite. Results: docs/performance.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
SRC=${SRC:-$(cd "$here/../.." && pwd)}
BUILD=${BUILD:-$SRC/build}
MAX=${1:-64}
WINDOW=${2:-10}
RUNS=${3:-2}
. "$SRC/tests/lib/net-helpers.sh"
. "$SRC/tests/lib/dbus-helpers.sh"
. "$SRC/tests/lib/ptp-helpers.sh"

PHCD=$BUILD/daemon/phcd
[ -x "$PHCD" ] || fail "no $PHCD: build first (ninja -C $BUILD)"
BASE=${BASE:-}
[ -z "$BASE" ] || [ -x "$BASE/daemon/phcd" ] || fail "no $BASE/daemon/phcd"
command -v ptp4l >/dev/null || fail "ptp4l missing (linuxptp)"
tmp=$(mktemp -d)
S=phfp-s$$ P=phfp-p$$
HOLDER_PIDS=()
stop_holders() {
	local p
	for p in "${HOLDER_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${HOLDER_PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
	HOLDER_PIDS=()
}
trap 'stop_holders; net_cleanup; dbus_cleanup; rm -rf "$tmp"' EXIT
# phcd serves org.phcd1 on a private system bus, as deployed (its objects are in the figures).
chmod 755 "$tmp"
dbus_start "$tmp/bus"
netns_add "$S"
netns_add "$P"
for i in $(seq 1 "$MAX"); do
	veth_add "$S" "s$i" "$P" "p$i"
	ptp4l_gm "$P" "p$i" "$tmp/gm$i.uds" "$tmp/gm$i.log"
done

# cpu PID: ns spent on a CPU (schedstat's first field: exact, where stat's utime + stime count
# 10 ms ticks); wakeups PID: how many times it was put on a CPU (the third field: one per wakeup
# of a process that sleeps between events, plus any preemption).
cpu() { awk '{ print $1 }' "/proc/$1/schedstat" 2>/dev/null || echo 0; }
wakeups() { awk '{ print $3 }' "/proc/$1/schedstat" 2>/dev/null || echo 0; }
# mem PID: "RssAnon VmRSS Pss" in kB.
mem() {
	local a r p
	a=$(awk '$1 == "RssAnon:" { print $2 }' "/proc/$1/status")
	r=$(awk '$1 == "VmRSS:" { print $2 }' "/proc/$1/status")
	p=$(awk '$1 == "Pss:" { print $2 }' "/proc/$1/smaps_rollup")
	echo "$a $r $p"
}
# measure RUN N HOLDER ROLE PID...: one result line per process, after WINDOW seconds of load.
measure() {
	local run=$1 n=$2 holder=$3 role=$4 p
	shift 4
	declare -A c0 w0
	for p in "$@"; do
		c0[$p]=$(cpu "$p")
		w0[$p]=$(wakeups "$p")
	done
	sleep "$WINDOW"
	for p in "$@"; do
		echo "$run $n $holder $role $p $(($(cpu "$p") - c0[$p])) $(mem "$p")" \
			"$(($(wakeups "$p") - w0[$p]))" >>"$tmp/results"
	done
}

# own RUN N HOLDER PID...: the holder's Pss among its own processes (OWN=1), for the end.
own() {
	[ -n "${OWN:-}" ] || return 0
	echo "$1 $2 $3 $(python3 "$here/pss-own.py" "${@:4}")" >>"$tmp/own"
}

# syscalls RUN N HOLDER PID: strace -c of PID for STRACE seconds (run 1 only), kept for the end.
syscalls() {
	[ -n "${STRACE:-}" ] && [ "$1" = 1 ] || return 0
	timeout -s INT "$STRACE" strace -c -p "$4" -o "$tmp/strace-$3-$2" 2>/dev/null || true
}

# by_mapping RUN N HOLDER PID: PID's smaps summed per mapping name (run 1, with SMAPS), for the end.
by_mapping() {
	[ -n "${SMAPS:-}" ] && [ "$1" = 1 ] || return 0
	awk '/^[0-9a-f]+-[0-9a-f]+ / { n = $6 == "" ? "[anon]" : $6; sub(".*/", "", n); next }
		$1 == "Pss:" { p[n] += $2 } $1 == "Rss:" { r[n] += $2 } $1 == "Anonymous:" { a[n] += $2 }
		END { for (k in p) if (r[k]) { printf "%7d %7d %7d  %s\n", p[k], r[k], a[k], k; tp += p[k]; tr += r[k]; ta += a[k] }
		      printf "%7d %7d %7d  total\n", tp, tr, ta }' "/proc/$4/smaps" |
		sort -k1,1nr >"$tmp/smaps-$3-$2"
}

# ports_json: phcd's port objects as [{State, WorkerPID}, ...] ([] while it is not on the bus).
ports_json() {
	busctl --system --json=short call org.phcd1 /org/phcd1 \
		org.freedesktop.DBus.ObjectManager GetManagedObjects 2>/dev/null |
		jq '[.data[0] | to_entries[] | select(.key | startswith("/org/phcd1/port/")) |
			.value["org.phcd1.Port"] | { State: .State.data, WorkerPID: .WorkerPID.data }]' ||
		echo '[]'
}

run_phcd() { # RUN N [BUILD-DIR HOLDER]
	local run=$1 n=$2 i deadline pids=() phcd=${3:-$BUILD}/daemon/phcd holder=${4:-phcd}
	phcd_fast_global >"$tmp/phcd.conf"
	for i in $(seq 1 "$n"); do
		printf '\n[instance i%d]\ninterfaces = s%d\nclock_backend = free_running\n' "$i" "$i"
	done >>"$tmp/phcd.conf"
	local t0=$(date +%s%N)
	# No --status-file: rewriting it on every worker status is test machinery, not the
	# daemon's cost. The ports are watched over D-Bus instead.
	ip netns exec "$S" capsh --drop=cap_sys_time -- -c \
		"exec $phcd -f $tmp/phcd.conf" >"$tmp/phcd.log" 2>&1 &
	HOLDER_PIDS+=($!)
	local sup=$!
	deadline=$((SECONDS + 30 + n))
	until [ "$(ports_json | jq '[.[] | select(.State == "SLAVE")] | length')" = "$n" ]; do
		[ "$SECONDS" -lt "$deadline" ] || fail "phcd: not all $n ports SLAVE: $(tail -n 5 "$tmp/phcd.log")"
		sleep 0.2
	done
	echo "$run $n $holder all-slave-ms $((($(date +%s%N) - t0) / 1000000))" >>"$tmp/startup"
	sleep "$WINDOW"
	mapfile -t pids < <(ports_json | jq '.[].WorkerPID')
	[ "${#pids[@]}" = "$n" ] || fail "phcd: expected $n workers, status lists ${#pids[@]}"
	measure "$run" "$n" "$holder" supervisor "$sup" &
	local m=$!
	measure "$run" "$n" "$holder" worker "${pids[@]}"
	wait "$m"
	own "$run" "$n" "$holder" "$sup" "${pids[@]}"
	by_mapping "$run" "$n" "$holder-supervisor" "$sup"
	by_mapping "$run" "$n" "$holder-worker" "${pids[0]}"
	syscalls "$run" "$n" "$holder" "${pids[0]}"
	syscalls "$run" "$n" "$holder-supervisor" "$sup"
	stop_holders
}

run_ptp4l() { # RUN N
	local run=$1 n=$2 i deadline pids=()
	for i in $(seq 1 "$n"); do
		ip netns exec "$S" capsh --drop=cap_sys_time -- -c "exec ptp4l -i s$i -2 -S -m -s \
			--free_running 1 $PTP4L_FAST --uds_address $tmp/sl$i.uds" >"$tmp/sl$i.log" 2>&1 &
		HOLDER_PIDS+=($!)
		pids+=($!)
	done
	deadline=$((SECONDS + 30 + n))
	for i in $(seq 1 "$n"); do
		until grep -q 'to UNCALIBRATED' "$tmp/sl$i.log"; do
			[ "$SECONDS" -lt "$deadline" ] || fail "ptp4l on s$i not UNCALIBRATED: $(tail -n 3 "$tmp/sl$i.log")"
			sleep 0.1
		done
	done
	sleep "$WINDOW"
	measure "$run" "$n" ptp4l slave "${pids[@]}"
	own "$run" "$n" ptp4l "${pids[@]}"
	by_mapping "$run" "$n" ptp4l "${pids[0]}"
	syscalls "$run" "$n" ptp4l "${pids[0]}"
	stop_holders
}

sizes=()
if [ -n "${SIZES:-}" ]; then
	read -r -a sizes <<<"$SIZES"
else
	for ((n = 1; n <= MAX; n *= 2)); do sizes+=($n); done
	[ "${sizes[-1]}" = "$MAX" ] || sizes+=("$MAX")
fi
for n in "${sizes[@]}"; do [ "$n" -le "$MAX" ] || fail "size $n above MAX $MAX"; done
echo "# footprint: sizes ${sizes[*]}, window ${WINDOW}s, $RUNS runs, $(uname -r), $(nproc) CPUs, $(ptp4l -v 2>&1 | head -n 1) ptp4l, BUILD $BUILD${BASE:+, BASE $BASE}"
echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
for run in $(seq 1 "$RUNS"); do
	for n in "${sizes[@]}"; do
		run_phcd "$run" "$n"
		[ -z "$BASE" ] || run_phcd "$run" "$n" "$BASE" phcd-base
		run_ptp4l "$run" "$n"
		echo "# run $run, $n ports done ($(cut -d' ' -f1 /proc/loadavg) load)"
	done
done
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
cp "$tmp/results" "${FOOTPRINT_RESULTS:-/dev/null}" 2>/dev/null || true

echo
echo "# ports holder | CPU % of one core: mean, sd, min, max over runs | per worker (ptp4l: per process): RssAnon kB max, VmRSS kB max, Pss kB mean | total: RssAnon MB, VmRSS MB, Pss MB (mean over runs) | per worker (ptp4l: per process): wakeups a second, us on a CPU per wakeup"
echo "#   phcd = supervisor + workers (supervisor's own figures in brackets); ptp4l = all N processes"
awk -v W="$WINDOW" '
	{ k = $2 " " $3 " " $1; kk = $2 " " $3; cpu[k] += $6; anon[k] += $7; rss[k] += $8; pss[k] += $9
	  key[kk] = 1; runs[$1] = 1
	  if ($4 == "supervisor") { scpu[k] += $6; sanon[k] = $7; srss[k] = $8; spss[k] = $9 }
	  else { if ($7 > wanon[kk]) wanon[kk] = $7; if ($8 > wrss[kk]) wrss[kk] = $8
		 wpss[kk] += $9; wn[kk]++; wwake[kk] += $10; wcpu[kk] += $6 } }
	END {
		for (kk in key) {
			n = 0; m = 0; q = 0; lo = -1; hi = 0; a = 0; r = 0; p = 0; sc = 0; sa = 0; sr = 0; sp = 0
			for (run in runs) {
				k = kk " " run
				if (!(k in cpu)) continue
				c = 100 * cpu[k] / 1e9 / W; n++; m += c; q += c * c
				if (lo < 0 || c < lo) lo = c; if (c > hi) hi = c
				a += anon[k]; r += rss[k]; p += pss[k]; sc += 100 * scpu[k] / 1e9 / W
				sa += sanon[k]; sr += srss[k]; sp += spss[k]
			}
			m /= n; sd = n > 1 ? sqrt((q - n * m * m) / (n - 1)) : 0
			split(kk, f, " ")
			extra = f[2] ~ /^phcd/ ? sprintf(" [supervisor %.2f%% %d kB anon %d kB rss %d kB pss]", sc / n, sa / n, sr / n, sp / n) : ""
			printf "%3d %-9s | %6.2f %5.2f %6.2f %6.2f | %5d %6d %6d | %7.1f %7.1f %7.1f | %5.1f %5.1f%s\n", f[1], f[2], m, sd, lo, hi,
				wanon[kk], wrss[kk], wpss[kk] / wn[kk], a / n / 1024, r / n / 1024, p / n / 1024,
				wwake[kk] / wn[kk] / W, wwake[kk] ? wcpu[kk] / wwake[kk] / 1000 : 0, extra
		}
	}' "$tmp/results" | sort -n -k1,1 -k2,2
# kept KIND TEXT: each $tmp/KIND-WHAT file under a "# WHAT: TEXT" line.
kept() {
	local f
	for f in "$tmp/$1"-*; do
		[ -e "$f" ] || continue
		echo
		echo "# ${f##*/$1-}: $2"
		cat "$f"
	done
}
kept smaps "one process, kB per mapping: Pss, Rss, anonymous"
if [ -s "$tmp/own" ]; then
	echo
	echo "# Pss among each holder's own processes (OWN=1), MB: run by run, then the mean"
	awk '{ k = $2 " " $3; v[k] = v[k] sprintf(" %.2f", $4 / 1024); s[k] += $4; c[k]++ }
		END { for (k in s) printf "%s |%s | %.2f\n", k, v[k], s[k] / c[k] / 1024 }' "$tmp/own" |
		sort -n -k1,1 -k2,2
fi
kept strace "one process, strace -c over ${STRACE:-} s (calls / ${STRACE:-} = per second)"
echo
echo "# time from phcd's exec to every port SLAVE (ms): $(awk '{ printf "%s %s:%s ", $3, $2, $5 }' "$tmp/startup")"
