#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Print the PTP frames (ethertype 0x88F7) of a pcap file that tcpdump -w wrote, one per line:

  SRC_MAC TYPE seq N interval N [sdo N] [steps N path ID,ID...] [csro N] [ireq L,S,A]

TYPE is the messageType name; Announce adds stepsRemoved and its path trace TLV (clockIdentities
as 16 hex digits, "-" without one); Follow_Up the 802.1AS Follow_Up information TLV's
cumulativeScaledRateOffset ("-" without one); Signaling the 802.1AS message interval request
TLV's linkDelayInterval, timeSyncInterval, announceInterval. For tests: a capture proves what went
on the wire, whatever either end logs.
"""
import struct
import sys

NAMES = {0x0: "SYNC", 0x1: "DELAY_REQ", 0x2: "PDELAY_REQ", 0x3: "PDELAY_RESP",
         0x8: "FOLLOW_UP", 0x9: "DELAY_RESP", 0xA: "PDELAY_RESP_FOLLOW_UP", 0xB: "ANNOUNCE",
         0xC: "SIGNALING", 0xD: "MANAGEMENT"}
BODY = {0x0: 10, 0x1: 10, 0x2: 20, 0x3: 20, 0x8: 10, 0x9: 20, 0xA: 20, 0xB: 30, 0xC: 10,
        0xD: 14}


def tlvs(buf):
    pos = 0
    while pos + 4 <= len(buf):
        t, n = struct.unpack_from(">HH", buf, pos)
        yield t, buf[pos + 4:pos + 4 + n]
        pos += 4 + n


def frame(data):
    if len(data) < 14:
        return None
    etype = struct.unpack_from(">H", data, 12)[0]
    off = 14
    if etype == 0x8100 and len(data) >= 18:
        etype = struct.unpack_from(">H", data, 16)[0]
        off = 18
    if etype != 0x88F7 or len(data) < off + 34:
        return None
    src = ":".join("%02x" % b for b in data[6:12])
    p = data[off:]
    mtype = p[0] & 0x0F
    sdo = p[0] >> 4
    length = struct.unpack_from(">H", p, 2)[0]
    seq = struct.unpack_from(">H", p, 30)[0]
    interval = struct.unpack_from(">b", p, 33)[0]
    out = [src, NAMES.get(mtype, "0x%x" % mtype), "seq", str(seq), "interval", str(interval),
           "sdo", str(sdo)]
    body = 34 + BODY.get(mtype, 0)
    suffix = p[body:length] if length <= len(p) else b""
    if mtype == 0xB and len(p) >= 64:
        steps = struct.unpack_from(">H", p, 61)[0]
        path = "-"
        for t, v in tlvs(suffix):
            if t == 0x0008:
                path = ",".join(v[i:i + 8].hex() for i in range(0, len(v) - 7, 8))
        out += ["steps", str(steps), "path", path]
    elif mtype == 0x8:
        csro = "-"
        for t, v in tlvs(suffix):
            if t == 0x0003 and v[:6] == b"\x00\x80\xc2\x00\x00\x01" and len(v) >= 10:
                csro = str(struct.unpack_from(">i", v, 6)[0])
        out += ["csro", csro]
    elif mtype == 0xC:
        for t, v in tlvs(suffix):
            if t == 0x0003 and v[:6] == b"\x00\x80\xc2\x00\x00\x02" and len(v) >= 9:
                out += ["ireq", "%d,%d,%d" % struct.unpack_from(">bbb", v, 6)]
    return " ".join(out)


def main():
    with open(sys.argv[1], "rb") as f:
        data = f.read()
    if len(data) < 24:
        return
    magic = struct.unpack_from("<I", data, 0)[0]
    endian = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    pos = 24
    while pos + 16 <= len(data):
        _, _, incl, _ = struct.unpack_from(endian + "IIII", data, pos)
        pos += 16
        line = frame(data[pos:pos + incl])
        pos += incl
        if line:
            print(line)


if __name__ == "__main__":
    main()
