#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 17 finding 11: the configuration loader against hostile files. A drop-in that is a
# symlink to /dev/zero grew phcd to 3.7 GB in 10 s; a FIFO drop-in blocked a reload for ever; a
# drop-in whose name is not UTF-8 broke ConfigFiles, Describe() and `phcctl status`. Now: only
# regular files are read (a symlink to one is fine), at most 1 MiB each, at most 50 errors shown,
# and names are shown escaped. The real phcd on a private bus, in a namespace without ports.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin dbus phcd

PHCCTL=$BUILD/phcctl/phcctl
NS=phat11-$$
dbus_start "$tmp/bus"
netns_add "$NS"
conf=$tmp/phcd.conf
dropins=$tmp/phcd.conf.d
mkdir "$dropins"
printf '[instance lab]\ninterfaces = auto\npriority1 = 100\n' >"$conf"
# A symlinked drop-in to a regular file is normal in /etc: it is read.
printf '[instance lab]\npriority2 = 42\n' >"$tmp/real.conf"
ln -s "$tmp/real.conf" "$dropins/05-link.conf"
phcd_start "$NS" "$conf" "$tmp/phcd.log"
wait_bus_name org.phcd1 10
got=$(busctl --system get-property org.phcd1 /org/phcd1/instance/lab org.phcd1.Instance Priority2)
[ "$got" = "y 42" ] || fail "symlinked drop-in to a regular file: expected Priority2 42, got $got"
echo "ok: a drop-in symlinked to a regular file is read (Priority2 42)"

rss_kb() { sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$PHCD_PID/status"; }

# reload_refused WHAT REGEX: phcctl reload must fail (exit 1) within 5 s with REGEX in its message.
reload_refused() {
	local what=$1 re=$2 rc=0 t0 ms
	t0=${EPOCHREALTIME//[.,]/}
	timeout 20 "$PHCCTL" reload >"$tmp/o" 2>"$tmp/e" || rc=$?
	ms=$(((${EPOCHREALTIME//[.,]/} - t0) / 1000))
	[ "$rc" != 124 ] || fail "$what: reload still blocked after 20 s"
	[ "$rc" = 1 ] || fail "$what: expected reload refused (exit 1), got $rc: $(cat "$tmp/e")"
	grep -Eq -- "$re" "$tmp/e" || fail "$what: expected '$re' in the refusal, got: $(cat "$tmp/e")"
	[ "$ms" -lt 5000 ] || fail "$what: the refusal took $ms ms, expected under 5 s"
	kill -0 "$PHCD_PID" || fail "$what: phcd died: $(tail -n 5 "$tmp/phcd.log")"
	echo "ok: $what: reload refused in $ms ms: $(grep -Eo -- "$re" "$tmp/e" | head -n 1)"
}

# --- a drop-in symlinked to /dev/zero: refused at once, phcd stays small
rss0=$(rss_kb)
ln -s /dev/zero "$dropins/50-zero.conf"
reload_refused "drop-in -> /dev/zero" '50-zero.conf:0: cannot open: is a device, expected a readable regular file'
rss1=$(rss_kb)
[ $((rss1 - rss0)) -lt 8192 ] || fail "drop-in -> /dev/zero: phcd's RSS grew from $rss0 kB to $rss1 kB"
echo "ok: phcd's RSS $rss0 kB before, $rss1 kB after"
rm "$dropins/50-zero.conf"

# --- a FIFO drop-in (nobody writes to it): the reload does not block
mkfifo "$dropins/60-fifo.conf"
reload_refused "FIFO drop-in" '60-fifo.conf:0: cannot open: is a FIFO or socket'
rm "$dropins/60-fifo.conf"

# --- a regular drop-in of 2 MiB, and one of endless errors: bounded
truncate -s 2M "$dropins/70-big.conf"
reload_refused "2 MiB drop-in" '70-big.conf:0: cannot open: is larger than 1 MiB'
rm "$dropins/70-big.conf"
for i in $(seq 5000); do echo "bogus$i = 1"; done | sed '1i [global]' >"$dropins/80-errors.conf"
reload_refused "5000 bad keys" '\.\.\. and 4950 more errors \(only the first 50 are shown\)'
n=$(grep -c '80-errors.conf:' "$tmp/e")
[ "$n" -le 50 ] || fail "5000 bad keys: expected at most 50 error lines, got $n"
rm "$dropins/80-errors.conf"

# --- a drop-in whose name is not UTF-8: loads; ConfigFiles, Describe() and status readable
bad=$(printf '%s/10-\xff\xfe.conf' "$dropins")
printf '[instance lab]\npriority1 = 77\n' >"$bad"
timeout 20 "$PHCCTL" reload || fail "reload with a non-UTF-8 drop-in name: $(tail -n 5 "$tmp/phcd.log")"
files=$(busctl --system get-property org.phcd1 /org/phcd1 org.phcd1.Manager ConfigFiles) ||
	fail "ConfigFiles unreadable with a non-UTF-8 drop-in name"
grep -qF '10-\\xff\\xfe.conf' <<<"$files" || fail "ConfigFiles: expected the name escaped (10-\\xff\\xfe.conf), got $files"
echo "ok: ConfigFiles: $files"
"$PHCCTL" status >"$tmp/o" 2>"$tmp/e" || fail "phcctl status with a non-UTF-8 drop-in name: $(cat "$tmp/e")"
grep -q '^  Local priority1/2 *: 77 / 42' "$tmp/o" || fail "phcctl status: expected Local priority1/2 77 / 42, got $(cat "$tmp/o")"
"$PHCCTL" status --json >"$tmp/o" 2>"$tmp/e" || fail "Describe() with a non-UTF-8 drop-in name: $(cat "$tmp/e")"
jq -e '.Manager.ConfigFiles | map(select(endswith("10-\\xff\\xfe.conf"))) | length == 1' "$tmp/o" >/dev/null ||
	fail "Describe(): expected ConfigFiles with the escaped name: $(jq -c .Manager.ConfigFiles "$tmp/o")"
echo "ok: phcctl status and Describe() work, the name escaped"
# The same name in a refusal is escaped too (D-Bus error texts must be UTF-8).
printf '[instance lab]\npriority1 = 999\n' >"$bad"
reload_refused "bad key in the non-UTF-8 drop-in" '10-\\xff\\xfe\.conf:2: priority1 = 999 is out of range'
kill -0 "$PHCD_PID" || fail "phcd died"
echo PASS
