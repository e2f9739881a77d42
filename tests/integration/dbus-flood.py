#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# One D-Bus connection sends N calls of a method at once (no waiting between them) and, after
# WAIT seconds, prints how they ended: "ok K", "<error name> K", "pending K" (no answer yet).
# usage: dbus-flood.py PATH INTERFACE METHOD N WAIT
import sys

import dbus
import dbus.mainloop.glib
from gi.repository import GLib

path, iface, method, n, wait = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5])
dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
bus = dbus.SystemBus()
obj = bus.get_object("org.phcd1", path, introspect=False)
counts = {}
left = [n]
loop = GLib.MainLoop()


def done(name):
    counts[name] = counts.get(name, 0) + 1
    left[0] -= 1


for _ in range(n):
    obj.get_dbus_method(method, iface)(
        reply_handler=lambda *a: done("ok"),
        error_handler=lambda e: done(e.get_dbus_name()),
        timeout=120,
    )
GLib.timeout_add(int(wait * 1000), loop.quit)
loop.run()
for k, v in sorted(counts.items()):
    print(k, v)
print("pending", left[0])
sys.stdout.flush()
