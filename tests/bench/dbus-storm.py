#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The two halves of tests/bench/dbus-storm.sh.

drive TOOL READS STORMS PHASES PORT_PATH...
    A warm-up storm, then Q S Q S ... Q with STORMS storms: each storm is `TOOL -s READS
    PORT_PATH...` and its phase is the window the tool reports; each quiet phase lasts as long as
    the storm before it. Writes one line per phase to PHASES: "Q|S START_NS END_NS" (both
    CLOCK_MONOTONIC) and prints each storm's line; with CPU_ROOT=PID in the environment, then
    the CPU each process under PID, and those in CPU_PIDS, and the storm clients took over the
    phases.

stats SAMPLES PHASES SYNC
    SAMPLES: phcd's sample lines, "phcd-port[SEC.MSEC]: IF: master offset N sS freq F path delay
    D" (CLOCK_MONOTONIC). Per port: offset RMS pooled over the quiet phases and over the storm
    phases from every sample in them, their ratio with a 95% bootstrap interval (phases drawn
    with replacement, so that the correlation of samples within a phase is kept), the noise
    floor (first half of the quiet phases against the second half, same interval), per-phase
    ratios (each storm against the two quiet phases around it: mean and sd), the verdict, and
    the sample intervals in quiet and in storm phases against the Sync interval 2^SYNC s.
    Lines "ptp4l[SEC.NSEC]: ptp4l: master offset N s2" (from `pmc` below) are the ptp4l
    control: the same figures in a row of their own, outside the verdict, and each phcd port's
    storm/quiet ratio divided by the control's, with a bootstrap interval drawing the same
    phases for both (what a storm does to phcd beyond what it does to a slave without D-Bus).

    Beside the criterion, for heavy tails (single timestamp excursions of tens of us set an
    RMS alone): the body, the samples with |offset - median| <= BODY x MAD, median and MAD over
    all of the port's samples in every phase (fixed before the split into kinds of phase), its
    storm/quiet RMS ratio with the same bootstrap interval and noise floor; and the excursions
    (the samples outside the body) counted per kind of phase, their rates per second of phase,
    the storm/quiet rate ratio with its exact 95% interval and the two-sided p of the exact
    conditional binomial test (given the total count, storm excursions ~ Binomial(total,
    storm seconds / all seconds) if both kinds of phase had the same rate).

    The verdict rule (written before run E's data): the criterion is the plain pooled
    storm/quiet RMS ratio from every sample, as the target states it ("changes no port's offset
    RMS by more than 5%", read both ways): **met** if its 95% bootstrap interval lies within
    [0.95, 1.05], **missed** if it lies wholly above 1.05 or wholly below 0.95, else
    **undecided**. The body ratio and the excursion rates do not change that verdict; they say
    why it is undecided (the body's interval within [0.95, 1.05] and p >= 0.05 for the
    excursions: no effect of storms shown on either, the tails alone leave the RMS open).

pmc PMC_LOG REAL_TO_MONO_NS
    The ptp4l control's samples from that pmc session's output as sample lines: each sample
    once (repeats dropped by ingress time), at its ingress time (CLOCK_REALTIME) plus
    REAL_TO_MONO_NS, i.e. on CLOCK_MONOTONIC like the phases.
"""
import bisect
import itertools
import math
import os
import random
import re
import statistics
import subprocess
import sys
import time

BOOT = 2000
LIMIT = 0.05  # |storm/quiet - 1|: the target's 5%
BODY = 10  # x MAD: the body's bound around the median
TAIL = 2000  # ns: the excursions that dominate an RMS, counted apart


def drive(tool, reads, storms, phases_path, ports):
    def storm():
        out = subprocess.run([tool, "-s", reads, *ports], check=True, capture_output=True,
                             text=True).stdout.split()
        print("  " + " ".join(out), flush=True)
        return int(out[2]), int(out[3])

    phases = []
    print("warm-up storm (not counted):", flush=True)
    start, end = storm()
    root = os.environ.get("CPU_ROOT")
    cpu0, t0, c0 = cpu(root) if root else None, time.monotonic(), os.times()
    for k in range(storms + 1):
        q0 = time.monotonic_ns()
        time.sleep((end - start) / 1e9)
        phases.append(("Q", q0, time.monotonic_ns()))
        if k < storms:
            start, end = storm()
            phases.append(("S", start, end))
    with open(phases_path, "w") as f:
        for p in phases:
            f.write("%s %d %d\n" % p)
    if root:
        # What the bench itself costs the machine (the pmc poller beside the control above
        # all, at 3 times the Sync rate): each process's CPU over the phases.
        wall, c1, cpu1 = time.monotonic() - t0, os.times(), cpu(root)
        use = {"storm client": c1.children_user + c1.children_system -
               c0.children_user - c0.children_system}
        for pid, (name, ticks) in cpu1.items():
            if pid in cpu0 and pid != os.getpid():
                use[name] = use.get(name, 0) + (ticks - cpu0[pid][1]) / os.sysconf("SC_CLK_TCK")
        print(f"CPU over the phases ({wall:.0f} s), % of one CPU: " +
              ", ".join(f"{k} {100 * v / wall:.1f}" for k, v in
                        sorted(use.items(), key=lambda kv: -kv[1])), flush=True)


def cpu(root):
    """pid -> (name, utime + stime ticks) of every process under pid ROOT."""
    procs = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = open(f"/proc/{pid}/stat").read()
            cmd = open(f"/proc/{pid}/cmdline").read()
        except OSError:
            continue
        name, f = stat[stat.index("(") + 1:stat.rindex(")")], stat[stat.rindex(")") + 2:].split()
        if name == "ptp4l":
            name += " (grandmasters)" if "--priority1" in cmd else " (control)"
        elif name.startswith("python3"):
            name += " (pmc poller)" if "GET TIME_STATUS_NP" in cmd else ""
        procs[int(pid)] = (name, int(f[1]), int(f[11]) + int(f[12]))
    tree = {}
    for pid, (_, ppid, _) in procs.items():
        tree.setdefault(ppid, []).append(pid)
    out, todo = {}, [int(root)]
    for pid in map(int, os.environ.get("CPU_PIDS", "").split()):  # daemons that forked away
        if pid in procs:
            out[pid] = procs[pid][0], procs[pid][2]
    while todo:
        for child in tree.get(todo.pop(), []):
            out[child] = procs[child][0], procs[child][2]
            todo.append(child)
    return out


CONTROL = "ptp4l"
PAT = re.compile(r"^(?:phcd-port|ptp4l)\[(\d+)\.(\d+)\]: (\S+): master offset\s+(-?\d+) s(\d)")


def pmc(log, real_to_mono):
    offset, last = None, None
    for line in open(log, errors="replace"):
        f = line.split()
        if len(f) != 2:
            continue
        if f[0] == "master_offset":
            offset = int(f[1])
        elif f[0] == "ingress_time" and f[1] != last and offset is not None:
            last = f[1]
            if int(f[1]) > 0:
                t = int(f[1]) + real_to_mono
                print(f"{CONTROL}[{t // 10**9}.{t % 10**9:09d}]: {CONTROL}: master offset "
                      f"{offset} s2")


def load(samples_path, phases_path):
    phases = [(k, int(a), int(b)) for k, a, b in
              (line.split() for line in open(phases_path))]
    starts = [a for _, a, _ in phases]
    # port -> phase index -> [(t_ns, offset, servo state)]
    data = {}
    for line in open(samples_path, errors="replace"):
        m = PAT.match(line)
        if not m:
            continue
        frac = m.group(2)
        t = int(m.group(1)) * 10**9 + int(frac) * 10**(9 - len(frac))
        i = bisect.bisect_right(starts, t) - 1  # the phases are in order and apart
        if i >= 0 and t < phases[i][2]:
            data.setdefault(m.group(3), {}).setdefault(i, []).append(
                (t, int(m.group(4)), int(m.group(5))))
    return phases, data


def sumsq(samples):
    return sum(x * x for _, x, _ in samples), len(samples)


def pooled(parts):
    s = sum(p[0] for p in parts)
    n = sum(p[1] for p in parts)
    return math.sqrt(s / n) if n else float("nan")


def ratio_ci(a, b, rng, c=None, d=None):
    """RMS(pooled a) / RMS(pooled b), and its 95% bootstrap interval over phases; with c and d,
    that ratio divided by RMS(pooled c) / RMS(pooled d), the same phases drawn for a and c and
    for b and d."""
    def draw(a, b, c, d):
        r = pooled(a) / pooled(b)
        return r if c is None else r * pooled(d) / pooled(c)

    boot = []
    for _ in range(BOOT):
        i = rng.choices(range(len(a)), k=len(a))
        j = rng.choices(range(len(b)), k=len(b))
        boot.append(draw([a[k] for k in i], [b[k] for k in j],
                         None if c is None else [c[k] for k in i],
                         None if d is None else [d[k] for k in j]))
    boot.sort()
    return draw(a, b, c, d), boot[int(BOOT * 0.025)], boot[int(BOOT * 0.975) - 1]


def pct(v, p):
    return v[min(len(v) - 1, max(0, math.ceil(len(v) * p / 100) - 1))]


def verdict(lo, hi):
    if 1 - LIMIT <= lo and hi <= 1 + LIMIT:
        return "met"
    return "MISSED" if lo > 1 + LIMIT or hi < 1 - LIMIT else "undecided"


def body_bound(ph):
    """Median and BODY x MAD of every sample of one port in every phase."""
    x = sorted(o for v in ph.values() for _, o, _ in v)
    med = statistics.median(x)
    return med, BODY * statistics.median(sorted(abs(o - med) for o in x))


def sumsq_body(samples, med, bound):
    return sumsq([v for v in samples if abs(v[1] - med) <= bound])


def binom_pmf(k, n, p):
    if p <= 0 or p >= 1:
        return float(k == (0 if p <= 0 else n))
    return math.exp(math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) +
                    k * math.log(p) + (n - k) * math.log1p(-p))


def binom_test(k, n, p):
    """Two-sided exact p: every outcome no likelier than k."""
    pk = binom_pmf(k, n, p) * (1 + 1e-7)
    return min(1.0, sum(q for q in (binom_pmf(i, n, p) for i in range(n + 1)) if q <= pk))


def clopper_pearson(k, n):
    """Exact 95% interval of a binomial proportion, by bisection on the tails."""
    def solve(tail, target):
        a, b = 0.0, 1.0
        for _ in range(60):
            m = (a + b) / 2
            a, b = (m, b) if tail(m) > target else (a, m)
        return (a + b) / 2

    lo = 0.0 if k == 0 else 1 - solve(
        lambda p: sum(binom_pmf(i, n, 1 - p) for i in range(k, n + 1)), 0.025)
    hi = 1.0 if k == n else solve(
        lambda p: sum(binom_pmf(i, n, p) for i in range(k + 1)), 0.025)
    return lo, hi


def rate_test(ks, ts, kq, tq):
    """Storm/quiet rate ratio of ks events in ts s against kq in tq s, its exact 95% interval
    (Clopper-Pearson on the storm share of all events) and the conditional binomial p."""
    n = ks + kq
    if n == 0:
        return float("nan"), 0.0, float("inf"), 1.0
    share = ts / (ts + tq)

    def rr(p):
        return float("inf") if p >= 1 else p / (1 - p) * tq / ts

    lo, hi = clopper_pearson(ks, n)
    return rr(ks / n), rr(lo), rr(hi), binom_test(ks, n, share)


def stats(samples_path, phases_path, sync):
    phases, data = load(samples_path, phases_path)
    nominal = 2.0 ** sync * 1e3  # ms
    quiet = [i for i, p in enumerate(phases) if p[0] == "Q"]
    storm = [i for i, p in enumerate(phases) if p[0] == "S"]
    h = len(quiet) // 2
    rng = random.Random(1)
    dur = {k: [(phases[i][2] - phases[i][1]) / 1e9 for i in idx]
           for k, idx in (("quiet", quiet), ("storm", storm))}
    print(f"phases: {len(quiet)} quiet ({statistics.mean(dur['quiet']):.2f} s mean), "
          f"{len(storm)} storm ({statistics.mean(dur['storm']):.2f} s mean, "
          f"{min(dur['storm']):.2f}-{max(dur['storm']):.2f} s)")
    tq, ts = sum(dur["quiet"]), sum(dur["storm"])
    print("per port: samples quiet/storm, offset RMS (ns) quiet and storm pooled over phases, "
          "storm/quiet [95% bootstrap], noise floor quiet 1st half/2nd half [95%], "
          "per-storm ratio mean +- sd, verdict; then the body (|offset - median| <= "
          f"{BODY} x MAD over the whole run): its bound, RMS quiet and storm, storm/quiet "
          "[95%], noise floor [95%]; then the excursions (outside the body): count and rate "
          "(/s of phase) quiet and storm, storm/quiet rate ratio [exact 95%], p (exact "
          "conditional binomial test, two-sided)")
    verdicts = {}
    allq, alls = [], []
    ports = sorted((p for p in data if p != CONTROL), key=lambda s: (len(s), s))
    sq = {}
    for port in ports + ([CONTROL] if CONTROL in data else []):
        ph = data[port]
        q = [sumsq(ph.get(i, [])) for i in quiet]
        s = [sumsq(ph.get(i, [])) for i in storm]
        sq[port] = q, s
        r, lo, hi = ratio_ci(s, q, rng)
        rq, qlo, qhi = ratio_ci(q[:h], q[len(q) - h:], rng)
        per = [pooled([s[k]]) / pooled([q[k], q[k + 1]]) for k in range(len(s)) if s[k][1]]
        v = verdict(lo, hi)
        if port == CONTROL:
            print("control, a ptp4l --free_running slave without D-Bus, same phases:")
        else:
            allq += q
            alls += s
            verdicts[port] = v
        print(f"  {port:4s} {sum(x[1] for x in q):5d}/{sum(x[1] for x in s):5d}  "
              f"quiet {pooled(q):6.0f}  storm {pooled(s):6.0f}  "
              f"storm/quiet {r:.3f} [{lo:.3f}, {hi:.3f}]  "
              f"noise {rq:.3f} [{qlo:.3f}, {qhi:.3f}]  "
              f"per storm {statistics.mean(per):.3f} +- {statistics.stdev(per):.3f}  {v}")
        med, bound = body_bound(ph)
        bq = [sumsq_body(ph.get(i, []), med, bound) for i in quiet]
        bs = [sumsq_body(ph.get(i, []), med, bound) for i in storm]
        r, lo, hi = ratio_ci(bs, bq, rng)
        rq, qlo, qhi = ratio_ci(bq[:h], bq[len(bq) - h:], rng)
        print(f"       body: median {med:.0f}, bound +-{bound:.0f}  quiet {pooled(bq):6.0f}  "
              f"storm {pooled(bs):6.0f}  storm/quiet {r:.3f} [{lo:.3f}, {hi:.3f}]  "
              f"noise {rq:.3f} [{qlo:.3f}, {qhi:.3f}]  ({verdict(lo, hi)} for the body alone)")
        eq = sum(n for _, n in q) - sum(n for _, n in bq)
        es = sum(n for _, n in s) - sum(n for _, n in bs)
        rr, lo, hi, pv = rate_test(es, ts, eq, tq)
        big = max((abs(o - med) for v in ph.values() for _, o, _ in v))
        print(f"       excursions: quiet {eq} ({eq / tq:.3f}/s)  storm {es} ({es / ts:.3f}/s)  "
              f"storm/quiet rate {rr:.2f} [{lo:.2f}, {hi:.2f}]  p = {pv:.3g}  "
              f"(largest |offset - median| {big / 1e3:.1f} us)")
        if len(ports) > 1 and port == ports[-1]:
            r, lo, hi = ratio_ci(alls, allq, rng)
            print(f"  all ports pooled: storm/quiet {r:.3f} [{lo:.3f}, {hi:.3f}]")
    if CONTROL in data:
        # The machine's share (CPU contention from the storm's client and dbus-daemon) moves
        # both slaves; what is left in this quotient is phcd's own.
        print("phcd's storm/quiet over the control's [95%, the same phases drawn for both]:")
        cq, cs = sq[CONTROL]
        for port in ports:
            q, s = sq[port]
            r, lo, hi = ratio_ci(s, q, rng, cs, cq)
            print(f"  {port:4s} {r:.3f} [{lo:.3f}, {hi:.3f}]")
    # A late sample (the worker held up) makes its interval longer than a whole number of Sync
    # intervals and the next one shorter: the lateness is the distance to the nearest multiple.
    # A missing sample (a Sync lost or dropped by the engine) makes it two whole intervals.
    # The control's times are its Syncs' ingress timestamps: no lateness of the daemon shows in
    # them, and a sample missing is one the pmc poller did not see.
    print("sample intervals (ms, to the ms; Sync every %.1f ms), every port, within phases:"
          % nominal)
    groups = [("", ports)] + ([("control ", [CONTROL])] if CONTROL in data else [])
    for (label, group), (name, idx) in itertools.product(groups, (("quiet", quiet),
                                                                   ("storm", storm))):
        iv, late, missing, unlocked, big, n = [], [], 0, 0, 0, 0
        for port in group:
            ph = data[port]
            for i in idx:
                v = ph.get(i, [])
                unlocked += sum(st != 2 for _, _, st in v)
                big += sum(abs(x) > TAIL for _, x, _ in v)
                n += len(v)
                for a, b in zip(v, v[1:]):
                    d = (b[0] - a[0]) / 1e6
                    m = max(1, round(d / nominal))
                    iv.append(d)
                    late.append(abs(d - m * nominal))
                    missing += m - 1
        iv.sort()
        late.sort()
        print(f"  {label}{name}: {len(iv)} intervals, median {pct(iv, 50):.0f}, max {iv[-1]:.0f}; "
              f"off the Sync grid by p50 {pct(late, 50):.1f}, p99 {pct(late, 99):.1f}, "
              f"p99.9 {pct(late, 99.9):.1f}, max {late[-1]:.1f}; "
              f"{missing} samples missing ({100.0 * missing / (len(iv) + missing):.2f}%); "
              f"{unlocked} samples not s2; {big} of {n} beyond {TAIL} ns")
    n = {k: sum(v == k for v in verdicts.values()) for k in ("met", "MISSED", "undecided")}
    print(f"verdict over {len(verdicts)} port(s), from the plain pooled storm/quiet RMS ratio "
          f"(the criterion; body and excursions beside it do not change it): {n['met']} met "
          f"(95% interval within [{1 - LIMIT:.2f}, {1 + LIMIT:.2f}]), {n['MISSED']} missed "
          f"(wholly outside), {n['undecided']} undecided")


if __name__ == "__main__":
    if len(sys.argv) >= 6 and sys.argv[1] == "drive":
        drive(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5], sys.argv[6:])
    elif len(sys.argv) == 5 and sys.argv[1] == "stats":
        stats(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif len(sys.argv) == 4 and sys.argv[1] == "pmc":
        pmc(sys.argv[2], int(sys.argv[3]))
    else:
        sys.exit(__doc__)
