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
import os
import re
import signal
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from benchlib import (alternate, bench_device, measure, medians,  # noqa: E402
                      parse_args, prog_stats, workload_line)


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
    res = measure(p, dev, name, runtime, before_stats)
    if p:
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
    args = parse_args(__doc__, "bench_trace", "BPF, loop devices")

    with bench_device() as (dev, backing):
        trace_file = backing + ".iol"
        name = os.path.basename(dev)
        modes = {
            "untraced": None,
            "snoop": [args.iolens, "snoop", "-j", "-d", name],
            "record": [args.iolens, "record", "-o", trace_file, "-d", name],
        }
        try:
            results = alternate(dev, modes, one_run, args.rounds, args.runtime)
        finally:
            if os.path.exists(trace_file):
                os.unlink(trace_file)

    base = statistics.median(r["iops"] for r in results["untraced"])
    print(workload_line(args.rounds, args.runtime))
    print("| tracer | requests/s | IOPS vs untraced | in-kernel ns/request | tracer CPU us/request | lost records |")
    print("|---|---|---|---|---|---|")
    print("| untraced | %.0f | 1.00 | - | - | - |" % base)
    for m in ("snoop", "record"):
        iops, ratio, kns, cpu_ns = medians(results[m], base)
        print("| iolens %s | %.0f | %.2f | %.0f | %.2f | %d |" % (
            m, iops, ratio, kns, cpu_ns / 1000,
            sum(r["lost"] for r in results[m])))
    print("| libbpf-tools biosnoop | %s |" % try_biosnoop())


if __name__ == "__main__":
    main()
