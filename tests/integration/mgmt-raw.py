#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Hand-made Management messages (malformed, oversized) to phcd over its Unix socket or over L2:
# prints one line per case, "CASE answers N [error 0xEEEE]", for test-mgmt.sh to judge.
import socket
import struct
import sys
import time

ETH_P_1588 = 0x88F7
PTP_MCAST = bytes.fromhex("011b19000000")
SOURCE = bytes(range(1, 9)) + struct.pack(">H", 7)


def request(seq, tlvs, action=0, pad_to=0):
    """A Management message (IEEE 1588-2019 15.4.1) to every clock and port, with raw TLVs."""
    suffix = b"".join(tlvs)
    length = 48 + len(suffix)
    hdr = struct.pack(">BBHBBH", 0x0D, 0x12, length, 0, 0, 0) + bytes(8) + bytes(4)
    hdr += SOURCE + struct.pack(">HBB", seq, 4, 0x7F)
    body = b"\xff" * 10 + bytes([0, 0, action, 0])
    msg = hdr + body + suffix
    return msg + bytes(max(0, pad_to - len(msg)))


def mgmt_tlv(mid, data=b"", length=None):
    n = 2 + len(data) if length is None else length
    return struct.pack(">HHH", 1, n, mid) + data


# PRIORITY1 0x2005: (name, message) for every case; seq numbers tell the answers apart.
CASES = [
    ("tlv-length-0", request(1, [struct.pack(">HH", 1, 0)])),
    ("two-tlvs", request(2, [mgmt_tlv(0x2005), mgmt_tlv(0x2005)])),
    ("not-management-tlv", request(3, [struct.pack(">HHH", 8, 2, 0x2005)])),
    ("no-tlv", request(4, [])),
    ("oversized-get", request(5, [mgmt_tlv(0x2005, bytes(200))])),
    ("oversized-set", request(6, [mgmt_tlv(0x2005, bytes([1, 0, 0, 0]))], action=1)),
    ("good-get", request(7, [mgmt_tlv(0x2005, bytes(2))])),
]


def judge(name, seq, answers):
    errors = []
    for a in answers:
        if len(a) < 54 or a[0] & 0x0F != 0x0D or struct.unpack(">H", a[30:32])[0] != seq:
            continue
        ttype = struct.unpack(">H", a[48:50])[0]
        if ttype == 2:
            errors.append("0x%04x" % struct.unpack(">H", a[52:54])[0])
        else:
            errors.append("data")
    print(name, "answers", len(errors), *errors, flush=True)


def run_uds(server, client):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind(client)
    s.settimeout(0.3)
    cases = CASES + [("garbage", b"this is not PTP"), ("too-large", request(8, [mgmt_tlv(0x2005)], pad_to=4000))]
    for seq, (name, msg) in enumerate(cases, 1):
        s.sendto(msg, server)
        answers = []
        try:
            while True:
                answers.append(s.recv(2048))
        except socket.timeout:
            pass
        judge(name, msg[31] if len(msg) > 31 else -1, answers)


def run_l2(ifname):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_1588))
    s.bind((ifname, ETH_P_1588))
    mac = s.getsockname()[4]
    for name, msg in CASES:
        frame = PTP_MCAST + mac + struct.pack(">H", ETH_P_1588) + msg
        s.sendall(frame)
        seq = msg[31]
        answers = []
        deadline = time.monotonic() + 0.5
        while time.monotonic() < deadline:
            s.settimeout(max(0.01, deadline - time.monotonic()))
            try:
                data, addr = s.recvfrom(2048)
            except socket.timeout:
                break
            if addr[2] == socket.PACKET_OUTGOING:
                continue
            answers.append(data[14:])
        judge(name, seq, answers)


if __name__ == "__main__":
    if sys.argv[1] == "uds":
        run_uds(sys.argv[2], sys.argv[3])
    else:
        run_l2(sys.argv[2])
