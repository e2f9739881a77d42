#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""No .c or .h file of the tree over MAX_LINES lines (STYLE.md; issue 26).

Walks SOURCE_ROOT, skipping hidden folders and build trees (build*), and names every file over
the limit with its count. Usage: test-file-size.py [SOURCE_ROOT]
"""
import os
import sys

MAX_LINES = 1000


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else '.'
    over, seen = [], 0
    for top, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith('.') and not d.startswith('build'))
        for name in sorted(files):
            if not name.endswith(('.c', '.h')):
                continue
            path = os.path.join(top, name)
            with open(path, 'rb') as f:
                n = f.read().count(b'\n')
            seen += 1
            if n > MAX_LINES:
                over.append((n, os.path.relpath(path, root)))
    if seen == 0:
        print(f'no .c or .h file under {root}: wrong SOURCE_ROOT?')
        return 1
    for n, path in sorted(over, reverse=True):
        print(f'{path}: {n} lines, expected at most {MAX_LINES}: split it by concern')
    if over:
        return 1
    print(f'{seen} .c/.h files, none over {MAX_LINES} lines')
    return 0


if __name__ == '__main__':
    sys.exit(main())
