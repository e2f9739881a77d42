# SPDX-License-Identifier: GPL-2.0-or-later
# A GNSS receiver and gpsd for tests (test_begin gnss): nmea-pty.py writes NMEA with the current
# time to a pseudo-terminal, Debian's gpsd reads it in a namespace and serves JSON on that
# namespace's loopback, port 2947. gpsd never sets a clock (docs/testing.md); it runs in its own
# IPC namespace so that its SHM segments reach no chronyd of the host.

# gnss_receiver_start: the receiver, "fix" until $tmp/gnss-control says "nofix"; GNSS_DEV its pty.
gnss_receiver_start() {
	GNSS_DEV=$tmp/phcd-test-gps$$
	echo fix >"$tmp/gnss-control"
	python3 "$SRC/tests/integration/nmea-pty.py" "$GNSS_DEV" "$tmp/gnss-control" \
		2>"$tmp/nmea-writer.log" &
	BG_PIDS+=($!)
	local deadline=$((SECONDS + 10))
	until [ -L "$GNSS_DEV" ]; do
		[ "$SECONDS" -lt "$deadline" ] ||
			fail "nmea-pty.py made no pty within 10 s: $(cat "$tmp/nmea-writer.log")"
		sleep 0.05
	done
}

# gpsd_start NS: gpsd in the foreground (-N), reading GNSS_DEV without waiting for a client (-n),
# read-only (-b), no system bus to talk to; GPSD_PID. No gpsd is left running: the test's exit
# stops it by its pid and says so if it survived.
GPSD_PID=
gpsd_start() {
	DBUS_SYSTEM_BUS_ADDRESS=unix:path=/nonexistent ip netns exec "$1" unshare --ipc \
		gpsd -N -n -b -D 1 -S 2947 -F "$tmp/gpsd-control.sock" "$GNSS_DEV" \
		>>"$tmp/gpsd.log" 2>&1 &
	GPSD_PID=$!
	BG_PIDS+=("$GPSD_PID")
	if [ -z "${GPSD_EXIT_SET-}" ]; then
		GPSD_EXIT_SET=1
		test_on_exit 'test_stop "$GPSD_PID"; ! kill -0 "$GPSD_PID" 2>/dev/null || echo "gpsd $GPSD_PID still running" >&2'
	fi
}
