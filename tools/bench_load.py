#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""iolens load against fio 3.33 on the same jobs: 4 KiB random reads,
O_DIRECT, on a 1 GiB loop device over tmpfs; io_uring at queue depth 32 and
1, psync at queue depth 1, then each other engine against fio's engine of
the same name (null: the generators' own ceilings, no I/O).

fio and iolens load alternate, one run each per round, so that drift hits
both alike.  For each: IOPS from its own JSON (the same field for both), and
CPU per I/O: the whole process's user+sys time (wait4's rusage: every thread,
setup included) over the I/Os it reported.  Medians over --rounds, and the
ratios iolens/fio (IOPS: higher is better; CPU per I/O: lower is better).

On a shared host one tool's runs of a row at queue depth 1 spread over a
factor of two or more, so a median under fio's may be noise: each row also
says how sure it is that iolens is worse, the one-sided exact rank-sum test
of the rounds (p of iolens's IOPS below fio's, of its CPU per I/O above);
a row is called worse only at p < 0.05: with 5 rounds a side, iolens's
run better than fio's in at most 4 of the 25 pairs of a run of each.

The first four rows run both tools with their defaults: a single job
thread is left where the scheduler puts it by both (fio's
cpus_allowed_policy=shared); several, iolens places each on a CPU of its
own (split) and fio does not (psync QD1, 2 jobs).  The fifth row pins
io_uring QD1's one thread for both, to show what pinning costs.

At queue depth 1 the rate hangs on where the scheduler runs the job and
the loop device's worker: on one CPU they hand over without idling, on two
each waits for the other with its CPU idle, and waking an idle CPU costs
an interrupt (in a guest a VM exit).  So each row also gives the CPUs'
idle entries per I/O (cpuidle's usage counts over all CPUs, POLL left
out; medians): fewer is the better placement.

usage: tools/bench_load.py [--rounds N] [--runtime SECS] [--iolens PATH] [--only TEXT]
Needs root and fio; tools/install-deps.sh bench installs them.
"""
import glob
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from benchlib import parse_args, bench_device, p_below  # noqa: E402

URING_QD1 = ["--ioengine=io_uring", "--iodepth=1"]
ALL_CPUS = ",".join(str(c) for c in sorted(os.sched_getaffinity(0)))
SPLIT = ["--cpus_allowed=" + ALL_CPUS, "--cpus_allowed_policy=split"]

# (name, options of both)
WORKLOADS = [
    ("io_uring QD32", ["--ioengine=io_uring", "--iodepth=32"]),
    ("io_uring QD1", URING_QD1),
    ("psync QD1", ["--ioengine=psync", "--iodepth=1"]),
    # Several threads: iolens splits them over the CPUs, fio does not.
    ("psync QD1, 2 jobs", ["--ioengine=psync", "--iodepth=1", "--numjobs=2",
                           "--group_reporting"]),
    ("io_uring QD1, both split", URING_QD1 + SPLIT),
    # Each other engine against fio's of the same name.
    ("libaio QD32", ["--ioengine=libaio", "--iodepth=32"]),
    ("posixaio QD32", ["--ioengine=posixaio", "--iodepth=32"]),
    ("sync QD1", ["--ioengine=sync", "--iodepth=1"]),
    ("vsync QD1", ["--ioengine=vsync", "--iodepth=1"]),
    ("pvsync QD1", ["--ioengine=pvsync", "--iodepth=1"]),
    ("pvsync2 QD1", ["--ioengine=pvsync2", "--iodepth=1"]),
    ("mmap QD1", ["--ioengine=mmap", "--iodepth=1"]),
    # null opens no file: both need its size.
    ("null QD1", ["--ioengine=null", "--iodepth=1", "--size=1g"]),
    ("null QD32", ["--ioengine=null", "--iodepth=32", "--size=1g"]),
]


def job(dev, runtime, extra):
    return ["--name=bench", "--filename=" + dev, "--rw=randread", "--bs=4k",
            "--direct=1", "--time_based", "--runtime=%d" % runtime,
            "--norandommap", "--output-format=json"] + extra


def idle_entries():
    """Times any CPU went idle, from cpuidle's counts (its POLL state, a
    spin, left out); None without cpuidle."""
    states = glob.glob("/sys/devices/system/cpu/cpu[0-9]*/cpuidle/state[0-9]*")
    n = 0
    for st in states:
        with open(st + "/name") as f:
            if f.read().strip() == "POLL":
                continue
        with open(st + "/usage") as f:
            n += int(f.read())
    return n if states else None


def one_run(cmd):
    """(IOPS, CPU ns per I/O, idle entries per I/O or None) of one run of cmd."""
    idle0 = idle_entries()
    with open(os.devnull, "w") as null:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=null)
        out = p.stdout.read()
        _, status, ru = os.wait4(p.pid, 0)
    idle1 = idle_entries()
    if status:
        raise RuntimeError("%s failed: status %d" % (cmd[0], status))
    # fio prints its notes before the JSON.
    r = json.loads(out[out.index(b"{"):])["jobs"][0]["read"]
    n = r["total_ios"]
    return (r["iops"], (ru.ru_utime + ru.ru_stime) * 1e9 / n,
            None if idle0 is None else (idle1 - idle0) / n)


def median_of(values):
    values = list(values)
    return None if None in values else statistics.median(values)


def idle_text(v):
    return "unknown" if v is None else "%.2f" % v


def main():
    args = parse_args(__doc__, "bench_load", "loop devices", only=True)

    rows = []
    with bench_device() as (dev, _):
        for name, extra in WORKLOADS:
            if args.only not in name:
                continue
            tools = {"fio": ["fio"], "iolens": [args.iolens, "load"]}
            one_run(["fio"] + job(dev, 1, extra))  # warm up
            res = {t: [] for t in tools}
            for rnd in range(args.rounds):
                for t, cmd in tools.items():
                    res[t].append(one_run(cmd + job(dev, args.runtime, extra)))
                    print("%s round %d %-6s %.0f IOPS %.0f ns CPU/IO, idle %s/IO" % (
                        name, rnd + 1, t, *res[t][-1][:2], idle_text(res[t][-1][2])),
                        file=sys.stderr)
            med = {t: tuple(median_of(r[i] for r in rs) for i in range(3))
                   for t, rs in res.items()}
            iops = {t: [r[0] for r in rs] for t, rs in res.items()}
            cpu = {t: [r[1] for r in rs] for t, rs in res.items()}
            rows.append((name, med, p_below(iops["iolens"], iops["fio"]),
                         p_below(cpu["fio"], cpu["iolens"])))

    print("%s; %d rounds of %d s alternating, medians; kernel %s\n" % (
        "4 KiB random reads, O_DIRECT, loop device on tmpfs",
        args.rounds, args.runtime, os.uname().release))
    print("| workload | fio IOPS | iolens IOPS | IOPS ratio | p IOPS below | "
          "fio CPU/IO | iolens CPU/IO | CPU ratio | p CPU above | idle/IO fio, iolens |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    worse = []
    for name, m, p_iops, p_cpu in rows:
        (fi, fc, fh), (ii, ic, ih) = m["fio"], m["iolens"]
        print("| %s | %.0f | %.0f | %.2f | %.3f | %.0f ns | %.0f ns | %.2f | %.3f | %s, %s |" % (
            name, fi, ii, ii / fi, p_iops, fc, ic, ic / fc, p_cpu,
            idle_text(fh), idle_text(ih)))
        worse += ["%s: IOPS below fio's" % name] * (p_iops < 0.05)
        worse += ["%s: CPU per I/O above fio's" % name] * (p_cpu < 0.05)
    print("\nworse than fio at p < 0.05: %s" % ("; ".join(worse) or "none"))


if __name__ == "__main__":
    main()
