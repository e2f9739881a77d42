#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Outside oracle: tshark's PTP dissector decodes what phcd's codec built, with no malformed or
# expert items, to the very field values phcd set. Usage: test-codec-tshark.sh PATH/TO/codec-pcap
set -euo pipefail
tool=$1
work=$(mktemp -d /tmp/phcd-tshark.$$.XXXX)
trap 'rm -rf "$work"' EXIT

if ! command -v tshark >/dev/null; then
	echo "FAIL: tshark is not installed (scripts/deps.sh installs it)" >&2
	exit 1
fi
"$tool" "$work/codec.pcap" >"$work/expected.txt"
# tshark warns when run as root; that is not the dissector speaking.
tshark -r "$work/codec.pcap" -T json --no-duplicate-keys 2>"$work/stderr" >"$work/decoded.json"
tshark -r "$work/codec.pcap" -q -z expert 2>>"$work/stderr" >"$work/expert.txt"

python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
frames = json.load(open(f'{work}/decoded.json'))
expected = {}
for line in open(f'{work}/expected.txt'):
    n, field, value = line.rstrip('\n').split(' ', 2)
    expected.setdefault(int(n), []).append((field, value))

def find(node, key, found):
    """Every value of key anywhere below node (tshark nests subtrees as objects)."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k == key:
                found.extend(v if isinstance(v, list) else [v])
            find(v, key, found)
    elif isinstance(node, list):
        for v in node:
            find(v, key, found)
    return found

def same(got, want):
    try:
        return int(got, 0) == int(want, 0)
    except (TypeError, ValueError):
        return got == want

errors, checked = [], 0
if len(frames) != len(expected):
    errors.append(f'expected {len(expected)} frames, tshark decoded {len(frames)}')
for i, frame in enumerate(frames, 1):
    layers = frame['_source']['layers']
    if not layers['frame']['frame.protocols'].endswith(':ptp'):
        errors.append(f'frame {i}: protocols {layers["frame"]["frame.protocols"]}, expected ...:ptp')
    for bad in ('_ws.malformed', '_ws.expert', '_ws.expert.message'):
        hits = find(layers, bad, [])
        if hits:
            errors.append(f'frame {i}: tshark reports {bad}: {hits}')
    seen = {}
    for field, want in expected.get(i, []):
        # A field listed k times (PATH_TRACE entries) is compared with its k-th occurrence.
        k = seen[field] = seen.get(field, -1) + 1
        got = find(layers.get('ptp', {}), field, [])
        checked += 1
        if len(got) <= k:
            errors.append(f'frame {i}: {field}[{k}]: expected {want}, tshark has no such field')
        elif not same(got[k], want):
            errors.append(f'frame {i}: {field}[{k}]: expected {want}, tshark decoded {got[k]}')
expert = open(f'{work}/expert.txt').read()
if any(s in expert for s in ('Errors (', 'Warnings (', 'Malformed')):
    errors.append('tshark expert info:\n' + expert)
for e in errors:
    print('FAIL:', e)
print(f'{len(frames)} frames, {checked} field values compared, {len(errors)} problems')
sys.exit(1 if errors else 0)
PY
