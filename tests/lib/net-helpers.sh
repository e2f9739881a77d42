# SPDX-License-Identifier: GPL-2.0-or-later
# Shell helpers for the network tests: unique namespaces removed in a trap, polling with deadlines.
# Source it; it defines fail, wait_for, netns_pair and cleans up in an EXIT trap.

NETNS_CREATED=()
BG_PIDS=()

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

net_cleanup() {
	local p ns
	for p in "${BG_PIDS[@]}"; do
		kill "$p" 2>/dev/null || true
	done
	for p in "${BG_PIDS[@]}"; do
		wait "$p" 2>/dev/null || true
	done
	for ns in "${NETNS_CREATED[@]}"; do
		ip netns del "$ns" 2>/dev/null || true
	done
}
trap net_cleanup EXIT

# netns_add NAME: create a namespace that the EXIT trap removes.
netns_add() {
	ip netns add "$1" || fail "ip netns add $1"
	NETNS_CREATED+=("$1")
	ip -n "$1" link set lo up
}

# veth_add NS_A IF_A NS_B IF_B: a veth pair between two existing namespaces, IF_A in NS_A and
# IF_B in NS_B, both ends up.
veth_add() {
	ip link add "$2" netns "$1" type veth peer name "$4" netns "$3" || fail "veth $2/$4"
	ip -n "$1" link set "$2" up
	ip -n "$3" link set "$4" up
}

# netns_pair NS_A NS_B IF_A IF_B: two namespaces joined by a veth pair, both ends up.
netns_pair() {
	netns_add "$1"
	netns_add "$2"
	veth_add "$1" "$3" "$2" "$4"
}

# wait_for FILE REGEX SECONDS [FROM]: poll FILE until a line (after line FROM, default 0)
# matches, or fail saying what came.
wait_for() {
	local file=$1 re=$2 secs=$3 from=${4:-0}
	local deadline=$((SECONDS + secs))
	# Not `tail | grep -q`: under pipefail, grep leaving early fails the pipeline when tail
	# still has a large file to write (SIGPIPE), and a match would read as none.
	while ! grep -Eq -- "$re" < <(tail -n +$((from + 1)) "$file" 2>/dev/null); do
		if [ "$SECONDS" -ge "$deadline" ]; then
			echo "--- $file:" >&2
			tail -n 20 "$file" >&2 || true
			fail "expected a line matching '$re' in $file within ${secs}s"
		fi
		sleep 0.02
	done
}

# wait_pid PID SECONDS: wait for a background process to end, or fail.
wait_pid() {
	local pid=$1 secs=$2
	local deadline=$((SECONDS + secs))
	while kill -0 "$pid" 2>/dev/null; do
		[ "$SECONDS" -lt "$deadline" ] || fail "process $pid still running after ${secs}s"
		sleep 0.02
	done
	wait "$pid"
}

# capture_start NS IF FILE [dumpcap options...]: dumpcap of the PTP frames (EtherType 0x88F7) on
# IF into FILE from now on, in the background (CAP_PID, in BG_PIDS too); returns once it captures
# (the file has its header), or fails after 60 s with its log, FILE.log.
capture_start() {
	local ns=$1 ifn=$2 file=$3 deadline=$((SECONDS + 60))
	shift 3
	ip netns exec "$ns" dumpcap -q -i "$ifn" -f 'ether proto 0x88f7' "$@" -w "$file" \
		>"$file.log" 2>&1 &
	CAP_PID=$!
	BG_PIDS+=("$CAP_PID")
	until [ -s "$file" ]; do
		[ "$SECONDS" -lt "$deadline" ] ||
			fail "dumpcap on $ifn did not start capturing within 60 s: $(cat "$file.log")"
		sleep 0.05
	done
}

# capture_stop: end the capture_start capture, its file complete.
capture_stop() {
	kill -INT "$CAP_PID" 2>/dev/null || true
	wait "$CAP_PID" 2>/dev/null || true
}

# capture_for NS IF SECONDS FILE: the PTP frames on IF for SECONDS, as a classic pcap file.
capture_for() {
	ip netns exec "$1" dumpcap -q -i "$2" -f 'ether proto 0x88f7' -P -a "duration:$3" \
		-w "$4" >"$4.log" 2>&1 || fail "dumpcap on $2: $(cat "$4.log")"
}

# iperf3_server NS ADDR LOG [iperf3 options...]: start a server in NS, return once it listens.
iperf3_server() {
	local ns=$1 addr=$2 log=$3
	shift 3
	ip netns exec "$ns" iperf3 -s -B "$addr" "$@" >"$log" 2>&1 &
	BG_PIDS+=($!)
	local deadline=$((SECONDS + 5))
	until ip netns exec "$ns" ss -ltn | grep -q "$addr:5201"; do
		[ "$SECONDS" -lt "$deadline" ] || fail "iperf3 server in $ns did not listen: $(cat "$log")"
		sleep 0.02
	done
}
