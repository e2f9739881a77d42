#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Attack finding 10 (issue 17): --status-file is written through a file of a random name that
# phcd creates itself (O_CREAT|O_EXCL) and renames: a symlink planted at the old predictable
# PATH.tmp, pointing at a root-owned 0600 file elsewhere, is never followed (that file keeps its
# content and mode), and the status file is still written, as a regular file.
set -euo pipefail
. "${SRC:?SRC must name the source directory}/tests/lib/test-lib.sh"
test_begin ptp phcd

PORT=$BUILD/worker/phcd-port
S=pha10-s$$ P=pha10-p$$
netns_pair "$S" "$P" s1 p1
cat >"$tmp/phcd.conf" <<CONF
[global]
time_stamping = software

[instance lab]
interfaces = s1
clock_backend = free_running
CONF
mkdir "$tmp/elsewhere" "$tmp/run"
secret=$tmp/elsewhere/secret
echo "root's secret" >"$secret"
chmod 0600 "$secret"
STATUS=$tmp/run/status
# What an attacker who can write the status file's directory plants.
ln -s "$secret" "$STATUS.tmp"
phcd_start "$S" "$tmp/phcd.conf" "$tmp/phcd.log" --port-binary "$PORT" --status-file "$STATUS" \
	--uds "" --uds-ro ""
wait_status port s1 state 'LISTENING|MASTER' 15
# Several rewrites (each state change is one): none may have gone through the link.
test_duration 1 "phcd rewrites its status file meanwhile"
[ "$(cat "$secret")" = "root's secret" ] ||
	fail "the file behind the planted symlink was written: $(head -c 200 "$secret")"
[ "$(stat -c %a "$secret")" = 600 ] || fail "the file behind the symlink changed mode: $(stat -c %a "$secret")"
[ -L "$STATUS.tmp" ] || fail "expected the planted symlink left alone"
[ -f "$STATUS" ] && [ ! -L "$STATUS" ] || fail "expected $STATUS a regular file"
[ "$(stat -c %a "$STATUS")" = 644 ] || fail "expected $STATUS mode 644, got $(stat -c %a "$STATUS")"
left=$(find "$tmp/run" -name '.status.*' | wc -l)
[ "$left" = 0 ] || fail "expected no temporary file left beside $STATUS, found $left"
echo "ok: status file written ($(grep -c . "$STATUS") lines, mode 644); the symlink at $(basename "$STATUS").tmp not followed, the 0600 file behind it unchanged"
