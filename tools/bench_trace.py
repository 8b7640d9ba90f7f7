#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Cost of per-request tracing: iolens snoop and record under 4 KiB random
reads at queue depth 32 (fio, io_uring, O_DIRECT) on a loop device backed by
tmpfs, the fastest device these machines have.

For each tracer (snoop also with --stacks and with --files), alternating with untraced runs so drift hits all alike:
  - in-kernel ns per request: sum of bpf_stats run_time_ns over the tracer's
    programs / requests completed on the device (from /proc/diskstats);
  - the tracer's own user+sys CPU per request;
  - requests per second and the IOPS ratio traced/untraced;
  - lost records, as the tracer itself reports them.
Medians over --rounds.  The libbpf-tools peer for per-request tracing,
biosnoop, is tried too and reported as it fares (it needs kprobes or fentry).

Then the highest rate this machine gives: iolens load, io_uring, 2 jobs at
queue depth 64 (about 500k requests/s on a tmpfs loop device), traced by
`snoop -j` writing to a file on tmpfs and by `record`, alternating, --rounds
times: requests lost, and the tracer's CPU per request (median and range:
on a VM whose freed memory goes back to the host, the kernel's first touch
of a page costs a fault in the host, and snoop writes 250 MB/s of fresh
page cache).

The flight recorder (record --ring 10s, no trigger: nothing is written)
joins both, and then runs alone for --ring-seconds (60) at the highest
rate with --ring-max 32MiB: its peak resident memory (VmRSS, sampled
every 0.2 s) against its bound, the memory of its BPF maps (memlock of
its map fds), the ring's own bytes as it reports them, lost records and
its CPU per request.  Then a save at that rate: SIGUSR1 after 12 s of
it, the file's requests, span and records lost.

With --baseline PATH, another build's snoop and record run in the same
rounds (rows "baseline ..."), so that a change's cost is measured against
the drift of the same minutes; --only TEXT keeps the tracers whose name
holds it (and skips the highest-rate runs).

usage: tools/bench_trace.py [--rounds N] [--runtime SECS] [--iolens PATH]
                            [--baseline PATH] [--only TEXT] [--ring-seconds N]
Needs root, fio, bpftool; tools/install-deps.sh bench installs them.
"""
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from benchlib import (alternate, bench_device, cpu_seconds,  # noqa: E402
                      diskstats_reads, measure, medians, parse_args, prog_stats,
                      workload_line)


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


def load_rate(iolens, dev, runtime):
    """iolens load's fastest job on dev: its requests per second."""
    out = subprocess.run([iolens, "load", "--name=max", "--filename=" + dev, "--rw=randread",
                          "--bs=4k", "--direct=1", "--ioengine=io_uring", "--iodepth=64",
                          "--numjobs=2", "--group_reporting", "--time_based",
                          "--runtime=%d" % runtime, "--norandommap",
                          "--output-format=json"], check=True, capture_output=True,
                         text=True).stdout
    return json.loads(out)["jobs"][0]["read"]["iops"]


def max_rate_once(iolens, dev, backing, runtime, what, cmd):
    """(requests/s, lost, CPU us per request, of it the main thread's) of
    one tracer at iolens load's highest rate."""
    name = os.path.basename(dev)
    out = open(backing + ".max.json", "w")
    p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.PIPE, text=True)
    try:
        assert p.stderr.readline()
        r0, cpu0 = diskstats_reads(name), cpu_seconds(p.pid)
        main0 = cpu_seconds(p.pid, main_only=True)
        iops = load_rate(iolens, dev, runtime)
        r1, cpu1 = diskstats_reads(name), cpu_seconds(p.pid)
        main1 = cpu_seconds(p.pid, main_only=True)
        lost = stop_tracer(p)
    finally:
        out.close()
        for f in (backing + ".max.json", backing + ".max.iol"):
            if os.path.exists(f):
                os.unlink(f)
    print("max rate %-16s %.0f req/s, %d lost, %.2f us/req, main %.2f" % (
        what, iops, lost, (cpu1 - cpu0) * 1e6 / (r1 - r0),
        (main1 - main0) * 1e6 / (r1 - r0)), file=sys.stderr)
    return (iops, lost, (cpu1 - cpu0) * 1e6 / (r1 - r0),
            (main1 - main0) * 1e6 / (r1 - r0))


def max_rate(iolens, dev, backing, runtime, rounds):
    """Per tracer: medians over the rounds of requests/s and CPU, the
    range of the CPU, and lost records summed.  snoop's main thread writes
    the merged lines; its other threads format them.  record's main thread
    drains the ring; other threads compress."""
    name = os.path.basename(dev)
    tracers = (("snoop -j > file", [iolens, "snoop", "-j", "-d", name]),
               ("record", [iolens, "record", "-o", backing + ".max.iol", "-d", name]),
               ("record --ring 10s", ring_cmd(iolens, backing, name)))
    runs = {what: [] for what, _ in tracers}
    for _ in range(rounds):
        for what, cmd in tracers:
            runs[what].append(max_rate_once(iolens, dev, backing, runtime, what, cmd))
    rows = []
    for what, _ in tracers:
        rs = runs[what]
        rows.append((what, statistics.median(r[0] for r in rs), sum(r[1] for r in rs),
                     statistics.median(r[2] for r in rs), min(r[2] for r in rs),
                     max(r[2] for r in rs), statistics.median(r[3] for r in rs)))
    return rows


RING_MAX_MIB = 32


def ring_cmd(iolens, backing, name, ring_max=None):
    """The flight recorder with no trigger: it keeps, and writes nothing."""
    return [iolens, "record", "--ring", "10s", "-o", backing + ".ring", "-d", name] + (
        ["--ring-max", "%dMiB" % ring_max] if ring_max else [])


def status_kib(pid, key):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def map_memlock(pid):
    """Bytes of the BPF maps the process holds, as the kernel charges them
    (memlock in each map fd's fdinfo)."""
    total, fds = 0, "/proc/%d/fdinfo" % pid
    for fd in os.listdir(fds):
        try:
            text = open(os.path.join(fds, fd)).read()
        except OSError:
            continue
        if "map_type:" in text:
            total += int(re.search(r"memlock:\s+(\d+)", text).group(1))
    return total


def ring_memory(iolens, dev, backing, seconds):
    """record --ring under iolens load's highest rate for `seconds`:
    (requests/s, peak RSS MiB, BPF map MiB, the ring's own MiB at the end,
    lost, CPU us per request)."""
    name = os.path.basename(dev)
    p = subprocess.Popen(ring_cmd(iolens, backing, name, RING_MAX_MIB),
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    peak, done = [0], threading.Event()

    def sample():
        while not done.wait(0.2):
            peak[0] = max(peak[0], status_kib(p.pid, "VmRSS"))
    try:
        assert "Recording" in p.stderr.readline()
        maps = map_memlock(p.pid)
        t = threading.Thread(target=sample)
        t.start()
        r0, cpu0 = diskstats_reads(name), cpu_seconds(p.pid)
        iops = load_rate(iolens, dev, seconds)
        r1, cpu1 = diskstats_reads(name), cpu_seconds(p.pid)
        done.set()
        t.join()
        peak[0] = max(peak[0], status_kib(p.pid, "VmHWM"))
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
    m = re.search(r"the ring took ([\d.]+)(\w?)B", err)
    ring = float(m.group(1)) * {"": 1, "k": 2**10, "M": 2**20, "G": 2**30}[m.group(2)]
    lost = sum(int(x) for x in re.findall(r"(\d+) lost", err))
    return (iops, peak[0] / 1024, maps / 2**20, ring / 2**20, lost,
            (cpu1 - cpu0) * 1e6 / (r1 - r0))


def ring_save(iolens, dev, backing):
    """A save at the highest rate: record --ring 10s (the default
    --ring-max) under iolens load's fastest job, SIGUSR1 after 12 s, 5 s
    saved after it: (requests/s, requests in the file, the span it holds
    in s, records lost in it, its MiB)."""
    name = os.path.basename(dev)
    prefix = backing + ".save"
    p = subprocess.Popen([iolens, "record", "--ring", "10s", "-o", prefix, "-d", name],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    out = {}
    try:
        assert "Recording" in p.stderr.readline()
        t = threading.Thread(target=lambda: out.update(iops=load_rate(iolens, dev, 20)))
        t.start()
        time.sleep(12)
        p.send_signal(signal.SIGUSR1)
        t.join()
        time.sleep(2)
        p.send_signal(signal.SIGINT)
        p.communicate(timeout=120)
        (path,) = [os.path.join(os.path.dirname(prefix), f)
                   for f in os.listdir(os.path.dirname(prefix))
                   if f.startswith(os.path.basename(prefix) + "-")]
        r = subprocess.run([iolens, "report", "-f", "json", path], capture_output=True,
                           text=True)
        summary = json.loads(r.stdout.splitlines()[-1])["summary"]
        trig = summary["trigger"]
        size = os.path.getsize(path) / 2**20
        os.unlink(path)
    finally:
        if p.poll() is None:
            p.kill()
    return (out["iops"], summary["requests_total"], trig["to_s"] - trig["from_s"],
            summary["lost"], size)


def main():
    args = parse_args(__doc__, "bench_trace", "BPF, loop devices", baseline=True, only=True,
                      extra=lambda ap: ap.add_argument("--ring-seconds", type=int, default=60))

    with bench_device() as (dev, backing):
        trace_file = backing + ".iol"
        name = os.path.basename(dev)
        modes = {
            "untraced": None,
            "snoop": [args.iolens, "snoop", "-j", "-d", name],
            "snoop --stacks": [args.iolens, "snoop", "-j", "--stacks", "-d", name],
            "snoop --files": [args.iolens, "snoop", "-j", "--files", "-d", name],
            "record": [args.iolens, "record", "-o", trace_file, "-d", name],
            "record --ring 10s": ring_cmd(args.iolens, backing, name),
        }
        if args.baseline:
            modes["baseline snoop"] = [args.baseline, "snoop", "-j", "-d", name]
            modes["baseline record"] = [args.baseline, "record", "-o", trace_file, "-d", name]
        modes = {m: c for m, c in modes.items() if m == "untraced" or args.only in m}
        try:
            results = alternate(dev, modes, one_run, args.rounds, args.runtime)
        finally:
            if os.path.exists(trace_file):
                os.unlink(trace_file)
        fastest = [] if args.only else max_rate(args.iolens, dev, backing, args.runtime,
                                                args.rounds)
        ring = None if args.only else ring_memory(args.iolens, dev, backing,
                                                  args.ring_seconds)
        save = None if args.only else ring_save(args.iolens, dev, backing)

    base = statistics.median(r["iops"] for r in results["untraced"])
    print(workload_line(args.rounds, args.runtime))
    print("| tracer | requests/s | IOPS vs untraced | in-kernel ns/request | tracer CPU us/request | lost records |")
    print("|---|---|---|---|---|---|")
    print("| untraced | %.0f | 1.00 | - | - | - |" % base)
    for m in (m for m in modes if m != "untraced"):
        iops, ratio, kns, cpu_ns = medians(results[m], base)
        print("| iolens %s | %.0f | %.2f | %.0f | %.2f | %d |" % (
            m, iops, ratio, kns, cpu_ns / 1000,
            sum(r["lost"] for r in results[m])))
    print("| libbpf-tools biosnoop | %s |" % try_biosnoop())
    if not fastest:
        return
    print()
    print("At the highest rate: iolens load, io_uring, 2 jobs, QD 64; %d rounds of %d s, "
          "medians" % (args.rounds, args.runtime))
    print("| tracer | requests/s | lost records | tracer CPU us/request | its range | "
          "of it the main thread |")
    print("|---|---|---|---|---|---|")
    for what, iops, lost, cpu, lo, hi, main in fastest:
        print("| iolens %s | %.0f | %d | %.2f | %.2f–%.2f | %.2f |" % (
            what, iops, lost, cpu, lo, hi, main))
    print()
    print("The flight recorder at the highest rate for %d s: record --ring 10s "
          "--ring-max %dMiB" % (args.ring_seconds, RING_MAX_MIB))
    print("| requests/s | peak RSS MiB | BPF maps MiB | the ring MiB | lost records | "
          "CPU us/request |")
    print("|---|---|---|---|---|---|")
    print("| %.0f | %.1f | %.1f | %.1f | %d | %.2f |" % ring)
    print()
    print("A save at the highest rate: record --ring 10s, SIGUSR1 after 12 s, 5 s after it")
    print("| requests/s | requests in the file | span s | records lost in it | file MiB |")
    print("|---|---|---|---|---|")
    print("| %.0f | %d | %.1f | %d | %.1f |" % save)


if __name__ == "__main__":
    main()
