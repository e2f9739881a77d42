#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The include circle of daemon/: at most MAX_SCC source files may depend on each other in a ring.

The graph: a file depends on each daemon/ header it includes, and a header stands for the .c
files that define the functions it declares (including manager-internal.h is using manager.c,
instance.c, ...). The largest strongly connected component, counted in .c files, must not exceed
MAX_SCC (issue 26: it was 7 at c73b1b8, 4 at 22a8b42). Usage: test-include-graph.py [DAEMON_DIR]
"""
import os
import re
import sys

MAX_SCC = 4
INCLUDE = re.compile(r'^\s*#\s*include\s+"daemon/([\w.-]+)"', re.M)
# A prototype or a definition's first line: at column 0, not static, a name before "(".
DECL = re.compile(r'^(?!static\b|typedef\b|#|\s)[\w][\w \t\*]*?\b(\w+)\(', re.M)


def functions(text, defined):
    names = set()
    for m in DECL.finditer(text):
        line_end = text.find('\n', m.end())
        rest = text[m.end():]
        # a definition: the next "{" comes before the next ";"
        brace, semi = rest.find('{'), rest.find(';')
        is_def = brace >= 0 and (semi < 0 or brace < semi)
        if is_def == defined:
            names.add(m.group(1))
    return names


def scc(nodes, edges):
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(comp)

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), '..', '..', 'daemon')
    files = sorted(f for f in os.listdir(top) if f.endswith(('.c', '.h')))
    text = {f: open(os.path.join(top, f), encoding='utf-8').read() for f in files}
    defines = {f: functions(text[f], True) for f in files if f.endswith('.c')}
    edges = {}
    for f in files:
        edges[f] = {h for h in INCLUDE.findall(text[f]) if h in text}
    for h in (f for f in files if f.endswith('.h')):
        declared = functions(text[h], False)
        edges[h] |= {c for c, names in defines.items() if names & declared}
    worst = max(scc(files, edges), key=lambda comp: sum(f.endswith('.c') for f in comp))
    worst_c = sorted(f for f in worst if f.endswith('.c'))
    print('largest include circle in daemon/: %d .c files: %s' %
          (len(worst_c), ' '.join(worst_c) or '-'))
    if len(worst_c) > MAX_SCC:
        print('FAIL: expected at most %d .c files in one circle' % MAX_SCC)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
