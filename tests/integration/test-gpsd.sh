#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# daemon/gpsd-client against Debian's gpsd 3.22: gpsd reads NMEA that nmea-pty.py writes to a
# pseudo-terminal with the current time (a fix, then no fix, then a fix again), and
# tool-gpsd-client prints each report the client makes. Expected: ok with a time-of-day offset
# (TOFF) within 0.5 s and TAI - UTC 37 (gpsd's leapseconds 18 from Garmin's PGRMF, + 19); not ok,
# "gpsd: no fix", once the receiver loses its fix; ok again with the fix back; "connection closed"
# when gpsd goes, ok again when it returns (the client reconnects by itself); every line gpsd sent
# parsed (no malformed, no overlong line).
#
# Why 0.5 s: NMEA over a pty is no time reference. The writer sends each second's sentences 20 ms
# after that second begins (a Python sleep on a loaded machine), gpsd stamps the first sentence
# of the cycle when it reads it, and nothing marks the second's edge. What the bound proves is the
# time of day: the right second, day and timescale (an error of one second or a timezone would be
# 1 s or more off), not sub-millisecond accuracy, which needs a PPS that no test here has.
#
# The host's clock: gpsd never sets a clock (its source has no settimeofday, clock_settime or
# adjtimex); it only hands time to ntpd or chronyd through SysV shared memory (NTP0..) and
# chronyd's socket /run/chrony.DEVICE.sock. Here it runs in its own network and IPC namespaces
# (its SHM segments reach no chronyd of the host), on a device named after this test (no chronyd
# socket of that name exists), with -b (read-only: it never writes to the device). The host's
# adjtimex state is compared before and after.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin phcd gnss

command -v gpsd >/dev/null || fail "gpsd is not installed (scripts/deps.sh installs it)"
NS=phgpsd$$
before=$(host_clock_state)
netns_add "$NS"

gnss_receiver_start
gpsd_start "$NS"

ip netns exec "$NS" "$BUILD/tests/integration/tool-gpsd-client" localhost:2947 \
	>"$tmp/reports" 2>"$tmp/client.log" &
CLIENT_PID=$!
BG_PIDS+=("$CLIENT_PID")

lines() { wc -l <"$tmp/reports"; }
# field LINE NAME: NAME=value of a report line
field() { sed -n "s/.* $2=\\([^ ]*\\).*/\\1/p" <<<"$1"; }
# first_after FROM REGEX: the first report line after line FROM that matches
first_after() { tail -n +$(($1 + 1)) "$tmp/reports" | grep -m1 -E "$2"; }

ok_re='^report ok=1 has_offset=1 .* reason="gpsd: a fix, time of day \(TOFF\)"$'

# 1. A fix: ok, the time of day within 0.5 s, TAI - UTC 37 (from gpsd's second cycle on: in its
# first, the TPV may come before PGRMF is read), an error bound from ept.
utc_re='^report ok=1 .* utc_offset_valid=1 utc_offset=37 reason="gpsd: a fix, time of day \(TOFF\)"$'
wait_for "$tmp/reports" "$utc_re" 30
line=$(first_after 0 "$utc_re")
offset=$(field "$line" offset_ns)
[ "${offset#-}" -lt 500000000 ] || fail "time of day off by $offset ns (expected within 0.5 s): $line"
now=$(date +%s%N)
realtime=$(field "$line" realtime_ns)
diff=$(((now - realtime) / 1000000000))
[ "${diff#-}" -lt 60 ] || fail "the measurement's realtime_ns $realtime is not near now ($now): $line"
[ "$(field "$line" max_error_ns)" -gt 0 ] || fail "expected gpsd's ept as the error bound: $line"
echo "fix: $line"

# 2. The fix lost: not ok, with the reason.
from=$(lines)
echo nofix >"$tmp/gnss-control"
wait_for "$tmp/reports" '^report ok=0 .* reason="gpsd: no fix"$' 15 "$from"
echo "no fix: $(first_after "$from" 'ok=0')"
# never ok again while the receiver has no fix
lost=$((from + $(tail -n +$((from + 1)) "$tmp/reports" | grep -n -m1 'reason="gpsd: no fix"' | cut -d: -f1)))
test_duration 3 "the receiver without a fix for a while"
if first_after "$lost" 'ok=1' >/dev/null; then
	fail "ok while the receiver has no fix: $(tail -n +"$lost" "$tmp/reports")"
fi

# 3. The fix back: ok again.
from=$(lines)
echo fix >"$tmp/gnss-control"
wait_for "$tmp/reports" "$ok_re" 15 "$from"
echo "fix again: $(first_after "$from" "$ok_re")"

# 4. gpsd gone: not ok, "connection closed"; back: the client reconnects by itself, ok again.
from=$(lines)
test_stop "$GPSD_PID"
wait_for "$tmp/reports" '^report ok=0 has_offset=0 .* reason="gpsd: connection (closed|lost)"$' 10 "$from"
echo "gpsd gone: $(first_after "$from" 'ok=0')"
from=$(lines)
gpsd_start "$NS"
wait_for "$tmp/reports" "$ok_re" 30 "$from"
echo "gpsd back: $(first_after "$from" "$ok_re")"

# 5. Every line gpsd sent was read: the counters at the client's end.
test_stop "$CLIENT_PID"
counters=$(grep '^counters ' "$tmp/reports") || fail "no counters from tool-gpsd-client"
echo "$counters"
[[ "$counters" == "counters connects=2 disconnects=1 "*" malformed=0 overlong=0" ]] ||
	fail "expected 2 connections, 1 loss, nothing malformed or overlong: $counters"

# TAI - UTC, whenever given, was 37
if grep -v 'utc_offset_valid=0 utc_offset=0 \|utc_offset_valid=1 utc_offset=37 ' "$tmp/reports" | grep '^report'; then
	fail "a report with a TAI - UTC other than 37 (above)"
fi

after=$(host_clock_state)
[ "$before" = "$after" ] || fail "the host's adjtimex state changed: $before -> $after"
echo "ok: gpsd's fix, its loss, its return and gpsd's own loss and return, each reported"
