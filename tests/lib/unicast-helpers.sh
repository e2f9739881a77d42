# SPDX-License-Identifier: GPL-2.0-or-later
# Shell helpers for the tests of unicast negotiation (IEEE 1588-2019 16.1) against ptp4l with
# linuxptp's UNICAST-*.cfg. Source after udp-helpers.sh; uses $tmp, $log, $A, $B, $ia, $ib.

CONFIGS=/usr/share/doc/linuxptp/configs

# uc_slave_cfg OUT MASTER_ADDR IF: UNICAST-SLAVE.cfg as shipped, its first table naming only
# MASTER_ADDR (UDPv6 when it has a colon), its [eth0] section for IF and its L2 [eth1] (a second
# port) left out.
uc_slave_cfg() {
	local fam=UDPv4
	[[ "$2" != *:* ]] || fam=UDPv6
	sed -e "s/^UDPv4[[:space:]]*192\.168\.1\.11/$fam $2/" \
		-e '/^UDPv4[[:space:]]*192\.168\.[23]\./d' \
		-e "s/^\[eth0\]/[$3]/" -e '/^\[eth1\]/,$d' \
		"$CONFIGS/UNICAST-SLAVE.cfg" >"$1"
	grep -q "^$fam $2\$" "$1" || fail "UNICAST-SLAVE.cfg: its table line not adapted: $(cat "$1")"
}

# uc_pair TAG [4|6]: namespaces A (ptp4l, 192.0.2.1) and B (phcd, 192.0.2.2), or their IPv6
# link-local addresses, on a veth ia - ib; $log the run's log prefix.
# The random part keeps a rerun's names apart; the "x" keeps TAG's apart (a + 65 and a6 + 5 once
# made one namespace name, and one of two runs failed on ip netns add).
uc_pair() {
	v=${1}x$((RANDOM % 100))
	A=uca$$$v B=ucb$$$v ia=uc${v}a ib=uc${v}b log=$tmp/$v
	udp_pair "$A" "$B" "$ia" "$ib" "${2:-4}"
}

# uc_capture_start NS IF FILE [FILTER]: tshark prints IF's PTP frames into FILE from now, a line
# each as it sees them (pid in CAP_PID), once it listens: time, type, source, destination, unicast
# flag and the Signaling TLV types. FILTER replaces the UDP ports as in uc_pcap_start.
UC_FIELDS=(-T fields -E separator=' ' -E aggregator=, -e frame.time_relative -e ptp.v2.messagetype
	-e ip.src -e ip.dst -e ptp.v2.flags.unicast -e ptp.v2.sig.tlv.tlvType)
uc_capture_start() {
	ip netns exec "$1" tshark -l -i "$2" -f "${4:-udp port 319 or udp port 320}" "${UC_FIELDS[@]}" \
		>"$3" 2>"$3.log" &
	CAP_PID=$!
	# tshark loads every dissector before it captures: five at once on a loaded machine once
	# missed 10 s. The wait is for the capture to begin; what it must see has its own deadline.
	wait_for "$3.log" "Capturing on" 30
}

# uc_pcap_start NS IF FILE [FILTER] / uc_pcap_read FILE: as uc_capture_start and
# uc_capture_read, but dumpcap writes FILE.pcap and tshark reads it once the capture stops: dumpcap
# loads no dissectors, so that several runs at once on a loaded machine start their captures in
# time. FILTER (a capture filter) replaces the UDP ports, e.g. for PTP over L2 with UC_FIELDS
# reading eth.src and eth.dst rather than ip.src and ip.dst.
uc_pcap_start() {
	ip netns exec "$1" dumpcap -q -i "$2" -f "${4:-udp port 319 or udp port 320}" -w "$3.pcap" \
		2>"$3.log" &
	CAP_PID=$!
	wait_for "$3.log" "Capturing on" 10
}
uc_pcap_read() {
	kill "$CAP_PID" 2>/dev/null || true
	wait "$CAP_PID" 2>/dev/null || true
	tshark -r "$1.pcap" "${UC_FIELDS[@]}" >"$1" 2>"$1.read.log" ||
		fail "tshark -r $1.pcap: $(tail -n 3 "$1.read.log")"
	uc_capture_lines "$1"
}

# uc_capture_lines FILE: what was seen so far, without the time: type (decimal), source,
# destination, unicast flag, TLV types.
uc_capture_lines() {
	while read -r _ t s d u tlv; do
		[ -n "$t" ] && echo "$((t)) $s $d $u ${tlv:-}"
	done <"$1"
}

# uc_capture_wait FILE PATTERN WHAT: a line of uc_capture_lines matching PATTERN within 5 s.
uc_capture_wait() {
	local deadline=$((SECONDS + 5))
	until uc_capture_lines "$1" | grep -Eq "$2"; do
		[ "$SECONDS" -lt "$deadline" ] ||
			fail "$3, captured: $(uc_capture_lines "$1" | grep '^12 ' | tail -n 10)"
		sleep 0.1
	done
}

# uc_seen LINES PATTERN WHAT / uc_unseen LINES PATTERN WHAT: fail with WHAT and what was captured
# unless a line of LINES (uc_capture_lines) matches PATTERN / when one does.
uc_seen() {
	grep -Eq "$2" <<<"$1" || fail "$3, captured: $(head -n 20 <<<"$1")"
}
uc_unseen() {
	! grep -Eq "$2" <<<"$1" || fail "$3: $(grep -E "$2" <<<"$1" | head -n 3)"
}

# uc_capture_read FILE: stop the capture; uc_capture_lines.
uc_capture_read() {
	kill "$CAP_PID" 2>/dev/null || true
	wait "$CAP_PID" 2>/dev/null || true
	uc_capture_lines "$1"
}

# uc_stop_phcd: stop phcd, and wait (10 s at most) until its worker in $B is gone too: the worker
# sends its CANCELs on its way out, after the supervisor.
uc_stop_phcd() {
	local deadline=$((SECONDS + 10))
	kill "$PHCD_PID"
	wait "$PHCD_PID" 2>/dev/null || true
	while [ -n "$(ip netns pids "$B")" ]; do
		[ "$SECONDS" -lt "$deadline" ] || fail "phcd's worker still running 10 s after phcd stopped"
		sleep 0.1
	done
}

# uc_table_granted IF PEER WHAT: phcd's Port.UnicastTable of IF (phcd alone on the test's bus)
# shows PEER (its text: an IP address or a MAC) as grantee with Sync granted and seconds left
# above 0 within 10 s, in UC_ROW, and `phcctl port IF` shows the same row, in UC_VIEW; fail with
# WHAT otherwise.
uc_table_granted() {
	local deadline=$((SECONDS + 10))
	until UC_ROW=$(busctl --system --json=short get-property org.phcd1 "/org/phcd1/port/$1" \
		org.phcd1.Port UnicastTable | jq -c --arg p "$2" '.data[] | select(.[0] == $p and
		.[1] == "grantee" and .[2] == "sync" and .[3] == "granted" and .[5] > 0)') &&
		[ -n "$UC_ROW" ]; do
		[ "$SECONDS" -lt "$deadline" ] ||
			fail "$3: expected UnicastTable to show $2 grantee sync granted with time left, got: $(busctl --system get-property org.phcd1 "/org/phcd1/port/$1" org.phcd1.Port UnicastTable)"
		sleep 0.5
	done
	UC_VIEW=$("$BUILD/phcctl/phcctl" port "$1")
	grep -Eq "^ +${2//./\\.} +grantee +sync +granted +-?[0-9]+ +[1-9][0-9]*s\$" <<<"$UC_VIEW" ||
		fail "$3: expected phcctl port $1 to show $2 grantee sync granted with time left, got: $UC_VIEW"
}

# uc_profile_slave_cfg IN OUT MASTER_ADDR IF: linuxptp's G.8275.2.cfg or G.8265.1.cfg (IN) made a
# slave's as the file itself says ("Customize the following for slave operation"): its commented
# unicast_master_table section and port section uncommented, the table's one UDPv4 line naming
# MASTER_ADDR and [eth0] named IF. Nothing else of IN changes.
uc_profile_slave_cfg() {
	grep -q 'Customize the following for slave operation' "$1" ||
		fail "$1: expected its commented slave section"
	sed -e '/Customize the following for slave operation/,$ s/^#\([[:alnum:][]\)/\1/' \
		-e "s/^UDPv4[[:space:]]*192\.168\.1\.11\$/UDPv4 $3/" -e "s/^\[eth0\]/[$4]/" "$1" >"$2"
	grep -q "^UDPv4 $3\$" "$2" && grep -q "^\[$4\]" "$2" && grep -q '^unicast_master_table' "$2" ||
		fail "$1: its slave section not adapted: $(cat "$2")"
}

# uc_negotiated LINES GRANTOR GRANTEE WHAT: in LINES (uc_capture_read), the grantee's REQUEST
# (Signaling with a tlvType 4) to the grantor, the grantor's GRANT (5) back, its Sync unicast to
# the grantee, and neither its Sync nor its Announce to a group (inhibit_multicast_service).
uc_negotiated() {
	local g=${2//./\\.} e=${3//./\\.} tlv='(1|True) ([0-9a-fx]*,)*(0x0*)?'
	uc_seen "$1" "^12 $e $g $tlv""4(,|\$)" "$4: expected the REQUEST of $3 to $2 on the wire"
	uc_seen "$1" "^12 $g $e $tlv""5(,|\$)" "$4: expected the GRANT of $2 to $3 on the wire"
	uc_seen "$1" "^0 $g $e (1|True)" "$4: expected the Sync of $2 unicast to $3"
	uc_unseen "$1" "^(0|11) $g 2(2[4-9]|3[0-9])\\." "$4: $2 (inhibit_multicast_service) sent Sync or Announce to a group"
}

# uc_grantee_start TAG WHAT: uc_pair TAG, ptp4l in A (192.0.2.1) with UNICAST-MASTER.cfg as
# shipped, phcd in B with UNICAST-SLAVE.cfg naming it; once phcd is SLAVE with its offsets within
# gptp_phcd_slave_offsets' bounds (WHAT names them).
uc_grantee_start() {
	uc_pair "$1"
	cp "$CONFIGS/UNICAST-MASTER.cfg" "$tmp/master-$1.cfg"
	uc_slave_cfg "$tmp/slave-$1.cfg" 192.0.2.1 "$ib"
	udp_phcd_conf "$tmp/slave-$1.cfg" "$ib" slave "network_transport = UDPv4" >"$log.phcd.conf"
	udp_ptp4l_start "$A" "$ia" "$log-ptp4l" "$tmp/master-$1.cfg" -4 --priority1 100
	gptp_phcd_start "$B" "$log.phcd.conf"
	gptp_phcd_slave_offsets "$ib" "$2"
}

# uc_counter KEY: the entry KEY of phcd's port $ib's D-Bus Counters, a number, or fail.
# uc_counter_or_0 KEY: the same, 0 when there is none (a read before an attack: a build without
# the counter then fails on what it does, not on the read).
uc_counter_or_0() {
	busctl --system --json=short get-property org.phcd1 "/org/phcd1/port/$ib" org.phcd1.Port \
		Counters | jq -r --arg k "$1" '.data[$k] // 0'
}
uc_counter() {
	local v
	v=$(busctl --system --json=short get-property org.phcd1 "/org/phcd1/port/$ib" \
		org.phcd1.Port Counters | jq -r --arg k "$1" '.data[$k]')
	[[ "$v" =~ ^[0-9]+$ ]] || fail "expected Counters $1 on D-Bus, got '$v'"
	echo "$v"
}

# uc_counter_grew KEY BEFORE N WHAT: Counters KEY is BEFORE + N, or fail naming WHAT.
uc_counter_grew() {
	local v
	v=$(uc_counter "$1")
	[ $((v - $2)) = "$3" ] || fail "$4: Counters $1 grew by $((v - $2)), expected $3"
}
