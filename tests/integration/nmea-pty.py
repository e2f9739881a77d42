#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A GNSS receiver on a pseudo-terminal: NMEA 0183 with the current time, for a gpsd to read.

Usage: nmea-pty.py PTY_LINK CONTROL_FILE
Opens a pty pair, links PTY_LINK to its slave side (the device gpsd opens), and writes one burst
per second just after the second's start (CLOCK_REALTIME): GPRMC, GPGGA, GPGSA, GPZDA and
Garmin's PGRMF (GPS week and time of week, and GPS - UTC: the one sentence from which gpsd learns
the leap seconds, LEAP_SECONDS below), each with its checksum, carrying that second's UTC time. CONTROL_FILE, read before each burst, says the
state: "fix" (RMC status A, GGA quality 1, GSA 3D: a position fix) or "nofix" (RMC status V,
GGA quality 0, GSA 1: no fix, the time still sent, as a receiver on its RTC does). A missing or
unreadable file counts as "fix". Runs until SIGTERM.
"""
import os
import signal
import sys
import termios
import time
import tty

# A fixed position (a field in Brittany) and a plausible satellite set.
LAT, LAT_H, LON, LON_H = '4807.038', 'N', '00131.000', 'W'
SATS = ['04', '05', '09', '12', '24', '25', '29', '31']
# GPS - UTC since 2017-01-01 (TAI - UTC 37); GPS time began at 1980-01-06T00:00:00 UTC.
LEAP_SECONDS = 18
GPS_EPOCH = 315964800


def sentence(body):
    cs = 0
    for ch in body.encode('ascii'):
        cs ^= ch
    return '$%s*%02X\r\n' % (body, cs)


def burst(t, fix):
    tm = time.gmtime(t)
    hms = time.strftime('%H%M%S', tm) + '.00'
    dmy = time.strftime('%d%m%y', tm)
    if fix:
        rmc = 'GPRMC,%s,A,%s,%s,%s,%s,0.0,0.0,%s,,,A' % (hms, LAT, LAT_H, LON, LON_H, dmy)
        gga = 'GPGGA,%s,%s,%s,%s,%s,1,%02d,0.9,45.0,M,47.0,M,,' % (hms, LAT, LAT_H, LON, LON_H,
                                                                  len(SATS))
        gsa = 'GPGSA,A,3,%s,1.5,0.9,1.2' % ','.join(SATS + [''] * (12 - len(SATS)))
    else:
        rmc = 'GPRMC,%s,V,,,,,,,%s,,,N' % (hms, dmy)
        gga = 'GPGGA,%s,,,,,0,00,99.9,,M,,M,,' % hms
        gsa = 'GPGSA,A,1,,,,,,,,,,,,,99.9,99.9,99.9'
    zda = 'GPZDA,%s,%s,%s,%s,00,00' % (hms, time.strftime('%d', tm), time.strftime('%m', tm),
                                       time.strftime('%Y', tm))
    week, tow = divmod(t - GPS_EPOCH + LEAP_SECONDS, 604800)
    rmf = 'PGRMF,%d,%d,%s,%s,%d,%s,%s,%s,%s,A,%d,0,0,2,1' % (
        week, tow, dmy, hms[:6], LEAP_SECONDS, LAT, LAT_H, LON, LON_H, 2 if fix else 0)
    return ''.join(sentence(b) for b in (rmc, gga, gsa, zda, rmf)).encode('ascii')


def state(path):
    try:
        with open(path) as f:
            return f.read().strip() != 'nofix'
    except OSError:
        return True


def main():
    link, control = sys.argv[1], sys.argv[2]
    master, slave = os.openpty()
    # Raw (no echo, no line editing) until gpsd sets its own modes; the master never blocks.
    tty.setraw(slave)
    os.set_blocking(master, False)
    if os.path.lexists(link):
        os.unlink(link)
    os.symlink(os.ttyname(slave), link)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        while True:
            # 20 ms into the next second: the burst carries that second's time.
            now = time.time()
            nxt = int(now) + 1
            time.sleep(nxt + 0.02 - now)
            data = burst(nxt, state(control))
            # What nobody read (before gpsd opened the pty) is stale: a reader sees this second.
            termios.tcflush(slave, termios.TCIFLUSH)
            try:
                os.write(master, data)
            except BlockingIOError:
                pass  # nobody reads the pty yet: this second's burst is lost, as on a wire
    finally:
        os.unlink(link)


if __name__ == '__main__':
    main()
