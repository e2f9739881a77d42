#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The example alerting rules of docs/prometheus: promtool finds them valid and their unit tests
# (each alert fires when it should, after its duration, and stays quiet on a healthy slave) pass.
set -euo pipefail
: "${SRC:?SRC must name the source directory}"
dir=$SRC/docs/prometheus
out=$(promtool check rules "$dir/phcd-alerts.yml" 2>&1) ||
	{ echo "$out" >&2; echo "FAIL: promtool check rules phcd-alerts.yml" >&2; exit 1; }
echo "ok: $(echo "$out" | grep -o 'SUCCESS: [0-9]* rules found')"
# promtool resolves rule_files relative to the test file.
out=$(promtool test rules "$dir/phcd-alerts.test.yml" 2>&1) ||
	{ echo "$out" >&2; echo "FAIL: promtool test rules phcd-alerts.test.yml" >&2; exit 1; }
echo "ok: promtool test rules: $(grep -c 'alertname:' "$dir/phcd-alerts.test.yml") alert checks passed"
echo PASS
