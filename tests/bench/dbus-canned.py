#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A stand-in for phcd on D-Bus that answers from canned bytes: the floor of GetManagedObjects.

It owns org.phcd1 on the bus of $DBUS_SYSTEM_BUS_ADDRESS (unix:path= only) and answers, with
no marshalling at all, GetManagedObjects with the body of a real phcd reply captured beforehand
(REPLY_FILE, one D-Bus message as dbus-monitor --pcap captured it), Peer.Ping with an empty
return, Properties.Get with the variant "SLAVE" and Properties.GetAll with an empty dict (those
two only so that tests/bench/tool-dbus-latency can make its rounds; their figures mean nothing).
Only the header is built per call (serial, reply serial, destination, signature): what is left
of a call is dbus-daemon checking and routing the reply, the client reading it, and the
scheduler. tests/bench/dbus-latency.sh (FLOOR=1) runs it beside the real phcd.

usage: DBUS_SYSTEM_BUS_ADDRESS=unix:path=... dbus-canned.py REPLY_FILE
"""
import os
import socket
import struct
import sys


def pad(buf, align):
    buf.extend(b"\0" * (-len(buf) % align))


def put_string(buf, code, value):
    """A header field (code, variant of s, o or g) at an 8-aligned offset of buf."""
    pad(buf, 8)
    data = value.encode()
    buf.extend(struct.pack("<B", code))
    if code == 8:  # SIGNATURE: variant of g
        buf.extend(b"\x01g\0" + struct.pack("<B", len(data)) + data + b"\0")
        return
    sig = b"o" if code == 1 else b"s"
    buf.extend(b"\x01" + sig + b"\0")
    pad(buf, 4)
    buf.extend(struct.pack("<I", len(data)) + data + b"\0")


def message(mtype, serial, fields, body=b"", reply_serial=None):
    """A little-endian D-Bus message: fields is [(code, str)], the signature among them."""
    f = bytearray()
    if reply_serial is not None:
        pad(f, 8)
        f.extend(struct.pack("<B", 5) + b"\x01u\0" + struct.pack("<I", reply_serial))
    for code, value in fields:
        put_string(f, code, value)
    head = bytearray(struct.pack("<cBBBIII", b"l", mtype, 0, 1, len(body), serial, len(f)))
    head.extend(f)
    pad(head, 8)
    return bytes(head) + body


def parse(data):
    """(type, flags, serial, fields {code: value}, body) of one little-endian message."""
    _, mtype, flags, _, blen, serial, flen = struct.unpack_from("<cBBBIII", data, 0)
    fields, o, end = {}, 16, 16 + flen
    while o < end:
        o += -o % 8
        code, slen = data[o], data[o + 1]
        sig = data[o + 2:o + 2 + slen].decode()
        o += 3 + slen
        if sig in ("s", "o"):
            o += -o % 4
            (n,) = struct.unpack_from("<I", data, o)
            fields[code] = data[o + 4:o + 4 + n].decode()
            o += 4 + n + 1
        elif sig == "g":
            n = data[o]
            fields[code] = data[o + 1:o + 1 + n].decode()
            o += 1 + n + 1
        elif sig == "u":
            o += -o % 4
            (fields[code],) = struct.unpack_from("<I", data, o)
            o += 4
        else:
            raise ValueError(f"header field {code} of type {sig}")
    start = end + (-end % 8)
    return mtype, flags, serial, fields, data[start:start + blen]


class Conn:
    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.buf = bytearray()
        self.serial = 0
        uid = str(os.getuid()).encode().hex()
        self.sock.sendall(b"\0AUTH EXTERNAL " + uid.encode() + b"\r\n")
        if not self.readline().startswith(b"OK "):
            raise RuntimeError("authentication refused")
        self.sock.sendall(b"BEGIN\r\n")

    def readline(self):
        while b"\r\n" not in self.buf:
            self.fill()
        line, _, rest = bytes(self.buf).partition(b"\r\n")
        self.buf = bytearray(rest)
        return line

    def fill(self):
        chunk = self.sock.recv(1 << 20)
        if not chunk:
            raise EOFError
        self.buf.extend(chunk)

    def recv(self):
        while len(self.buf) < 16:
            self.fill()
        blen, flen = struct.unpack_from("<I", self.buf, 4)[0], struct.unpack_from("<I", self.buf, 12)[0]
        total = 16 + flen + (-(16 + flen) % 8) + blen
        while len(self.buf) < total:
            self.fill()
        data = bytes(self.buf[:total])
        del self.buf[:total]
        return parse(data)

    def send(self, mtype, fields, body=b"", reply_serial=None):
        self.serial += 1
        self.sock.sendall(message(mtype, self.serial, fields, body, reply_serial))
        return self.serial

    def call(self, member, sig=None, body=b""):
        fields = [(1, "/org/freedesktop/DBus"), (2, "org.freedesktop.DBus"), (3, member),
                  (6, "org.freedesktop.DBus")]
        if sig:
            fields.append((8, sig))
        serial = self.send(1, fields, body)
        while True:
            mtype, _, _, f, b = self.recv()
            if mtype in (2, 3) and f.get(5) == serial:
                if mtype == 3:
                    raise RuntimeError(f"{member}: {f.get(4)}")
                return b


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    addr = os.environ["DBUS_SYSTEM_BUS_ADDRESS"]
    if not addr.startswith("unix:path="):
        sys.exit("only unix:path= addresses")
    with open(sys.argv[1], "rb") as f:
        _, _, _, fields, gmo_body = parse(f.read())
    gmo_sig = fields[8]
    slave = b"\x01s\0\0" + struct.pack("<I", 5) + b"SLAVE\0"
    empty_dict = struct.pack("<I", 0) + b"\0" * 4
    answers = {
        "GetManagedObjects": (gmo_sig, gmo_body),
        "Ping": (None, b""),
        "Get": ("v", slave),
        "GetAll": ("a{sv}", empty_dict),
    }
    conn = Conn(addr[len("unix:path="):].split(",")[0])
    conn.call("Hello")
    body = bytearray(struct.pack("<I", 9) + b"org.phcd1\0")
    pad(body, 4)
    conn.call("RequestName", "su", bytes(body) + struct.pack("<I", 0))
    while True:
        try:
            mtype, flags, serial, f, _ = conn.recv()
        except EOFError:
            return
        if mtype != 1 or flags & 1:  # only method calls that want a reply
            continue
        sig, body = answers.get(f.get(3), (None, None))
        fields = [(6, f[7])]
        if body is None:
            conn.send(3, fields + [(4, "org.freedesktop.DBus.Error.UnknownMethod")],
                      reply_serial=serial)
            continue
        if sig:
            fields.append((8, sig))
        conn.send(2, fields, body, reply_serial=serial)


if __name__ == "__main__":
    main()
