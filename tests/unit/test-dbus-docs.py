#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""docs/dbus-api.md and dbus/org.phcd1.xml (which test-dbus checks against the served
introspection) agree: every property, with its type and flags, and every method, with its
signature, of each org.phcd1 interface has its row in the docs, and every row names one that
exists. Nothing documented that phcd does not serve; nothing served undocumented."""
import re
import sys
import xml.etree.ElementTree as ET

xml_path, md_path = sys.argv[1], sys.argv[2]
errors = []

served = {}
for iface in ET.parse(xml_path).getroot().iter('interface'):
    name = iface.get('name')
    if not name.startswith('org.phcd1.'):
        continue
    props = {}
    for p in iface.findall('property'):
        # The docs' flags column starts with the signalling: "const", "signalled[, coalesced]"
        # or "explicit (Get only), not signalled" (EmitsChangedSignal false).
        flag = 'signalled'
        for a in p.findall('annotation'):
            if a.get('name') == 'org.freedesktop.DBus.Property.EmitsChangedSignal':
                flag = {'const': 'const', 'false': 'explicit', 'invalidates': 'invalidated'}.get(
                    a.get('value'), 'signalled')
        props[p.get('name')] = (p.get('type'), flag)
    methods = {}
    for m in iface.findall('method'):
        ins = ''.join(a.get('type') for a in m.findall('arg') if a.get('direction', 'in') == 'in')
        outs = ''.join(a.get('type') for a in m.findall('arg') if a.get('direction') == 'out')
        methods[m.get('name')] = (ins, outs)
    served[name] = (props, methods)

documented = {}
iface = section = None
for n, line in enumerate(open(md_path, encoding='utf-8'), 1):
    m = re.match(r'^## (org\.phcd1\.\w+)', line)
    if m:
        iface, section = m.group(1), None
        documented[iface] = ({}, {})
        continue
    if line.startswith('## '):
        iface = section = None
        continue
    m = re.match(r'^### (\w+)', line)
    if m:
        section = m.group(1)
        continue
    if not iface:
        continue
    props, methods = documented[iface]
    m = re.match(r'^\| `(\w+)` \| ([^ |]+) \| (\w+)[^|]* \|', line)
    if section in ('Properties', 'Counters', 'Health') and m:
        props[m.group(1)] = (m.group(2), m.group(3), n)
        continue
    m = re.match(r'^\| `(\w+)\(([^)]*)\)(?: -> ([^`]*))?` \|', line)
    if section == 'Methods' and m:
        sig = lambda s: ''.join(a.split()[0] for a in s.split(',') if a.strip())
        methods[m.group(1)] = (sig(m.group(2)), sig(m.group(3) or ''), n)

for name, (props, methods) in served.items():
    if name not in documented:
        errors.append(f'{name}: served, no "## {name}" section in the docs')
        continue
    dprops, dmethods = documented[name]
    for p, (t, flag) in props.items():
        if p not in dprops:
            errors.append(f'{name}.{p} ({t}): served, not documented')
        elif dprops[p][:2] != (t, flag):
            errors.append(f'{md_path}:{dprops[p][2]}: {name}.{p} documented as {dprops[p][:2]}, '
                          f'served as {(t, flag)}')
    for p, v in dprops.items():
        if p not in props:
            errors.append(f'{md_path}:{v[2]}: {name}.{p} documented, not served')
    for m, sig in methods.items():
        if m not in dmethods:
            errors.append(f'{name}.{m}{sig}: served, not documented')
        elif dmethods[m][:2] != sig:
            errors.append(f'{md_path}:{dmethods[m][2]}: {name}.{m} documented as (in, out) '
                          f'{dmethods[m][:2]}, served as {sig}')
    for m, v in dmethods.items():
        if m not in methods:
            errors.append(f'{md_path}:{v[2]}: {name}.{m}() documented, not served')
for name in documented:
    if name not in served:
        errors.append(f'{name}: documented, not in {xml_path}')

for e in errors:
    print('FAIL:', e)
total = sum(len(p) + len(m) for p, m in served.values())
if errors or total == 0:
    sys.exit(1)
print(f'ok: docs/dbus-api.md documents the {total} properties and methods of '
      f'{len(served)} interfaces as dbus/org.phcd1.xml declares them')
