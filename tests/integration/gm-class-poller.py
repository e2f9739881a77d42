#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""What a ptp4l slave holds of its grandmaster, five times a second, through pmc on its UDS.

Usage: gm-class-poller.py SLAVE_UDS DOMAIN
One line per change: "SECONDS class timeTraceable currentUtcOffset currentUtcOffsetValid",
SECONDS since the start; repeats dropped. Runs until killed.
"""
import subprocess, sys, time
uds, domain, last, t0 = sys.argv[1], sys.argv[2], None, time.monotonic()
def get(what):
    out = subprocess.run(['pmc', '-u', '-b', '0', '-d', domain, '-s', uds, '-i', uds + '.pmc',
                          'GET ' + what], capture_output=True, text=True, timeout=5).stdout
    return {l.split()[0]: l.split()[1] for l in out.splitlines() if len(l.split()) == 2}
while True:
    # Two data sets are two GETs: the time properties before and after the parent's, and a
    # sample only when they agree (an Announce that changed both between the GETs is skipped).
    tp, pds, tp2 = get('TIME_PROPERTIES_DATA_SET'), get('PARENT_DATA_SET'), \
        get('TIME_PROPERTIES_DATA_SET')
    now = (pds.get('gm.ClockClass'), tp.get('timeTraceable'), tp.get('currentUtcOffset'),
           tp.get('currentUtcOffsetValid'))
    if None not in now and now != last and tp == tp2:
        print('%.2f %s %s %s %s' % ((time.monotonic() - t0,) + now), flush=True)
        last = now
    time.sleep(0.2)
