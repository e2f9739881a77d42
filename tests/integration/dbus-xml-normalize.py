#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Print the org.phcd1.* interfaces of introspection XML files in one canonical form (sorted
# members, args in order, annotations kept, comments and whitespace dropped), so the shipped
# dbus/org.phcd1.xml can be compared with what the daemon serves.
import sys
import xml.etree.ElementTree as ET


def canon(el, depth=0):
    attrs = " ".join(f'{k}="{v}"' for k, v in sorted(el.attrib.items()))
    lines = ["  " * depth + f"<{el.tag} {attrs}>".replace(" >", ">")]
    children = list(el)
    if el.tag == "interface":
        # Member order is not part of the API.
        children.sort(key=lambda c: (c.tag, c.get("name", "")))
    for c in children:
        lines += canon(c, depth + 1)
    return lines


ifaces = {}
for path in sys.argv[1:]:
    root = ET.parse(path).getroot()
    for iface in root.iter("interface"):
        name = iface.get("name", "")
        if name.startswith("org.phcd1."):
            ifaces[name] = canon(iface)
for name in sorted(ifaces):
    print("\n".join(ifaces[name]))
