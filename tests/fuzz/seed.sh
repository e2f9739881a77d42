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
# corpus/port/: frames for fuzz-port (each a 2-byte length and the frame): every captured message
# alone, all of them in a row, and an 802.1AS Signaling message interval request (802.1AS-2011
# 10.5.4.3) that fuzz-port's master takes.
os.makedirs(f'{corpus}/port', exist_ok=True)
frames = []
for path in sorted(glob.glob(f'{data}/*.hex')):
    msg = bytes.fromhex(open(path).read())
    frames.append(msg)
    name = os.path.basename(path)[:-4]
    open(f'{corpus}/port/{name}', 'wb').write(len(msg).to_bytes(2, 'big') + msg)
tlv = bytes.fromhex('0003000c0080c2000002' + '80' + '00' + '80' + '00' + '0000')
sig = bytearray(44)
sig[0] = 0x1c  # majorSdoId 1, Signaling
sig[1] = 0x02
sig[2:4] = (44 + len(tlv)).to_bytes(2, 'big')
sig[20:28] = bytes.fromhex('0011223344556677')
sig[28:30] = (1).to_bytes(2, 'big')
sig[32] = 5
sig[33] = 0x7f
sig[34:44] = b'\xff' * 10
sig = bytes(sig) + tlv
frames.append(sig)
open(f'{corpus}/port/signaling-interval-request', 'wb').write(len(sig).to_bytes(2, 'big') + sig)
open(f'{corpus}/port/all', 'wb').write(b''.join(len(f).to_bytes(2, 'big') + f for f in frames))
# corpus/ptp4l/: linuxptp-style files for fuzz-ptp4l (written here, in ptp4l's syntax): an 802.1AS
# set, a port section, each kind of verdict, and a few errors.
seeds = {
    'gptp': '#\n# 802.1AS\n#\n[global]\ngmCapable\t\t1\npriority1\t\t248\n'
            'logSyncInterval\t\t-3\ntransportSpecific\t0x1\nfollow_up_info\t\t1\n'
            'ptp_dst_mac\t\t01:80:C2:00:00:0E\nnetwork_transport\tL2\ndelay_mechanism\t\tP2P\n',
    'ports': '[global]\nclientOnly 1\nfree_running 1\n[eth0]\nlogSyncInterval -5  # fast\n'
             '[eth1]\ndelay_mechanism E2E\n',
    'verdicts': '[global]\nuse_syslog 1\nfreq_est_interval 1\nclock_type BC\n'
                'pi_proportional_scale 0.0\nboundary_clock_jbod 0\nsummary_interval -3\n'
                'productDescription ;;\n',
    'unicast-slave': '[global]\nunicast_req_duration 60\n[unicast_master_table]\ntable_id 1\n'
                     'logQueryInterval 2\nUDPv4 192.168.1.11\nUDPv6 2001:db8::1\n'
                     '[unicast_master_table]\ntable_id 2\nL2 00:11:22:33:44:55\n'
                     'peer_address 192.168.4.44\n[eth0]\nunicast_master_table 1\n',
    'errors': 'priority1 3\n[global]\nnetwork_transport UDPv4\npriority1\nfrobnicate 1\n'
              '[unicast_master_table]\ntable_id 1\n[eth0\n[eth0]\npriority1 3\n[eth0]\n',
}
os.makedirs(f'{corpus}/ptp4l', exist_ok=True)
for name, text in seeds.items():
    open(f'{corpus}/ptp4l/{name}', 'w').write(text)
# corpus/gpsd-json/: each distinct JSON line of gpsd's output in tests/unit/data/gpsd/ (gpsd 3.22's
# regression logs and a capture here), named by its SHA-1, and one session in a row.
import hashlib
os.makedirs(f'{corpus}/gpsd-json', exist_ok=True)
session = []
for path in sorted(glob.glob(f'{data}/../unit/data/gpsd/*')):
    if path.endswith('.md'):
        continue
    for line in open(path, 'rb').read().split(b'\n'):
        if line.startswith(b'{'):
            open(f'{corpus}/gpsd-json/{hashlib.sha1(line).hexdigest()}', 'wb').write(line)
            if path.endswith('.jsonl'):
                session.append(line)
open(f'{corpus}/gpsd-json/session', 'wb').write(b'\n'.join(session) + b'\n')
# PPS in gpsd 3.22's format (gpsd.c ship_pps): no PPS source was at hand to capture one.
open(f'{corpus}/gpsd-json/pps', 'wb').write(
    b'{"class":"PPS","device":"/dev/ttyS0","real_sec":1796627386,"real_nsec":0,'
    b'"clock_sec":1796627385,"clock_nsec":999998765,"precision":-20,"qErr":-1234}\r\n')
# corpus/unicast-tlv/: the four negotiation TLVs as ptp4l sends them (16.1.4), in one suffix and
# alone; corpus/unicast-addr/: one address of each family and a few near misses, as text, and as a
# frame's source bytes (bin-*: a MAC, a group and the zero MAC, an IPv4 and an IPv6 address).
os.makedirs(f'{corpus}/unicast-tlv', exist_ok=True)
tlvs = {'request': '00040006 00fc0000003c', 'grant': '00050008 b00100000e100001',
        'cancel': '00060002 9000', 'ack': '00070002 3200'}
for name, h in tlvs.items():
    open(f'{corpus}/unicast-tlv/{name}', 'wb').write(bytes.fromhex(h.replace(' ', '')))
open(f'{corpus}/unicast-tlv/all', 'wb').write(
    b''.join(bytes.fromhex(h.replace(' ', '')) for h in tlvs.values()))
os.makedirs(f'{corpus}/unicast-addr', exist_ok=True)
for i, a in enumerate(['192.168.1.11', '2001:db8::44', '00:11:22:33:44:55', '00-11-22-33-44-55',
                       '224.0.1.129', 'fe80::1%eth0', '::ffff:192.0.2.1', '01:1b:19:00:00:00']):
    open(f'{corpus}/unicast-addr/{i}', 'w').write(a)
for name, h in {'mac': '021b19000001', 'group-mac': '011b19000000', 'zero-mac': '000000000000',
                'ipv4': 'c0000201', 'ipv6': 'fe80' + '00' * 12 + '0211'}.items():
    open(f'{corpus}/unicast-addr/bin-{name}', 'wb').write(bytes.fromhex(h))
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
