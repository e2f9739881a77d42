#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Local floods against phcd, for test-attack-13-local-dos.sh; each prints one summary line.
#   local-flood.py uds SERVER CLIENT SECONDS: GET PRIORITY1 requests on phcd's management socket
#     as fast as the socket takes them, for SECONDS: "sent N answered M"
#   local-flood.py describe SECONDS: Manager.Describe() calls one after the other for SECONDS:
#     "calls N"
import os
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from importlib.machinery import SourceFileLoader  # noqa: E402

raw = SourceFileLoader("mgmt_raw", os.path.join(os.path.dirname(os.path.abspath(__file__)), "mgmt-raw.py")).load_module()


def flood_uds(server, client, seconds):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind(client)
    s.setblocking(False)
    sent = answered = 0
    end = time.monotonic() + seconds
    seq = 0
    while time.monotonic() < end:
        seq = (seq + 1) & 0xFFFF
        try:
            s.sendto(raw.request(seq, [raw.mgmt_tlv(0x2005, bytes(2))]), server)
            sent += 1
        except (BlockingIOError, OSError):
            time.sleep(0.0005)
        try:
            while True:
                s.recv(2048)
                answered += 1
        except BlockingIOError:
            pass
    s.settimeout(0.5)
    try:
        while True:
            s.recv(2048)
            answered += 1
    except socket.timeout:
        pass
    print("sent", sent, "answered", answered, flush=True)


def flood_describe(seconds):
    import dbus

    bus = dbus.SystemBus()
    m = dbus.Interface(bus.get_object("org.phcd1", "/org/phcd1", introspect=False), "org.phcd1.Manager")
    n = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        m.Describe()
        n += 1
    print("calls", n, flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "uds":
        flood_uds(sys.argv[2], sys.argv[3], float(sys.argv[4]))
    else:
        flood_describe(float(sys.argv[2]))
