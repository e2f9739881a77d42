#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""
pss-own.py PID...: the Pss of these processes, in kB, counted among themselves only.

The kernel's Pss splits each resident page between every process that maps it, so a process's
Pss falls when an unrelated process maps the same library pages (another phcd, another bench):
on a shared machine, a holder's total depends on who else runs. Here each resident page (its
frame number, from /proc/PID/pagemap: root) is split only between the given processes that map
it, as Pss would on a machine where nothing else maps it. tests/bench/footprint.sh (OWN=1) runs
it per holder; the figure is at least the kernel's Pss of the same processes.
"""
import struct
import sys

PAGE = 4096
PFN_MASK = (1 << 55) - 1


def frames(pid):
    """The frame numbers of the pages resident in pid's mappings (each frame once)."""
    got = set()
    with open(f"/proc/{pid}/maps") as maps, open(f"/proc/{pid}/pagemap", "rb") as pm:
        for line in maps:
            fields = line.split()
            if fields[-1] == "[vsyscall]":
                continue
            start, end = (int(x, 16) for x in fields[0].split("-"))
            pm.seek(start // PAGE * 8)
            data = pm.read((end - start) // PAGE * 8)
            for (entry,) in struct.iter_unpack("<Q", data):
                if entry >> 63 & 1 and entry & PFN_MASK:
                    got.add(entry & PFN_MASK)
    return got


def main():
    per_pid = [frames(pid) for pid in sys.argv[1:]]
    mappers = {}
    for pages in per_pid:
        for pfn in pages:
            mappers[pfn] = mappers.get(pfn, 0) + 1
    total = sum(PAGE / mappers[pfn] for pages in per_pid for pfn in pages)
    print(round(total / 1024))


if __name__ == "__main__":
    main()
