#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Cost of per-request tracing: iolens snoop and record under 4 KiB random
reads at queue depth 32 (fio, io_uring, O_DIRECT) on a loop device backed by
tmpfs, the fastest device these machines have.

For each tracer, alternating with untraced runs so drift hits all alike:
  - in-kernel ns per request: sum of bpf_stats run_time_ns over the tracer's
    programs / requests completed on the device (from /proc/diskstats);
  - the tracer's own user+sys CPU per request;
  - requests per second and the IOPS ratio traced/untraced;
  - lost records, as the tracer itself reports them.
Medians over --rounds.  The libbpf-tools peer for per-request tracing,
biosnoop, is tried too and reported as it fares (it needs kprobes or fentry).

usage: tools/bench_trace.py [--rounds N] [--runtime SECS] [--iolens PATH]
Needs root, fio, bpftool; tools/install-deps.sh bench installs them.
"""
import argparse
import os
import re
import signal
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from benchlib import (bench_device, cpu_seconds, diskstats_reads, fio,  # noqa: E402
                      new_prog_ns, prog_stats)


def start_tracer(cmd):
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True)
    line = p.stderr.readline()
    if "Tracing" not in line and "Recording" not in line:
        p.kill()
        raise RuntimeError("%s: %s%s" % (" ".join(cmd), line, p.stderr.read()))
    return p


def stop_tracer(p):
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    m = re.search(r"(\d+) lost", err)
    if p.returncode != 0 or not m:
        raise RuntimeError("tracer failed (%d): %s" % (p.returncode, err))
    return int(m.group(1))


def one_run(cmd, dev, name, runtime):
    before_stats = prog_stats()
    p = start_tracer(cmd) if cmd else None
    r0 = diskstats_reads(name)
    cpu0 = cpu_seconds(p.pid) if p else 0
    iops = fio(dev, runtime)
    r1 = diskstats_reads(name)
    res = {"iops": iops, "requests": r1 - r0}
    if p:
        res["cpu"] = cpu_seconds(p.pid) - cpu0
        res["kernel_ns"] = new_prog_ns(before_stats)
        res["lost"] = stop_tracer(p)
    return res


def try_biosnoop():
    exe = "/usr/sbin/biosnoop"
    if not os.path.exists(exe):
        return "not installed (Debian package libbpf-tools)"
    try:
        p = subprocess.run([exe], capture_output=True, text=True, timeout=5)
    except subprocess.TimeoutExpired:
        return "runs"
    err = (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]
    return "fails here: " + err


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--runtime", type=int, default=5)
    ap.add_argument("--iolens", default=os.path.join(HERE, "../build/iolens"))
    args = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("bench_trace: needs root (BPF, loop devices)")

    with bench_device() as (dev, backing):
        trace_file = backing + ".iol"
        name = os.path.basename(dev)
        modes = {
            "untraced": None,
            "snoop": [args.iolens, "snoop", "-j", "-d", name],
            "record": [args.iolens, "record", "-o", trace_file, "-d", name],
        }
        results = {m: [] for m in modes}
        try:
            fio(dev, 1)  # warm up
            for rnd in range(args.rounds):
                for m, cmd in modes.items():
                    results[m].append(one_run(cmd, dev, name, args.runtime))
                    print("round %d %-8s %s" % (rnd + 1, m, results[m][-1]),
                          file=sys.stderr)
        finally:
            if os.path.exists(trace_file):
                os.unlink(trace_file)

    base = statistics.median(r["iops"] for r in results["untraced"])
    print("4 KiB random reads, io_uring, QD 32, loop device on tmpfs; "
          "%d rounds of %d s, medians; kernel %s" % (
              args.rounds, args.runtime, os.uname().release))
    print("| tracer | requests/s | IOPS vs untraced | in-kernel ns/request | tracer CPU us/request | lost records |")
    print("|---|---|---|---|---|---|")
    print("| untraced | %.0f | 1.00 | - | - | - |" % base)
    for m in ("snoop", "record"):
        rs = results[m]
        print("| iolens %s | %.0f | %.2f | %.0f | %.2f | %d |" % (
            m, statistics.median(r["iops"] for r in rs),
            statistics.median(r["iops"] for r in rs) / base,
            statistics.median(r["kernel_ns"] / r["requests"] for r in rs),
            statistics.median(r["cpu"] * 1e6 / r["requests"] for r in rs),
            sum(r["lost"] for r in rs)))
    print("| libbpf-tools biosnoop | %s |" % try_biosnoop())


if __name__ == "__main__":
    main()
