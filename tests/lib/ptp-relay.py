#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A two-port L2 relay for the tests, where the kernel has no tc classifiers or actions:
forwards every frame between IF1 and IF2 (AF_PACKET), and does to the PTP frames (ethertype
0x88F7) going IF1 -> IF2 what the file MODE says at the time (re-read on every frame):
  pass       forward as they are
  drop-sync  drop Sync messages (messageType 0); everything else passes
  drop-delay-resp  drop Delay_Resp messages (messageType 9); everything else passes
  swap-sync  hold each Sync until the next PTP frame from IF1 (its Follow_Up) has gone: every
             Follow_Up arrives before its Sync
Usage: ptp-relay.py IF1 IF2 MODE_FILE (run it inside the namespace holding both)."""
import os
import select
import socket
import sys

ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4


def mode(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return "pass"


def main():
    if1, if2, mode_file = sys.argv[1:4]
    socks = {}
    for name in (if1, if2):
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
        s.bind((name, 0))
        socks[name] = s
    other = {if1: socks[if2], if2: socks[if1]}
    held = None
    while True:
        ready, _, _ = select.select(list(socks.values()), [], [])
        for name, s in socks.items():
            if s not in ready:
                continue
            frame, addr = s.recvfrom(65535)
            if addr[2] == PACKET_OUTGOING:
                continue
            ptp = len(frame) > 14 and frame[12:14] == b"\x88\xf7"
            if name == if1 and ptp:
                m = mode(mode_file)
                is_sync = frame[14] & 0x0F == 0
                if m == "drop-sync" and is_sync:
                    continue
                if m == "drop-delay-resp" and frame[14] & 0x0F == 9:
                    continue
                if m == "swap-sync":
                    if is_sync and held is None:
                        held = frame
                        continue
                    other[name].send(frame)
                    if held is not None:
                        other[name].send(held)
                        held = None
                    continue
            other[name].send(frame)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        pass
    os._exit(0)
