#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Attack on phcd-exporter (issue 31, item 5): 128 clients (twice the 64 that starved every
# scrape for 20 s on c73b1b8) open connections and send one header line every 5 s, never
# finishing their request, reconnecting when cut off. Throughout 20 s, a
# scrape every half second must be answered, each within 2 s: the exporter evicts the connection
# that made no progress for longest when a new one arrives beyond its limit.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin dbus

EXPORTER=$BUILD/exporter/phcd-exporter
ADDR=127.0.0.1:9435
SLOW=128
S=phaex-s$$
dbus_start "$tmp/bus"
netns_add "$S"
# No phcd: the exporter serves phcd_up 0, which is enough to tell an answer from none.
ip netns exec "$S" setpriv --reuid=nobody --regid=nogroup --clear-groups \
	"$EXPORTER" --listen "$ADDR" >"$tmp/exporter.log" 2>&1 &
BG_PIDS+=($!)
scrape() {
	ip netns exec "$S" curl -sf --max-time "$1" -o "$tmp/m" -w '%{time_total}\n' "http://$ADDR/metrics"
}
deadline=$((SECONDS + 10))
until scrape 1 >/dev/null 2>&1; do
	[ "$SECONDS" -lt "$deadline" ] || fail "exporter did not answer within 10 s: $(cat "$tmp/exporter.log")"
	sleep 0.05
done

# The slow clients: each holds a connection open with a header line every 5 s, and opens a new
# one at the next round when the exporter closed it (or did not accept it). "open K of N" once
# each has tried.
ip netns exec "$S" python3 -u -c '
import socket, sys, time
host, port = sys.argv[1].rsplit(":", 1)
n = int(sys.argv[2])
def conn():
    try:
        s = socket.create_connection((host, int(port)), timeout=1)
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
        return s
    except OSError:
        return None  # not accepted (yet): tried again at the next round
socks = [conn() for _ in range(n)]
print("open", sum(s is not None for s in socks), "of", n, flush=True)
reconnects = 0
while True:
    time.sleep(5)
    for k, s in enumerate(socks):
        try:
            s.sendall(b"X-Slow: 1\r\n")
        except (OSError, AttributeError):
            socks[k] = conn()
            reconnects += 1
    print("reconnects", reconnects, "open", sum(s is not None for s in socks), flush=True)
' "$ADDR" "$SLOW" >"$tmp/slow.log" 2>&1 &
BG_PIDS+=($!)
wait_for "$tmp/slow.log" "^open [0-9]+ of $SLOW$" 30

worst=0 n=0
end=$((SECONDS + 20))
while [ "$SECONDS" -lt "$end" ]; do
	t=$(scrape 2) || fail "scrape $((n + 1)) under $SLOW slow clients: no answer within 2 s ($(tail -n 1 "$tmp/slow.log"))"
	grep -q '^phcd_up 0$' "$tmp/m" || fail "scrape $((n + 1)): expected phcd_up 0, got $(head -c 200 "$tmp/m")"
	worst=$(awk -v a="$worst" -v b="$t" 'BEGIN { print (b > a) ? b : a }')
	n=$((n + 1))
	sleep 0.5
done
kill -0 "${BG_PIDS[-1]}" 2>/dev/null || fail "the slow clients stopped: $(cat "$tmp/slow.log")"
echo "ok: $n scrapes in 20 s under $SLOW slow clients, each answered, the slowest in ${worst} s ($(tail -n 1 "$tmp/slow.log"))"
echo PASS
