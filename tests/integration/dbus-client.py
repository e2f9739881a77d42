#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# A client of org.phcd1 outside C and sd-bus (python3-dbus + GLib): reads every object's
# properties through GetManagedObjects and Properties.GetAll, then waits for a PropertiesChanged
# of one port's State. Proves the API follows the conventions generic clients rely on.
# usage: dbus-client.py IFNAME EXPECTED_STATE TIMEOUT_S   (prints "ready" once subscribed)
import sys

import dbus
import dbus.mainloop.glib
from gi.repository import GLib

ifname, expected, timeout = sys.argv[1], sys.argv[2], float(sys.argv[3])
dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
bus = dbus.SystemBus()
root = bus.get_object("org.phcd1", "/org/phcd1")
manager = dbus.Interface(root, "org.phcd1.Manager")

objects = dbus.Interface(root, "org.freedesktop.DBus.ObjectManager").GetManagedObjects()
for path in sorted(objects):
    for iface in sorted(objects[path]):
        if iface.startswith("org.phcd1."):
            print(f"object {path} {iface} {len(objects[path][iface])} properties")

port_path = manager.GetPortByInterface(ifname)
port = bus.get_object("org.phcd1", port_path)
port_props = dbus.Interface(port, "org.freedesktop.DBus.Properties")
props = port_props.GetAll("org.phcd1.Port")
# Counters is an explicit property: left out of GetAll, returned by Get.
counters = port_props.Get("org.phcd1.Port", "Counters")
print(f"port {props['Interface']} State={props['State']} TimestampingMode={props['TimestampingMode']}"
      f" Counters={len(counters)} in GetAll={'Counters' in props}")

loop = GLib.MainLoop()
result = {"ok": False}


def changed(iface, changed, invalidated, path=None):
    if iface != "org.phcd1.Port" or path != port_path:
        return
    print(f"signal {path} " + " ".join(f"{k}={v}" for k, v in sorted(changed.items())))
    if changed.get("State") == expected:
        result["ok"] = True
        loop.quit()


bus.add_signal_receiver(changed, signal_name="PropertiesChanged",
                        dbus_interface="org.freedesktop.DBus.Properties",
                        bus_name="org.phcd1", path_keyword="path")
# AddMatch is a round trip of its own: once a call after it returns, the match is in place.
bus.get_object("org.freedesktop.DBus", "/org/freedesktop/DBus").GetId(
    dbus_interface="org.freedesktop.DBus")
print("ready", flush=True)
GLib.timeout_add(int(timeout * 1000), loop.quit)
loop.run()
if not result["ok"]:
    print(f"FAIL: no PropertiesChanged with State={expected} within {timeout}s", file=sys.stderr)
    sys.exit(1)
print(f"got State={expected}")
