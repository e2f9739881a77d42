#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# phcd-exporter against the real phcd, slave of a ptp4l grandmaster, on a private system bus: its
# /metrics passes `promtool check metrics`; a real Prometheus (own data dir, loopback of the
# namespace) scrapes it and its query API gives the slave's offset and the port's SLAVE state;
# with phcd stopped the next scrape says phcd_up 0 with no stale value, Prometheus sees it within
# a scrape interval, and the exporter reads phcd again when it comes back.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin dbus ptp phcd

EXPORTER=$BUILD/exporter/phcd-exporter
S=phex-s$$ G=phex-g$$
EXPORTER_ADDR=127.0.0.1:9433
PROM_ADDR=127.0.0.1:9090
SCRAPE_S=1
dbus_start "$tmp/bus"
netns_pair "$S" "$G" s1 g1

ptp4l_gm "$G" g1 "$tmp/gm.uds" "$tmp/gm.log"
phcd_virtual_conf lab s1 >"$tmp/phcd.conf"
# In the slave's namespace as an unprivileged user. A plain command, not a function: a function
# started with & runs in a subshell, and $! would then not be the process to stop.
AS_NOBODY=(ip netns exec "$S" setpriv --reuid=nobody --regid=nogroup --clear-groups)
scrape() {
	ip netns exec "$S" curl -sf --max-time 5 "http://$EXPORTER_ADDR/metrics"
}
# prom_query EXPR: the value of Prometheus' instant query EXPR ("" when it has no sample).
prom_query() {
	ip netns exec "$S" curl -sf --max-time 5 -G "http://$PROM_ADDR/api/v1/query" \
		--data-urlencode "query=$1" | jq -r '.data.result[0].value[1] // ""'
}
# wait_prom EXPR JQ_TEST SECONDS: poll the query until jq's test on its value ($v) is true.
wait_prom() {
	local deadline=$((SECONDS + $3)) v
	while :; do
		v=$(prom_query "$1" || true)
		if [ -n "$v" ] && jq -en --arg v "$v" "$2" >/dev/null; then
			PROM_VALUE=$v
			return 0
		fi
		if [ "$SECONDS" -ge "$deadline" ]; then
			tail -n 20 "$tmp/prom.log" >&2 || true
			fail "Prometheus: expected $1 to satisfy '$2' within $3 s, last value '$v'"
		fi
		sleep 0.2
	done
}
# metric NAME_AND_LABELS FILE: the value of one sample in a scrape ("" when absent).
metric() {
	awk -v k="$1" '$1 == k { print $2 }' "$2"
}

phcd_start "$S" "$tmp/phcd.conf" "$tmp/phcd.log"
wait_bus_name org.phcd1 10
# The exporter, unprivileged, before the port is SLAVE: it must follow phcd's signals from there.
"${AS_NOBODY[@]}" "$EXPORTER" --listen "$EXPORTER_ADDR" --counter-interval 1 >"$tmp/exporter.log" 2>&1 &
BG_PIDS+=($!)

SLAVE='phcd_port_state{ptp_instance="lab",interface="s1",state="SLAVE"}'
deadline=$((SECONDS + 30))
until scrape >"$tmp/m" 2>/dev/null && [ "$(metric "$SLAVE" "$tmp/m")" = 1 ] &&
	[ "$(metric 'phcd_synchronized{ptp_instance="lab"}' "$tmp/m")" = 1 ] &&
	grep -q '^phcd_port_messages_received_total{.*type="sync"} [1-9]' "$tmp/m"; do
	if [ "$SECONDS" -ge "$deadline" ]; then
		cat "$tmp/m" >&2 || true
		tail -n 20 "$tmp/phcd.log" "$tmp/exporter.log" >&2
		fail "exporter: expected s1 SLAVE, lab synchronized and Sync counted within 30 s"
	fi
	sleep 0.2
done
echo "ok: exporter (as nobody) follows phcd: $SLAVE 1, synchronized, offset" \
	"$(metric 'phcd_offset_seconds{ptp_instance="lab"}' "$tmp/m") s, rx sync" \
	"$(grep -o 'type="sync"} [0-9]*' "$tmp/m" | head -n 1 | cut -d' ' -f2)"

# Health, the offset's time and the offset statistics, where phcd has them (the UX additions of
# its D-Bus API): health ok, a fresh offset timestamp, a closed statistics window.
# (grep reads a process substitution: with pipefail, busctl's SIGPIPE would fail a match.)
if grep -q '^\.Health ' < <(busctl --system introspect org.phcd1 /org/phcd1/instance/lab \
	org.phcd1.Instance); then
	deadline=$((SECONDS + 15))
	until scrape >"$tmp/m" 2>/dev/null &&
		[ "$(metric 'phcd_health{ptp_instance="lab",health="ok"}' "$tmp/m")" = 1 ] &&
		[ "$(metric 'phcd_offset_statistics_samples{ptp_instance="lab"}' "$tmp/m")" -gt 0 ] 2>/dev/null; do
		if [ "$SECONDS" -ge "$deadline" ]; then
			grep -E 'health|statistics|timestamp' "$tmp/m" >&2 || true
			fail "exporter: expected lab health ok and a statistics window within 15 s"
		fi
		sleep 0.2
	done
	ts=$(metric 'phcd_offset_timestamp_seconds{ptp_instance="lab"}' "$tmp/m")
	age=$(awk -v t="$ts" -v now="$EPOCHREALTIME" 'BEGIN { printf "%.3f", now - t }')
	awk -v a="$age" 'BEGIN { exit !(a > -1 && a < 5) }' ||
		fail "exporter: phcd_offset_timestamp_seconds $ts is $age s old, expected under 5 s"
	echo "ok: health ok, offset measured $age s before the scrape, statistics window of" \
		"$(metric 'phcd_offset_statistics_samples{ptp_instance="lab"}' "$tmp/m") offsets, rms" \
		"$(metric 'phcd_offset_statistics_rms_seconds{ptp_instance="lab"}' "$tmp/m") s"
	HAVE_HEALTH=1
else
	echo "NOT CHECKED: health and offset statistics (this phcd has no Instance.Health property)"
	HAVE_HEALTH=0
fi

# The exposition format: promtool's parser and its lint (conventions, units, _total) are clean.
out=$(promtool check metrics <"$tmp/m" 2>&1) || {
	echo "$out" >&2
	fail "promtool check metrics rejected the exporter's output"
}
grep -Eq '[{,]instance=' "$tmp/m" && fail "a label named instance (reserved by Prometheus): $(grep -Em1 '[{,]instance=' "$tmp/m")"
cp "$tmp/m" "$BUILD/exporter-metrics.txt" # an artifact: what a scrape looked like
echo "ok: promtool check metrics: clean ($(grep -c '^# TYPE' "$tmp/m") families," \
	"$(grep -vc '^#' "$tmp/m") samples)"

# A real Prometheus scrapes it every second, with the example alerting rules loaded.
mkdir -p "$tmp/prom"
cp "$SRC/docs/prometheus/phcd-alerts.yml" "$tmp/"
cat >"$tmp/prometheus.yml" <<CONF
global:
  scrape_interval: ${SCRAPE_S}s
  evaluation_interval: ${SCRAPE_S}s
rule_files:
  - $tmp/phcd-alerts.yml
scrape_configs:
  - job_name: phcd
    static_configs:
      - targets: ['$EXPORTER_ADDR']
CONF
chown -R nobody "$tmp/prom"
"${AS_NOBODY[@]}" prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/prom" \
	--web.listen-address="$PROM_ADDR" >"$tmp/prom.log" 2>&1 &
BG_PIDS+=($!)
wait_prom 'phcd_up' '$v == "1"' 60
wait_prom "$SLAVE" '$v == "1"' 10
wait_prom 'phcd_offset_seconds{ptp_instance="lab",job="phcd"}' '($v | tonumber | fabs) < 0.0001' 10
offset=$PROM_VALUE
# The offset moves (a new sample every second): several distinct values within 10 s.
deadline=$((SECONDS + 15))
while :; do
	n=$(ip netns exec "$S" curl -sf -G "http://$PROM_ADDR/api/v1/query" \
		--data-urlencode 'query=phcd_offset_seconds{ptp_instance="lab"}[10s]' |
		jq '[.data.result[0].values[][1]] | unique | length')
	[ "${n:-0}" -ge 3 ] && break
	[ "$SECONDS" -lt "$deadline" ] || fail "Prometheus: expected 3 distinct offsets in 10 s, got ${n:-0}"
	sleep 0.5
done
if [ "$HAVE_HEALTH" = 1 ]; then
	wait_prom 'phcd_health{ptp_instance="lab",health="ok"}' '$v == "1"' 10
	wait_prom 'time() - phcd_offset_timestamp_seconds{ptp_instance="lab"}' '($v | tonumber) < 5' 10
	echo "ok: Prometheus: lab health ok, the last offset $PROM_VALUE s old"
fi
rules=$(ip netns exec "$S" curl -sf "http://$PROM_ADDR/api/v1/rules" |
	jq '[.data.groups[].rules[] | select(.health == "ok")] | length')
# Every rule of the file (counted there: a29 added the ninth), loaded and healthy.
want_rules=$(grep -c '^ *- alert:' "$SRC/docs/prometheus/phcd-alerts.yml")
[ "$want_rules" -ge 9 ] && [ "$rules" = "$want_rules" ] ||
	fail "Prometheus: expected the $want_rules example rules (at least 9) loaded and healthy, got $rules"
echo "ok: Prometheus query API: phcd_up 1, $SLAVE 1, offset $offset s ($n distinct values in 10 s); $rules alert rules healthy"

# Socket activation, as phcd-exporter.socket starts it: the listening socket as fd 3.
"${AS_NOBODY[@]}" systemd-socket-activate -l 127.0.0.1:9188 -E DBUS_SYSTEM_BUS_ADDRESS "$EXPORTER" \
	>"$tmp/activated.log" 2>&1 &
BG_PIDS+=($!) # systemd-socket-activate execs the exporter: the same process
# Its listening socket exists once it says so; a scrape before that is refused by the kernel,
# which says nothing about the exporter (CI once scraped first, under load).
deadline=$((SECONDS + 10))
until grep -q '^Listening on 127.0.0.1:9188' "$tmp/activated.log" 2>/dev/null; do
	[ "$SECONDS" -lt "$deadline" ] || fail "systemd-socket-activate: not listening on 127.0.0.1:9188 within 10 s: $(cat "$tmp/activated.log")"
	sleep 0.02
done
# The very first scrape (the one that started the exporter) already sees phcd as it is: the
# exporter reads phcd before it answers (c73b1b8 answered phcd_up 0 while phcd ran).
ip netns exec "$S" curl -sSf --max-time 5 http://127.0.0.1:9188/metrics >"$tmp/ma" 2>"$tmp/curl.err" ||
	fail "socket-activated exporter: no answer to the first scrape: curl: $(cat "$tmp/curl.err"); exporter: $(cat "$tmp/activated.log")"
[ "$(metric phcd_up "$tmp/ma")" = 1 ] && [ "$(metric "$SLAVE" "$tmp/ma")" = 1 ] ||
	fail "socket-activated exporter: the first scrape said phcd_up $(metric phcd_up "$tmp/ma"), $SLAVE '$(metric "$SLAVE" "$tmp/ma")' while phcd runs with s1 SLAVE"
deadline=$((SECONDS + 10))
until ip netns exec "$S" curl -sf --max-time 5 http://127.0.0.1:9188/metrics >"$tmp/ma" 2>/dev/null &&
	[ "$(metric "$SLAVE" "$tmp/ma")" = 1 ]; do
	[ "$SECONDS" -lt "$deadline" ] || fail "socket-activated exporter: expected $SLAVE 1 within 10 s: $(cat "$tmp/activated.log")"
	sleep 0.1
done
echo "ok: socket-activated (systemd-socket-activate, fd 3): the first scrape says phcd_up 1, $SLAVE 1"

# phcd stops: as soon as its name is gone, the next scrape says phcd_up 0 and nothing else.
kill "$PHCD_PID"
wait "$PHCD_PID" 2>/dev/null || true
deadline=$((SECONDS + 10))
while busctl --system status org.phcd1 >/dev/null 2>&1; do
	[ "$SECONDS" -lt "$deadline" ] || fail "org.phcd1 still owned 10 s after phcd was stopped"
	sleep 0.02
done
t_gone=$EPOCHREALTIME
scrape >"$tmp/m0" || fail "exporter: no answer with phcd absent (expected phcd_up 0)"
[ "$(metric phcd_up "$tmp/m0")" = 0 ] || fail "exporter: the first scrape after phcd left: expected phcd_up 0, got: $(head -c 400 "$tmp/m0")"
if grep -v '^#' "$tmp/m0" | grep -v '^phcd_up ' | grep -q .; then
	fail "exporter: stale values with phcd absent: $(grep -v '^#' "$tmp/m0" | grep -v '^phcd_up ' | head -n 3)"
fi
promtool check metrics <"$tmp/m0" >/dev/null 2>&1 || fail "promtool check metrics rejected the phcd-absent page"
# In Prometheus: the first sample of phcd_up 0 must come from the first scrape after the name
# went away, within a scrape interval (and a quarter for the scrape's own jitter) of it; the
# deadline of the poll itself is generous, the check is on the samples' own timestamps.
wait_prom 'phcd_up{job="phcd"}' '$v == "0"' 15
first0=$(ip netns exec "$S" curl -sf -G "http://$PROM_ADDR/api/v1/query" \
	--data-urlencode 'query=phcd_up{job="phcd"}[20s]' |
	jq -r --argjson t "${t_gone/,/.}" '[.data.result[0].values[] | select(.[0] >= $t - 0.5 and .[1] == "0")][0][0]')
late=$(awk -v a="$first0" -v b="${t_gone/,/.}" 'BEGIN { printf "%.3f", a - b }')
awk -v l="$late" -v s="$SCRAPE_S" 'BEGIN { exit !(l <= s * 1.25) }' ||
	fail "Prometheus: the first phcd_up 0 was scraped $late s after phcd left the bus, expected within one scrape interval ($SCRAPE_S s)"
[ -z "$(prom_query 'phcd_offset_seconds{ptp_instance="lab"}')" ] ||
	fail "Prometheus still has an offset for lab after phcd_up 0 (stale value)"
echo "ok: phcd stopped: the next scrape had phcd_up 0 alone; Prometheus' first phcd_up 0 was" \
	"scraped $late s after phcd left the bus (scrape interval ${SCRAPE_S} s), no offset series left"

# phcd comes back: the exporter reads it again (NameOwnerChanged), no restart of its own.
phcd_start "$S" "$tmp/phcd.conf" "$tmp/phcd-2.log"
wait_prom "$SLAVE" '$v == "1"' 30
wait_prom 'phcd_up' '$v == "1"' 5
echo "ok: phcd back: phcd_up 1 and s1 SLAVE again through the same exporter"
echo PASS
