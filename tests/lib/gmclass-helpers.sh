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
