#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Regenerate the committed seed corpora from tests/data/*.hex: corpus/msg/ holds each captured
# PTP message, corpus/tlv/ the TLV suffix of each captured message that has one.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
python3 - "$here/../data" "$here/corpus" <<'PY'
import glob, os, sys
data, corpus = sys.argv[1], sys.argv[2]
# Header + body length per messageType (IEEE 1588-2019 13.5-13.12).
base = {0x0: 44, 0x1: 44, 0x2: 54, 0x3: 54, 0x8: 44, 0x9: 54, 0xa: 54, 0xb: 64, 0xc: 44, 0xd: 48}
for d in ('msg', 'tlv'):
    os.makedirs(f'{corpus}/{d}', exist_ok=True)
for path in sorted(glob.glob(f'{data}/*.hex')):
    name = os.path.basename(path)[:-4]
    msg = bytes.fromhex(open(path).read())
    open(f'{corpus}/msg/{name}', 'wb').write(msg)
    suffix = msg[base[msg[0] & 0xf]:]
    if suffix:
        open(f'{corpus}/tlv/{name}', 'wb').write(suffix)
PY
