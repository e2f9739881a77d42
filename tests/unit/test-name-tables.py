#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Every name of a fixed-width name table keeps its terminating NUL.

The programs keep names in arrays of char arrays (`static const char NAME[...][WIDTH]`), not
pointers, so that a worker copies no relocated table (issue 26). C accepts a string literal
exactly WIDTH long there and drops its NUL without a word, and a longer one is only a
warning: a name that outgrew its width would be read past its end. This finds every such
table under SOURCE_ROOT's ptp/, common/, worker/ and daemon/ and names each entry that does
not fit with its NUL. Usage: test-name-tables.py [SOURCE_ROOT]
"""
import glob
import os
import re
import sys

TABLE = re.compile(r'static const char (\w+)\[[^\]]*\]\[(\d+)\] = \{(.*?)\n\};', re.S)
LITERAL = re.compile(r'"((?:[^"\\]|\\.)*)"')


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else '.'
    bad, tables = [], 0
    for sub in ('ptp', 'common', 'worker', 'daemon'):
        for path in sorted(glob.glob(os.path.join(root, sub, '*.c'))):
            with open(path, encoding='utf-8') as f:
                text = f.read()
            for m in TABLE.finditer(text):
                tables += 1
                width = int(m.group(2))
                for name in LITERAL.findall(m.group(3)):
                    # Escapes (\n, \") are one byte each in the array.
                    size = len(name.encode().decode('unicode_escape').encode('latin-1'))
                    if size >= width:
                        bad.append(f'{os.path.relpath(path, root)}: {m.group(1)}[][{width}]: '
                                   f'"{name}" is {size} bytes, expected at most {width - 1}')
    if tables == 0:
        print(f'no fixed-width name table under {root}: wrong SOURCE_ROOT?')
        return 1
    for line in bad:
        print(line)
    if bad:
        return 1
    print(f'ok: {tables} fixed-width name tables, every name with its NUL')
    return 0


if __name__ == '__main__':
    sys.exit(main())
