#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Cost of a refresh of a per-process I/O view with many tasks: iolens top
-b against iotop-c and iotop (Python), with --threads idle threads (3,000 by
default) on the machine.

For each tool: two batch runs, of 1 and of 1 + --frames refreshes, 0.5 s
apart; CPU per refresh is the difference of the two runs' user+sys time
(wait4 rusage) divided by --frames, so that start-up (BPF load, Python
imports) is not counted as refresh; peak RSS is the longer run's maxrss.
Medians over --rounds.

usage: tools/bench_top.py [--threads N] [--frames N] [--rounds N] [--iolens PATH]
Needs root, iotop and iotop-c; tools/install-deps.sh bench installs them.
"""
import argparse
import os
import statistics
import subprocess
import sys
import threading

HERE = os.path.dirname(os.path.abspath(__file__))


def idle_threads(n):
    """A child process holding n threads that sleep until it is killed."""
    code = ("import threading, sys, time\n"
            "ev = threading.Event()\n"
            "for i in range(%d):\n"
            "    threading.Thread(target=ev.wait, daemon=True).start()\n"
            "sys.stdout.write('ready\\n'); sys.stdout.flush()\n"
            "time.sleep(86400)\n" % n)
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "ready"
    return p


def run(cmd):
    """(user+sys seconds, max RSS in KiB) of one run of cmd."""
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = []
    t = threading.Thread(target=lambda: err.append(p.stderr.read()))
    t.start()
    _, status, ru = os.wait4(p.pid, 0)
    t.join()
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode:
        raise RuntimeError("%s failed (%d): %s" % (cmd[0], p.returncode, err[0][-300:]))
    return ru.ru_utime + ru.ru_stime, ru.ru_maxrss


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threads", type=int, default=3000)
    ap.add_argument("--frames", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--iolens", default=os.path.join(HERE, "../build/iolens"))
    args = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("bench_top: needs root (BPF, taskstats)")
    tools = {
        "iolens top -b": lambda n: [args.iolens, "top", "-b", "-d", "0.5", "-n", str(n)],
        "iotop-c -b": lambda n: ["iotop-c", "-b", "-d", "0.5", "-n", str(n)],
        "iotop -b": lambda n: ["iotop", "-b", "-d", "0.5", "-n", str(n)],
    }
    for cmd in tools.values():
        if not os.access(cmd(1)[0], os.X_OK) and subprocess.run(
                ["which", cmd(1)[0]], capture_output=True).returncode:
            sys.exit("bench_top: %s missing: tools/install-deps.sh bench" % cmd(1)[0])
    holder = idle_threads(args.threads)
    try:
        with open("/proc/loadavg") as f:
            tasks = int(f.read().split()[3].split("/")[1])
        res = {name: [] for name in tools}
        for _ in range(args.rounds):
            for name, cmd in tools.items():
                cpu1, _ = run(cmd(1))
                cpun, rss = run(cmd(1 + args.frames))
                res[name].append(((cpun - cpu1) / args.frames, rss))
    finally:
        holder.kill()
        holder.wait()
    print("%d tasks on the machine (%d idle threads added); %d refreshes 0.5 s apart; "
          "medians of %d rounds; kernel %s" % (tasks, args.threads, args.frames,
                                               args.rounds, os.uname().release))
    print("| tool | CPU ms per refresh | peak RSS MB |")
    print("|---|---|---|")
    for name, rs in res.items():
        print("| %s | %.1f | %.1f |" % (name, 1000 * statistics.median(r[0] for r in rs),
                                       statistics.median(r[1] for r in rs) / 1024))


if __name__ == "__main__":
    main()
