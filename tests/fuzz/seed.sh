#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Regenerate the committed seed corpora.
#
# Usage: tests/fuzz/seed.sh [BUILD_DIR]
# From tests/data/*.hex: corpus/msg/ holds each captured PTP message, corpus/tlv/ the TLV suffix
# of each captured message that has one. With BUILD_DIR (a build with tests/unit/test-ipc), also
# corpus/ipc/ at common/ipc.h's IPC_VERSION: every kept input whose header carries an older
# version is moved to the current one (dropped when its type no longer exists), one seed of each
# message type is written by test-ipc (PHCD_IPC_SEED_DIR), and each file is named by the SHA-1 of
# its content, as libFuzzer names what it keeps.
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
[ $# -ge 1 ] || exit 0

build=$(realpath "$1")
seeds=$(mktemp -d /tmp/phcd-ipc-seeds.XXXXXX)
trap 'rm -rf "$seeds"' EXIT
PHCD_IPC_SEED_DIR=$seeds "$build/tests/unit/test-ipc" >/dev/null
python3 - "$here/../../common/ipc.h" "$here/corpus/ipc" "$seeds" <<'PY'
import glob, hashlib, os, re, sys
header, corpus, seeds = sys.argv[1:]
text = open(header).read()
version = int(re.search(r'#define IPC_VERSION (\d+)', text).group(1))
enum = re.search(r'enum ipc_type \{(.*?)\};', text, re.S).group(1)
types = {int(v) for v in re.findall(r'IPC_\w+ = (\d+)', enum)}
moved = dropped = 0
for path in sorted(glob.glob(f'{corpus}/*')):
    b = open(path, 'rb').read()
    os.unlink(path)
    if len(b) >= 8 and 0 < int.from_bytes(b[2:4], 'big') < version:
        if int.from_bytes(b[0:2], 'big') not in types:
            dropped += 1
            continue
        b = b[:2] + version.to_bytes(2, 'big') + b[4:]
        moved += 1
    with open(f'{corpus}/{hashlib.sha1(b).hexdigest()}', 'wb') as f:
        f.write(b)
for path in sorted(glob.glob(f'{seeds}/*')):
    b = open(path, 'rb').read()
    with open(f'{corpus}/{hashlib.sha1(b).hexdigest()}', 'wb') as f:
        f.write(b)
print(f'corpus/ipc: version {version}: {moved} moved, {dropped} dropped (type gone), '
      f'{len(glob.glob(seeds + "/*"))} seeds, {len(glob.glob(corpus + "/*"))} inputs')
PY
