# SPDX-License-Identifier: GPL-2.0
"""fio's logs (write_lat_log, write_bw_log, write_iops_log, log_avg_msec,
log_offset, log_prio) written by iolens load as fio 3.33 writes them: the
same files by name, the same lines in the same format, and fio's own
fio2gnuplot reads them.  Each tool runs in a folder of its own on tmpfs,
making its own data file."""
import os
import re
import subprocess
import tempfile

import pytest

from helpers import IOLENS, TMPFS, fio_doc, run_in

# A bounded job slow enough (1000 I/Os a second) that its lines are spread
# over a quarter second: fio2gnuplot drops those of time 0.
JOB = ["--name=j", "--filename=data", "--rw=randread", "--bs=4k", "--size=1m",
       "--rate_iops=1000"]


def run_both(args):
    """{tool: (its JSON job, {log file: [lines as field lists]}, folder)}."""
    out = {}
    for tool, cmd in (("fio", ["fio"]), ("iolens", [IOLENS, "load"])):
        where = tempfile.mkdtemp(prefix="iolens-test-logs-", dir=TMPFS)
        p = run_in(cmd + JOB + args + ["--output-format=json"], where)
        assert p.returncode == 0, (tool, p.stderr)
        logs = {}
        for name in sorted(os.listdir(where)):
            if name.endswith(".log"):
                with open(os.path.join(where, name)) as f:
                    logs[name] = [l.rstrip("\n").split(", ") for l in f]
        out[tool] = (fio_doc(p.stdout)["jobs"][0], logs, where)
    return out


def cleanup(runs):
    for _, _, where in runs.values():
        subprocess.run(["rm", "-rf", where], check=False)


@pytest.fixture
def runs():
    made = []
    yield lambda args: made.append(run_both(args)) or made[-1]
    for r in made:
        cleanup(r)


def column(lines, i):
    return sorted(l[i] for l in lines)


@pytest.mark.parametrize("extra", [[], ["--log_offset=1", "--log_prio=1"]],
                         ids=["plain", "offset-prio"])
def test_a_line_per_io_as_fios(iolens, runs, extra):
    """Every I/O a line of each log; the slat log empty for a sync engine;
    direction, size, offset and priority columns the same as fio's (every
    block read once: the offsets are the same set)."""
    r = runs(["--write_lat_log=L", "--write_bw_log=B", "--write_iops_log=I"] + extra)
    (ours, our_logs, _), (theirs, fio_logs, _) = r["iolens"], r["fio"]
    assert list(our_logs) == list(fio_logs) == [
        "B_bw.1.log", "I_iops.1.log", "L_clat.1.log", "L_lat.1.log", "L_slat.1.log"]
    assert ours["read"]["total_ios"] == theirs["read"]["total_ios"] == 256
    width = 6 if extra else 5
    line = re.compile(r"^\d+, \d+, \d, \d+, (\d+, )?(0x[0-9a-f]{4}|\d+)$")
    for name in fio_logs:
        a, b = our_logs[name], fio_logs[name]
        assert len(a) == len(b) == (0 if "slat" in name else 256), name
        for l in a:
            assert len(l) == width and line.match(", ".join(l)), (name, l)
        for i in range(2, width):
            assert column(a, i) == column(b, i), (name, i)
        if "iops" in name:
            assert {l[1] for l in a} == {"1"}
    # Times in ms over the job's run, latencies in ns that add up.
    for lat, clat in zip(our_logs["L_lat.1.log"], our_logs["L_clat.1.log"]):
        assert lat[2:] == clat[2:] and int(lat[1]) >= int(clat[1]) > 0
    assert int(our_logs["L_lat.1.log"][-1][0]) <= ours["read"]["runtime"]


def test_windows_as_fios(iolens, runs):
    """log_avg_msec=50: a line per window and direction, size and offset 0,
    the IOPS and bandwidth of the window (1000 I/Os a second of 4 KiB).
    The latency logs have fio's count of windows give or take the last;
    fio's sampler thread, which writes its bandwidth and IOPS windows,
    starts late and leaves the last one out: those have one a window."""
    r = runs(["--write_lat_log=L", "--write_bw_log=B", "--write_iops_log=I",
              "--log_avg_msec=50"])
    (ours, our_logs, _), fio_logs = r["iolens"], r["fio"][1]
    assert list(our_logs) == list(fio_logs)
    windows = ours["read"]["runtime"] / 50
    for name in fio_logs:
        a, b = our_logs[name], fio_logs[name]
        if "slat" in name:
            assert a == b == []
            continue
        if name.startswith("L_"):
            assert abs(len(a) - len(b)) <= 1, (name, len(a), len(b))
        assert windows - 1 <= len(a) <= windows + 1, (name, len(a), windows)
        assert {tuple(l[2:]) for l in a} == {tuple(l[2:]) for l in b} == {("0", "0", "0")}
        times = [int(l[0]) for l in a]
        assert times == sorted(times) and times[0] >= 50
    # The windows that are whole: 50 I/Os, 200 KiB in 50 ms.
    for name, want in (("I_iops.1.log", 1000), ("B_bw.1.log", 4000)):
        for l in our_logs[name][:-1]:
            assert abs(int(l[1]) - want) <= want * 0.1, (name, l)


def test_fio2gnuplot_reads_them(iolens, runs):
    """fio's own fio2gnuplot computes its statistics from iolens's bw log
    as from fio's: the same files out, and averages near each other."""
    r = runs(["--write_bw_log=B", "--log_avg_msec=20"])
    got = {}
    for tool, (_, _, where) in r.items():
        p = subprocess.run(["fio2gnuplot", "-p", "B_bw.1.log"], cwd=where,
                           capture_output=True, text=True, timeout=60)
        assert p.returncode == 0, (tool, p.stdout, p.stderr)
        got[tool] = sorted(n for n in os.listdir(where) if n.startswith("B_bw.1."))
        with open(os.path.join(where, "B_bw.1.global")) as f:
            stats = dict(x.strip().split("=") for x in f if "=" in x)
        assert 3000 < float(stats["avg"]) < 5000, (tool, stats)
    assert got["iolens"] == got["fio"]


def test_a_link_where_a_log_goes_is_not_followed(iolens, plain_user, tmp_path):
    """Root writes its logs where it runs: a symbolic link another user
    planted in their place, in that user's folder, is refused, one line,
    and what it points at is left alone."""
    victim = tmp_path / "victim"
    victim.write_text("keep")
    where = plain_user.home
    plain_user.run("ln", "-s", str(victim), os.path.join(where, "L_lat.1.log"))
    p = run_in([IOLENS, "load"] + JOB + ["--write_lat_log=L"], where)
    assert p.returncode == 1 and p.stdout == "", p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "L_lat.1.log" in lines[0] and "link" in lines[0], lines
    assert victim.read_text() == "keep"


def dist(ns_values):
    """fio's latency distribution of these clats: {"latency_ns": {..},
    "latency_us": {..}, "latency_ms": {..}} in percent of them, 0.01 at
    least where a bucket has one."""
    ends = [2, 4, 10, 20, 50, 100, 250, 500, 750, 1000, 2000]
    names = [str(e) for e in ends] + [">=2000"]
    counts = {"latency_ns": [0] * 10, "latency_us": [0] * 10, "latency_ms": [0] * 12}
    for ns in ns_values:
        key, v = (("latency_ns", ns) if ns < 1000 else
                  ("latency_us", ns // 1000) if ns < 1000000 else ("latency_ms", ns // 1000000))
        counts[key][sum(1 for e in ends if v >= e)] += 1
    out = {}
    for key, c in counts.items():
        out[key] = {names[i]: (max(100.0 * n / len(ns_values), 0.01) if n else 0.0)
                    for i, n in enumerate(c)}
    return out


def test_latency_distribution_is_the_clat_logs(iolens, runs):
    """fio's latency_ns/us/ms (and the text's "lat (usec)" lines) count
    every I/O by its clat: recounted here from the clat log, line by line,
    they are the JSON's exactly, and the keys are fio's."""
    r = runs(["--write_lat_log=l", "--rate_iops=0"])
    job, logs, where = r["iolens"]
    clats = [int(l[1]) for l in logs["l_clat.1.log"]]
    assert len(clats) == job["read"]["total_ios"] == 256
    want = dist(clats)
    for key, buckets in want.items():
        assert list(job[key]) == list(r["fio"][0][key]), key
        for name, pct in buckets.items():
            assert abs(job[key][name] - pct) < 1e-6, (key, name, job[key][name], pct)
    # The text's lines, of another run: fio's form, every I/O in them.
    text = run_in([IOLENS, "load"] + JOB + ["--rate_iops=0"], where).stdout
    total = 0.0
    for unit in ("nsec", "usec", "msec"):
        for line in re.findall(r"^  lat \(%s\)   : (.*)$" % unit, text, re.M):
            items = line.split(", ")
            assert 1 <= len(items) <= 5, line
            for item in items:
                name, pct = re.fullmatch(r"(>?=?\d+)=(\d+\.\d\d)%", item).groups()
                assert name in want["latency_ms"] and float(pct) > 0, item
                total += float(pct)
    assert abs(total - 100) < 0.2, text
