# SPDX-License-Identifier: GPL-2.0-or-later
# What a ptp4l slave holds of its grandmaster (test_begin gmclass): a poller
# (tests/integration/gm-class-poller.py) writes each change of the class, timeTraceable and UTC
# offset to $tmp/seen; expect_class waits for one.

# gm_poller_start SLAVE_UDS DOMAIN
gm_poller_start() {
	python3 -u "$SRC/tests/integration/gm-class-poller.py" "$1" "$2" >"$tmp/seen" \
		2>"$tmp/poller.err" &
	BG_PIDS+=($!)
}

# expect_class CLASS TT SECONDS: the poller's last line says class CLASS, timeTraceable TT within
# SECONDS; prints the poller's time of that line.
expect_class() {
	local deadline=$((SECONDS + $3)) last
	while :; do
		last=$(tail -n 1 "$tmp/seen" 2>/dev/null || true)
		if [ "$(cut -d' ' -f2,3 <<<"$last")" = "$1 $2" ]; then
			echo "ok: the slave sees grandmaster clockClass $1, timeTraceable $2 ($last)"
			return 0
		fi
		[ "$SECONDS" -lt "$deadline" ] || fail "expected the slave to see clockClass $1 timeTraceable $2 within $3 s, last seen: '${last}'; phcd: $(grep -i 'clock mode\|time source' "$tmp/phcd.log" | tail -n 5)"
		sleep 0.1
	done
}

# expect_relock FLIP WHAT: after the reference came back at FLIP (date +%s.%N), class 6 within 15 s
# and not before holdover_lock_time (2 s in these tests).
expect_relock() {
	local back
	expect_class 6 1 15
	back=$(date +%s.%N)
	awk -v a="$1" -v b="$back" 'BEGIN { exit !(b - a >= 1.9) }' ||
		fail "expected class 6 again only after holdover_lock_time (2 s), it came after $(awk -v a="$1" -v b="$back" 'BEGIN { print b - a }') s"
	echo "ok: class 6 again $(awk -v a="$1" -v b="$back" 'BEGIN { printf "%.1f", b - a }') s after $2 (lock time 2 s)"
}

# expect_tgm_sequence: every class the slave saw, in order, is exactly the T-GM machine's with
# gm_out_of_spec_class 150 (248 first if it heard phcd before its lock), nothing better between.
expect_tgm_sequence() {
	local seq
	seq=$(cut -d' ' -f2,3 "$tmp/seen" | uniq | tr '\n' ',')
	case "$seq" in
	"6 1,7 1,150 0,248 0,6 1," | "248 0,6 1,7 1,150 0,248 0,6 1,") ;;
	*) fail "expected the slave to see 6 1, 7 1, 150 0, 248 0, 6 1 in that order (248 0 first if it heard phcd before its lock), got: $seq" ;;
	esac
	echo "ok: the slave saw only the machine's classes, in order: $seq"
}
